// Pins the Axes list: seed 004's two properties (no repeated axis; order does not matter for
// equivalence), lookups, permutations and identity-based set algebra.
#include "core/axes/axes.h"

#include <gtest/gtest.h>

#include "tests/core/axes/seed_axes.h"

namespace geon {
namespace {

using AxesList = Seed004;

TEST_F(AxesList, RepeatedAxisIsRejected) {
  // ng.Axes([B, B]) throws.
  EXPECT_EQ(error_message([&] {
              Axes({B, B});
            }),
            "axes: axis 'B' appears twice in (B, B) (positions 0 and 1)");
  try {
    Axes({A, B, C, B});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
  }
}

TEST_F(AxesList, DistinctAxesOfEqualLengthAreAccepted) {
  // ng.Axes([B, B_]) is correct.
  Axes x({B, B_});
  EXPECT_EQ(x.size(), 2u);
  EXPECT_EQ(to_string(x), "(B, B_)");
}

TEST_F(AxesList, AnAxisAndItsDualMayShareATensor) {
  Axes op({B, flip_dual(B)});  // a square operator B -> B
  EXPECT_EQ(to_string(op), "(B, B*)");
  EXPECT_EQ(error_message([&] {
              Axes({flip_dual(B), flip_dual(B)});
            }),
            "axes: axis 'B*' appears twice in (B*, B*) (positions 0 and 1)");
}

TEST_F(AxesList, OrderDoesNotMatterForEquivalence) {
  // x with axes (B, C) and y = x.T with axes (C, B) are equivalent.
  Axes x({B, C}), y({C, B});
  EXPECT_TRUE(equivalent(x, y));
  EXPECT_FALSE(x == y);  // as ordered lists they differ
  EXPECT_EQ(permutation_between(y, x), (std::vector<int64_t>{1, 0}));
}

TEST_F(AxesList, EquivalenceNeedsTheSameNumberAndSetOfAxes) {
  EXPECT_FALSE(equivalent(Axes({B, C}), Axes({B})));
  EXPECT_FALSE(equivalent(Axes({B, C}), Axes({B, C_})));  // C_ has C's length but is not C
  EXPECT_FALSE(equivalent(Axes({B}), Axes({flip_dual(B)})));
  EXPECT_TRUE(equivalent(Axes{}, Axes{}));
}

TEST_F(AxesList, EqualityIsOrderedIdentity) {
  EXPECT_TRUE(Axes({B, C}) == Axes({B, C}));
  EXPECT_FALSE(Axes({B, C}) == Axes({B, C, D}));
  Axis b_renamed = B;
  b_renamed.name = "other";  // names are descriptive; identity is the id
  EXPECT_TRUE(Axes({b_renamed}) == Axes({B}));
}

TEST_F(AxesList, LookupByIdentityIdAndName) {
  Axes x({A, B, flip_dual(C)});
  EXPECT_EQ(find_axis(x, B), 1u);
  EXPECT_EQ(find_axis(x, C), std::nullopt);  // only C* is there
  EXPECT_EQ(find_axis(x, flip_dual(C)), 2u);
  EXPECT_EQ(find_axis_id(x, A.id), 0u);
  EXPECT_EQ(find_axis_id(x, C.id, 1), 2u);
  EXPECT_EQ(find_axis_named(x, "B"), 1u);
  EXPECT_EQ(find_axis_named(x, "C"), std::nullopt);
  EXPECT_EQ(find_axis_named(x, "C", 1), 2u);
  EXPECT_TRUE(contains(x, A));
  EXPECT_FALSE(contains(x, A_));
}

TEST_F(AxesList, AmbiguousNameLookupIsAnError) {
  Axis b2 = make_axis_like(f, B, Length::known(5));  // keeps the name "B"
  Axes x({B, b2});
  EXPECT_EQ(error_message([&] { find_axis_named(x, "B"); }),
            "axes: more than one axis is named 'B' in (B, B); look it up by id");
}

TEST_F(AxesList, LengthsFollowTheAxes) {
  Axis n = make_axis(f, "N", Length::symbolic("batch"));
  EXPECT_EQ(lengths(Axes({B, C})), (std::vector<Length>{Length::known(2), Length::known(3)}));
  EXPECT_EQ(static_lengths(Axes({B, C, D})), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(static_lengths(Axes({B, n})), std::nullopt);
  EXPECT_EQ(static_lengths(Axes{}), std::vector<int64_t>{});
  EXPECT_EQ(to_string_with_lengths(Axes({B, n, flip_dual(C)})), "(B[2], N[batch], C*[3])");
}

TEST_F(AxesList, PermutationBetweenNonEquivalentAxesIsAnError) {
  EXPECT_EQ(error_message([&] {
              permutation_between(Axes({B, C}), Axes({B, D}));
            }),
            "axes: (B, C) and (B, D) are not the same set of axes, so no permutation maps one "
            "onto the other");
}

TEST_F(AxesList, PermuteReordersTheSameAxes) {
  Axes x({A, B, C});
  EXPECT_TRUE(same_axes(permute_axes(x, {2, 0, 1}), Axes({C, A, B})));
  EXPECT_EQ(permutation_between(x, permute_axes(x, {2, 0, 1})), (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(error_message([&] {
              permute_axes(x, {0, 0, 1});
            }),
            "permute: index 0 is out of range or repeated for axes (A, B, C)");
  EXPECT_EQ(error_message([&] {
              permute_axes(x, {0, 1});
            }),
            "permute: 2 indices for 3 axes (A, B, C)");
  EXPECT_EQ(error_message([&] {
              permute_axes(x, {0, 1, 3});
            }),
            "permute: index 3 is out of range or repeated for axes (A, B, C)");
}

TEST_F(AxesList, SetAlgebraComparesByIdentity) {
  Axes x({A, B, C}), y({C, D, B_});
  EXPECT_TRUE(same_axes(axes_union(x, y), Axes({A, B, C, D, B_})));
  EXPECT_TRUE(same_axes(axes_intersection(x, y), Axes({C})));
  EXPECT_TRUE(same_axes(axes_difference(x, y), Axes({A, B})));
  EXPECT_TRUE(same_axes(axes_concat(Axes({A}), Axes({B, C})), Axes({A, B, C})));
  EXPECT_EQ(error_message([&] { axes_concat(x, y); }),
            "axes: axis 'C' appears twice in (A, B, C, C, D, B_) (positions 2 and 3)");
}

}  // namespace
}  // namespace geon
