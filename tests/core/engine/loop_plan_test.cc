// Loop plans: the generalized broadcasting rule, coalescing, and the index arithmetic that
// the CUDA kernels share (element_offset / row_offset are GEON_HD functions).
#include <gtest/gtest.h>

#include "core/base/error.h"

#include <algorithm>
#include <random>

#include "core/desc/views.h"
#include "core/engine/loop_plan.h"
#include "core/engine/parallel.h"
#include "tests/core/engine/random_views.h"

namespace geon {
namespace {

using namespace testing_views;

TEST(LoopShape, OperandsAreOneExtendedOnTheLeftAndTakeTheLargestLength) {
  const TensorDesc a = row_major(DType::kFloat, std::vector<int64_t>{3, 1, 5});
  const TensorDesc b = row_major(DType::kFloat, std::vector<int64_t>{4, 1});
  const TensorDesc* ops[] = {&a, &b};
  EXPECT_EQ(loop_shape(ops), (Dims{3, 4, 5}));
}

TEST(LoopShape, ShorterLengthMustDivideTheLoopLength) {
  const TensorDesc a = row_major(DType::kFloat, std::vector<int64_t>{6});
  const TensorDesc b = row_major(DType::kFloat, std::vector<int64_t>{4});
  const TensorDesc* ops[] = {&a, &b};
  EXPECT_THROW(loop_shape(ops), Error);
  const TensorDesc c = row_major(DType::kFloat, std::vector<int64_t>{3});
  const TensorDesc* ok[] = {&a, &c};
  EXPECT_EQ(loop_shape(ok), (Dims{6}));
}

TEST(LoopPlan, ContiguousOperandsCoalesceIntoOneDim) {
  const TensorDesc a = row_major(DType::kFloat, std::vector<int64_t>{2, 3, 4});
  const TensorDesc* ops[] = {&a, &a};
  const LoopPlan p = make_loop_plan(ops, a.shape);
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.length[0], 24);
  EXPECT_EQ(p.stride[0][0], 1);
}

TEST(LoopPlan, BroadcastOperandGetsZeroStrideAndBlocksCoalescing) {
  const TensorDesc a = row_major(DType::kFloat, std::vector<int64_t>{2, 3});
  const TensorDesc b = row_major(DType::kFloat, std::vector<int64_t>{2, 1});
  const TensorDesc* ops[] = {&a, &b};
  const LoopPlan p = make_loop_plan(ops, a.shape);
  ASSERT_EQ(p.rank, 2);
  EXPECT_EQ(p.stride[1][1], 0);
  EXPECT_EQ(p.stride[1][0], 1);
}

TEST(LoopPlan, ModuloOperandIsSplitIntoAZeroStrideSubDim) {
  // loop (6,), operand (2,): read as index % 2 = sub-dims (3, 2) with strides (0, 1).
  const TensorDesc a = row_major(DType::kFloat, std::vector<int64_t>{6});
  const TensorDesc b = row_major(DType::kFloat, std::vector<int64_t>{2});
  const TensorDesc* ops[] = {&a, &b};
  const LoopPlan p = make_loop_plan(ops, a.shape);
  for (int64_t i = 0; i < 6; ++i) {
    EXPECT_EQ(element_offset(p, 0, i), i);
    EXPECT_EQ(element_offset(p, 1, i), i % 2);
  }
}

// A reduction orders its dims by the input's strides: NCHW reduced over H and W into (N, C, 1, 1)
// is rows of H x W (the destination's stride 1 on C once sat between H and W: rows of W).
TEST(LoopPlan, ReductionOverTheInnerDimsRunsRowsOfTheirProduct) {
  const TensorDesc dst = row_major(DType::kFloat, std::vector<int64_t>{8, 64, 1, 1});
  const TensorDesc src = row_major(DType::kFloat, std::vector<int64_t>{8, 64, 56, 56});
  const TensorDesc* ops[] = {&dst, &src};
  const LoopPlan p = make_loop_plan(ops, src.shape);
  ASSERT_EQ(p.rank, 2);
  EXPECT_EQ(p.length[1], 56 * 56);
  EXPECT_EQ(p.stride[0][1], 0);
  EXPECT_EQ(p.stride[1][1], 1);
  EXPECT_EQ(p.length[0], 8 * 64);
}

// An elementwise pass whose densest dim is short (DepthToSpace's block) runs a longer unit-stride
// dim innermost instead of one chunk per block.
TEST(LoopPlan, ShortDensestDimGivesWayToALongUnitStrideDim) {
  // dst (28, 56, 2) dense; src (2, 28, 56) dense read as (28, 56, 2): unit stride along 56.
  const TensorDesc dst = row_major(DType::kFloat, std::vector<int64_t>{28, 56, 2});
  const int64_t perm[] = {1, 2, 0};
  const TensorDesc src = permute(row_major(DType::kFloat, std::vector<int64_t>{2, 28, 56}), perm);
  const TensorDesc* ops[] = {&dst, &src};
  const LoopPlan p = make_loop_plan(ops, dst.shape);
  ASSERT_GE(p.rank, 2);
  EXPECT_EQ(p.length[p.rank - 1], 28 * 56);  // the (28, 56) dims merge in both operands
  EXPECT_EQ(p.stride[1][p.rank - 1], 1);
  EXPECT_EQ(p.stride[0][p.rank - 1], 2);
  // A short densest dim with nothing longer at unit stride stays where it is.
  const TensorDesc small = row_major(DType::kFloat, std::vector<int64_t>{4, 3});
  const TensorDesc small_t = transpose(row_major(DType::kFloat, std::vector<int64_t>{3, 4}));
  const TensorDesc* few[] = {&small, &small_t};
  const LoopPlan q = make_loop_plan(few, small.shape);
  EXPECT_EQ(q.length[q.rank - 1], 3);
}

TEST(LoopPlan, ElementOffsetsMatchNaiveIndexingOnRandomViews) {
  std::mt19937_64 rng(42);
  for (int rep = 0; rep < 500; ++rep) {
    Dims loop = random_shape(rng, 5, 4);
    // Sometimes a nested-modulo operand: lengths 2 and 4 inside a loop length of 8.
    if (rep % 10 == 0) loop = {3, 8};
    std::vector<Buffer> bufs;
    bufs.push_back(random_view(rng, DType::kFloat, loop));
    for (int k = 0; k < 3; ++k) {
      Dims s = broadcastable_shape(rng, loop);
      if (rep % 10 == 0) s = {k == 0 ? 2 : 4};
      bufs.push_back(random_view(rng, DType::kInt32, s));
    }
    std::vector<const TensorDesc*> descs;
    for (auto& b : bufs) descs.push_back(&b.desc);
    const Dims shape = loop_shape(descs);
    const LoopPlan p = make_loop_plan(descs, shape);
    // The plan may reorder and merge dims, so compare the tuples of operand offsets it visits
    // with those of the naive loop, as sorted lists.
    std::vector<std::vector<int64_t>> want, got;
    for_each_index(shape, [&](const Dims& idx) {
      std::vector<int64_t> t;
      for (const TensorDesc* d : descs) t.push_back(reference_offset(*d, idx));
      want.push_back(t);
    });
    for (int64_t i = 0; i < loop_elements(p); ++i) {
      std::vector<int64_t> t;
      for (int o = 0; o < p.operands; ++o) t.push_back(element_offset(p, o, i));
      got.push_back(t);
    }
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, want) << "loop " << to_string(bufs[0].desc);
  }
}

TEST(LoopPlan, SubPlansPartitionTheLoop) {
  const TensorDesc a = row_major(DType::kFloat, std::vector<int64_t>{7, 5});
  const TensorDesc b = transpose(row_major(DType::kFloat, std::vector<int64_t>{5, 7}));
  const TensorDesc* ops[] = {&a, &b};
  const LoopPlan p = make_loop_plan(ops, a.shape);
  std::vector<int> seen(35, 0);
  const int d = split_dim(p, 3, 0);
  ASSERT_GE(d, 0);
  for (int part = 0; part < 3; ++part) {
    const int64_t len = p.length[d];
    const LoopPlan s = sub_plan(p, d, len * part / 3, len * (part + 1) / 3);
    for (int64_t i = 0; i < loop_elements(s); ++i) ++seen[element_offset(s, 0, i)];
  }
  for (int c : seen) EXPECT_EQ(c, 1);
}

}  // namespace
}  // namespace geon
