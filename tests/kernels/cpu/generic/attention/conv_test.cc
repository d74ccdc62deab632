// cpu.generic's direct Conv (float16, bfloat16, double) against a naive loop: 1-D, 2-D and 3-D,
// groups, strides, dilations, explicit and SAME pads, bias, strided inputs; float is left to
// cpu.dnnl, and shapes that do not fit are clear errors.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Case {
  Dims x{2, 4, 7, 6}, w{6, 2, 3, 2};  // group 2
  int64_t group = 2;
  std::vector<int64_t> strides{1, 2}, dilations{2, 1}, pads{1, 0, 0, 1};
  std::string auto_pad;  // empty: NOTSET
  bool bias = true, strided = false;
  DType t = DType::kDouble;
};

// Output length of one spatial dim by the ONNX formulas.
int64_t out_len(const Case& c, int i, int64_t* begin) {
  const int n = static_cast<int>(c.x.size()) - 2;
  const int64_t in = c.x[2 + i], k = c.w[2 + i], s = c.strides[i], d = c.dilations[i];
  const int64_t eff = (k - 1) * d + 1;
  if (c.auto_pad.empty()) {
    *begin = c.pads[i];
    return (in + c.pads[i] + c.pads[i + n] - eff) / s + 1;
  }
  const int64_t out = (in + s - 1) / s;
  const int64_t total = std::max<int64_t>(0, (out - 1) * s + eff - in);
  *begin = c.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
  return out;
}

void check(const Case& c, double tol = 1e-9) {
  std::mt19937 rng(static_cast<unsigned>(c.x.size() * 5 + c.group));
  Host x = Host::random(c.t, c.x, rng);
  if (c.strided) {
    std::vector<int64_t> perm(c.x.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(perm.size() - 1 - i);
    x = x.strided(perm);
  }
  const Host w = Host::random(c.t, c.w, rng);
  const Host b = Host::random(c.t, {c.w[0]}, rng);
  const int n = static_cast<int>(c.x.size()) - 2;
  Dims out{c.x[0], c.w[0]};
  std::vector<int64_t> begin(n);
  for (int i = 0; i < n; ++i) out.push_back(out_len(c, i, &begin[i]));
  NodeGraph ng("Conv", 11);
  ng.in(x).in(w);
  if (c.bias) ng.in(b);
  ng.attr_i("group", c.group).attr_ints("strides", c.strides).attr_ints("dilations", c.dilations);
  if (c.auto_pad.empty())
    ng.attr_ints("pads", c.pads);
  else
    ng.attr_s("auto_pad", c.auto_pad);
  ng.out(c.t, out);
  const Host y = ng.run(gen())[0];
  const int64_t cg = c.x[1] / c.group, mg = c.w[0] / c.group;
  expect_values(
      y, out,
      [&](int64_t flat) {
        Dims pos(out.size());
        for (int k = static_cast<int>(out.size()) - 1; k >= 0; --k) {
          pos[k] = flat % out[k];
          flat /= out[k];
        }
        const int64_t m = pos[1], g = m / mg;
        double acc = c.bias ? b.at(m) : 0;
        int64_t kernel = 1;
        for (int i = 0; i < n; ++i) kernel *= c.w[2 + i];
        for (int64_t ci = 0; ci < cg; ++ci)
          for (int64_t kk = 0; kk < kernel; ++kk) {
            int64_t rest = kk, xi = pos[0] * c.x[1] + g * cg + ci, wi = m * cg + ci;
            bool inside = true;
            std::vector<int64_t> kpos(n);
            for (int i = n - 1; i >= 0; --i) {
              kpos[i] = rest % c.w[2 + i];
              rest /= c.w[2 + i];
            }
            for (int i = 0; i < n; ++i) {
              const int64_t at = pos[2 + i] * c.strides[i] - begin[i] + kpos[i] * c.dilations[i];
              inside = inside && at >= 0 && at < c.x[2 + i];
              xi = xi * c.x[2 + i] + at;
              wi = wi * c.w[2 + i] + kpos[i];
            }
            if (inside) acc += x.at(xi) * w.at(wi);
          }
        return acc;
      },
      tol);
}

TEST(CpuGenericConv, DirectLoopMatchesTheDefinition) {
  check({});
  Case same;
  same.auto_pad = "SAME_UPPER", same.dilations = {1, 1}, same.strided = true;
  check(same);
  same.auto_pad = "SAME_LOWER", same.strides = {2, 1};
  check(same);
  Case one_d;
  one_d.x = {1, 3, 9}, one_d.w = {3, 1, 4}, one_d.group = 3, one_d.strides = {1};
  one_d.dilations = {1}, one_d.pads = {3, 0}, one_d.bias = false;
  check(one_d);
  Case three_d;
  three_d.x = {1, 2, 4, 3, 5}, three_d.w = {2, 2, 2, 2, 3}, three_d.group = 1;
  three_d.strides = {1, 1, 2}, three_d.dilations = {1, 2, 1}, three_d.pads = {0, 1, 1, 1, 0, 1};
  check(three_d);
}

TEST(CpuGenericConv, NarrowTypesComputeInFloat) {
  Case half;
  half.t = DType::kFloat16;
  check(half, 5e-3);
  Case bf;
  bf.t = DType::kBFloat16, bf.bias = false;
  check(bf, 4e-2);
}

TEST(CpuGenericConv, FloatIsLeftToDnnlAndBadShapesAreErrors) {
  NodeGraph f("Conv", 11);
  f.in(Host::of(DType::kFloat, {1, 1, 3}, {})).in(Host::of(DType::kFloat, {1, 1, 2}, {}));
  f.out(DType::kFloat);
  ASSERT_TRUE(f.supports(gen()));
  EXPECT_NE(f.supports(gen())->find("cpu.dnnl"), std::string::npos);
  NodeGraph channels("Conv", 11);  // W needs 3 input channels, X has 2
  channels.in(Host::of(DType::kDouble, {1, 2, 5}, {}));
  channels.in(Host::of(DType::kDouble, {1, 3, 2}, {})).out(DType::kDouble);
  expect_error(channels, gen(), ErrorCode::kInvalidArgument, {"Conv", "channels"});
  NodeGraph tiny("Conv", 11);  // the kernel is longer than the input
  tiny.in(Host::of(DType::kDouble, {1, 1, 2}, {}));
  tiny.in(Host::of(DType::kDouble, {1, 1, 5}, {})).out(DType::kDouble);
  expect_error(tiny, gen(), ErrorCode::kInvalidArgument, {"Conv", "shorter"});
  NodeGraph bias("Conv", 11);
  bias.in(Host::of(DType::kDouble, {1, 1, 4}, {})).in(Host::of(DType::kDouble, {2, 1, 2}, {}));
  bias.in(Host::of(DType::kDouble, {3}, {})).out(DType::kDouble);
  expect_error(bias, gen(), ErrorCode::kInvalidArgument, {"bias"});
  NodeGraph pads("Conv", 11);
  pads.in(Host::of(DType::kDouble, {1, 1, 4}, {})).in(Host::of(DType::kDouble, {1, 1, 2}, {}));
  pads.attr_ints("pads", {int64_t{1} << 40, 0}).out(DType::kDouble);
  ASSERT_TRUE(pads.supports(gen()));
  NodeGraph huge("Conv", 11);  // pads within the attribute's range, an output past the limit
  huge.in(Host::of(DType::kDouble, {1, 1, 4}, {})).in(Host::of(DType::kDouble, {1, 1, 2}, {}));
  huge.attr_ints("pads", {int64_t{1} << 31, int64_t{1} << 31}).out(DType::kDouble);
  expect_error(huge, gen(), ErrorCode::kResourceExhausted, {"Conv"});
}

}  // namespace
}  // namespace geon::cpu::testing
