// Pins seed 004's elementwise rule, one test per example line: output axes are the union of
// the operands' axes, left operand's order first; plus seed 000's matching by class and length
// and seed 001's axes parameter.
#include <gtest/gtest.h>

#include "core/axes/rules.h"
#include "tests/core/axes/seed_axes.h"

namespace geon {
namespace {

using AxesElementwise = Seed004;

// --- "When matches, output the same axis." ---
TEST_F(AxesElementwise, MatchingSingleAxisGivesThatAxis) {  // (A,) + (A,) -> (A,)
  EXPECT_TRUE(same_axes(elementwise_axes(Axes({A}), Axes({A})), Axes({A})));
}
TEST_F(AxesElementwise, MatchingAxesGiveTheSameAxes) {  // (A, B) + (A, B) -> (A, B)
  EXPECT_TRUE(same_axes(elementwise_axes(Axes({A, B}), Axes({A, B})), Axes({A, B})));
}

// --- "Automatic broadcasting / dim shuffle" ---
TEST_F(AxesElementwise, RightOperandWithFirstAxisBroadcasts) {  // (A, B) + (A,) -> (A, B)
  EXPECT_TRUE(same_axes(elementwise_axes(Axes({A, B}), Axes({A})), Axes({A, B})));
}
TEST_F(AxesElementwise, RightOperandWithSecondAxisBroadcasts) {  // (A, B) + (B,) -> (A, B)
  EXPECT_TRUE(same_axes(elementwise_axes(Axes({A, B}), Axes({B})), Axes({A, B})));
}
TEST_F(AxesElementwise, NewRightAxisIsAppended) {  // (A, B) + (B, C) -> (A, B, C)
  EXPECT_TRUE(same_axes(elementwise_axes(Axes({A, B}), Axes({B, C})), Axes({A, B, C})));
}
TEST_F(AxesElementwise, RightOperandOrderDoesNotReorderLeftAxes) {  // (A, B) + (C, B) -> (A, B, C)
  EXPECT_TRUE(same_axes(elementwise_axes(Axes({A, B}), Axes({C, B})), Axes({A, B, C})));
}
TEST_F(AxesElementwise, NewRightAxesKeepTheirOrder) {  // (A, B) + (C, B, D) -> (A, B, C, D)
  EXPECT_TRUE(same_axes(elementwise_axes(Axes({A, B}), Axes({C, B, D})), Axes({A, B, C, D})));
}

// --- "Commutative property is as usual, though axis order ... can be different." ---
TEST_F(AxesElementwise, DisjointSingleAxesLeftFirst) {  // (A,) + (B,) -> (A, B)
  EXPECT_TRUE(same_axes(elementwise_axes(Axes({A}), Axes({B})), Axes({A, B})));
}
TEST_F(AxesElementwise, SwappedOperandsSwapOrder) {  // (B,) + (A,) -> (B, A)
  EXPECT_TRUE(same_axes(elementwise_axes(Axes({B}), Axes({A})), Axes({B, A})));
}
TEST_F(AxesElementwise, SingleAxisPlusPairLeftFirst) {  // (A,) + (B, C) -> (A, B, C)
  EXPECT_TRUE(same_axes(elementwise_axes(Axes({A}), Axes({B, C})), Axes({A, B, C})));
}
TEST_F(AxesElementwise, PairPlusSingleAxisLeftFirst) {  // (B, C) + (A,) -> (B, C, A)
  EXPECT_TRUE(same_axes(elementwise_axes(Axes({B, C}), Axes({A})), Axes({B, C, A})));
}
TEST_F(AxesElementwise, CommutedResultsAreEquivalent) {
  EXPECT_TRUE(equivalent(elementwise_axes(Axes({A}), Axes({B, C})),
                         elementwise_axes(Axes({B, C}), Axes({A}))));
}

// --- "Associative property is as usual." ---
TEST_F(AxesElementwise, LeftAssociatedSum) {  // ((A,) + (B,)) + (C,) -> (A, B) + (C,) -> (A, B, C)
  Axes ab = elementwise_axes(Axes({A}), Axes({B}));
  EXPECT_TRUE(same_axes(ab, Axes({A, B})));
  EXPECT_TRUE(same_axes(elementwise_axes(ab, Axes({C})), Axes({A, B, C})));
}
TEST_F(AxesElementwise, RightAssociatedSum) {  // (A,) + ((B,) + (C,)) -> (A,) + (B, C) -> (A, B, C)
  Axes bc = elementwise_axes(Axes({B}), Axes({C}));
  EXPECT_TRUE(same_axes(bc, Axes({B, C})));
  EXPECT_TRUE(same_axes(elementwise_axes(Axes({A}), bc), Axes({A, B, C})));
}

// --- "Distributive property is as usual." ---
TEST_F(AxesElementwise, ProductOfSum) {  // (A,) * ((B,) + (C,)) = (A,) * (B, C) = (A, B, C)
  Axes bc = elementwise_axes(Axes({B}), Axes({C}));
  EXPECT_TRUE(same_axes(elementwise_axes(Axes({A}), bc), Axes({A, B, C})));
}
TEST_F(AxesElementwise, SumOfProducts) {  // (A,) * (B,) + (A,) * (C,) = (A, B) * (A, C) = (A, B, C)
  Axes ab = elementwise_axes(Axes({A}), Axes({B}));
  Axes ac = elementwise_axes(Axes({A}), Axes({C}));
  EXPECT_TRUE(same_axes(ab, Axes({A, B})));
  EXPECT_TRUE(same_axes(ac, Axes({A, C})));
  EXPECT_TRUE(same_axes(elementwise_axes(ab, ac), Axes({A, B, C})));
}

// --- seed 000: broadcasting on the axis the smaller operand lacks ---
TEST_F(AxesElementwise, SmallerOperandBroadcastsOnMissingAxis) {
  Axis W = make_axis(f, "W", Length::known(32));
  Axis H = make_axis(f, "H", Length::known(32));
  Axis N = make_axis(f, "N", Length::known(8));
  ElementwiseAxes m = elementwise_mapping({Axes({W, H}), Axes({W, H, N})});
  EXPECT_TRUE(same_axes(m.out, Axes({W, H, N})));
  EXPECT_EQ(m.position[1], (std::vector<std::size_t>{0, 1, 2}));
  // (W, H) + (H, W): the dim shuffle is explicit, the right operand maps H->0, W->1 swapped.
  ElementwiseAxes t = elementwise_mapping({Axes({W, H}), Axes({H, W})});
  EXPECT_TRUE(same_axes(t.out, Axes({W, H})));
  EXPECT_EQ(t.position[0], (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(t.position[1], (std::vector<std::size_t>{1, 0}));
}

// --- seed 000: "If there is not an identity match, but two axes are of the same class and
// length, they will match." The output keeps the left operand's axis. ---
TEST_F(AxesElementwise, SameClassAndLengthMatchKeepsLeftAxis) {
  AxisClass height = make_axis_class(f, "Height");
  Axis h = make_axis(f, "H", Length::known(32), height);
  Axis h2 = make_axis(f, "H2", Length::known(32), height);
  ElementwiseAxes m = elementwise_mapping({Axes({h, C}), Axes({C, h2})});
  EXPECT_TRUE(same_axes(m.out, Axes({h, C})));
  EXPECT_EQ(m.position[1], (std::vector<std::size_t>{1, 0}));
}
TEST_F(AxesElementwise, SameClassOtherLengthBroadcastsInstead) {
  AxisClass height = make_axis_class(f, "Height");
  Axis h = make_axis(f, "H", Length::known(32), height);
  Axis h16 = make_axis(f, "H16", Length::known(16), height);
  EXPECT_TRUE(same_axes(elementwise_axes(Axes({h}), Axes({h16})), Axes({h, h16})));
}
TEST_F(AxesElementwise, IdentityWinsOverClassMatch) {
  AxisClass height = make_axis_class(f, "Height");
  Axis h = make_axis(f, "H", Length::known(32), height);
  Axis h2 = make_axis(f, "H2", Length::known(32), height);
  // h2 is in both by identity, so h in the right operand is not taken for h2 by class.
  ElementwiseAxes m = elementwise_mapping({Axes({h2}), Axes({h, h2})});
  EXPECT_TRUE(same_axes(m.out, Axes({h2, h})));
  EXPECT_EQ(m.position[1], (std::vector<std::size_t>{1, 0}));
}
TEST_F(AxesElementwise, AmbiguousClassMatchIsAnError) {
  AxisClass height = make_axis_class(f, "Height");
  Axis h1 = make_axis(f, "H1", Length::known(32), height);
  Axis h2 = make_axis(f, "H2", Length::known(32), height);
  Axis h3 = make_axis(f, "H3", Length::known(32), height);
  EXPECT_EQ(error_message([&] {
              elementwise_axes(Axes({h1, h2}), Axes({h3}));
            }),
            "elementwise: axis 'H3' of operand 1 matches both 'H1' and 'H2' by class and "
            "length; use AxesCast to say which");
  EXPECT_EQ(error_message([&] {
              elementwise_axes(Axes({h1}), Axes({h2, h3}));
            }),
            "elementwise: axes 'H2' and 'H3' of operand 1 both match 'H1' by class and length; "
            "use AxesCast to say which");
}
TEST_F(AxesElementwise, SameAxisWithTwoLengthsIsAnError) {
  Axis c4 = C;
  c4.length = Length::known(4);  // a corrupted copy: same identity, other length
  EXPECT_EQ(error_message([&] {
              elementwise_axes(Axes({A, C}), Axes({c4}));
            }),
            "elementwise: axis 'C' has length 3 in operand 0 and 4 in operand 1");
}
TEST_F(AxesElementwise, AxisAndItsDualAreDifferentAxes) {
  EXPECT_TRUE(
      same_axes(elementwise_axes(Axes({B}), Axes({flip_dual(B)})), Axes({B, flip_dual(B)})));
}

// --- seed 001: "optionally extended with the axes parameter ... the order can be overridden" ---
TEST_F(AxesElementwise, RequestedAxesFixOrderAndMayAddAxes) {
  ElementwiseAxes m = elementwise_mapping({Axes({A, B}), Axes({C, B})}, Axes({C, D}));
  EXPECT_TRUE(same_axes(m.out, Axes({C, D, A, B})));
  EXPECT_EQ(m.position[0], (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(m.position[1], (std::vector<std::size_t>{0, 3}));
}
TEST_F(AxesElementwise, ManyOperandsUniteLeftToRight) {  // Sum / Where with 3 operands
  ElementwiseAxes m = elementwise_mapping({Axes({B}), Axes({A, B}), Axes({D, C})});
  EXPECT_TRUE(same_axes(m.out, Axes({B, A, D, C})));
  EXPECT_EQ(m.position[2], (std::vector<std::size_t>{2, 3}));
  EXPECT_TRUE(same_axes(elementwise_mapping({}).out, Axes{}));
}

}  // namespace
}  // namespace geon
