// cpu.generic CastMap against onnxruntime's outputs (DENSE rows in key order, SPARSE rows of
// max_map slots padded with 0 or "0.f", std::to_string text, truncation to int64) and a naive
// reference on random maps; keys outside [0, max_map) and unreadable text refused.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/generic/maps/map_harness.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

DType dtype_of(const std::string& to) {
  return to == "TO_STRING" ? DType::kString : to == "TO_INT64" ? DType::kInt64 : DType::kFloat;
}

// A CastMap node of map(int64, value) fed `m`; `max_map` > 0 makes it SPARSE.
struct Cast {
  MapNode mn{"CastMap"};
  Cast(DType value, ListRef m, const std::string& to, int64_t max_map = 0) {
    mn.map(DType::kInt64, value, std::move(m)).out(dtype_of(to)).attr_s("cast_to", to);
    if (max_map > 0) mn.attr_s("map_form", "SPARSE").attr_i("max_map", max_map);
  }
  Host run() const {
    const Host y = mn.run(gen())->outs_.at(0);
    EXPECT_EQ(y.desc.rank(), 2);
    EXPECT_EQ(y.desc.shape[0], 1);
    return y;
  }
};

std::vector<double> values_of(const Host& h) {
  std::vector<double> out;
  for (int64_t i = 0; i < element_count(h.desc); ++i) out.push_back(h.at(i));
  return out;
}
std::vector<int64_t> int64s_of(const Host& h) {
  std::vector<int64_t> out(static_cast<size_t>(element_count(h.desc)));
  if (!out.empty()) std::memcpy(out.data(), h.bytes->data(), out.size() * sizeof(int64_t));
  return out;
}

TEST(MapsCastMap, DenseMatchesOnnxruntime) {
  // onnxruntime 1.31 on {3: 1, 1: 2, 7: 3}: [[2, 1, 3]].
  EXPECT_EQ(
      values_of(
          Cast(DType::kFloat, int_map({3, 1, 7}, DType::kFloat, {1, 2, 3}), "TO_FLOAT").run()),
      (std::vector<double>{2, 1, 3}));
  // {3: 1.7, 1: -2.7, 7: 3} to int64: [[-2, 1, 3]] (truncation).
  EXPECT_EQ(
      int64s_of(
          Cast(DType::kFloat, int_map({3, 1, 7}, DType::kFloat, {1.7, -2.7, 3}), "TO_INT64").run()),
      (std::vector<int64_t>{-2, 1, 3}));
  // To string: std::to_string's "%f".
  EXPECT_EQ(all_strings(Cast(DType::kFloat,
                             int_map({3, 1, 7, 8, 9}, DType::kFloat, {1.7, -2.5, 3, 1e10, 0.1}),
                             "TO_STRING")
                            .run()),
            (std::vector<std::string>{"-2.500000", "1.700000", "3.000000", "10000000000.000000",
                                      "0.100000"}));
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(
      all_strings(Cast(DType::kFloat,
                       int_map({1, 2, 3, 4, 5}, DType::kFloat, {NAN, inf, -0.0, 123456789.0, 1e-7}),
                       "TO_STRING")
                      .run()),
      (std::vector<std::string>{"nan", "inf", "-0.000000", "123456792.000000", "0.000000"}));
  // NaN and out-of-range floats give INT64_MIN, as onnxruntime's x86 cast does.
  EXPECT_EQ(int64s_of(Cast(DType::kFloat, int_map({1, 2, 3}, DType::kFloat, {NAN, 3e20, -3e20}),
                           "TO_INT64")
                          .run()),
            (std::vector<int64_t>(3, std::numeric_limits<int64_t>::min())));
  // A negative key is fine for DENSE: {-5: 1, 2: 2} -> [[1, 2]].
  EXPECT_EQ(
      values_of(Cast(DType::kFloat, int_map({2, -5}, DType::kFloat, {2, 1}), "TO_FLOAT").run()),
      (std::vector<double>{1, 2}));
}

TEST(MapsCastMap, SparseMatchesOnnxruntime) {
  // max_map 6 on {3: 1, 1: 2}: [[0, 2, 0, 1, 0, 0]]; strings pad with "0.f".
  const ListRef m = int_map({3, 1}, DType::kFloat, {1, 2});
  EXPECT_EQ(values_of(Cast(DType::kFloat, m, "TO_FLOAT", 6).run()),
            (std::vector<double>{0, 2, 0, 1, 0, 0}));
  EXPECT_EQ(int64s_of(Cast(DType::kFloat, m, "TO_INT64", 6).run()),
            (std::vector<int64_t>{0, 2, 0, 1, 0, 0}));
  EXPECT_EQ(all_strings(Cast(DType::kFloat, m, "TO_STRING", 6).run()),
            (std::vector<std::string>{"0.f", "2.000000", "0.f", "1.000000", "0.f", "0.f"}));
}

TEST(MapsCastMap, RandomMapsAgainstANaiveSort) {
  std::mt19937 rng(9);
  std::vector<int64_t> keys;
  std::vector<double> values;
  for (int i = 0; i < 40; ++i) {
    const int64_t k = static_cast<int64_t>(rng() % 100);
    if (std::find(keys.begin(), keys.end(), k) != keys.end()) continue;
    keys.push_back(k);
    values.push_back(static_cast<double>(static_cast<int>(rng() % 2000) - 1000) / 4);
  }
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  std::vector<double> dense;
  for (size_t i : order) dense.push_back(values[i]);
  std::vector<double> sparse(100, 0);
  for (size_t i = 0; i < keys.size(); ++i) sparse[static_cast<size_t>(keys[i])] = values[i];
  const ListRef m = int_map(keys, DType::kFloat, values);
  EXPECT_EQ(values_of(Cast(DType::kFloat, m, "TO_FLOAT").run()), dense);
  EXPECT_EQ(values_of(Cast(DType::kFloat, m, "TO_FLOAT", 100).run()), sparse);
}

TEST(MapsCastMap, TextValuesFollowStofAndStoll) {
  const ListRef m = int_text_map({1, 3, 4}, {"2.5", " 4", "1e3x"});
  EXPECT_EQ(values_of(Cast(DType::kString, m, "TO_FLOAT").run()),
            (std::vector<double>{2.5, 4, 1000}));
  EXPECT_EQ(int64s_of(Cast(DType::kString, int_text_map({1, 2}, {"25", "-2.7"}), "TO_INT64").run()),
            (std::vector<int64_t>{25, -2}));
  EXPECT_EQ(all_strings(Cast(DType::kString, int_text_map({2, 1}, {"b", "a"}), "TO_STRING").run()),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(all_strings(Cast(DType::kString, int_text_map({1}, {"x"}), "TO_STRING", 3).run()),
            (std::vector<std::string>{"0.f", "x", "0.f"}));
  expect_run_error(Cast(DType::kString, int_text_map({1}, {"abc"}), "TO_FLOAT").mn, gen(),
                   ErrorCode::kInvalidArgument, "the value 'abc' cannot be read as a float");
  expect_run_error(Cast(DType::kString, int_text_map({1}, {"99999999999999999999"}), "TO_INT64").mn,
                   gen(), ErrorCode::kInvalidArgument, "cannot be read as an int64");
}

TEST(MapsCastMap, RepeatedKeysEmptyMapsAndKeysOutsideTheSlots) {
  EXPECT_EQ(
      values_of(Cast(DType::kFloat, int_map({2, 2}, DType::kFloat, {1, 9}), "TO_FLOAT").run()),
      (std::vector<double>{9}));
  const Host empty = Cast(DType::kFloat, int_map({}, DType::kFloat, {}), "TO_FLOAT").run();
  EXPECT_EQ(empty.desc.shape, (Dims{1, 0}));
  // onnxruntime refuses a negative key and drops keys past max_map - 1; both are refused here.
  expect_run_error(Cast(DType::kFloat, int_map({-1, 1}, DType::kFloat, {1, 2}), "TO_FLOAT", 3).mn,
                   gen(), ErrorCode::kOutOfRange, "key -1 is outside [0, max_map) = [0, 3)");
  expect_run_error(Cast(DType::kFloat, int_map({3, 1}, DType::kFloat, {1, 2}), "TO_FLOAT", 3).mn,
                   gen(), ErrorCode::kOutOfRange, "key 3 is outside");
  auto uneven = std::make_shared<ListValue>();
  uneven->items.push_back(owned(ints({1})));
  uneven->items.push_back(owned(Host::of(DType::kFloat, {2}, {1, 2})));
  expect_run_error(Cast(DType::kFloat, uneven, "TO_FLOAT").mn, gen(), ErrorCode::kInvalidArgument,
                   "has 1 keys but 2 values");
}

TEST(MapsCastMap, SupportsChecksTheAttributesAndTypes) {
  Cast bad_to(DType::kFloat, nullptr, "TO_FLOAT");
  bad_to.mn.attr_s("cast_to", "TO_DOUBLE");
  EXPECT_NE(bad_to.mn.supports(gen()), std::nullopt);
  Cast bad_form(DType::kFloat, nullptr, "TO_FLOAT");
  bad_form.mn.attr_s("map_form", "SPARS");
  EXPECT_NE(bad_form.mn.supports(gen()), std::nullopt);
  Cast zero(DType::kFloat, nullptr, "TO_FLOAT");
  zero.mn.attr_s("map_form", "SPARSE").attr_i("max_map", 0);
  EXPECT_NE(zero.mn.supports(gen()), std::nullopt);
  Cast dbl(DType::kDouble, nullptr, "TO_FLOAT");
  EXPECT_NE(dbl.mn.supports(gen()), std::nullopt);
  Cast ok(DType::kString, nullptr, "TO_INT64", 4);
  EXPECT_EQ(ok.mn.supports(gen()), std::nullopt);
}

}  // namespace
}  // namespace geon::cpu::testing
