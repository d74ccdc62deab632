// cpu.generic DictVectorizer against a naive reference (each vocabulary word's value looked up
// in the map, 0 or "" when absent) and onnxruntime's outputs: one [1, V] row, duplicate words
// filled twice, unknown keys dropped; malformed maps refused.
#include <gtest/gtest.h>

#include <random>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/generic/maps/map_harness.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

std::unique_ptr<ListContext> vectorize(DType key, DType value, ListRef m,
                                       const std::vector<std::string>& words,
                                       const std::vector<int64_t>& ids = {}) {
  MapNode mn("DictVectorizer");
  mn.map(key, value, std::move(m)).out(value);
  if (key == DType::kString)
    mn.attr_strings("string_vocabulary", words);
  else
    mn.attr_ints("int64_vocabulary", ids);
  return mn.run(gen());
}

std::vector<double> row(const Host& h) {
  EXPECT_EQ(h.desc.rank(), 2);
  EXPECT_EQ(h.desc.shape[0], 1);
  std::vector<double> out;
  for (int64_t i = 0; i < element_count(h.desc); ++i) out.push_back(h.at(i));
  return out;
}

TEST(MapsDictVectorizer, MatchesOnnxruntimesRows) {
  // onnxruntime 1.31, vocabulary [a, c, b, z]: {a: 4, c: 8} -> [[4, 8, 0, 0]]; {a: 4, q: 8} ->
  // [[4, 0, 0, 0]]; vocabulary [a, a, b] and {a: 4, b: 8} -> [[4, 4, 8]].
  EXPECT_EQ(row(vectorize(DType::kString, DType::kFloat,
                          text_map({"a", "c"}, DType::kFloat, {4, 8}), {"a", "c", "b", "z"})
                    ->outs_.at(0)),
            (std::vector<double>{4, 8, 0, 0}));
  EXPECT_EQ(row(vectorize(DType::kString, DType::kFloat,
                          text_map({"a", "q"}, DType::kFloat, {4, 8}), {"a", "c", "b", "z"})
                    ->outs_.at(0)),
            (std::vector<double>{4, 0, 0, 0}));
  EXPECT_EQ(row(vectorize(DType::kString, DType::kFloat,
                          text_map({"a", "b"}, DType::kFloat, {4, 8}), {"a", "a", "b"})
                    ->outs_.at(0)),
            (std::vector<double>{4, 4, 8}));
  // int64 vocabulary [3, 1, 2] and {1: 1.5, 3: 2.5} -> [[2.5, 1.5, 0]].
  EXPECT_EQ(row(vectorize(DType::kInt64, DType::kFloat, int_map({1, 3}, DType::kFloat, {1.5, 2.5}),
                          {}, {3, 1, 2})
                    ->outs_.at(0)),
            (std::vector<double>{2.5, 1.5, 0}));
}

TEST(MapsDictVectorizer, RandomMapsAgainstANaiveLookup) {
  std::mt19937 rng(7);
  std::vector<int64_t> vocab;
  for (int i = 0; i < 30; ++i) vocab.push_back(static_cast<int64_t>(rng() % 50) - 10);
  for (DType value : {DType::kFloat, DType::kDouble}) {
    std::vector<int64_t> keys;
    std::vector<double> values;
    for (int k = 0; k < 20; ++k) {
      const int64_t key = static_cast<int64_t>(rng() % 60) - 10;
      if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
      keys.push_back(key);
      values.push_back(static_cast<double>(rng() % 1000) / 8);
    }
    std::vector<double> want;
    for (int64_t w : vocab) {
      auto it = std::find(keys.begin(), keys.end(), w);
      want.push_back(it == keys.end() ? 0 : values[static_cast<size_t>(it - keys.begin())]);
    }
    EXPECT_EQ(
        row(vectorize(DType::kInt64, value, int_map(keys, value, values), {}, vocab)->outs_.at(0)),
        want);
  }
}

TEST(MapsDictVectorizer, IntegerAndStringValuesAndARepeatedKey) {
  // int64 values stay exact (2^53 + 1 has no double).
  const int64_t big = (int64_t{1} << 53) + 1;
  auto l = std::make_shared<ListValue>();
  l->items.push_back(owned(strings({2}, {"v", "u"})));
  Host vals = Host::dense(DType::kInt64, {2});
  const int64_t raw[2] = {big, -7};
  std::memcpy(vals.bytes->data(), raw, sizeof raw);
  l->items.push_back(owned(vals));
  const Host y = vectorize(DType::kString, DType::kInt64, l, {"u", "w", "v"})->outs_.at(0);
  const auto* out = reinterpret_cast<const int64_t*>(y.bytes->data());
  EXPECT_EQ(out[0], -7);
  EXPECT_EQ(out[1], 0);
  EXPECT_EQ(out[2], big);

  const Host s =
      vectorize(DType::kInt64, DType::kString, int_text_map({2, 9}, {"two", "nine"}), {}, {9, 4, 2})
          ->outs_.at(0);
  EXPECT_EQ(all_strings(s), (std::vector<std::string>{"nine", "", "two"}));

  // A key repeated in the map gives its later value.
  EXPECT_EQ(
      row(vectorize(DType::kInt64, DType::kFloat, int_map({1, 1}, DType::kFloat, {3, 5}), {}, {1})
              ->outs_.at(0)),
      (std::vector<double>{5}));
  // An empty map gives zeros.
  EXPECT_EQ(row(vectorize(DType::kInt64, DType::kFloat, int_map({}, DType::kFloat, {}), {}, {4, 5})
                    ->outs_.at(0)),
            (std::vector<double>{0, 0}));
}

TEST(MapsDictVectorizer, RefusesMalformedMaps) {
  auto uneven = std::make_shared<ListValue>();
  uneven->items.push_back(owned(ints({1, 2, 3})));
  uneven->items.push_back(owned(Host::of(DType::kFloat, {2}, {1, 2})));
  MapNode a("DictVectorizer");
  a.map(DType::kInt64, DType::kFloat, uneven).out(DType::kFloat).attr_ints("int64_vocabulary", {1});
  expect_run_error(a, gen(), ErrorCode::kInvalidArgument, "has 3 keys but 2 values");

  auto three = std::make_shared<ListValue>(*int_map({1}, DType::kFloat, {1}));
  three->items.push_back(three->items[0]);
  MapNode b("DictVectorizer");
  b.map(DType::kInt64, DType::kFloat, three).out(DType::kFloat).attr_ints("int64_vocabulary", {1});
  expect_run_error(b, gen(), ErrorCode::kInvalidArgument, "must be a map: two tensors");

  MapNode c("DictVectorizer");
  c.map(DType::kInt64, DType::kFloat, int_map({1}, DType::kDouble, {1}))
      .out(DType::kFloat)
      .attr_ints("int64_vocabulary", {1});
  expect_run_error(c, gen(), ErrorCode::kInvalidArgument, "its values must be float, got double");

  auto flat = std::make_shared<ListValue>();
  Host k2 = Host::of(DType::kInt64, {1, 1}, {1});
  flat->items.push_back(owned(k2));
  flat->items.push_back(owned(Host::of(DType::kFloat, {1}, {1})));
  MapNode d("DictVectorizer");
  d.map(DType::kInt64, DType::kFloat, flat).out(DType::kFloat).attr_ints("int64_vocabulary", {1});
  expect_run_error(d, gen(), ErrorCode::kInvalidArgument, "its keys must be 1-D, got rank 2");
}

TEST(MapsDictVectorizer, SupportsOnlyOneVocabularyOfTheKeysType) {
  MapNode both("DictVectorizer");
  both.map(DType::kInt64, DType::kFloat, nullptr)
      .out(DType::kFloat)
      .attr_ints("int64_vocabulary", {1})
      .attr_strings("string_vocabulary", {"a"});
  EXPECT_NE(both.supports(gen()), std::nullopt);
  MapNode wrong("DictVectorizer");
  wrong.map(DType::kInt64, DType::kFloat, nullptr)
      .out(DType::kFloat)
      .attr_strings("string_vocabulary", {"a"});
  EXPECT_NE(wrong.supports(gen()), std::nullopt);
  MapNode type("DictVectorizer");
  type.map(DType::kInt64, DType::kInt64, nullptr)
      .out(DType::kInt64)
      .attr_ints("int64_vocabulary", {1});
  EXPECT_NE(type.supports(gen()), std::nullopt);
  MapNode ok("DictVectorizer");
  ok.map(DType::kString, DType::kDouble, nullptr)
      .out(DType::kDouble)
      .attr_strings("string_vocabulary", {"a"});
  EXPECT_EQ(ok.supports(gen()), std::nullopt);
}

}  // namespace
}  // namespace geon::cpu::testing
