// Pins one axis's rules: lengths as ONNX states them, ids from an explicit factory, classes,
// seed 000's matching (identity, else class and length) and seed 001's dual flip.
#include "core/axes/axis.h"

#include <gtest/gtest.h>

#include "core/base/error.h"

namespace geon {
namespace {

TEST(AxisLength, StaticSymbolAndUnknownCompareAsProvable) {
  EXPECT_EQ(compare_lengths(Length::known(3), Length::known(3)), LengthRelation::kEqual);
  EXPECT_EQ(compare_lengths(Length::known(3), Length::known(4)), LengthRelation::kDifferent);
  EXPECT_EQ(compare_lengths(Length::symbolic("N"), Length::symbolic("N")), LengthRelation::kEqual);
  EXPECT_EQ(compare_lengths(Length::symbolic("N"), Length::symbolic("M")),
            LengthRelation::kUndecided);
  EXPECT_EQ(compare_lengths(Length::symbolic("N"), Length::known(4)), LengthRelation::kUndecided);
  EXPECT_EQ(compare_lengths(Length::unknown(), Length::unknown()), LengthRelation::kUndecided);
  EXPECT_EQ(compare_lengths(Length::unknown(), Length::known(1)), LengthRelation::kUndecided);
}

TEST(AxisLength, NegativeLengthAndEmptySymbolAreRejected) {
  try {
    Length::known(-1);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_STREQ(e.what(), "axis length must be >= 0, got -1");
  }
  EXPECT_THROW(Length::symbolic(""), Error);
}

TEST(AxisLength, PrintsNumberSymbolOrQuestionMark) {
  EXPECT_EQ(to_string(Length::known(7)), "7");
  EXPECT_EQ(to_string(Length::symbolic("batch")), "batch");
  EXPECT_EQ(to_string(Length::unknown()), "?");
}

TEST(AxisIds, IdsAreUniquePerFactoryAndFactoriesAreIndependent) {
  AxisFactory f, g;
  Axis a = make_axis(f, "a", Length::known(2));
  Axis b = make_axis(f, "b", Length::known(2));
  Axis c = make_axis(g, "c", Length::known(2));
  EXPECT_NE(a.id, b.id);
  EXPECT_NE(a.id, 0);
  EXPECT_EQ(c.id, a.id);  // a fresh factory starts over: ids mean something within one graph
  EXPECT_FALSE(same_axis(a, b));
}

TEST(AxisClasses, AxisWithoutClassGetsAUniqueClassOfItsOwn) {
  AxisFactory f;
  Axis a = make_axis(f, "a", Length::known(2));
  Axis b = make_axis(f, "b", Length::known(2));
  EXPECT_NE(a.cls, b.cls);
  EXPECT_EQ(a.cls.name, "a");
}

TEST(AxisClasses, AxesMadeWithOneClassShareIt) {
  AxisFactory f;
  AxisClass height = make_axis_class(f, "Height");
  Axis h1 = make_axis(f, "H", Length::known(32), height);
  Axis h2 = make_axis(f, "H2", Length::known(16), height);
  EXPECT_EQ(h1.cls, h2.cls);
  EXPECT_EQ(h2.cls.name, "Height");
  EXPECT_FALSE(same_axis(h1, h2));
}

TEST(AxisClasses, ClassNotMadeByAFactoryIsRejected) {
  AxisFactory f;
  try {
    make_axis(f, "H", Length::known(2), AxisClass{});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "axis 'H': its class was not made by an AxisFactory");
  }
}

TEST(AxisClasses, SlicingOrPaddingYieldsANewAxisOfTheSameClass) {
  AxisFactory f;
  Axis h = make_axis(f, "H", Length::known(32), make_axis_class(f, "Height"));
  Axis sliced = make_axis_like(f, h, Length::known(16));
  Axis padded = make_axis_like(f, h, Length::known(34), "H_pad");
  EXPECT_FALSE(same_axis(sliced, h));
  EXPECT_FALSE(same_axis(padded, sliced));
  EXPECT_EQ(sliced.cls, h.cls);
  EXPECT_EQ(padded.cls, h.cls);
  EXPECT_EQ(sliced.name, "H");
  EXPECT_EQ(padded.name, "H_pad");
  EXPECT_EQ(sliced.length, Length::known(16));
  Axis star_slice = make_axis_like(f, flip_dual(h), Length::known(8));
  EXPECT_EQ(star_slice.dual, 1);
}

TEST(AxisMatching, IdenticalAxesMatch) {
  AxisFactory f;
  Axis a = make_axis(f, "a", Length::unknown());
  EXPECT_TRUE(axes_match(a, a));  // identity needs no known length
}

TEST(AxisMatching, SameClassAndLengthMatchWithoutIdentity) {
  AxisFactory f;
  AxisClass height = make_axis_class(f, "Height");
  Axis h1 = make_axis(f, "H1", Length::known(32), height);
  Axis h2 = make_axis(f, "H2", Length::known(32), height);
  EXPECT_TRUE(axes_match(h1, h2));
  Axis s1 = make_axis(f, "S1", Length::symbolic("len"), height);
  Axis s2 = make_axis(f, "S2", Length::symbolic("len"), height);
  EXPECT_TRUE(axes_match(s1, s2));
}

TEST(AxisMatching, SameClassDifferentLengthDoesNotMatch) {
  AxisFactory f;
  AxisClass height = make_axis_class(f, "Height");
  EXPECT_FALSE(axes_match(make_axis(f, "H1", Length::known(32), height),
                          make_axis(f, "H2", Length::known(16), height)));
}

TEST(AxisMatching, UnprovableLengthsDoNotMatchByClass) {
  AxisFactory f;
  AxisClass height = make_axis_class(f, "Height");
  EXPECT_FALSE(axes_match(make_axis(f, "H1", Length::unknown(), height),
                          make_axis(f, "H2", Length::unknown(), height)));
  EXPECT_FALSE(axes_match(make_axis(f, "H1", Length::symbolic("a"), height),
                          make_axis(f, "H2", Length::known(3), height)));
}

TEST(AxisMatching, SameLengthDifferentClassDoesNotMatch) {
  AxisFactory f;  // seed 004's B and B_: same length, different labels, no shared class
  Axis b = make_axis(f, "B", Length::known(2));
  Axis b_ = make_axis(f, "B_", Length::known(2));
  EXPECT_FALSE(axes_match(b, b_));
}

TEST(AxisMatching, DualsOfOneAxisDoNotMatch) {
  AxisFactory f;
  Axis m = make_axis(f, "M", Length::known(4));
  EXPECT_FALSE(axes_match(m, flip_dual(m)));
  EXPECT_FALSE(same_axis(m, flip_dual(m)));
}

TEST(DualAxes, TransposeFlipsDual) {
  AxisFactory f;
  Axis m = make_axis(f, "M", Length::known(4));
  EXPECT_EQ(flip_dual(m).dual, 1);                 // M -> M*
  EXPECT_EQ(flip_dual(flip_dual(m)).dual, 0);      // M* -> M
  EXPECT_EQ(flip_dual(with_dual(m, -1)).dual, 2);  // M^-* -> M^2*: k -> 1-k
  EXPECT_EQ(flip_dual(m).id, m.id);
  EXPECT_TRUE(same_axis(flip_dual(flip_dual(m)), m));
}

TEST(DualAxes, NamesShowTheDual) {
  AxisFactory f;
  Axis m = make_axis(f, "M", Length::known(4));
  EXPECT_EQ(to_string(m), "M");
  EXPECT_EQ(to_string(flip_dual(m)), "M*");
  EXPECT_EQ(to_string(with_dual(m, -1)), "M^-*");
  EXPECT_EQ(to_string(with_dual(m, 2)), "M^2*");
  Axis unnamed = make_axis(f, "", Length::known(1));
  EXPECT_EQ(to_string(unnamed), "#" + std::to_string(unnamed.id));
}

}  // namespace
}  // namespace geon
