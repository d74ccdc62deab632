// Storage extents of views (element and byte spans, negative strides, broadcast, packed int4)
// and may_overlap, checked case by case and against brute-force element sets.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "core/desc/desc.h"
#include "core/desc/views.h"
#include "tests/core/desc/desc_test_util.h"

namespace geon {
namespace {

TensorDesc vec(int64_t n, DType t = DType::kFloat) { return row_major(t, Dims{n}); }

// A rank-1 view: `len` elements from `offset`, `stride` apart.
TensorDesc strided(int64_t offset, int64_t stride, int64_t len, DType t = DType::kFloat) {
  TensorDesc d;
  d.dtype = t;
  d.shape = {len};
  d.strides = {stride};
  d.offset = offset;
  return d;
}

TEST(DescSpan, RowMajorSpansItsWholeAllocation) {
  const ElementSpan s = element_span(row_major(DType::kFloat, Dims{5, 3, 2}));
  EXPECT_EQ(s.first, 0);
  EXPECT_EQ(s.last, 29);
  EXPECT_FALSE(s.empty());
}

TEST(DescSpan, NegativeStridesReachBelowTheOffset) {
  const TensorDesc rev = slice(vec(10), 0, -1, INT64_MIN, -1);  // 9, 8, ..., 0
  EXPECT_EQ(rev.offset, 9);
  EXPECT_EQ(rev.strides, (Dims{-1}));
  const ElementSpan s = element_span(rev);
  EXPECT_EQ(s.first, 0);
  EXPECT_EQ(s.last, 9);
  // Rows reversed, every other column: rows 3..0 of a 4x6 matrix, columns 1, 3, 5.
  const TensorDesc m =
      slice(slice(row_major(DType::kFloat, Dims{4, 6}), 0, 3, -10, -1), 1, 1, 6, 2);
  const ElementSpan t = element_span(m);
  EXPECT_EQ(t.first, 1);
  EXPECT_EQ(t.last, 23);
  const std::vector<int64_t> p = positions(m);
  EXPECT_EQ(*std::min_element(p.begin(), p.end()), t.first);
  EXPECT_EQ(*std::max_element(p.begin(), p.end()), t.last);
}

TEST(DescSpan, BroadcastDimsAddNothingToTheSpan) {
  const TensorDesc b = broadcast_to(narrow(vec(10), 0, 4, 3), Dims{1000, 3});
  const ElementSpan s = element_span(b);
  EXPECT_EQ(s.first, 4);
  EXPECT_EQ(s.last, 6);
  const ByteSpan bytes = byte_span(b);
  EXPECT_EQ(bytes.begin, 16);
  EXPECT_EQ(bytes.end, 28);
}

TEST(DescSpan, EmptyViewsTouchNothing) {
  const TensorDesc e = narrow(vec(10), 0, 3, 0);
  EXPECT_TRUE(element_span(e).empty());
  const ByteSpan b = byte_span(e);
  EXPECT_EQ(b.end - b.begin, 0);
}

TEST(DescSpan, ByteSpanScalesByElementWidth) {
  const TensorDesc d = narrow(vec(10, DType::kDouble), 0, 2, 3);
  const ByteSpan b = byte_span(d);
  EXPECT_EQ(b.begin, 16);
  EXPECT_EQ(b.end, 40);
}

TEST(DescSpan, PackedInt4SpansWholeBytesAroundItsNibbles) {
  // Five int4 elements take 20 bits: three bytes.
  ByteSpan b = byte_span(vec(5, DType::kInt4));
  EXPECT_EQ(b.begin, 0);
  EXPECT_EQ(b.end, 3);
  // Elements 1..3 are bits 4..15: bytes 0 and 1.
  b = byte_span(narrow(vec(8, DType::kInt4), 0, 1, 3));
  EXPECT_EQ(b.begin, 0);
  EXPECT_EQ(b.end, 2);
  // Element 3 alone is the high nibble of byte 1.
  b = byte_span(narrow(vec(8, DType::kInt4), 0, 3, 1));
  EXPECT_EQ(b.begin, 1);
  EXPECT_EQ(b.end, 2);
  // Reversed elements 6..2 (negative stride) still cover bytes 1..3.
  b = byte_span(slice(vec(8, DType::kInt4), 0, 6, 1, -1));
  EXPECT_EQ(b.begin, 1);
  EXPECT_EQ(b.end, 4);
}

TEST(DescSpan, PackedInt2PutsFourElementsInAByte) {
  const ByteSpan b = byte_span(narrow(vec(16, DType::kInt2), 0, 5, 6));  // elements 5..10
  EXPECT_EQ(b.begin, 1);
  EXPECT_EQ(b.end, 3);
}

TEST(DescOverlap, AViewOverlapsItself) {
  const TensorDesc d = row_major(DType::kFloat, Dims{3, 4});
  EXPECT_TRUE(may_overlap(d, d));
}

TEST(DescOverlap, EvenAndOddElementsOfAStride2DimAreDisjoint) {
  const TensorDesc even = slice(vec(10), 0, 0, 10, 2);
  const TensorDesc odd = slice(vec(10), 0, 1, 10, 2);
  EXPECT_EQ(even.strides, odd.strides);
  EXPECT_FALSE(may_overlap(even, odd));
  EXPECT_TRUE(may_overlap(even, slice(vec(10), 0, 4, 10, 2)));
}

TEST(DescOverlap, SeparateColumnsOfAMatrixAreDisjointThoughTheirSpansInterleave) {
  const TensorDesc m = row_major(DType::kFloat, Dims{4, 3});
  EXPECT_FALSE(may_overlap(select(m, 1, 0), select(m, 1, 1)));
  EXPECT_FALSE(may_overlap(narrow(m, 1, 0, 1), narrow(m, 1, 1, 2)));
  EXPECT_TRUE(may_overlap(narrow(m, 1, 0, 2), narrow(m, 1, 1, 2)));
}

TEST(DescOverlap, EvenAndOddRowsOfAMatrixAreDisjoint) {
  const TensorDesc m = row_major(DType::kFloat, Dims{6, 5});
  EXPECT_FALSE(may_overlap(slice(m, 0, 0, 6, 2), slice(m, 0, 1, 6, 2)));
}

TEST(DescOverlap, DisjointSpansDoNotOverlap) {
  EXPECT_FALSE(may_overlap(narrow(vec(10), 0, 0, 5), narrow(vec(10), 0, 5, 5)));
  EXPECT_TRUE(may_overlap(narrow(vec(10), 0, 0, 6), narrow(vec(10), 0, 5, 5)));
}

TEST(DescOverlap, ATensorAndItsTransposeOverlap) {
  const TensorDesc m = row_major(DType::kFloat, Dims{3, 3});
  EXPECT_TRUE(may_overlap(m, transpose(m)));
}

TEST(DescOverlap, DifferentStridesAreDecidedExactly) {
  // 0,2,4,6,8 against 1,4,7 share 4; against 1,7 share nothing.
  EXPECT_TRUE(may_overlap(strided(0, 2, 5), strided(1, 3, 3)));
  EXPECT_FALSE(may_overlap(strided(0, 2, 5), strided(1, 6, 2)));
  // A reversed view against a forward one.
  EXPECT_TRUE(may_overlap(strided(9, -3, 4), strided(0, 2, 2)));   // 9,6,3,0 vs 0,2
  EXPECT_FALSE(may_overlap(strided(9, -3, 3), strided(0, 2, 2)));  // 9,6,3 vs 0,2
}

TEST(DescOverlap, BroadcastViewsOverlapOnlyWhereTheirElementIs) {
  const TensorDesc seven = broadcast_to(narrow(vec(10), 0, 7, 1), Dims{4, 4});
  EXPECT_TRUE(may_overlap(seven, slice(vec(10), 0, 1, 10, 3)));   // 1,4,7
  EXPECT_FALSE(may_overlap(seven, slice(vec(10), 0, 0, 10, 2)));  // even
}

TEST(DescOverlap, EmptyViewsOverlapNothing) {
  EXPECT_FALSE(may_overlap(narrow(vec(10), 0, 2, 0), vec(10)));
}

TEST(DescOverlap, PackedElementsSharingAByteButNoElementAreDisjoint) {
  const TensorDesc even = slice(vec(8, DType::kInt4), 0, 0, 8, 2);
  const TensorDesc odd = slice(vec(8, DType::kInt4), 0, 1, 8, 2);
  EXPECT_FALSE(may_overlap(even, odd));
}

TEST(DescOverlap, DifferentWidthsCompareByteSpans) {
  const TensorDesc floats = narrow(vec(4), 0, 1, 1);  // bytes 4..7
  const TensorDesc bytes_in = narrow(vec(16, DType::kUInt8), 0, 6, 1);
  const TensorDesc bytes_out = narrow(vec(16, DType::kUInt8), 0, 8, 4);
  EXPECT_TRUE(may_overlap(floats, bytes_in));
  EXPECT_FALSE(may_overlap(floats, bytes_out));
  // Equal widths compare elements even across dtypes (float and int32 reinterpretations).
  EXPECT_FALSE(may_overlap(slice(vec(8), 0, 0, 8, 2), slice(vec(8, DType::kInt32), 0, 1, 8, 2)));
}

TEST(DescOverlap, ManyOverlappingStridesStillAnswerQuickly) {
  // Eight interleaving strides over long ranges: the search may give up, but must say true
  // whenever the views do share an element, and must return.
  TensorDesc a;
  a.shape = {50, 50, 50, 50};
  a.strides = {101, 103, 107, 109};
  TensorDesc b = a;
  b.strides = {97, 89, 83, 79};
  b.offset = 12345;
  EXPECT_TRUE(may_overlap(a, b));
}

// Exactness: for random small views of one storage (equal widths), may_overlap must equal
// "the element sets intersect".
TEST(DescOverlap, AgreesWithBruteForceOnRandomViews) {
  std::mt19937_64 rng(20240611);
  const auto pick = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  const auto random_view = [&](bool same_strides_as, const TensorDesc* other) {
    TensorDesc d;
    const int rank = other && same_strides_as ? other->rank() : static_cast<int>(pick(1, 3));
    for (int i = 0; i < rank; ++i) {
      d.shape.push_back(pick(1, 4));
      d.strides.push_back(other && same_strides_as ? other->strides[i] : pick(-7, 7));
    }
    // Put the lowest reachable element at a small non-negative position.
    int64_t low = 0;
    for (int i = 0; i < rank; ++i) low += std::min<int64_t>(0, d.strides[i] * (d.shape[i] - 1));
    d.offset = -low + pick(0, 12);
    return d;
  };
  int disjoint = 0, overlapping = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const TensorDesc a = random_view(false, nullptr);
    const TensorDesc b = random_view(trial % 2 == 0, &a);
    const std::vector<int64_t> pa = positions(a), pb = positions(b);
    const std::set<int64_t> sa(pa.begin(), pa.end());
    bool shared = false;
    for (int64_t p : pb) shared = shared || sa.count(p) > 0;
    ASSERT_EQ(may_overlap(a, b), shared) << to_string(a) << " vs " << to_string(b);
    ASSERT_EQ(may_overlap(b, a), shared) << to_string(b) << " vs " << to_string(a);
    (shared ? overlapping : disjoint)++;
  }
  EXPECT_GT(disjoint, 400);
  EXPECT_GT(overlapping, 400);
}

}  // namespace
}  // namespace geon
