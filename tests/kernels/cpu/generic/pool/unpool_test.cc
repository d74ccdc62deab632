// cpu.generic MaxUnpool against a naive scatter: MaxPool's own Indices (non-overlapping and
// overlapping windows, where a later element wins an index both name) over 1-3 spatial dims,
// strided and double inputs, output_shape (the unpooled tensor is its leading corner, ONNX's
// example), and the errors for indices outside the unpooled tensor and a too small output_shape.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/pool/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// The unpooled tensor of X's shape under c's window (no dilations, as MaxUnpool has none).
Dims unpooled(const Dims& x, const PoolCase& c) {
  const size_t s = c.kernel.size();
  Dims out = {x[0], x[1]};
  for (size_t d = 0; d < s; ++d)
    out.push_back((x[d + 2] - 1) * c.strides[d] - c.pads[d] - c.pads[d + s] + c.kernel[d]);
  return out;
}

// Y of shape `out` whose leading corner `inner` gets x[i] at flat position idx[i] of `inner`,
// in order, zeros elsewhere.
std::vector<double> naive_unpool(const std::vector<double>& x, const std::vector<int64_t>& idx,
                                 const Dims& inner, const Dims& out) {
  std::vector<double> y(element_count(out), 0.0);
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t flat = idx[i], pos = 0, scale = 1;
    for (int d = static_cast<int>(inner.size()) - 1; d >= 0; --d) {
      pos += flat % inner[d] * scale;
      flat /= inner[d];
      scale *= out[d];
    }
    y[pos] = x[i];
  }
  return y;
}

TEST(CpuGenericMaxUnpool, ScattersMaxPoolIndicesBack) {
  std::mt19937 rng(81);
  for (int trial = 0; trial < 18; ++trial) {
    const int sp = 1 + trial % 3;
    PoolCase c = random_pool_case(rng, sp, "max");
    c.dilations.assign(sp, 1);
    c.ceil_mode = false;
    if (trial % 2) c.strides = c.kernel;  // non-overlapping windows: every index once
    for (int i = 0; i < 2 * sp; ++i) c.pads[i] = std::min(c.pads[i], c.kernel[i % sp] - 1);
    const DType t = trial % 3 == 2 ? DType::kDouble : DType::kFloat;
    // Input lengths the windows cover exactly, so the unpooled shape is MaxPool's input shape.
    Dims shape = {1 + static_cast<int64_t>(rng() % 2), 1 + static_cast<int64_t>(rng() % 3)};
    for (int d = 0; d < sp; ++d) {
      int64_t out = 1 + static_cast<int64_t>(rng() % 4), in = 0;
      for (;; ++out) {
        in = (out - 1) * c.strides[d] - c.pads[d] - c.pads[d + sp] + c.kernel[d];
        if (in >= 1) break;
      }
      shape.push_back(in);
    }
    const Host src = Host::random(t, shape, rng);
    const PoolResult pooled = naive_pool(src, c);
    Host x = Host::of(t, pooled.shape, pooled.y);
    std::vector<double> index_values(pooled.indices.begin(), pooled.indices.end());
    Host ind = Host::of(DType::kInt64, pooled.shape, index_values);
    std::vector<int64_t> perm = {0};
    for (int i = 0; i < sp; ++i) perm.push_back(i + 2);
    perm.push_back(1);
    if (trial % 4 == 3) x = x.strided(perm), ind = ind.strided(perm);
    const Dims inner = unpooled(pooled.shape, c);
    ASSERT_EQ(inner, shape);
    NodeGraph ng("MaxUnpool", trial % 2 ? 11 : 22);
    ng.in(x).in(ind).out(t, inner);
    ng.attr_ints("kernel_shape", c.kernel).attr_ints("strides", c.strides);
    ng.attr_ints("pads", c.pads);
    SCOPED_TRACE("trial " + std::to_string(trial) + " " + to_string(x.desc));
    const std::vector<double> want = naive_unpool(pooled.y, pooled.indices, inner, inner);
    expect_values(ng.run(gen())[0], inner, [&](int64_t i) { return want[i]; });
  }
}

TEST(CpuGenericMaxUnpool, OutputShapeHoldsTheUnpooledTensorInItsCorner) {
  // ONNX's example: X (1, 1, 2, 2) from a 2x2 stride-2 MaxPool, unpooled 4x4 inside 5x5.
  const Host x = Host::of(DType::kFloat, {1, 1, 2, 2}, {5, 6, 7, 8});
  const Host ind = Host::of(DType::kInt64, {1, 1, 2, 2}, {5, 7, 13, 15});
  NodeGraph ng("MaxUnpool", 22);
  ng.in(x).in(ind).in(ints({1, 1, 5, 5}), true).out(DType::kFloat, {1, 1, 5, 5});
  ng.attr_ints("kernel_shape", {2, 2}).attr_ints("strides", {2, 2});
  const std::vector<double> want = {0, 0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0,
                                    0, 0, 0, 7, 0, 8, 0, 0, 0, 0, 0, 0};
  expect_values(ng.run(gen())[0], {1, 1, 5, 5}, [&](int64_t i) { return want[i]; });
}

TEST(CpuGenericMaxUnpool, RefusesIndicesOutsideAndASmallOutputShape) {
  const Host x = Host::of(DType::kFloat, {1, 1, 2}, {1, 2});
  NodeGraph far("MaxUnpool", 22);
  far.in(x).in(Host::of(DType::kInt64, {1, 1, 2}, {0, 4})).out(DType::kFloat, {1, 1, 4});
  far.attr_ints("kernel_shape", {2}).attr_ints("strides", {2});
  expect_error(far, gen(), ErrorCode::kInvalidArgument, {"MaxUnpool", "index 4"});
  NodeGraph small("MaxUnpool", 22);
  small.in(x).in(Host::of(DType::kInt64, {1, 1, 2}, {0, 3})).in(ints({1, 1, 3}), true);
  small.out(DType::kFloat, {1, 1, 3}).attr_ints("kernel_shape", {2}).attr_ints("strides", {2});
  expect_error(small, gen(), ErrorCode::kInvalidArgument, {"MaxUnpool", "smaller"});
  NodeGraph ints8("MaxUnpool", 22);
  ints8.in(Host::of(DType::kInt8, {1, 1, 2}, {1, 2}))
      .in(Host::of(DType::kInt64, {1, 1, 2}, {0, 3}))
      .out(DType::kInt8, {1, 1, 4});
  ints8.attr_ints("kernel_shape", {2}).attr_ints("strides", {2});
  EXPECT_NE(ints8.supports(gen()), std::nullopt);
}

}  // namespace
}  // namespace geon::cpu::testing
