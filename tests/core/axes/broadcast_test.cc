// Pins numpy broadcasting of positional (ONNX) operands into axes: right alignment, equal
// lengths unified into one axis, a static 1 stretched against a longer dim, symbols left for
// the run-time check, and a fresh axis when one would otherwise repeat.
#include "core/axes/broadcast.h"

#include <gtest/gtest.h>

#include "tests/core/axes/seed_axes.h"

namespace geon {
namespace {

using R = BroadcastRole;

class AxesBroadcast : public ::testing::Test {
 protected:
  Axis axis(const char* name, Length n) { return make_axis(f, name, std::move(n)); }
  Axis axis(const char* name, int64_t n) { return axis(name, Length::known(n)); }
  AxisFactory f;
};

TEST_F(AxesBroadcast, EqualLengthsUnifyIntoTheLeftAxis) {  // (3) + (3) -> (3)
  Axis x = axis("x", 3), y = axis("y", 3);
  BroadcastAxes b = broadcast_axes({Axes({x}), Axes({y})}, f);
  EXPECT_TRUE(same_axes(b.out, Axes({x})));
  EXPECT_EQ(b.roles[0], (std::vector<R>{R::kKept}));
  EXPECT_EQ(b.roles[1], (std::vector<R>{R::kUnified}));
  EXPECT_TRUE(b.unchecked.empty());
}

TEST_F(AxesBroadcast, ShorterOperandIsRightAligned) {  // (2, 3) + (3) -> (2, 3)
  Axis p = axis("p", 2), q = axis("q", 3), r = axis("r", 3);
  BroadcastAxes b = broadcast_axes({Axes({p, q}), Axes({r})}, f);
  EXPECT_TRUE(same_axes(b.out, Axes({p, q})));
  EXPECT_EQ(b.roles[0], (std::vector<R>{R::kKept, R::kKept}));
  EXPECT_EQ(b.roles[1], (std::vector<R>{R::kUnified}));
  // Order of operands does not change which dims pair, only whose axis stands for them.
  BroadcastAxes s = broadcast_axes({Axes({r}), Axes({p, q})}, f);
  EXPECT_TRUE(same_axes(s.out, Axes({p, r})));
  EXPECT_EQ(s.roles[1], (std::vector<R>{R::kKept, R::kUnified}));
}

TEST_F(AxesBroadcast, LengthOneAgainstLongerIsStretched) {  // (2, 1) + (1, 3) -> (2, 3)
  Axis p = axis("p", 2), one_a = axis("one_a", 1), one_b = axis("one_b", 1), s = axis("s", 3);
  BroadcastAxes b = broadcast_axes({Axes({p, one_a}), Axes({one_b, s})}, f);
  EXPECT_TRUE(same_axes(b.out, Axes({p, s})));
  EXPECT_EQ(b.roles[0], (std::vector<R>{R::kKept, R::kStretched}));
  EXPECT_EQ(b.roles[1], (std::vector<R>{R::kStretched, R::kKept}));
}

TEST_F(AxesBroadcast, ColumnOfOnesKeepsTheLeftmostOne) {  // (1) + (1) -> (1)
  Axis u = axis("u", 1), v = axis("v", 1);
  BroadcastAxes b = broadcast_axes({Axes({u}), Axes({v})}, f);
  EXPECT_TRUE(same_axes(b.out, Axes({u})));
  EXPECT_EQ(b.roles[1], (std::vector<R>{R::kUnified}));
}

TEST_F(AxesBroadcast, DifferentLengthsOtherThanOneAreAnError) {  // (2, 3) + (4)
  Axis p = axis("p", 2), q = axis("q", 3), r = axis("r", 4);
  EXPECT_EQ(error_message([&] {
              broadcast_axes({Axes({p, q}), Axes({r})}, f);
            }),
            "broadcast: at dim -1 (counted from the right) axis 'q' of operand 0 has length 3 "
            "and axis 'r' of operand 1 has length 4; numpy broadcasting needs equal lengths or 1");
}

TEST_F(AxesBroadcast, SameSymbolIsProvenEqual) {  // (batch) + (batch)
  Axis x = axis("x", Length::symbolic("batch")), y = axis("y", Length::symbolic("batch"));
  BroadcastAxes b = broadcast_axes({Axes({x}), Axes({y})}, f);
  EXPECT_TRUE(same_axes(b.out, Axes({x})));
  EXPECT_TRUE(b.unchecked.empty());
}

TEST_F(AxesBroadcast, SymbolAgainstNumberTakesTheNumberAndIsCheckedLater) {  // (N, 3) + (4, n)
  Axis n = axis("n", Length::symbolic("N")), c3 = axis("c3", 3);
  Axis c4 = axis("c4", 4), m = axis("m", Length::symbolic("M"));
  BroadcastAxes b = broadcast_axes({Axes({n, c3}), Axes({c4, m})}, f);
  EXPECT_TRUE(same_axes(b.out, Axes({c4, c3})));
  EXPECT_EQ(b.roles[0], (std::vector<R>{R::kUnified, R::kKept}));
  EXPECT_EQ(b.roles[1], (std::vector<R>{R::kKept, R::kUnified}));
  EXPECT_EQ(b.unchecked, (std::vector<std::size_t>{0, 1}));
}

TEST_F(AxesBroadcast, UnknownAgainstOneIsKeptAndOneStretched) {  // (?) + (1)
  Axis u = axis("u", Length::unknown()), one = axis("one", 1);
  BroadcastAxes b = broadcast_axes({Axes({one}), Axes({u})}, f);
  EXPECT_TRUE(same_axes(b.out, Axes({u})));
  EXPECT_EQ(b.roles[0], (std::vector<R>{R::kStretched}));
  EXPECT_EQ(b.roles[1], (std::vector<R>{R::kKept}));
  EXPECT_TRUE(b.unchecked.empty());  // a single longer dim needs no check
}

TEST_F(AxesBroadcast, TwoUnknownsAreUnifiedButUnchecked) {  // (?) + (?)
  Axis u = axis("u", Length::unknown()), v = axis("v", Length::unknown());
  BroadcastAxes b = broadcast_axes({Axes({u}), Axes({v})}, f);
  EXPECT_TRUE(same_axes(b.out, Axes({u})));
  EXPECT_EQ(b.roles[1], (std::vector<R>{R::kUnified}));
  EXPECT_EQ(b.unchecked, (std::vector<std::size_t>{0}));
  EXPECT_TRUE(broadcast_axes({Axes({u}), Axes({u})}, f).unchecked.empty());  // one axis
}

TEST_F(AxesBroadcast, IdenticalAxesAreKeptInBoth) {
  Axis x = axis("x", 3), y = axis("y", 2);
  BroadcastAxes b = broadcast_axes({Axes({y, x}), Axes({x})}, f);
  EXPECT_TRUE(same_axes(b.out, Axes({y, x})));
  EXPECT_EQ(b.roles[1], (std::vector<R>{R::kKept}));
}

TEST_F(AxesBroadcast, AxisThatWouldRepeatGetsAFreshAxisOfItsClass) {  // x(N,1) * x(1,N)
  Axis n = axis("N", 3), u1 = axis("u1", 1), u2 = axis("u2", 1);
  BroadcastAxes b = broadcast_axes({Axes({n, u1}), Axes({u2, n})}, f);
  ASSERT_EQ(b.out.size(), 2u);
  EXPECT_TRUE(same_axis(b.out[0], n));
  EXPECT_FALSE(same_axis(b.out[1], n));
  EXPECT_EQ(b.out[1].cls, n.cls);
  EXPECT_EQ(b.out[1].length, Length::known(3));
  EXPECT_EQ(b.roles[0], (std::vector<R>{R::kKept, R::kStretched}));
  EXPECT_EQ(b.roles[1], (std::vector<R>{R::kStretched, R::kUnified}));
}

TEST_F(AxesBroadcast, ThreeOperandsAndScalars) {  // Where(c(1, 3), x(2, 1), y()) -> (2, 3)
  Axis one = axis("one", 1), c = axis("c", 3), p = axis("p", 2), q = axis("q", 1);
  BroadcastAxes b = broadcast_axes({Axes({one, c}), Axes({p, q}), Axes{}}, f);
  EXPECT_TRUE(same_axes(b.out, Axes({p, c})));
  EXPECT_EQ(b.roles[0], (std::vector<R>{R::kStretched, R::kKept}));
  EXPECT_EQ(b.roles[1], (std::vector<R>{R::kKept, R::kStretched}));
  EXPECT_TRUE(b.roles[2].empty());
  EXPECT_TRUE(broadcast_axes({Axes{}, Axes{}}, f).out.empty());
}

}  // namespace
}  // namespace geon
