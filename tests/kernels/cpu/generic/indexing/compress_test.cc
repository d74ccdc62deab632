// cpu.generic Compress against a naive selection: with and without an axis (negative too),
// conditions shorter than the axis and longer with false tails, strided inputs, other dtypes,
// and the error for a true entry past the input.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

Host random_condition(std::mt19937& rng, int64_t n, int64_t len) {
  Host h = Host::dense(DType::kBool, {n});
  for (int64_t i = 0; i < n; ++i) h.set(i, i < len ? rng() % 2 : 0);
  return h;
}

// The expected output and its shape.
std::pair<std::vector<double>, Dims> compressed(const Host& x, const Host& cond,
                                                std::optional<int> axis) {
  const Dims xs = x.shape();
  std::vector<int64_t> sel;
  for (int64_t j = 0; j < cond.shape()[0]; ++j)
    if (cond.at(j) != 0) sel.push_back(j);
  std::vector<double> out;
  if (!axis) {
    for (int64_t j : sel) out.push_back(x.at(j));
    return {out, {static_cast<int64_t>(sel.size())}};
  }
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < *axis; ++d) outer *= xs[d];
  for (size_t d = static_cast<size_t>(*axis) + 1; d < xs.size(); ++d) inner *= xs[d];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j : sel)
      for (int64_t i = 0; i < inner; ++i) out.push_back(x.at((o * xs[*axis] + j) * inner + i));
  Dims shape = xs;
  shape[*axis] = static_cast<int64_t>(sel.size());
  return {out, shape};
}

void expect_compress(const Host& x, const Host& cond, std::optional<int64_t> axis_attr) {
  NodeGraph ng("Compress", 11);
  ng.in(x).in(cond).out(x.desc.dtype);
  std::optional<int> axis;
  if (axis_attr) {
    ng.attr_i("axis", *axis_attr);
    axis = static_cast<int>(*axis_attr < 0 ? *axis_attr + x.desc.rank() : *axis_attr);
  }
  const auto want = compressed(x, cond, axis);  // (values, shape)
  expect_values(
      ng.run(gen())[0], want.second, [&](int64_t i) { return want.first[i]; }, 0);
}

TEST(CpuGenericCompress, WithAndWithoutAxis) {
  std::mt19937 rng(61);
  for (int trial = 0; trial < 40; ++trial) {
    const int r = 1 + trial % 4;
    const Dims xs = random_shape(rng, r, 5);
    const Host x = Host::random(DType::kFloat, xs, rng);
    if (trial % 4 == 0) {
      const int64_t total = element_count(xs);
      // Shorter than the input, or longer with only false entries past it.
      const int64_t n = trial % 8 ? static_cast<int64_t>(rng() % (total + 1)) : total + 3;
      expect_compress(x, random_condition(rng, n, total), std::nullopt);
      continue;
    }
    const int axis = static_cast<int>(rng() % r);
    const int64_t n = static_cast<int64_t>(rng() % (xs[axis] + 3));
    expect_compress(x, random_condition(rng, n, xs[axis]), trial % 2 ? axis : axis - r);
  }
}

TEST(CpuGenericCompress, StridedInputsAndOtherDtypes) {
  std::mt19937 rng(62);
  for (DType t : {DType::kFloat, DType::kUInt8, DType::kFloat16, DType::kInt64, DType::kBool,
                  DType::kComplex64}) {
    const Host x = Host::random(t, {3, 4, 5}, rng, 0, 3);
    expect_compress(x.strided({2, 0, 1}), random_condition(rng, 4, 4), 1);
    expect_compress(x.strided({1, 2, 0}), random_condition(rng, 50, 60), std::nullopt);
    expect_compress(x, random_condition(rng, 2, 3), 0);
  }
}

TEST(CpuGenericCompress, TrueEntryPastTheInputIsAnError) {
  NodeGraph ng("Compress", 11);
  ng.in(Host::dense(DType::kFloat, {2, 2}))
      .in(Host::of(DType::kBool, {4}, {0, 1, 0, 1}))
      .out(DType::kFloat)
      .attr_i("axis", 1);
  expect_error(ng, gen(), ErrorCode::kOutOfRange, {"Compress", "position 3", "2 entries"});
}

}  // namespace
}  // namespace geon::cpu::testing
