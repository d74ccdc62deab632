// Dense layouts: the seed's stride examples, alignment padding, element counts, contiguity and
// the printed form.
#include <gtest/gtest.h>

#include "core/desc/desc.h"
#include "core/desc/views.h"
#include "tests/core/desc/desc_test_util.h"

namespace geon {
namespace {

TEST(DescLayout, RowMajorOfSizes532HasStrides621) {
  const TensorDesc d = row_major(DType::kFloat, Dims{5, 3, 2});
  EXPECT_EQ(d.shape, (Dims{5, 3, 2}));
  EXPECT_EQ(d.strides, (Dims{6, 2, 1}));
  EXPECT_EQ(d.offset, 0);
  EXPECT_TRUE(d.padded.empty());
}

TEST(DescLayout, ColMajorOfSizes532HasStrides1_5_15) {
  const TensorDesc d = col_major(DType::kFloat, Dims{5, 3, 2});
  EXPECT_EQ(d.strides, (Dims{1, 5, 15}));
}

TEST(DescLayout, PermutingShapeAndStridesTogetherTurnsRowMajorIntoColMajor) {
  // Seed 000: permuting stride and shape alike keeps the linear index of each element.
  const TensorDesc t = transpose(row_major(DType::kFloat, Dims{5, 3, 2}));
  EXPECT_EQ(t.shape, (Dims{2, 3, 5}));
  EXPECT_EQ(t.strides, col_major(DType::kFloat, Dims{2, 3, 5}).strides);
}

TEST(DescLayout, RowMajorStridesFollowPaddedSizes) {
  const TensorDesc d = row_major(DType::kFloat, Dims{5, 3, 2}, Dims{5, 4, 2});
  EXPECT_EQ(d.shape, (Dims{5, 3, 2}));
  EXPECT_EQ(d.strides, (Dims{8, 2, 1}));
  EXPECT_EQ(d.padded, (Dims{5, 4, 2}));
}

TEST(DescLayout, ColMajorStridesFollowPaddedSizes) {
  const TensorDesc d = col_major(DType::kFloat, Dims{5, 3, 2}, Dims{8, 3, 2});
  EXPECT_EQ(d.strides, (Dims{1, 8, 24}));
}

TEST(DescLayout, BlockedChannelsPaddedTo16LeaveGapsOnlyInThePadding) {
  // oneDNN-style: 3 channels allocated as 16; the view sees 3, each pixel row spaced by 16.
  const TensorDesc d = row_major(DType::kFloat, Dims{2, 3}, Dims{2, 16});
  EXPECT_EQ(positions(d), (std::vector<int64_t>{0, 1, 2, 16, 17, 18}));
  EXPECT_FALSE(is_contiguous(d));
  EXPECT_EQ(element_span(d).last, 18);
}

TEST(DescLayout, PaddingEqualToShapeIsStoredAsNoPadding) {
  EXPECT_EQ(row_major(DType::kInt8, Dims{4, 5}, Dims{4, 5}), row_major(DType::kInt8, Dims{4, 5}));
}

TEST(DescLayout, OuterPaddingKeepsTheTensorContiguous) {
  EXPECT_TRUE(is_contiguous(row_major(DType::kFloat, Dims{5, 3, 2}, Dims{7, 3, 2})));
  EXPECT_FALSE(is_contiguous(row_major(DType::kFloat, Dims{5, 3, 2}, Dims{5, 3, 4})));
}

TEST(DescLayout, ZeroLengthDimsCountAsOneInStrides) {
  EXPECT_EQ(row_major(DType::kFloat, Dims{3, 0, 2}).strides, (Dims{2, 2, 1}));
  EXPECT_EQ(col_major(DType::kFloat, Dims{3, 0, 2}).strides, (Dims{1, 3, 3}));
}

TEST(DescLayout, ScalarHasRankZeroAndOneElement) {
  const TensorDesc d = row_major(DType::kDouble, Dims{});
  EXPECT_EQ(d.rank(), 0);
  EXPECT_EQ(element_count(d), 1);
  EXPECT_TRUE(is_contiguous(d));
  EXPECT_EQ(positions(d), (std::vector<int64_t>{0}));
}

TEST(DescLayout, ElementCountIsTheProductOfTheShape) {
  EXPECT_EQ(element_count(Dims{5, 3, 2}), 30);
  EXPECT_EQ(element_count(Dims{}), 1);
  EXPECT_EQ(element_count(Dims{4, 0, 7}), 0);
}

TEST(DescLayout, ElementCountOfAZeroLengthShapeIsZeroEvenWhenOtherLengthsAreHuge) {
  EXPECT_EQ(element_count(Dims{int64_t{1} << 40, int64_t{1} << 40, 0}), 0);
}

TEST(DescLayout, ContiguousMeansDenseRowMajorWithTheOffsetAnywhere) {
  const TensorDesc d = row_major(DType::kFloat, Dims{4, 6});
  EXPECT_TRUE(is_contiguous(d));
  EXPECT_TRUE(is_contiguous(narrow(d, 0, 1, 2)));  // whole rows: offset moves, still dense
  EXPECT_FALSE(is_contiguous(narrow(d, 1, 1, 2)));
  EXPECT_FALSE(is_contiguous(transpose(d)));
  EXPECT_FALSE(is_contiguous(slice(d, 0, 3, -5, -1)));
  EXPECT_FALSE(is_contiguous(broadcast_to(row_major(DType::kFloat, Dims{6}), Dims{4, 6})));
  EXPECT_FALSE(is_contiguous(col_major(DType::kFloat, Dims{4, 6})));
}

TEST(DescLayout, LengthOneDimsDoNotAffectContiguity) {
  TensorDesc d = row_major(DType::kFloat, Dims{3, 1, 4});
  d.strides[1] = 999;
  EXPECT_TRUE(is_contiguous(d));
  EXPECT_TRUE(is_contiguous(transpose(row_major(DType::kFloat, Dims{1, 5}))));
  EXPECT_TRUE(is_contiguous(broadcast_to(row_major(DType::kFloat, Dims{5}), Dims{1, 5})));
}

TEST(DescLayout, EmptyTensorsAreContiguous) {
  EXPECT_TRUE(is_contiguous(transpose(row_major(DType::kFloat, Dims{3, 0}))));
}

TEST(DescLayout, ToStringShowsDtypeShapeStridesOffsetAndPadding) {
  EXPECT_EQ(to_string(row_major(DType::kFloat, Dims{5, 3, 2})),
            "float[5,3,2] strides [6,2,1] offset 0");
  EXPECT_EQ(to_string(narrow(row_major(DType::kInt4, Dims{5, 3}, Dims{5, 4}), 0, 1, 2)),
            "int4[2,3] strides [4,1] offset 4 padded [5,4]");
  EXPECT_EQ(to_string(row_major(DType::kBool, Dims{})), "bool[] strides [] offset 0");
}

}  // namespace
}  // namespace geon
