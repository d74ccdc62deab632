// cpu.generic movement ops (Transpose, Reshape, Flatten, Squeeze, Unsqueeze, Expand, Slice,
// Concat) against index arithmetic on the reference, including strided inputs that force the
// copy paths of Reshape, and parameters known only at run time.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

TEST(CpuGenericViews, Transpose) {
  std::mt19937 rng(1);
  const Host x = Host::random(DType::kFloat, {2, 3, 4}, rng);
  NodeGraph ng("Transpose", 13);
  ng.in(x).out(DType::kFloat, {4, 2, 3}).attr_ints("perm", {2, 0, 1});
  expect_values(ng.run(gen())[0], {4, 2, 3}, [&](int64_t i) {
    const int64_t c = i / 6, a = i / 3 % 2, b = i % 3;  // out[c][a][b] = x[a][b][c]
    return x.at(a * 12 + b * 4 + c);
  });
  NodeGraph rev("Transpose", 13);
  rev.in(x).out(DType::kFloat, {4, 3, 2});
  expect_values(rev.run(gen())[0], {4, 3, 2}, [&](int64_t i) {
    const int64_t c = i / 6, b = i / 2 % 3, a = i % 2;
    return x.at(a * 12 + b * 4 + c);
  });
}

TEST(CpuGenericViews, ReshapeAndFlattenFromAnyLayout) {
  std::mt19937 rng(4);
  // Row-major element order is what Reshape keeps, whatever the input's strides.
  for (bool strided : {false, true}) {
    Host x = Host::random(DType::kFloat, {2, 3, 4}, rng);
    if (strided) x = x.strided({2, 1, 0});
    NodeGraph r("Reshape", 14);
    r.in(x).in(ints({0, -1, 2}), true).out(DType::kFloat, {2, 6, 2});
    expect_values(r.run(gen())[0], {2, 6, 2}, [&](int64_t i) { return x.at(i); });
    NodeGraph f("Flatten", 13);
    f.in(x).out(DType::kFloat, {6, 4}).attr_i("axis", -1);
    expect_values(f.run(gen())[0], {6, 4}, [&](int64_t i) { return x.at(i); });
    NodeGraph f0("Flatten", 13);
    f0.in(x).out(DType::kFloat, {1, 24}).attr_i("axis", 0);
    expect_values(f0.run(gen())[0], {1, 24}, [&](int64_t i) { return x.at(i); });
  }
  // A shape known only at run time is read from the run's tensor (more in
  // generic_runtime_params_test.cc); a float shape is refused up front.
  const Host four = Host::of(DType::kFloat, {4}, {1, 2, 3, 4});
  NodeGraph dyn("Reshape", 14);
  dyn.in(four).in(ints({2, 2})).out(DType::kFloat, {2, 2});
  EXPECT_FALSE(dyn.supports(gen()));
  expect_values(dyn.run(gen())[0], {2, 2}, [&](int64_t i) { return four.at(i); });
  NodeGraph real_shape("Reshape", 14);
  real_shape.in(four).in(Host::of(DType::kFloat, {2}, {2, 2})).out(DType::kFloat, {2, 2});
  ASSERT_TRUE(real_shape.supports(gen()));
  EXPECT_NE(real_shape.supports(gen())->find("not an integer tensor"), std::string::npos);
}

TEST(CpuGenericViews, SqueezeUnsqueezeExpand) {
  std::mt19937 rng(8);
  const Host x = Host::random(DType::kInt64, {3, 1, 2}, rng, -9, 9);
  NodeGraph sq("Squeeze", 13), sq_old("Squeeze", 11), unsq("Unsqueeze", 13),
      unsq_old("Unsqueeze", 11);
  sq.in(x).in(ints({-2}), true).out(DType::kInt64, {3, 2});
  sq_old.in(x).out(DType::kInt64, {3, 2});
  unsq.in(x).in(ints({0, 4}), true).out(DType::kInt64, {1, 3, 1, 2, 1});
  unsq_old.in(x).out(DType::kInt64, {3, 1, 1, 2}).attr_ints("axes", {2});
  for (NodeGraph* ng : {&sq, &sq_old, &unsq, &unsq_old}) {
    const Host y = ng->run(gen())[0];
    expect_values(y, y.shape(), [&](int64_t i) { return x.at(i); });
  }
  NodeGraph ex("Expand", 13);
  ex.in(x).in(ints({2, 1, 4, 1}), true).out(DType::kInt64, {2, 3, 4, 2});
  expect_values(ex.run(gen())[0], {2, 3, 4, 2}, [&](int64_t i) {
    return bcast_at(x, {2, 3, 4, 2}, i);
  });
}

TEST(CpuGenericViews, SliceBothForms) {
  std::mt19937 rng(6);
  const Host x = Host::random(DType::kFloat, {5, 6}, rng);
  // x[4:0:-2, 1:100]  (ends past the length are clamped)
  NodeGraph s("Slice", 13);
  s.in(x)
      .in(ints({4, 1}), true)
      .in(ints({0, 100}), true)
      .in(ints({0, -1}), true)
      .in(ints({-2, 1}), true)
      .out(DType::kFloat, {2, 5});
  expect_values(s.run(gen())[0], {2, 5},
                [&](int64_t i) { return x.at((4 - 2 * (i / 5)) * 6 + 1 + i % 5); });
  NodeGraph old("Slice", 9);
  old.in(x)
      .out(DType::kFloat, {5, 2})
      .attr_ints("starts", {-2})
      .attr_ints("ends", {6})
      .attr_ints("axes", {1});
  expect_values(old.run(gen())[0], {5, 2}, [&](int64_t i) { return x.at(i / 2 * 6 + 4 + i % 2); });
  NodeGraph dyn("Slice", 13);
  dyn.in(x).in(ints({0}), true).in(ints({1})).out(DType::kFloat, {1, 6});
  EXPECT_FALSE(dyn.supports(gen()));
  expect_values(dyn.run(gen())[0], {1, 6}, [&](int64_t i) { return x.at(i); });
}

TEST(CpuGenericViews, ConcatIntoSlices) {
  std::mt19937 rng(12);
  const Host a = Host::random(DType::kFloat, {2, 3, 2}, rng);
  const Host b = Host::random(DType::kFloat, {2, 1, 2}, rng).strided({2, 1, 0});
  const Host e = Host::dense(DType::kFloat, {2, 0, 2});
  const Host c = Host::random(DType::kFloat, {2, 2, 2}, rng);
  NodeGraph ng("Concat", 13);
  ng.in(a).in(b).in(e).in(c).out(DType::kFloat, {2, 6, 2}).attr_i("axis", -2);
  expect_values(ng.run(gen())[0], {2, 6, 2}, [&](int64_t i) {
    const int64_t n = i / 12, k = i / 2 % 6, w = i % 2;
    if (k < 3) return a.at(n * 6 + k * 2 + w);
    if (k < 4) return b.at(n * 2 + w);
    return c.at(n * 4 + (k - 4) * 2 + w);
  });
}

}  // namespace
}  // namespace geon::cpu::testing
