// What a handle means over time: a released handle never comes to mean a newer object, a
// handle of another type or a number never handed out is refused, and a result outlives the
// session that made it.
#include <cstring>

#include "tests/provider/provider_test_util.h"

namespace geon::provider_test {
namespace {

GeonSession* new_mlp_session() {
  GeonSession* s = nullptr;
  EXPECT_EQ(c_api().create_session(model_path("mlp.onnx").c_str(), nullptr, &s), nullptr);
  return s;
}

// One run of the MLP at batch 2 into a new result.
GeonResult* run_mlp(GeonSession* s, const std::vector<float>& x) {
  const int64_t shape[] = {2, 4};
  const GeonTensor in{1, 2, shape, const_cast<float*>(x.data()), x.size() * sizeof(float)};
  const char* name = "X";
  GeonResult* r = nullptr;
  EXPECT_EQ(take(c_api().run(s, &name, &in, 1, nullptr, 0, nullptr, &r)).message, "");
  return r;
}

TEST(ProviderHandles, AReleasedHandleStaysReleasedWhileNewHandlesAreMade) {
  const GeonApi& a = c_api();
  GeonSession* old = new_mlp_session();
  a.release_session(old);
  std::vector<GeonSession*> fresh;
  for (int i = 0; i < 20; ++i) fresh.push_back(new_mlp_session());
  for (GeonSession* s : fresh) {
    EXPECT_NE(s, old);
    EXPECT_EQ(a.session_input_count(s), 1u);
  }
  EXPECT_EQ(a.session_input_count(old), 0u);
  const StatusInfo refused = take(a.run(old, nullptr, nullptr, 0, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(refused.code, GEON_INVALID_ARGUMENT);
  EXPECT_NE(refused.message.find("the session handle was released (by release_session)"),
            std::string::npos)
      << refused.message;
  for (GeonSession* s : fresh) a.release_session(s);
}

TEST(ProviderHandles, AHandleOfAnotherTypeOrANumberNeverHandedOutIsRefused) {
  const GeonApi& a = c_api();
  GeonSession* s = new_mlp_session();
  GeonResult* r = run_mlp(s, mlp_input(2, 1));
  GeonTensor t{};
  // Each type has its own table: a session is no result, a result no session.
  const StatusInfo wrong_type =
      take(a.result_tensor(reinterpret_cast<const GeonResult*>(s), 0, &t));
  EXPECT_EQ(wrong_type.code, GEON_INVALID_ARGUMENT);
  EXPECT_NE(wrong_type.message.find("argument 'result' is not a result handle"), std::string::npos)
      << wrong_type.message;
  EXPECT_EQ(a.session_input_count(reinterpret_cast<const GeonSession*>(r)), 0u);
  a.release_session(reinterpret_cast<GeonSession*>(r));  // not a session: nothing happens
  EXPECT_EQ(a.result_count(r), 1u);

  // Addresses and numbers that were never handles, including the address of a live object.
  int local = 0;
  for (uintptr_t bogus :
       {uintptr_t{1}, uintptr_t{0x12345678}, reinterpret_cast<uintptr_t>(&local), ~uintptr_t{0}}) {
    SCOPED_TRACE(bogus);
    auto* h = reinterpret_cast<GeonSession*>(bogus);
    char* text = nullptr;
    const StatusInfo st = take(a.placement_report(h, &text));
    EXPECT_EQ(st.code, GEON_INVALID_ARGUMENT);
    EXPECT_NE(st.message.find("is not a session handle"), std::string::npos) << st.message;
    EXPECT_EQ(text, nullptr);
    a.release_session(h);
  }
  a.release_result(r);
  a.release_session(s);
}

TEST(ProviderHandles, AResultOutlivesItsSession) {
  const GeonApi& a = c_api();
  GeonSession* s = new_mlp_session();
  const std::vector<float> x = mlp_input(2, 5);
  GeonResult* r = run_mlp(s, x);
  a.release_session(s);
  ASSERT_EQ(a.result_count(r), 1u);
  EXPECT_STREQ(a.result_name(r, 0), "Y");
  GeonTensor t{};
  ASSERT_EQ(take(a.result_tensor(r, 0, &t)).message, "");
  ASSERT_EQ(t.rank, 2);
  EXPECT_EQ(t.shape[0], 2);
  EXPECT_EQ(t.shape[1], 3);
  const std::span<const float> got(static_cast<const float*>(t.data), 6);
  expect_close(got, mlp_reference(x, 2));
  a.release_result(r);
  a.release_result(r);  // twice: harmless
  EXPECT_EQ(a.result_count(r), 0u);
}

TEST(ProviderHandles, ReleasedOptionsLeaveTheSessionsMadeWithThemWorking) {
  const GeonApi& a = c_api();
  GeonOptions* o = nullptr;
  ASSERT_EQ(a.create_options(&o), nullptr);
  ASSERT_EQ(a.set_option(o, "devices", "cpu.generic"), nullptr);
  GeonSession* s = nullptr;
  ASSERT_EQ(a.create_session(model_path("mlp.onnx").c_str(), o, &s), nullptr);
  a.release_options(o);
  const StatusInfo refused = take(a.set_option(o, "strict", "1"));
  EXPECT_NE(refused.message.find("the options handle was released (by release_options)"),
            std::string::npos)
      << refused.message;
  const std::vector<float> x = mlp_input(2, 3);
  GeonResult* r = run_mlp(s, x);
  GeonTensor t{};
  ASSERT_EQ(take(a.result_tensor(r, 0, &t)).message, "");
  expect_close(std::span<const float>(static_cast<const float*>(t.data), 6), mlp_reference(x, 2));
  a.release_result(r);
  a.release_session(s);
}

}  // namespace
}  // namespace geon::provider_test
