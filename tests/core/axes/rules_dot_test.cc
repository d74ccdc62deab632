// Pins dot: seed 004's contraction over the axes both operands share (one test per example
// line) and seed 001's dual axes (M* in the first operand pairs with M in the second; transpose
// maps M^{k*} to M^{(1-k)*}, so dot(x, y) = dot(y^t, x^t)^t).
#include <gtest/gtest.h>

#include "core/axes/rules.h"
#include "tests/core/axes/seed_axes.h"

namespace geon {
namespace {

using AxesDot = Seed004;
using DualAxesDot = Seed004;

// --- "Standard 2d dot." ---
TEST_F(AxesDot, Standard2dDotContractsTheInnerAxis) {  // (A, B) . (B, C) -> (A, C)
  DotAxes d = dot_axes(Axes({A, B}), Axes({B, C}));
  EXPECT_TRUE(same_axes(d.out, Axes({A, C})));
  EXPECT_EQ(d.contracted, (std::vector<DotPair>{{1, 0}}));
  EXPECT_EQ(d.first_to_out, (std::vector<int64_t>{0, -1}));
  EXPECT_EQ(d.second_to_out, (std::vector<int64_t>{-1, 1}));
}

// --- "Dot operation will take place in overlapping axes" ---
TEST_F(AxesDot, AllOverlappingAxesAreContracted) {  // (A, B, C) . (B, C, D) -> (A, D)
  DotAxes d = dot_axes(Axes({A, B, C}), Axes({B, C, D}));
  EXPECT_TRUE(same_axes(d.out, Axes({A, D})));
  EXPECT_EQ(d.contracted, (std::vector<DotPair>{{1, 0}, {2, 1}}));
}
TEST_F(AxesDot, MatrixVectorOverTheFirstAxis) {  // (A, B) . (A,) -> (B,)
  DotAxes d = dot_axes(Axes({A, B}), Axes({A}));
  EXPECT_TRUE(same_axes(d.out, Axes({B})));
  EXPECT_EQ(d.contracted, (std::vector<DotPair>{{0, 0}}));
}

// --- "Left & right operands can be swapped, order of axis can be swapped" ---
TEST_F(AxesDot, LeftAxisOrderSwappedGivesSameAxes) {  // (B, A) . (B, C) -> (A, C)
  DotAxes d = dot_axes(Axes({B, A}), Axes({B, C}));
  EXPECT_TRUE(same_axes(d.out, Axes({A, C})));
  EXPECT_EQ(d.contracted, (std::vector<DotPair>{{0, 0}}));
}
TEST_F(AxesDot, SwappedOperandsGiveOrderOfTheNewLeft) {  // (B, C) . (A, B) -> (C, A)
  DotAxes d = dot_axes(Axes({B, C}), Axes({A, B}));
  EXPECT_TRUE(same_axes(d.out, Axes({C, A})));
  EXPECT_EQ(d.contracted, (std::vector<DotPair>{{0, 1}}));
}
TEST_F(AxesDot, SwappedResultsAreEquivalent) {
  Axes ab_bc = dot_axes(Axes({A, B}), Axes({B, C})).out;
  EXPECT_TRUE(equivalent(ab_bc, dot_axes(Axes({B, A}), Axes({B, C})).out));
  EXPECT_TRUE(equivalent(ab_bc, dot_axes(Axes({B, C}), Axes({A, B})).out));
}

TEST_F(AxesDot, NoSharedAxesIsAnOuterProduct) {
  DotAxes d = dot_axes(Axes({A}), Axes({B_, C}));
  EXPECT_TRUE(same_axes(d.out, Axes({A, B_, C})));
  EXPECT_TRUE(d.contracted.empty());
}
TEST_F(AxesDot, AxesOfEqualLengthButOtherIdentityAreNotContracted) {
  EXPECT_TRUE(same_axes(dot_axes(Axes({A, B}), Axes({B_, C})).out, Axes({A, B, B_, C})));
}
TEST_F(AxesDot, SharedAxisWithTwoLengthsIsAnError) {
  Axis n3 = make_axis(f, "N", Length::known(3));
  Axis n4 = n3;
  n4.length = Length::known(4);
  EXPECT_EQ(error_message([&] {
              dot_axes(Axes({A, n3}), Axes({n4, C}));
            }),
            "dot: axis 'N' has length 3 in the first operand and 4 in the second");
}
TEST_F(AxesDot, BatchAxesAreKeptOnceNotContracted) {  // MatMul (b, M, K) . (b, K, N) -> (b, M, N)
  Axis b = make_axis(f, "b", Length::symbolic("batch"));
  Axis M = make_axis(f, "M", Length::known(5));
  Axis K = make_axis(f, "K", Length::known(6));
  Axis N = make_axis(f, "N", Length::known(7));
  DotAxes d = dot_axes(Axes({b, M, K}), Axes({b, K, N}), Axes({b}));
  EXPECT_TRUE(same_axes(d.out, Axes({b, M, N})));
  EXPECT_EQ(d.contracted, (std::vector<DotPair>{{2, 1}}));
  EXPECT_EQ(d.first_to_out, (std::vector<int64_t>{0, 1, -1}));
  EXPECT_EQ(d.second_to_out, (std::vector<int64_t>{0, -1, 2}));
  // Without naming b as a batch axis, seed 004's rule contracts it as well.
  EXPECT_TRUE(same_axes(dot_axes(Axes({b, M, K}), Axes({b, K, N})).out, Axes({M, N})));
}
TEST_F(AxesDot, BatchAxisMustBeInBothOperands) {
  EXPECT_EQ(error_message([&] {
              dot_axes(Axes({A, B}), Axes({B, C}), Axes({A}));
            }),
            "dot: batch axis 'A' is not an axis of the second operand (B, C)");
  EXPECT_EQ(error_message([&] {
              dot_axes(Axes({A, B}), Axes({B, C}), Axes({C}));
            }),
            "dot: batch axis 'C' is not an axis of the first operand (A, B)");
}

// --- seed 001: dual axes ---
TEST_F(DualAxesDot, StarInFirstPairsWithPlainInSecond) {  // (C, B*) . (B,) -> (C,)
  DotAxes d = dot_axes(Axes({C, star(B)}), Axes({B}));
  EXPECT_TRUE(same_axes(d.out, Axes({C})));
  EXPECT_EQ(d.contracted, (std::vector<DotPair>{{1, 0}}));
}
TEST_F(DualAxesDot, PlainInFirstDoesNotPairWithStarInSecond) {  // (B,) . (B*,) -> (B, B*)
  DotAxes d = dot_axes(Axes({B}), Axes({star(B)}));
  EXPECT_TRUE(same_axes(d.out, Axes({B, star(B)})));
  EXPECT_TRUE(d.contracted.empty());
}
TEST_F(DualAxesDot, AntiStarInSecondReducesPlainFromTheRight) {  // (B,) . (B^-*, C) -> (C,)
  DotAxes d = dot_axes(Axes({B}), Axes({with_dual(B, -1), C}));
  EXPECT_TRUE(same_axes(d.out, Axes({C})));
  EXPECT_EQ(d.contracted, (std::vector<DotPair>{{0, 0}}));
}
TEST_F(DualAxesDot, TransposedVectorDotVectorIsTheSquaredNorm) {  // dot(x^t, x) -> ()
  Axes x({D});
  EXPECT_TRUE(same_axes(dual_transpose(x), Axes({star(D)})));
  DotAxes d = dot_axes(dual_transpose(x), x);
  EXPECT_TRUE(d.out.empty());
  EXPECT_EQ(d.contracted, (std::vector<DotPair>{{0, 0}}));
}
TEST_F(DualAxesDot, DotOfTransposesIsTransposeOfDot) {  // dot(x, y) = dot(y^t, x^t)^t
  Axes x({C, star(B)}), y({B, D});
  Axes xy = dot_axes(x, y).out;
  EXPECT_TRUE(same_axes(xy, Axes({C, D})));
  EXPECT_TRUE(same_axes(dual_transpose(y), Axes({star(D), star(B)})));
  EXPECT_TRUE(same_axes(dual_transpose(x), Axes({B, star(C)})));
  Axes yx_t = dot_axes(dual_transpose(y), dual_transpose(x)).out;
  EXPECT_TRUE(same_axes(yx_t, Axes({star(D), star(C)})));
  EXPECT_TRUE(same_axes(dual_transpose(yx_t), xy));
}
TEST_F(DualAxesDot, TransposeTwiceIsIdentity) {
  Axes x({A, star(B), with_dual(C, -1)});
  EXPECT_TRUE(same_axes(dual_transpose(dual_transpose(x)), x));
  EXPECT_TRUE(same_axes(dual_transpose(x), Axes({with_dual(C, 2), B, star(A)})));
}
TEST_F(DualAxesDot, TwoPossiblePartnersIsAnError) {  // B* could pair with B* (shared) or B (dual)
  EXPECT_EQ(error_message([&] {
              dot_axes(Axes({star(B)}), Axes({B, star(B)}));
            }),
            "dot: axis 'B*' of the first operand could pair with both 'B' and 'B*' of the second");
}
TEST_F(DualAxesDot, OnePartnerClaimedTwiceIsAnError) {  // B* and B of the first both want B
  EXPECT_EQ(error_message([&] {
              dot_axes(Axes({star(B), B}), Axes({B}));
            }),
            "dot: axis 'B' of the second operand would pair with both 'B*' and 'B' of the first");
}
TEST_F(DualAxesDot, DualPartnersWithTwoLengthsIsAnError) {
  Axis b5 = B;
  b5.length = Length::known(5);
  EXPECT_EQ(error_message([&] { dot_axes(Axes({star(B)}), Axes({b5})); }),
            "dot: axis 'B*' has length 2 in the first operand and its partner 'B' has length 5 "
            "in the second");
}

}  // namespace
}  // namespace geon
