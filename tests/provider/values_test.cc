// Sequences and optionals through the C ABI (version 3): run_values in and result_value out on
// models/values.onnx (X = SequenceAt(S, I), T = SequenceInsert(S, X), H = OptionalHasElement(O),
// P = Identity(O)), the declared types, and every malformed value refused by name.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tests/provider/provider_test_util.h"

namespace geon::provider_test {
namespace {

GeonTensor tensor_of(std::vector<float>& data, std::vector<int64_t>& shape) {
  return GeonTensor{1, static_cast<int32_t>(shape.size()), shape.data(), data.data(),
                    data.size() * sizeof(float)};
}

class Values : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(take(c_api().create_session(model_path("values.onnx").c_str(), nullptr, &s_)).code,
              GEON_OK);
  }
  void TearDown() override { c_api().release_session(s_); }

  // Runs with S = {a, b}, I = index and O = o (none when null); the status, and the result.
  StatusInfo run(int64_t index, const GeonValue* o, GeonResult** r, GeonValue s_value = {}) {
    a_ = {1, 2, 3};
    b_ = {4, 5};
    a_shape_ = {3};
    b_shape_ = {2};
    seq_ = {tensor_of(a_, a_shape_), tensor_of(b_, b_shape_)};
    if (s_value.kind == 0 && s_value.count == 0)
      s_value = GeonValue{GEON_VALUE_SEQUENCE, 2, seq_.data()};
    index_ = index;
    GeonTensor i{7, 0, nullptr, &index_, sizeof index_};
    const GeonValue none{GEON_VALUE_NONE, 0, nullptr};
    const GeonValue values[] = {s_value, GeonValue{GEON_VALUE_TENSOR, 1, &i}, o ? *o : none};
    const char* names[] = {"S", "I", "O"};
    return take(c_api().run_values(s_, names, values, 3, nullptr, 0, r));
  }

  GeonSession* s_ = nullptr;
  std::vector<float> a_, b_;
  std::vector<int64_t> a_shape_, b_shape_;
  std::vector<GeonTensor> seq_;
  int64_t index_ = 0;
};

std::vector<float> floats(const GeonTensor& t) {
  const auto* p = static_cast<const float*>(t.data);
  return std::vector<float>(p, p + t.bytes / sizeof(float));
}

TEST_F(Values, DeclaredTypesUseOnnxNotation) {
  EXPECT_EQ(type_of(s_, 0, true), "seq(tensor(float))");
  EXPECT_EQ(type_of(s_, 1, true), "tensor(int64)");
  EXPECT_EQ(type_of(s_, 2, true), "optional(tensor(float))");
  EXPECT_EQ(type_of(s_, 1, false), "seq(tensor(float))");
  char* t = nullptr;
  EXPECT_EQ(take(c_api().session_input_type(s_, 3, &t)).code, GEON_INVALID_ARGUMENT);
  EXPECT_EQ(take(c_api().session_input_type(s_, 0, nullptr)).code, GEON_INVALID_ARGUMENT);
}

TEST_F(Values, SequenceAndOptionalOutputsMatchTheirInputs) {
  for (int64_t index : {0, 1, -1, -2}) {
    std::vector<float> o_data{7, 8};
    std::vector<int64_t> o_shape{2};
    GeonTensor o_tensor = tensor_of(o_data, o_shape);
    const GeonValue o{GEON_VALUE_TENSOR, 1, &o_tensor};
    GeonResult* r = nullptr;
    ASSERT_EQ(run(index, &o, &r).code, GEON_OK);
    ASSERT_EQ(c_api().result_count(r), 4u);
    const std::vector<float>& picked = (index == 0 || index == -2) ? a_ : b_;

    GeonValue x{}, t{}, h{}, p{};
    ASSERT_EQ(take(c_api().result_value(r, 0, &x)).code, GEON_OK);
    ASSERT_EQ(x.kind, GEON_VALUE_TENSOR);
    ASSERT_EQ(x.count, 1u);
    EXPECT_EQ(floats(x.tensors[0]), picked);
    // A tensor output reads the same through result_tensor.
    GeonTensor direct{};
    ASSERT_EQ(take(c_api().result_tensor(r, 0, &direct)).code, GEON_OK);
    EXPECT_EQ(floats(direct), picked);

    ASSERT_EQ(take(c_api().result_value(r, 1, &t)).code, GEON_OK);
    ASSERT_EQ(t.kind, GEON_VALUE_SEQUENCE);
    ASSERT_EQ(t.count, 3u);
    EXPECT_EQ(floats(t.tensors[0]), a_);
    EXPECT_EQ(floats(t.tensors[1]), b_);
    EXPECT_EQ(floats(t.tensors[2]), picked);
    EXPECT_EQ(t.tensors[2].rank, 1);
    // result_tensor refuses a sequence, naming the output and what to call instead.
    const StatusInfo refused = take(c_api().result_tensor(r, 1, &direct));
    EXPECT_EQ(refused.code, GEON_INVALID_ARGUMENT);
    EXPECT_NE(refused.message.find("'T'"), std::string::npos) << refused.message;
    EXPECT_NE(refused.message.find("result_value"), std::string::npos) << refused.message;

    ASSERT_EQ(take(c_api().result_value(r, 2, &h)).code, GEON_OK);
    EXPECT_TRUE(*static_cast<const bool*>(h.tensors[0].data));
    ASSERT_EQ(take(c_api().result_value(r, 3, &p)).code, GEON_OK);
    ASSERT_EQ(p.kind, GEON_VALUE_TENSOR);
    EXPECT_EQ(floats(p.tensors[0]), o_data);
    c_api().release_result(r);
  }
}

TEST_F(Values, AnEmptyOptionalComesBackAsNone) {
  GeonResult* r = nullptr;
  ASSERT_EQ(run(0, nullptr, &r).code, GEON_OK);
  GeonValue h{}, p{};
  ASSERT_EQ(take(c_api().result_value(r, 2, &h)).code, GEON_OK);
  EXPECT_FALSE(*static_cast<const bool*>(h.tensors[0].data));
  ASSERT_EQ(take(c_api().result_value(r, 3, &p)).code, GEON_OK);
  EXPECT_EQ(p.kind, GEON_VALUE_NONE);
  EXPECT_EQ(p.count, 0u);
  EXPECT_EQ(take(c_api().result_value(r, 4, &p)).code, GEON_INVALID_ARGUMENT);
  c_api().release_result(r);
}

TEST_F(Values, MalformedValuesAreRefusedByName) {
  GeonResult* r = nullptr;
  // A position past the end: the node names itself and the range.
  StatusInfo st = run(2, nullptr, &r);
  EXPECT_EQ(st.code, GEON_INVALID_ARGUMENT);
  EXPECT_NE(st.message.find("SequenceAt"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("out of range"), std::string::npos) << st.message;
  EXPECT_EQ(r, nullptr);

  std::vector<float> d{1};
  std::vector<int64_t> shape{1};
  GeonTensor one = tensor_of(d, shape);
  GeonTensor ints{6, 1, shape.data(), d.data(), 4};  // int32, where float is declared
  const struct {
    GeonValue s;
    const char* fragment;
  } bad[] = {
      {GeonValue{GEON_VALUE_NONE, 0, nullptr}, "not an optional"},
      {GeonValue{GEON_VALUE_TENSOR, 1, &one}, "a tensor was given"},
      {GeonValue{GEON_VALUE_SEQUENCE, 1, nullptr}, "tensors is null"},
      {GeonValue{GEON_VALUE_SEQUENCE, uint64_t{1} << 40, &one}, "elements is more than"},
      {GeonValue{GEON_VALUE_SEQUENCE, 1, &ints}, "int32"},
      {GeonValue{9, 1, &one}, "not a GeonValueKind"},
  };
  for (const auto& b : bad) {
    st = run(0, nullptr, &r, b.s);
    EXPECT_EQ(st.code, GEON_INVALID_ARGUMENT) << b.fragment;
    EXPECT_NE(st.message.find("input 'S'"), std::string::npos) << st.message;
    EXPECT_NE(st.message.find(b.fragment), std::string::npos) << st.message;
    EXPECT_EQ(r, nullptr);
  }
  // The plain run() refuses a sequence input it cannot express.
  GeonTensor index{7, 0, nullptr, &index_, sizeof index_};
  const char* names[] = {"I"};
  st = take(c_api().run(s_, names, &index, 1, nullptr, 0, nullptr, &r));
  EXPECT_NE(st.code, GEON_OK);
  // The session still runs afterwards.
  ASSERT_EQ(run(1, nullptr, &r).code, GEON_OK);
  c_api().release_result(r);
}

}  // namespace
}  // namespace geon::provider_test
