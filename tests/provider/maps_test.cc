// Maps through the C ABI (version 4) on tests/provider/models/maps.onnx: M, a map(int64, float),
// and Q, a seq(map(string, float)), come back as fed; V = DictVectorizer(M) over the vocabulary
// 1, 2, 3, 5. Declared types, result kinds, and every malformed map refused by name.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/provider/provider_test_util.h"

namespace geon::provider_test {
namespace {

const std::vector<int64_t> kVocabulary{1, 2, 3, 5};

class Maps : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(take(c_api().create_session(model_path("maps.onnx").c_str(), nullptr, &s_)).code,
              GEON_OK);
    // M = {1: 2, 5: 3, 7: 9}; Q = [{"a": 1}, {"b": 2, "c": 3}].
    m_keys_ = {1, 5, 7};
    m_values_ = {2, 3, 9};
    texts_ = {"a", "b", "c"};
    for (const std::string& t : texts_) handles_.push_back(GeonString{t.data(), t.size()});
    q_values_ = {1, 2, 3};
    lengths_ = {3, 1, 2};
    m_ = {GeonTensor{7, 1, &lengths_[0], m_keys_.data(), 3 * sizeof(int64_t)},
          GeonTensor{1, 1, &lengths_[0], m_values_.data(), 3 * sizeof(float)}};
    q_ = {GeonTensor{8, 1, &lengths_[1], &handles_[0], sizeof(GeonString)},
          GeonTensor{1, 1, &lengths_[1], &q_values_[0], sizeof(float)},
          GeonTensor{8, 1, &lengths_[2], &handles_[1], 2 * sizeof(GeonString)},
          GeonTensor{1, 1, &lengths_[2], &q_values_[1], 2 * sizeof(float)}};
  }
  void TearDown() override { c_api().release_session(s_); }

  StatusInfo run(const GeonValue& m, const GeonValue& q, GeonResult** r) {
    const GeonValue values[] = {m, q};
    const char* names[] = {"M", "Q"};
    return take(c_api().run_values(s_, names, values, 2, nullptr, 0, r));
  }
  GeonValue m_value() { return GeonValue{GEON_VALUE_MAP, 2, m_.data()}; }
  GeonValue q_value() { return GeonValue{GEON_VALUE_MAP_SEQUENCE, 4, q_.data()}; }

  GeonSession* s_ = nullptr;
  std::vector<int64_t> m_keys_, lengths_;
  std::vector<float> m_values_, q_values_;
  std::vector<std::string> texts_;
  std::vector<GeonString> handles_;
  std::vector<GeonTensor> m_, q_;
};

template <typename T>
std::vector<T> items(const GeonTensor& t) {
  const auto* p = static_cast<const T*>(t.data);
  return std::vector<T>(p, p + t.bytes / sizeof(T));
}

std::vector<std::string> texts(const GeonTensor& t) {
  std::vector<std::string> out;
  for (const GeonString& s : items<GeonString>(t)) out.emplace_back(s.data, s.size);
  return out;
}

TEST_F(Maps, DeclaredTypesUseOnnxNotation) {
  EXPECT_EQ(type_of(s_, 0, true), "map(int64,tensor(float))");
  EXPECT_EQ(type_of(s_, 1, true), "seq(map(string,tensor(float)))");
  EXPECT_EQ(type_of(s_, 2, false), "tensor(float)");
}

TEST_F(Maps, MapsComeBackAsFedAndFeedDictVectorizer) {
  GeonResult* r = nullptr;
  ASSERT_EQ(run(m_value(), q_value(), &r).code, GEON_OK);
  GeonValue m{}, q{}, v{};
  ASSERT_EQ(take(c_api().result_value(r, 0, &m)).code, GEON_OK);
  ASSERT_EQ(take(c_api().result_value(r, 1, &q)).code, GEON_OK);
  ASSERT_EQ(take(c_api().result_value(r, 2, &v)).code, GEON_OK);
  ASSERT_EQ(m.kind, GEON_VALUE_MAP);
  ASSERT_EQ(m.count, 2u);
  EXPECT_EQ(items<int64_t>(m.tensors[0]), m_keys_);
  EXPECT_EQ(items<float>(m.tensors[1]), m_values_);
  ASSERT_EQ(q.kind, GEON_VALUE_MAP_SEQUENCE);
  ASSERT_EQ(q.count, 4u);
  EXPECT_EQ(texts(q.tensors[0]), std::vector<std::string>{"a"});
  EXPECT_EQ(items<float>(q.tensors[1]), std::vector<float>{1});
  EXPECT_EQ(texts(q.tensors[2]), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(items<float>(q.tensors[3]), (std::vector<float>{2, 3}));
  // V: the value of each vocabulary entry in M, 0 where M has none.
  std::map<int64_t, float> fed;
  for (size_t k = 0; k < m_keys_.size(); ++k) fed[m_keys_[k]] = m_values_[k];
  std::vector<float> want;
  for (int64_t key : kVocabulary) want.push_back(fed.count(key) ? fed[key] : 0.f);
  ASSERT_EQ(v.kind, GEON_VALUE_TENSOR);
  ASSERT_EQ(v.tensors[0].rank, 2);
  EXPECT_EQ(v.tensors[0].shape[0], 1);
  EXPECT_EQ(items<float>(v.tensors[0]), want);
  // A map output is no tensor.
  GeonTensor t{};
  const StatusInfo st = take(c_api().result_tensor(r, 0, &t));
  EXPECT_EQ(st.code, GEON_INVALID_ARGUMENT);
  EXPECT_NE(st.message.find("result_value"), std::string::npos) << st.message;
  c_api().release_result(r);
}

TEST_F(Maps, EmptyMapsRun) {
  std::vector<int64_t> zero{0};
  const GeonTensor empty[] = {GeonTensor{7, 1, zero.data(), nullptr, 0},
                              GeonTensor{1, 1, zero.data(), nullptr, 0}};
  GeonResult* r = nullptr;
  ASSERT_EQ(
      run(GeonValue{GEON_VALUE_MAP, 2, empty}, GeonValue{GEON_VALUE_MAP_SEQUENCE, 0, nullptr}, &r)
          .code,
      GEON_OK);
  GeonValue v{};
  ASSERT_EQ(take(c_api().result_value(r, 2, &v)).code, GEON_OK);
  EXPECT_EQ(items<float>(v.tensors[0]), std::vector<float>(kVocabulary.size(), 0.f));
  c_api().release_result(r);
}

TEST_F(Maps, MalformedMapsAreRefusedByName) {
  std::vector<int64_t> two_by_one{2, 1}, one{1};
  std::vector<float> float_keys{1, 5, 7};
  const GeonTensor keys_2d[] = {GeonTensor{7, 2, two_by_one.data(), m_keys_.data(), 16},
                                GeonTensor{1, 1, &lengths_[2], m_values_.data(), 8}};
  const GeonTensor float_keyed[] = {GeonTensor{1, 1, &lengths_[0], float_keys.data(), 12}, m_[1]};
  const GeonTensor short_values[] = {m_[0], GeonTensor{1, 1, one.data(), m_values_.data(), 4}};
  const struct {
    GeonValue m, q;
    const char* input;
    const char* fragment;
  } bad[] = {
      {GeonValue{GEON_VALUE_MAP, 1, m_.data()}, q_value(), "'M'", "count 2"},
      {GeonValue{GEON_VALUE_SEQUENCE, 2, m_.data()}, q_value(), "'M'", "a sequence was given"},
      {GeonValue{GEON_VALUE_MAP, 2, keys_2d}, q_value(), "'M'", "1-D"},
      {GeonValue{GEON_VALUE_MAP, 2, float_keyed}, q_value(), "'M' keys", "int64"},
      {GeonValue{GEON_VALUE_MAP, 2, short_values}, q_value(), "'M'", "1 values for 3 keys"},
      {m_value(), GeonValue{GEON_VALUE_MAP_SEQUENCE, 3, q_.data()}, "'Q'", "even count"},
      {m_value(), GeonValue{GEON_VALUE_MAP, 2, q_.data()}, "'Q'", "a map was given"},
      {m_value(), GeonValue{GEON_VALUE_MAP_SEQUENCE, 2, m_.data()}, "'Q' map 0 keys", "string"},
  };
  for (const auto& b : bad) {
    GeonResult* r = nullptr;
    const StatusInfo st = run(b.m, b.q, &r);
    EXPECT_EQ(st.code, GEON_INVALID_ARGUMENT) << b.fragment;
    EXPECT_NE(st.message.find(b.input), std::string::npos) << st.message;
    EXPECT_NE(st.message.find(b.fragment), std::string::npos) << st.message;
    EXPECT_EQ(r, nullptr);
  }
  GeonResult* r = nullptr;
  ASSERT_EQ(run(m_value(), q_value(), &r).code, GEON_OK);  // still runs
  c_api().release_result(r);
}

}  // namespace
}  // namespace geon::provider_test
