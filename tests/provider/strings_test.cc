// String tensors through the C ABI (GeonString handles, geon.h): inputs read in place, a string
// constant, string kernels, a transpose of strings, numbers cast to text, and outputs that
// own their text (valid after the caller's input strings and the session are gone). Malformed
// handles and caller memory for string outputs are refused with the output's or input's name.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/provider/provider_test_util.h"

namespace geon::provider_test {
namespace {

std::vector<std::string> texts(const GeonTensor& t) {
  std::vector<std::string> out;
  const auto* h = static_cast<const GeonString*>(t.data);
  for (uint64_t k = 0; k < t.bytes / sizeof(GeonString); ++k)
    out.emplace_back(h[k].size ? std::string(h[k].data, h[k].size) : std::string());
  return out;
}

TEST(ProviderStrings, RunsAStringModelAndReturnsOwnedText) {
  const GeonApi& a = c_api();
  GeonSession* s = nullptr;
  ASSERT_EQ(take(a.create_session(model_path("strings.onnx").c_str(), nullptr, &s)).code, GEON_OK);
  auto x = std::make_unique<std::vector<std::string>>(
      std::vector<std::string>{"x", "-b", "", "é", "y", "-c"});
  std::vector<GeonString> handles = api::string_handles(*x);
  const int64_t xs[] = {2, 3}, ns[] = {3};
  const float n[] = {0.5f, -1e-5f, 3};
  const GeonTensor in[] = {{8, 2, xs, handles.data(), handles.size() * sizeof(GeonString)},
                           {1, 1, ns, const_cast<float*>(n), sizeof n}};
  const char* names[] = {"X", "N"};
  GeonResult* r = nullptr;
  ASSERT_EQ(take(a.run(s, names, in, 2, nullptr, 0, nullptr, &r)).code, GEON_OK);
  // The caller's strings and the session go away: the result owns its text.
  const std::vector<std::string> was = *x;
  x.reset();
  handles.assign(handles.size(), GeonString{nullptr, 0});
  a.release_session(s);
  const std::vector<std::string> suffix{"-a", "-b", "-c"};
  GeonTensor y{}, z{}, e{}, i{};
  ASSERT_EQ(take(a.result_tensor(r, 0, &y)).code, GEON_OK);
  ASSERT_EQ(take(a.result_tensor(r, 1, &z)).code, GEON_OK);
  ASSERT_EQ(take(a.result_tensor(r, 2, &e)).code, GEON_OK);
  ASSERT_EQ(take(a.result_tensor(r, 3, &i)).code, GEON_OK);
  ASSERT_EQ(y.dtype, 8);
  ASSERT_EQ(y.rank, 2);
  EXPECT_EQ(y.shape[0], 3);
  const std::vector<std::string> ys = texts(y);
  ASSERT_EQ(ys.size(), 6u);
  for (int r3 = 0; r3 < 3; ++r3)
    for (int c = 0; c < 2; ++c) EXPECT_EQ(ys[r3 * 2 + c], was[c * 3 + r3] + suffix[r3]);
  EXPECT_EQ(texts(z), (std::vector<std::string>{"0.5", "-1e-05", "3"}));
  const auto* eq = static_cast<const uint8_t*>(e.data);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(eq[k], was[k] == suffix[k % 3] ? 1 : 0) << k;
  EXPECT_EQ(texts(i), was);
  a.release_result(r);
}

TEST(ProviderStrings, RefusesMalformedHandlesAndCallerMemoryForStrings) {
  const GeonApi& a = c_api();
  GeonSession* s = nullptr;
  ASSERT_EQ(take(a.create_session(model_path("strings.onnx").c_str(), nullptr, &s)).code, GEON_OK);
  GeonString bad[6] = {};
  bad[4] = {nullptr, 3};  // text without a pointer
  const int64_t xs[] = {2, 3}, ns[] = {3};
  float n[3] = {};
  const GeonTensor in[] = {{8, 2, xs, bad, sizeof bad}, {1, 1, ns, n, sizeof n}};
  const char* names[] = {"X", "N"};
  GeonResult* r = nullptr;
  StatusInfo st = take(a.run(s, names, in, 2, nullptr, 0, nullptr, &r));
  EXPECT_EQ(st.code, GEON_INVALID_ARGUMENT);
  EXPECT_NE(st.message.find("input 'X'"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("element 4"), std::string::npos) << st.message;

  GeonString ok[6] = {};
  const GeonTensor good[] = {{8, 2, xs, ok, sizeof ok}, {1, 1, ns, n, sizeof n}};
  GeonString sink[3] = {};
  const char* out_names[] = {"Z"};
  GeonTensor outs[] = {{8, 1, ns, sink, sizeof sink}};
  st = take(a.run(s, names, good, 2, out_names, 1, outs, &r));
  EXPECT_EQ(st.code, GEON_INVALID_ARGUMENT);
  EXPECT_NE(st.message.find("output 'Z'"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("returned in the result"), std::string::npos) << st.message;
  a.release_session(s);
}

TEST(ProviderStrings, TheWrapperCopiesStringOutputs) {
  const api::Session session(library(), model_path("strings.onnx"));
  const std::vector<std::string> x{"a", "b", "c", "d", "e", "f"};
  const std::vector<GeonString> h = api::string_handles(x);
  const std::vector<float> n{1, 2, 3};
  const api::Feed feeds[] = {{"X", 8, {2, 3}, h.data(), h.size() * sizeof(GeonString)},
                             {"N", 1, {3}, n.data(), n.size() * sizeof(float)}};
  const std::vector<api::Tensor> out = session.run(feeds, {"I", "Z"});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].strings, x);
  EXPECT_TRUE(out[0].data.empty());
  EXPECT_EQ(out[1].strings, (std::vector<std::string>{"1", "2", "3"}));
}

}  // namespace
}  // namespace geon::provider_test
