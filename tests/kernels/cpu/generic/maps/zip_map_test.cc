// cpu.generic ZipMap against a naive reference (a std::map filled column by column, so a
// repeated label keeps its last column) and the maps onnxruntime gives: N maps for [N, C], one
// for [C], none for [0, C]; keys in order; wrong ranks and column counts refused.
#include <gtest/gtest.h>

#include <random>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/generic/maps/map_harness.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

const ValueType kSeqStringMaps{TypeKind::kSequence, DType::kFloat, TypeKind::kMap, DType::kString};
const ValueType kSeqIntMaps{TypeKind::kSequence, DType::kFloat, TypeKind::kMap, DType::kInt64};

TEST(MapsZipMap, StringLabelsGiveOneMapPerRowAgainstANaiveMap) {
  std::mt19937 rng(3);
  const std::vector<std::string> labels{"b", "a", "zeta", "b", "c"};  // "b" twice
  const Host x = Host::random(DType::kFloat, {4, 5}, rng);
  MapNode mn("ZipMap");
  mn.tensor(x).out(kSeqStringMaps).attr_strings("classlabels_strings", labels);
  const ListRef z = mn.run(gen())->out_lists_.at(0);
  ASSERT_EQ(z->items.size(), 8u);
  for (int64_t r = 0; r < 4; ++r) {
    std::map<std::string, double> want;
    for (size_t c = 0; c < labels.size(); ++c)
      want[labels[c]] = x.at(r * 5 + static_cast<int64_t>(c));
    std::vector<std::string> keys;
    std::vector<double> values;
    for (const auto& [k, v] : want) {
      keys.push_back(k);
      values.push_back(v);
    }
    EXPECT_EQ(texts(z->items[2 * r]), keys) << "row " << r;
    EXPECT_EQ(numbers(z->items[2 * r + 1]), values) << "row " << r;
  }
}

TEST(MapsZipMap, MatchesOnnxruntimesMaps) {
  // onnxruntime 1.31: labels [5, 3] on [[1, 2], [3, 4]] give {3: 2, 5: 1}, {3: 4, 5: 3}.
  MapNode mn("ZipMap");
  mn.tensor(Host::of(DType::kFloat, {2, 2}, {1, 2, 3, 4}))
      .out(kSeqIntMaps)
      .attr_ints("classlabels_int64s", {5, 3});
  const ListRef z = mn.run(gen())->out_lists_.at(0);
  ASSERT_EQ(z->items.size(), 4u);
  EXPECT_EQ(int64s(z->items[0]), (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(numbers(z->items[1]), (std::vector<double>{2, 1}));
  EXPECT_EQ(int64s(z->items[2]), (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(numbers(z->items[3]), (std::vector<double>{4, 3}));
  // Labels [5, 5] keep the last column: {5: 2}, {5: 4}.
  MapNode dup("ZipMap");
  dup.tensor(Host::of(DType::kFloat, {2, 2}, {1, 2, 3, 4}))
      .out(kSeqIntMaps)
      .attr_ints("classlabels_int64s", {5, 5});
  const ListRef d = dup.run(gen())->out_lists_.at(0);
  ASSERT_EQ(d->items.size(), 4u);
  EXPECT_EQ(int64s(d->items[0]), (std::vector<int64_t>{5}));
  EXPECT_EQ(numbers(d->items[1]), (std::vector<double>{2}));
  EXPECT_EQ(numbers(d->items[3]), (std::vector<double>{4}));
}

TEST(MapsZipMap, AVectorIsOneRowAndNoRowsGiveNoMaps) {
  MapNode one("ZipMap");
  one.tensor(Host::of(DType::kFloat, {3}, {0, 1, 2}))
      .out(kSeqStringMaps)
      .attr_strings("classlabels_strings", {"a", "b", "c"});
  const ListRef z = one.run(gen())->out_lists_.at(0);
  ASSERT_EQ(z->items.size(), 2u);
  EXPECT_EQ(texts(z->items[0]), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(numbers(z->items[1]), (std::vector<double>{0, 1, 2}));
  MapNode none("ZipMap");
  none.tensor(Host::dense(DType::kFloat, {0, 3}))
      .out(kSeqStringMaps)
      .attr_strings("classlabels_strings", {"a", "b", "c"});
  EXPECT_TRUE(none.run(gen())->out_lists_.at(0)->items.empty());
}

TEST(MapsZipMap, ReadsAStridedInput) {
  std::mt19937 rng(5);
  const Host x = Host::random(DType::kFloat, {3, 2}, rng).strided({1, 0});
  MapNode mn("ZipMap");
  mn.tensor(x).out(kSeqIntMaps).attr_ints("classlabels_int64s", {0, 1});
  const ListRef z = mn.run(gen())->out_lists_.at(0);
  ASSERT_EQ(z->items.size(), 6u);
  for (int64_t r = 0; r < 3; ++r)
    EXPECT_EQ(numbers(z->items[2 * r + 1]), (std::vector<double>{x.at(2 * r), x.at(2 * r + 1)}));
}

TEST(MapsZipMap, RefusesWrongRanksColumnsAndLabels) {
  MapNode rank3("ZipMap");
  rank3.tensor(Host::dense(DType::kFloat, {1, 1, 2}))
      .out(kSeqIntMaps)
      .attr_ints("classlabels_int64s", {1, 2});
  expect_run_error(rank3, gen(), ErrorCode::kInvalidArgument, "must be [N, C] or [C], got rank 3");
  MapNode cols("ZipMap");
  cols.tensor(Host::dense(DType::kFloat, {0, 2}))
      .out(kSeqIntMaps)
      .attr_ints("classlabels_int64s", {1, 2, 3});
  expect_run_error(cols, gen(), ErrorCode::kInvalidArgument,
                   "has 2 columns but there are 3 class labels");
  MapNode both("ZipMap");
  both.tensor(Host::dense(DType::kFloat, {1, 2}))
      .out(kSeqIntMaps)
      .attr_ints("classlabels_int64s", {1, 2})
      .attr_strings("classlabels_strings", {"a", "b"});
  EXPECT_NE(both.supports(gen()), std::nullopt);
  MapNode neither("ZipMap");
  neither.tensor(Host::dense(DType::kFloat, {1, 2})).out(kSeqIntMaps);
  EXPECT_NE(neither.supports(gen()), std::nullopt);
  MapNode ints("ZipMap");
  ints.tensor(Host::dense(DType::kDouble, {1, 2}))
      .out(kSeqIntMaps)
      .attr_ints("classlabels_int64s", {1, 2});
  EXPECT_NE(ints.supports(gen()), std::nullopt);
}

}  // namespace
}  // namespace geon::cpu::testing
