// cpu.generic Resize and Upsample on string tensors: mode nearest copies handles, checked
// against a naive floor(y / scale) loop and, for every opset's attribute and input forms
// (Upsample 7 and 9, Resize 10, 11, 13, 18, 19: scales, sizes, roi, axes, every coordinate
// transformation and nearest rounding), against the same node run on float data holding each
// element's index; positions outside the roi (tf_crop_and_resize) are "". Linear and cubic
// refuse strings with a reason.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/generic/string_views.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

Host floats(const std::vector<double>& v) {
  return Host::of(DType::kFloat, {static_cast<int64_t>(v.size())}, v);
}

// A node's op, opset, attributes and inputs after X, for data of dtype t.
using Build = std::function<void(NodeGraph&, const Host& x, DType t)>;

// Runs `build` on strings and on float indices (extrapolation -1 marks "outside"): the string
// result must be the strings at the indices the float result holds.
void expect_like_indices(const Dims& s, const std::string& op, int opset, const Build& build) {
  const std::vector<std::string> v = words(element_count(s));
  std::vector<double> idx(v.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<double>(i);
  NodeGraph num(op, opset);
  build(num, Host::of(DType::kFloat, s, idx), DType::kFloat);
  const Host where = num.run(gen())[0];
  std::vector<int64_t> perm(s.size());
  for (size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<int64_t>(perm.size() - 1 - k);
  for (const Host& x : {strings(s, v), permuted_strings(s, v, perm)}) {
    NodeGraph str(op, opset);
    build(str, x, DType::kString);
    const Host out = str.run(gen())[0];
    ASSERT_EQ(out.shape(), where.shape()) << op << "-" << opset;
    for (int64_t f = 0; f < element_count(out.desc); ++f) {
      const double at = where.at(f);
      EXPECT_EQ(string_at(out, f), at < 0 ? "" : v[static_cast<size_t>(at)])
          << op << "-" << opset << " at " << f;
    }
  }
}

TEST(CpuGenericResizeStrings, NearestMatchesFloorOfYOverScale) {
  const Dims s{2, 3, 4};
  const std::vector<std::string> v = words(24);
  const std::vector<double> scales{1, 2.5, 0.5};
  NodeGraph ng("Resize", 19);
  ng.in(strings(s, v)).omitted().in(floats(scales), true).out(DType::kString);
  ng.attr_s("mode", "nearest").attr_s("coordinate_transformation_mode", "asymmetric");
  ng.attr_s("nearest_mode", "floor");
  const Host out = ng.run(gen())[0];
  const Dims os{2, 7, 2};
  ASSERT_EQ(out.shape(), os);
  for (int64_t f = 0; f < element_count(os); ++f) {
    std::vector<int64_t> o = unflatten(os, f);
    for (int k = 0; k < 3; ++k) o[k] = static_cast<int64_t>(std::floor(o[k] / scales[k]));
    EXPECT_EQ(string_at(out, f), v[flat_index(s, o)]) << f;
  }
}

TEST(CpuGenericResizeStrings, EveryOpsetFormMovesTheSameElementsAsFloats) {
  const Dims s{1, 2, 3, 4};
  expect_like_indices(s, "Upsample", 7, [](NodeGraph& ng, const Host& x, DType t) {
    ng.in(x).out(t).attr_s("mode", "nearest");
    attr_floats(ng, "scales", {1, 1, 2, 1.5});
  });
  expect_like_indices(s, "Upsample", 9, [](NodeGraph& ng, const Host& x, DType t) {
    ng.in(x).in(floats({1, 1, 1.7, 2})).out(t);
  });
  expect_like_indices(s, "Resize", 10, [](NodeGraph& ng, const Host& x, DType t) {
    ng.in(x).in(floats({1, 1, 0.7, 2.3}), true).out(t);
  });
  for (const char* ctm :
       {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"})
    for (const char* nm : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
      expect_like_indices(s, "Resize", 11, [&](NodeGraph& ng, const Host& x, DType t) {
        ng.in(x).in(floats({}), true).in(floats({1, 1, 2.5, 0.75}), true).out(t);
        ng.attr_s("coordinate_transformation_mode", ctm).attr_s("nearest_mode", nm);
      });
      expect_like_indices(s, "Resize", 13, [&](NodeGraph& ng, const Host& x, DType t) {
        ng.in(x).omitted().omitted().in(ints({1, 2, 5, 3}), true).out(t);
        ng.attr_s("coordinate_transformation_mode", ctm).attr_s("nearest_mode", nm);
      });
    }
  expect_like_indices(s, "Resize", 13, [](NodeGraph& ng, const Host& x, DType t) {
    ng.in(x).in(floats({0, 0, 0.2, -0.3, 1, 1, 1.4, 0.9}), true).in(floats({1, 1, 2, 2}), true);
    ng.out(t).attr_s("coordinate_transformation_mode", "tf_crop_and_resize");
    ng.attr_f("extrapolation_value", -1);
  });
  for (const char* policy : {"stretch", "not_larger", "not_smaller"})
    expect_like_indices(s, "Resize", 18, [&](NodeGraph& ng, const Host& x, DType t) {
      ng.in(x).omitted().omitted().in(ints({7, 5}), true).out(t);
      ng.attr_ints("axes", {3, -2}).attr_s("keep_aspect_ratio_policy", policy);
    });
  expect_like_indices(s, "Resize", 19, [](NodeGraph& ng, const Host& x, DType t) {
    ng.in(x).omitted().in(floats({1.5, 0.5}), true).out(t).attr_ints("axes", {2, 3});
    ng.attr_s("coordinate_transformation_mode", "half_pixel_symmetric");
  });
}

TEST(CpuGenericResizeStrings, InterpolationRefusesStrings) {
  for (const char* mode : {"linear", "cubic"}) {
    NodeGraph ng("Resize", 19);
    ng.in(strings({1, 2}, words(2))).omitted().in(floats({1, 2}), true).out(DType::kString);
    ng.attr_s("mode", mode);
    const std::optional<std::string> r = ng.supports(gen());
    ASSERT_TRUE(r.has_value()) << mode;
    EXPECT_NE(r->find("strings"), std::string::npos) << *r;
    EXPECT_NE(r->find("nearest"), std::string::npos) << *r;
  }
  NodeGraph up("Upsample", 9);
  up.in(strings({1, 2}, words(2))).in(floats({1, 2}), true).out(DType::kString);
  up.attr_s("mode", "linear");
  EXPECT_TRUE(up.supports(gen()).has_value());
}

}  // namespace
}  // namespace geon::cpu::testing
