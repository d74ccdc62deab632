// Each view on its own: what it reads from a storage of known values, that it copies nothing,
// and the ONNX corner cases of Slice, Flatten, Squeeze and Unsqueeze.
#include <gtest/gtest.h>

#include <numeric>

#include "core/desc/desc.h"
#include "core/desc/views.h"
#include "tests/core/desc/desc_test_util.h"

namespace geon {
namespace {

std::vector<int> iota_storage(size_t n) {
  std::vector<int> s(n);
  std::iota(s.begin(), s.end(), 0);
  return s;
}

TensorDesc m24() { return row_major(DType::kInt32, Dims{2, 4}); }  // [[0,1,2,3],[4,5,6,7]]

TEST(DescViews, PermutedViewReadsTheOriginalDataWithoutMovingIt) {
  const std::vector<int> storage = iota_storage(6);
  const std::vector<int> before = storage;
  const TensorDesc d = row_major(DType::kInt32, Dims{2, 3});
  const TensorDesc t = transpose(d);
  EXPECT_EQ(values_of(storage, t), (std::vector<int>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(storage, before);
  EXPECT_EQ(t.offset, d.offset);
}

TEST(DescViews, ViewsReturnNewDescriptionsAndLeaveTheirInputAlone) {
  const TensorDesc d = row_major(DType::kFloat, Dims{2, 3, 4}, Dims{2, 3, 8});
  const TensorDesc copy = d;
  const int64_t p[] = {2, 0, 1};
  (void)permute(d, p);
  (void)slice(d, 1, 2, 0, -1);
  (void)select(d, 0, 1);
  (void)reshape(d, Dims{6, 4});
  (void)squeeze(d);
  const int64_t ax[] = {0};
  (void)unsqueeze(d, ax);
  (void)broadcast_to(d, Dims{5, 2, 3, 4});
  EXPECT_EQ(d, copy);
}

TEST(DescViews, ViewsKeepThePaddedSizesOfTheirAllocation) {
  const TensorDesc d = row_major(DType::kFloat, Dims{2, 3}, Dims{2, 16});
  EXPECT_EQ(transpose(d).padded, (Dims{2, 16}));
  EXPECT_EQ(select(d, 0, 1).padded, (Dims{2, 16}));
}

TEST(DescViews, PermuteReordersShapeAndStrides) {
  const int64_t perm[] = {1, 2, 0};
  const TensorDesc d = permute(row_major(DType::kFloat, Dims{2, 3, 5}), perm);
  EXPECT_EQ(d.shape, (Dims{3, 5, 2}));
  EXPECT_EQ(d.strides, (Dims{5, 1, 15}));
}

TEST(DescViews, SliceFollowsOnnxExample1) {
  // axes [0,1], starts [1,0], ends [2,3], steps [1,2] -> [[5,7]]
  const TensorDesc d = slice(slice(m24(), 0, 1, 2, 1), 1, 0, 3, 2);
  EXPECT_EQ(d.shape, (Dims{1, 2}));
  EXPECT_EQ(values_of(iota_storage(8), d), (std::vector<int>{4, 6}));  // values 5, 7 at 4, 6
}

TEST(DescViews, SliceFollowsOnnxExample2) {
  // starts [0,1], ends [-1,1000] -> [[2,3,4]]
  const TensorDesc d = slice(slice(m24(), 0, 0, -1), 1, 1, 1000);
  EXPECT_EQ(d.shape, (Dims{1, 3}));
  EXPECT_EQ(values_of(iota_storage(8), d), (std::vector<int>{1, 2, 3}));
}

TEST(DescViews, NegativeStepSliceGivesNegativeStrides) {
  const TensorDesc d = slice(row_major(DType::kInt32, Dims{7}), 0, 5, 0, -2);  // 5, 3, 1
  EXPECT_EQ(d.shape, (Dims{3}));
  EXPECT_EQ(d.strides, (Dims{-2}));
  EXPECT_EQ(d.offset, 5);
  EXPECT_EQ(values_of(iota_storage(7), d), (std::vector<int>{5, 3, 1}));
}

TEST(DescViews, SliceClampsStartsAndEndsLikeOnnx) {
  const TensorDesc v = row_major(DType::kInt32, Dims{5});
  const auto vals = [&](int64_t start, int64_t stop, int64_t step) {
    return values_of(iota_storage(5), slice(v, 0, start, stop, step));
  };
  EXPECT_EQ(vals(-100, 100, 1), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(vals(100, -100, -1), (std::vector<int>{4, 3, 2, 1, 0}));
  EXPECT_EQ(vals(INT64_MAX, INT64_MIN, -1), (std::vector<int>{4, 3, 2, 1, 0}));
  EXPECT_EQ(vals(0, INT64_MAX, INT64_MAX), (std::vector<int>{0}));
  EXPECT_EQ(vals(4, INT64_MIN, INT64_MIN), (std::vector<int>{4}));
  EXPECT_EQ(vals(3, 3, 1), (std::vector<int>{}));
  EXPECT_EQ(vals(1, 3, -1), (std::vector<int>{}));
  EXPECT_EQ(vals(-1, -3, -1), (std::vector<int>{4, 3}));
  EXPECT_EQ(vals(0, 5, 3), (std::vector<int>{0, 3}));
}

TEST(DescViews, NegativeStepStartBelowTheFrontClampsToElementZeroAsOnnxSpecifies) {
  // ONNX (and onnxruntime) clamp start into [0, len-1] for negative steps; numpy would give [].
  const TensorDesc d = slice(row_major(DType::kInt32, Dims{4}), 0, -10, -10, -1);
  EXPECT_EQ(values_of(iota_storage(4), d), (std::vector<int>{0}));
}

TEST(DescViews, SliceOfAnEmptyDimIsEmptyForBothStepSigns) {
  const TensorDesc e = row_major(DType::kInt32, Dims{0, 3});
  EXPECT_EQ(slice(e, 0, 0, 10, 1).shape, (Dims{0, 3}));
  EXPECT_EQ(slice(e, 0, -1, -10, -1).shape, (Dims{0, 3}));
}

TEST(DescViews, SliceAcceptsANegativeAxis) {
  EXPECT_EQ(slice(m24(), -1, 1, 3), slice(m24(), 1, 1, 3));
}

TEST(DescViews, NarrowSelectAndSubMatrixMoveTheOffset) {
  const TensorDesc m = row_major(DType::kInt32, Dims{4, 5});
  const std::vector<int> s = iota_storage(20);
  EXPECT_EQ(values_of(s, narrow(m, 1, 3, 2)), (std::vector<int>{3, 4, 8, 9, 13, 14, 18, 19}));
  EXPECT_EQ(values_of(s, select(m, 0, 2)), (std::vector<int>{10, 11, 12, 13, 14}));
  EXPECT_EQ(values_of(s, select(m, 1, -1)), (std::vector<int>{4, 9, 14, 19}));
  EXPECT_EQ(select(m, 1, -1).shape, (Dims{4}));
  EXPECT_EQ(values_of(s, sub_matrix(m, 1, 2, 2, 3)), (std::vector<int>{7, 8, 9, 12, 13, 14}));
  EXPECT_EQ(values_of(s, sub_vector(select(m, 0, 3), 1, 3)), (std::vector<int>{16, 17, 18}));
  EXPECT_EQ(narrow(m, 0, 4, 0).shape, (Dims{0, 5}));
}

TEST(DescViews, SelectOnAScalarRowGivesARankZeroView) {
  const TensorDesc d = select(row_major(DType::kInt32, Dims{3}), 0, 2);
  EXPECT_EQ(d.rank(), 0);
  EXPECT_EQ(d.offset, 2);
}

TEST(DescViews, BroadcastGivesStrideZeroToRepeatedDims) {
  const TensorDesc row = row_major(DType::kInt32, Dims{1, 3});
  const TensorDesc b = broadcast_to(row, Dims{2, 4, 3});
  EXPECT_EQ(b.strides, (Dims{0, 0, 1}));
  EXPECT_EQ(values_of(iota_storage(3), b), (std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,
                                                             0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(broadcast_to(row, Dims{0, 3}).shape, (Dims{0, 3}));
}

TEST(DescViews, BroadcastShapesFollowsNumpy) {
  EXPECT_EQ(broadcast_shapes(Dims{8, 1, 6, 1}, Dims{7, 1, 5}), (Dims{8, 7, 6, 5}));
  EXPECT_EQ(broadcast_shapes(Dims{}, Dims{3}), (Dims{3}));
  EXPECT_EQ(broadcast_shapes(Dims{1, 0}, Dims{4, 1}), (Dims{4, 0}));
}

TEST(DescViews, ReshapeOfAContiguousTensorIsAlwaysAView) {
  const ReshapeResult r = reshape(row_major(DType::kFloat, Dims{2, 3, 4}), Dims{4, 1, 6});
  ASSERT_TRUE(r.view);
  EXPECT_EQ(r.view->shape, (Dims{4, 1, 6}));
  EXPECT_EQ(r.view->strides, (Dims{6, 6, 1}));
  EXPECT_TRUE(r.why.empty());
}

TEST(DescViews, ReshapeSplitsATransposedDimWithoutCopying) {
  // (3,4) transposed is (4,3) with strides (1,4); splitting 4 into 2x2 keeps stride 1 inside.
  const TensorDesc t = transpose(row_major(DType::kFloat, Dims{3, 4}));
  const ReshapeResult r = reshape(t, Dims{2, 2, 3});
  ASSERT_TRUE(r.view);
  EXPECT_EQ(r.view->strides, (Dims{2, 1, 4}));
  EXPECT_EQ(values_of(iota_storage(12), *r.view), values_of(iota_storage(12), t));
}

TEST(DescViews, ReshapeRefusesToMergeTransposedDimsAndSaysWhich) {
  const TensorDesc t = transpose(row_major(DType::kFloat, Dims{3, 4}));
  const ReshapeResult r = reshape(t, Dims{12});
  EXPECT_FALSE(r.view);
  EXPECT_NE(r.why.find("dims 0 and 1"), std::string::npos) << r.why;
  EXPECT_NE(r.why.find("[12]"), std::string::npos) << r.why;
}

TEST(DescViews, ReshapeMergesWholeRowsOfASlicedMatrix) {
  // Rows 1..2 of a 4x6 matrix merge into 12; a column slice does not.
  const TensorDesc m = row_major(DType::kFloat, Dims{4, 6});
  const ReshapeResult rows = reshape(narrow(m, 0, 1, 2), Dims{3, 4});
  ASSERT_TRUE(rows.view);
  EXPECT_EQ(rows.view->offset, 6);
  EXPECT_FALSE(reshape(narrow(m, 1, 0, 3), Dims{12}).view);
  // ...but a column slice can still split its rows: (4,3) -> (2,2,3).
  EXPECT_TRUE(reshape(narrow(m, 1, 0, 3), Dims{2, 2, 3}).view);
}

TEST(DescViews, ReshapeMergesBroadcastDimsIntoOneStrideZeroDim) {
  const TensorDesc b = broadcast_to(row_major(DType::kFloat, Dims{1}), Dims{3, 4});
  const ReshapeResult r = reshape(b, Dims{12});
  ASSERT_TRUE(r.view);
  EXPECT_EQ(r.view->strides, (Dims{0}));
  EXPECT_FALSE(reshape(broadcast_to(row_major(DType::kFloat, Dims{4}), Dims{3, 4}), Dims{12}).view);
}

TEST(DescViews, ReshapeIgnoresStridesOfLengthOneDims) {
  TensorDesc d = row_major(DType::kFloat, Dims{2, 1, 3});
  d.strides[1] = 77;
  const ReshapeResult r = reshape(d, Dims{6});
  ASSERT_TRUE(r.view);
  EXPECT_EQ(r.view->strides, (Dims{1}));
}

TEST(DescViews, ReshapeOfReversedContiguousDataKeepsNegativeStrides) {
  const TensorDesc rev =
      slice(slice(row_major(DType::kFloat, Dims{3, 4}), 0, 2, -10, -1), 1, 3, -10, -1);
  const ReshapeResult r = reshape(rev, Dims{12});
  ASSERT_TRUE(r.view);
  EXPECT_EQ(r.view->strides, (Dims{-1}));
  EXPECT_EQ(r.view->offset, 11);
}

TEST(DescViews, ReshapeOfAnEmptyTensorIsAlwaysAView) {
  const TensorDesc e = transpose(row_major(DType::kFloat, Dims{3, 0, 2}));
  const ReshapeResult r = reshape(e, Dims{0, 7});
  ASSERT_TRUE(r.view);
  EXPECT_EQ(r.view->shape, (Dims{0, 7}));
}

TEST(DescViews, ReshapeBetweenScalarAndOnes) {
  const TensorDesc s = row_major(DType::kFloat, Dims{});
  ASSERT_TRUE(reshape(s, Dims{1, 1}).view);
  const ReshapeResult back = reshape(*reshape(s, Dims{1, 1}).view, Dims{});
  ASSERT_TRUE(back.view);
  EXPECT_EQ(back.view->rank(), 0);
}

TEST(DescViews, FlattenSplitsTheShapeAtAxis) {
  const TensorDesc d = row_major(DType::kFloat, Dims{2, 3, 4});
  EXPECT_EQ(flatten(d, 0).view->shape, (Dims{1, 24}));
  EXPECT_EQ(flatten(d, 1).view->shape, (Dims{2, 12}));
  EXPECT_EQ(flatten(d, 3).view->shape, (Dims{24, 1}));
  EXPECT_EQ(flatten(d, -1).view->shape, (Dims{6, 4}));
  EXPECT_EQ(flatten(d, -3).view->shape, (Dims{1, 24}));
  const ReshapeResult t = flatten(transpose(d), 1);
  EXPECT_FALSE(t.view);
  EXPECT_NE(t.why.find("flatten"), std::string::npos) << t.why;
}

TEST(DescViews, SqueezeRemovesLengthOneDims) {
  const TensorDesc d = row_major(DType::kFloat, Dims{1, 3, 1, 2});
  EXPECT_EQ(squeeze(d).shape, (Dims{3, 2}));
  const int64_t axes[] = {-2};
  EXPECT_EQ(squeeze(d, axes).shape, (Dims{1, 3, 2}));
  EXPECT_EQ(squeeze(d, axes).strides, (Dims{6, 2, 1}));
}

TEST(DescViews, UnsqueezeInsertsLengthOneDimsAtOutputPositions) {
  const TensorDesc d = row_major(DType::kFloat, Dims{3, 4, 5});
  const int64_t axes[] = {4, 0};
  const TensorDesc u = unsqueeze(d, axes);
  EXPECT_EQ(u.shape, (Dims{1, 3, 4, 5, 1}));
  EXPECT_EQ(u.strides, (Dims{60, 20, 5, 1, 1}));
  const int64_t neg[] = {-1};
  EXPECT_EQ(unsqueeze(d, neg).shape, (Dims{3, 4, 5, 1}));
  EXPECT_EQ(squeeze(u), d);
}

TEST(DescViews, UnsqueezedDimsNeverLookBroadcast) {
  const TensorDesc b = broadcast_to(row_major(DType::kFloat, Dims{4}), Dims{3, 4});
  const int64_t axes[] = {0, 2};
  const TensorDesc u = unsqueeze(b, axes);
  EXPECT_EQ(u.shape, (Dims{1, 3, 1, 4}));
  EXPECT_NE(u.strides[0], 0);
  EXPECT_NE(u.strides[2], 0);
}

}  // namespace
}  // namespace geon
