// cpu.generic's opset < 7 binary ops (core/onnx/legacy_broadcast.h) against naive loops:
// broadcast=1 with and without `axis` on seeded random shapes (strided inputs too), broadcast=0
// needing equal shapes, and PRelu-6's per-channel slope.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/base/error.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// Element of b (shape bs) that the legacy rule pairs with row-major index i of a's shape `as`:
// b's dim j matches a's dim axis + j (length-1 dims of b repeat).
double legacy_at(const Host& b, const Dims& as, int64_t axis, int64_t i) {
  const int ra = static_cast<int>(as.size()), rb = b.desc.rank();
  Dims coord(ra);
  for (int k = ra - 1; k >= 0; --k) {
    coord[k] = i % as[k];
    i /= as[k];
  }
  int64_t src = 0;
  for (int j = 0; j < rb; ++j) {
    const int64_t len = b.desc.shape[j];
    src = src * len + (len == 1 ? 0 : coord[axis + j]);
  }
  return b.at(src);
}

struct Case {
  const char* op;
  std::function<double(double, double)> f;
  double lo, hi;
};

const Case kCases[] = {
    {"Add", [](double a, double b) { return a + b; }, -2, 2},
    {"Sub", [](double a, double b) { return a - b; }, -2, 2},
    {"Mul", [](double a, double b) { return a * b; }, -2, 2},
    {"Div", [](double a, double b) { return a / b; }, 0.5, 2},
    {"Pow", [](double a, double b) { return std::pow(a, b); }, 0.5, 2},
};

// B = a contiguous run of A's dims starting at a random axis, some dims set to 1.
TEST(CpuGenericElementwiseLegacy, BroadcastWithAxisAlignsBFromAxis) {
  std::mt19937 rng(61);
  for (const Case& c : kCases) {
    for (int trial = 0; trial < 10; ++trial) {
      const int ra = 1 + static_cast<int>(rng() % 4);
      const Dims as = random_shape(rng, ra);
      const int64_t axis = static_cast<int64_t>(rng() % ra);
      const int64_t rb = 1 + static_cast<int64_t>(rng() % (ra - axis));
      Dims bs(as.begin() + axis, as.begin() + axis + rb);
      for (auto& x : bs)
        if (rng() % 4 == 0) x = 1;
      Host a = Host::random(DType::kFloat, as, rng, c.lo, c.hi);
      Host b = Host::random(DType::kFloat, bs, rng, c.lo, c.hi);
      if (ra == 2 && trial % 2) a = a.strided({1, 0});
      if (rb == 2 && trial % 3 == 0) b = b.strided({1, 0});
      // Half the trials give the axis as negative (counted from A's end).
      const int64_t given = trial % 2 ? axis - ra : axis;
      NodeGraph ng(c.op, trial % 3 ? 6 : 1);
      ng.in(a).in(b).out(DType::kFloat, as).attr_i("broadcast", 1).attr_i("axis", given);
      SCOPED_TRACE(std::string(c.op) + " " + to_string(a.desc) + " " + to_string(b.desc) +
                   " axis=" + std::to_string(given));
      expect_values(ng.run(gen())[0], as,
                    [&](int64_t i) { return c.f(a.at(i), legacy_at(b, as, axis, i)); });
    }
  }
}

TEST(CpuGenericElementwiseLegacy, BroadcastWithoutAxisMatchesTrailingDims) {
  std::mt19937 rng(62);
  for (const Case& c : kCases) {
    for (int trial = 0; trial < 8; ++trial) {
      const int ra = 1 + static_cast<int>(rng() % 4);
      const Dims as = random_shape(rng, ra);
      const int64_t rb = static_cast<int64_t>(rng() % (ra + 1));  // 0: a scalar B
      Dims bs(as.end() - rb, as.end());
      for (auto& x : bs)
        if (rng() % 4 == 0) x = 1;
      const Host a = Host::random(DType::kFloat, as, rng, c.lo, c.hi);
      const Host b = Host::random(DType::kFloat, bs, rng, c.lo, c.hi);
      NodeGraph ng(c.op, 6);
      ng.in(a).in(b).out(DType::kFloat, as).attr_i("broadcast", 1);
      SCOPED_TRACE(std::string(c.op) + " " + to_string(a.desc) + " " + to_string(b.desc));
      expect_values(ng.run(gen())[0], as,
                    [&](int64_t i) { return c.f(a.at(i), legacy_at(b, as, ra - rb, i)); });
    }
  }
}

// The axis=1 alignment differs from numpy's: (2,3,4,5) with B (3,4) has no numpy broadcast.
TEST(CpuGenericElementwiseLegacy, MiddleAxisIsNotNumpyAlignment) {
  std::mt19937 rng(63);
  const Dims as = {2, 3, 4, 5};
  const Host a = Host::random(DType::kFloat, as, rng), b = Host::random(DType::kFloat, {3, 4}, rng);
  NodeGraph ng("Add", 6);
  ng.in(a).in(b).out(DType::kFloat, as).attr_i("broadcast", 1).attr_i("axis", 1);
  expect_values(ng.run(gen())[0], as, [&](int64_t i) { return a.at(i) + b.at(i / 5 % 12); });
}

TEST(CpuGenericElementwiseLegacy, NoBroadcastNeedsEqualShapes) {
  std::mt19937 rng(64);
  const Host a = Host::random(DType::kFloat, {2, 3}, rng),
             same = Host::random(DType::kFloat, {2, 3}, rng);
  NodeGraph ok("Mul", 6);
  ok.in(a).in(same).out(DType::kFloat, {2, 3});
  expect_values(ok.run(gen())[0], {2, 3}, [&](int64_t i) { return a.at(i) * same.at(i); });

  const Host vec = Host::random(DType::kFloat, {3}, rng);
  NodeGraph bad("Mul", 6);
  bad.in(a).in(vec).out(DType::kFloat, {2, 3});
  try {
    bad.run(gen());
    FAIL() << "Mul-6 without broadcast=1 took B of another shape";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("without broadcast=1 needs B of A's shape (2,3), got (3)"),
              std::string::npos)
        << e.what();
  }
  // From opset 7 the same shapes broadcast numpy-style.
  NodeGraph now("Mul", 7);
  now.in(a).in(vec).out(DType::kFloat, {2, 3});
  expect_values(now.run(gen())[0], {2, 3}, [&](int64_t i) { return a.at(i) * vec.at(i % 3); });
}

TEST(CpuGenericElementwiseLegacy, BroadcastBThatDoesNotFitIsAnError) {
  std::mt19937 rng(65);
  const Host a = Host::random(DType::kFloat, {2, 3}, rng),
             b = Host::random(DType::kFloat, {2}, rng);
  NodeGraph ng("Add", 6);
  ng.in(a).in(b).out(DType::kFloat, {2, 3}).attr_i("broadcast", 1).attr_i("axis", 1);
  EXPECT_THROW(ng.run(gen()), Error);
}

TEST(CpuGenericElementwiseLegacy, PReluSixSlopeIsPerChannel) {
  std::mt19937 rng(66);
  for (const Dims& xs : {Dims{2, 3, 4}, Dims{2, 3, 4, 5}, Dims{2, 3, 2, 3, 2}}) {
    for (const int64_t slopes : {int64_t{1}, int64_t{3}}) {
      const Host x = Host::random(DType::kFloat, xs, rng);
      const Host s = Host::random(DType::kFloat, {slopes}, rng);
      NodeGraph ng("PRelu", 6);
      ng.in(x).in(s).out(DType::kFloat, xs);
      int64_t inner = 1;
      for (size_t k = 2; k < xs.size(); ++k) inner *= xs[k];
      SCOPED_TRACE(to_string(x.desc) + " " + to_string(s.desc));
      expect_values(ng.run(gen())[0], xs, [&](int64_t i) {
        const double v = x.at(i), slope = s.at(slopes == 1 ? 0 : i / inner % 3);
        return v >= 0 ? v : v * slope;
      });
    }
  }
}

}  // namespace
}  // namespace geon::cpu::testing
