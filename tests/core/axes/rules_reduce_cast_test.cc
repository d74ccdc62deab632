// Pins seed 004's reductions with out_axes (one test per example line) and AxesCast (both of
// its examples, including the casts that must be rejected).
#include <gtest/gtest.h>

#include "core/axes/rules.h"
#include "tests/core/axes/seed_axes.h"

namespace geon {
namespace {

using AxesReduce = Seed004;
using AxesCastRule = Seed004;

TEST_F(AxesReduce, EmptyOutAxesReducesAll) {  // reduce((A, B, C), out_axis=()) -> ()
  EXPECT_TRUE(same_axes(reduce_axes(Axes({A, B, C}), Axes{}), Axes{}));
  EXPECT_TRUE(same_axes(reduced_axes(Axes({A, B, C}), Axes{}), Axes({A, B, C})));
}
TEST_F(AxesReduce, KeepsOneAxis) {  // reduce((A, B, C), out_axis=(A,)) -> (A,)
  EXPECT_TRUE(same_axes(reduce_axes(Axes({A, B, C}), Axes({A})), Axes({A})));
  EXPECT_TRUE(same_axes(reduced_axes(Axes({A, B, C}), Axes({A})), Axes({B, C})));
}
TEST_F(AxesReduce, KeepsTwoAxes) {  // reduce((A, B, C), out_axis=(A, B)) -> (A, B)
  EXPECT_TRUE(same_axes(reduce_axes(Axes({A, B, C}), Axes({A, B})), Axes({A, B})));
}
TEST_F(AxesReduce, OutAxesOrderIsFree) {  // reduce((A, B, C), out_axis=(C, B)) -> (C, B)
  EXPECT_TRUE(same_axes(reduce_axes(Axes({A, B, C}), Axes({C, B})), Axes({C, B})));
  EXPECT_TRUE(same_axes(reduced_axes(Axes({A, B, C}), Axes({C, B})), Axes({A})));
}
TEST_F(AxesReduce, OutAxisNotInInputIsAnError) {
  EXPECT_EQ(error_message([&] {
              reduce_axes(Axes({A, B, C}), Axes({A, D}));
            }),
            "reduce: out axis 'D' is not an axis of the input (A, B, C)");
  // Same length is not enough: out axes are the input's own axes.
  EXPECT_EQ(error_message([&] {
              reduced_axes(Axes({A, B, C}), Axes({B_}));
            }),
            "reduce: out axis 'B_' is not an axis of the input (A, B, C)");
}

// Example 1: x (B, C) + y (B_, C_) unites all four axes; casting y to x's axes first gives (B, C).
TEST_F(AxesCastRule, AddingWithoutCastKeepsAllFourAxes) {
  Axes x({B, C}), y({B_, C_});
  EXPECT_TRUE(same_axes(elementwise_axes(x, y), Axes({B, C, B_, C_})));  // z1
}
TEST_F(AxesCastRule, AddingAfterCastGivesTheLeftAxes) {
  Axes x({B, C}), y({B_, C_});
  EXPECT_TRUE(same_axes(elementwise_axes(x, axes_cast(y, x)), Axes({B, C})));  // z2
}

// Example 2: casting y (B_, C_).
TEST_F(AxesCastRule, CastToAxesOfTheSameLengthsIsValid) {  // z1 = AxesCastOp(y, (B, C))
  EXPECT_TRUE(same_axes(axes_cast(Axes({B_, C_}), Axes({B, C})), Axes({B, C})));
}
TEST_F(AxesCastRule, CastToSwappedLengthsIsRejected) {  // z2 = AxesCastOp(y, (C, B))
  EXPECT_EQ(error_message([&] {
              axes_cast(Axes({B_, C_}), Axes({C, B}));
            }),
            "AxesCast: position 0: axis 'B_' has length 2 but the target axis 'C' has length 3");
}
TEST_F(AxesCastRule, CastToAnotherLengthIsRejected) {  // z3 = AxesCastOp(y, (B, D))
  EXPECT_EQ(error_message([&] {
              axes_cast(Axes({B_, C_}), Axes({B, D}));
            }),
            "AxesCast: position 1: axis 'C_' has length 3 but the target axis 'D' has length 4");
}
TEST_F(AxesCastRule, CastToAnotherRankIsRejected) {
  EXPECT_EQ(error_message([&] {
              axes_cast(Axes({B_, C_}), Axes({B}));
            }),
            "AxesCast: cannot cast (B_, C_) to (B): 2 axes against 1");
}
TEST_F(AxesCastRule, SymbolicLengthsAreLeftForTheRuntimeCheck) {
  Axis n = make_axis(f, "N", Length::symbolic("batch"));
  Axis u = make_axis(f, "U", Length::unknown());
  EXPECT_TRUE(same_axes(axes_cast(Axes({n, C_}), Axes({B, C})), Axes({B, C})));
  EXPECT_TRUE(same_axes(axes_cast(Axes({B_}), Axes({u})), Axes({u})));
}

}  // namespace
}  // namespace geon
