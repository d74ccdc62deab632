// Every rejected argument: one test each, checking the Error's code and that its message names
// the function, the argument and the offending value.
#include <gtest/gtest.h>

#include <limits>

#include "core/desc/desc.h"
#include "core/desc/views.h"
#include "tests/core/desc/desc_test_util.h"

namespace geon {
namespace {

using E = ErrorCode;
constexpr int64_t kBig = int64_t{1} << 40;

TensorDesc m34() { return row_major(DType::kFloat, Dims{3, 4}); }

TEST(DescErrors, RowMajorRejectsANegativeLength) {
  expect_error(
      [] {
        row_major(DType::kFloat, Dims{2, -3});
      },
      E::kInvalidArgument, {"row_major", "shape [2,-3]", "-3"});
}

TEST(DescErrors, ColMajorRejectsPaddingOfAnotherRank) {
  expect_error(
      [] {
        col_major(DType::kFloat, Dims{2, 3}, Dims{4});
      },
      E::kInvalidArgument, {"col_major", "padded [4]", "[2,3]"});
}

TEST(DescErrors, RowMajorRejectsPaddingBelowTheShape) {
  expect_error(
      [] {
        row_major(DType::kFloat, Dims{2, 3}, Dims{2, 2});
      },
      E::kInvalidArgument, {"row_major", "padded [2,2]", "dim 1"});
}

TEST(DescErrors, RowMajorRejectsMoreElementsThanInt64Holds) {
  expect_error(
      [] {
        row_major(DType::kFloat, Dims{kBig, kBig});
      },
      E::kOutOfRange, {"row_major", "shape [1099511627776,1099511627776]"});
  expect_error(
      [] {
        row_major(DType::kFloat, Dims{2, 3}, Dims{kBig, kBig});
      },
      E::kOutOfRange, {"row_major", "padded [1099511627776,1099511627776]"});
}

TEST(DescErrors, RowMajorRejectsAnUnknownDtype) {
  expect_error([] { row_major(static_cast<DType>(200), Dims{2}); }, E::kInvalidArgument,
               {"row_major", "dtype 200"});
}

TEST(DescErrors, ElementCountRejectsANegativeLength) {
  expect_error(
      [] {
        element_count(Dims{4, -1});
      },
      E::kInvalidArgument, {"element_count", "shape [4,-1]", "-1"});
}

TEST(DescErrors, ElementCountRejectsOverflow) {
  expect_error(
      [] {
        element_count(Dims{kBig, kBig, 2});
      },
      E::kOutOfRange, {"element_count", "[1099511627776,1099511627776,2]", "int64"});
}

TEST(DescErrors, MalformedDescWithTooFewStridesIsRejected) {
  TensorDesc d = m34();
  d.strides.pop_back();
  expect_error([&] { transpose(d); }, E::kInvalidArgument,
               {"transpose", "shape [3,4]", "strides [4]"});
  expect_error([&] { is_contiguous(d); }, E::kInvalidArgument, {"is_contiguous", "strides [4]"});
}

TEST(DescErrors, MalformedDescWithANegativeLengthIsRejected) {
  TensorDesc d = m34();
  d.shape[0] = -2;
  expect_error([&] { element_span(d); }, E::kInvalidArgument, {"element_span", "[-2,4]", "-2"});
}

TEST(DescErrors, ElementSpanRejectsPositionsBeyondInt64) {
  TensorDesc d = row_major(DType::kFloat, Dims{3});
  d.strides[0] = std::numeric_limits<int64_t>::max() / 2 + 1;
  expect_error([&] { element_span(d); }, E::kOutOfRange, {"element_span", "stride * length"});
  d.strides[0] = std::numeric_limits<int64_t>::max() / 4;
  d.offset = std::numeric_limits<int64_t>::max() / 2 + 8;
  expect_error([&] { element_span(d); }, E::kOutOfRange, {"element_span", "last element"});
}

// A string element is a 16-byte handle (core/strings), so strings have a byte span like any
// fixed-width type.
TEST(DescErrors, ByteSpanOfStringsCoversTheirHandles) {
  const ByteSpan s = byte_span(row_major(DType::kString, Dims{3}));
  EXPECT_EQ(s.begin, 0);
  EXPECT_EQ(s.end, 48);
}

TEST(DescErrors, ByteSpanRejectsAnUnknownDtype) {
  TensorDesc d = m34();
  d.dtype = static_cast<DType>(99);
  expect_error([&] { byte_span(d); }, E::kInvalidArgument, {"byte_span", "dtype 99"});
}

TEST(DescErrors, MayOverlapRejectsAnUnknownDtype) {
  TensorDesc d = m34();
  d.dtype = static_cast<DType>(99);
  expect_error([&] { may_overlap(d, m34()); }, E::kInvalidArgument, {"may_overlap", "dtype 99"});
}

TEST(DescErrors, PermuteRejectsAPermOfTheWrongLength) {
  const int64_t perm[] = {0};
  expect_error([&] { permute(m34(), perm); }, E::kInvalidArgument,
               {"permute", "perm [0]", "rank 2"});
}

TEST(DescErrors, PermuteRejectsAnEntryOutOfRange) {
  const int64_t perm[] = {0, 2};
  expect_error([&] { permute(m34(), perm); }, E::kInvalidArgument,
               {"permute", "perm [0,2]", "entry 2"});
  const int64_t neg[] = {-1, 0};
  expect_error([&] { permute(m34(), neg); }, E::kInvalidArgument, {"permute", "perm [-1,0]", "-1"});
}

TEST(DescErrors, PermuteRejectsARepeatedEntry) {
  const int64_t perm[] = {1, 1};
  expect_error([&] { permute(m34(), perm); }, E::kInvalidArgument,
               {"permute", "perm [1,1]", "entry 1 repeats"});
}

TEST(DescErrors, SliceRejectsAnAxisOutOfRange) {
  expect_error([] { slice(m34(), 2, 0, 1); }, E::kOutOfRange, {"slice", "axis 2", "[-2, 1]"});
  expect_error([] { slice(m34(), -3, 0, 1); }, E::kOutOfRange, {"slice", "axis -3"});
}

TEST(DescErrors, SliceRejectsStepZero) {
  expect_error([] { slice(m34(), 1, 0, 4, 0); }, E::kInvalidArgument, {"slice", "step 0"});
}

TEST(DescErrors, SliceRejectsAStrideTimesStepBeyondInt64) {
  // Only a desc whose own span already overflows can get there: 2^30 elements 2^40 apart.
  TensorDesc d = row_major(DType::kFloat, Dims{int64_t{1} << 30});
  d.strides[0] = kBig;
  expect_error([&] { slice(d, 0, 0, INT64_MAX, int64_t{1} << 24); }, E::kOutOfRange,
               {"slice", "stride * step"});
}

TEST(DescErrors, NarrowRejectsANegativeLength) {
  expect_error([] { narrow(m34(), 1, 0, -1); }, E::kInvalidArgument, {"narrow", "length -1"});
}

TEST(DescErrors, NarrowRejectsARangeOutsideTheDim) {
  expect_error([] { narrow(m34(), 1, 3, 2); }, E::kOutOfRange,
               {"narrow", "start 3", "length 2", "[0, 4)"});
  expect_error([] { narrow(m34(), 0, -1, 1); }, E::kOutOfRange, {"narrow", "start -1"});
}

TEST(DescErrors, NarrowRejectsAnAxisOutOfRange) {
  expect_error([] { narrow(m34(), 5, 0, 1); }, E::kOutOfRange, {"narrow", "axis 5"});
}

TEST(DescErrors, SelectRejectsAnIndexOutOfRange) {
  expect_error([] { select(m34(), 0, 3); }, E::kOutOfRange, {"select", "index 3", "[-3, 2]"});
  expect_error([] { select(m34(), 1, -5); }, E::kOutOfRange, {"select", "index -5"});
}

TEST(DescErrors, SelectRejectsAnAxisOutOfRange) {
  expect_error([] { select(m34(), -3, 0); }, E::kOutOfRange, {"select", "axis -3"});
}

TEST(DescErrors, SubVectorRejectsANonVector) {
  expect_error([] { sub_vector(m34(), 0, 1); }, E::kInvalidArgument,
               {"sub_vector", "[3,4]", "rank 2"});
}

TEST(DescErrors, SubVectorRejectsARangeOutsideTheVector) {
  expect_error([] { sub_vector(row_major(DType::kFloat, Dims{5}), 4, 2); }, E::kOutOfRange,
               {"sub_vector", "start 4", "length 2"});
}

TEST(DescErrors, SubMatrixRejectsANonMatrix) {
  expect_error([] { sub_matrix(row_major(DType::kFloat, Dims{5}), 0, 0, 1, 1); },
               E::kInvalidArgument, {"sub_matrix", "[5]", "rank 1"});
}

TEST(DescErrors, SubMatrixNamesRowsOrColsWhenOutOfRange) {
  expect_error([] { sub_matrix(m34(), 2, 0, 2, 1); }, E::kOutOfRange,
               {"sub_matrix", "row 2", "rows 2"});
  expect_error([] { sub_matrix(m34(), 0, 1, 1, 4); }, E::kOutOfRange,
               {"sub_matrix", "col 1", "cols 4"});
  expect_error([] { sub_matrix(m34(), 0, 0, 1, -1); }, E::kInvalidArgument,
               {"sub_matrix", "cols -1"});
}

TEST(DescErrors, BroadcastToRejectsFewerDims) {
  expect_error([] { broadcast_to(m34(), Dims{4}); }, E::kInvalidArgument,
               {"broadcast_to", "shape [4]", "[3,4]"});
}

TEST(DescErrors, BroadcastToRejectsAMismatchedLength) {
  expect_error(
      [] {
        broadcast_to(m34(), Dims{3, 5});
      },
      E::kInvalidArgument, {"broadcast_to", "[3,5]", "length 4"});
}

TEST(DescErrors, BroadcastToRejectsANegativeLength) {
  expect_error(
      [] {
        broadcast_to(m34(), Dims{-3, 4});
      },
      E::kInvalidArgument, {"broadcast_to", "shape [-3,4]", "-3"});
}

TEST(DescErrors, BroadcastShapesNamesBothShapes) {
  expect_error(
      [] {
        broadcast_shapes(Dims{2, 3}, Dims{4, 3});
      },
      E::kInvalidArgument, {"broadcast_shapes", "[2,3]", "[4,3]", "2 vs 4"});
}

TEST(DescErrors, BroadcastShapesRejectsANegativeLength) {
  expect_error([] { broadcast_shapes(Dims{2}, Dims{-1}); }, E::kInvalidArgument,
               {"broadcast_shapes", "shape b [-1]"});
}

TEST(DescErrors, BroadcastShapesRejectsAResultBeyondInt64) {
  expect_error(
      [] {
        broadcast_shapes(Dims{kBig, 1}, Dims{1, kBig});
      },
      E::kOutOfRange, {"broadcast_shapes", "result shape"});
}

TEST(DescErrors, ReshapeRejectsADifferentElementCount) {
  expect_error(
      [] {
        reshape(m34(), Dims{5, 2});
      },
      E::kInvalidArgument, {"reshape", "shape [5,2]", "10 elements", "[3,4]", "12"});
}

TEST(DescErrors, ReshapeRejectsNegativeLengths) {
  expect_error(
      [] {
        reshape(m34(), Dims{-1, 12});
      },
      E::kInvalidArgument, {"reshape", "shape [-1,12]", "-1"});
}

TEST(DescErrors, FlattenRejectsAnAxisOutOfRange) {
  expect_error([] { flatten(m34(), 3); }, E::kOutOfRange, {"flatten", "axis 3", "[-2, 2]"});
  expect_error([] { flatten(m34(), -3); }, E::kOutOfRange, {"flatten", "axis -3"});
}

TEST(DescErrors, SqueezeRejectsADimThatIsNotLengthOne) {
  const int64_t axes[] = {1};
  expect_error([&] { squeeze(m34(), axes); }, E::kInvalidArgument,
               {"squeeze", "axis 1", "length 4"});
}

TEST(DescErrors, SqueezeRejectsAnAxisOutOfRange) {
  const int64_t axes[] = {2};
  expect_error([&] { squeeze(m34(), axes); }, E::kOutOfRange, {"squeeze", "axis 2"});
}

TEST(DescErrors, SqueezeRejectsARepeatedAxis) {
  const int64_t axes[] = {0, -2};
  expect_error(
      [&] {
        squeeze(row_major(DType::kFloat, Dims{1, 4}), axes);
      },
      E::kInvalidArgument, {"squeeze", "axes [0,-2]", "axis 0"});
}

TEST(DescErrors, UnsqueezeRejectsAnAxisOutOfRange) {
  const int64_t axes[] = {3};
  expect_error([&] { unsqueeze(m34(), axes); }, E::kOutOfRange, {"unsqueeze", "axis 3", "[-3, 2]"});
}

TEST(DescErrors, UnsqueezeRejectsARepeatedAxis) {
  const int64_t axes[] = {1, -3};  // output rank 4: -3 is 1 again
  expect_error([&] { unsqueeze(m34(), axes); }, E::kInvalidArgument,
               {"unsqueeze", "axes [1,-3]", "axis 1"});
}

TEST(DescErrors, NormalizeAxisRejectsAnAxisOutOfRange) {
  EXPECT_EQ(normalize_axis(-1, 3), 2);
  expect_error([] { normalize_axis(3, 3); }, E::kOutOfRange,
               {"normalize_axis", "axis 3", "rank 3"});
}

}  // namespace
}  // namespace geon
