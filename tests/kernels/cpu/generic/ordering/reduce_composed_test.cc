// cpu.generic ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp and ReduceSumSquare against
// naive loops in long double: both forms (axes attribute before 18, constant or run-time axes
// input from 18), random axes and keepdims, strided inputs, every dtype the spec allows
// (integers truncate as numpy's astype does), noop_with_empty_axes (the maps still apply),
// empty reductions (0 or -inf), LogSumExp's stability far from 0 and with infinities, and bad
// axes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/ordering/lines.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }
const char* const kOps[] = {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
                            "ReduceSumSquare"};
const double kInf = std::numeric_limits<double>::infinity();

// The op's value over `vals`, in long double (LogSumExp shifted by the largest finite value,
// so that a naive sum of exps does not overflow in the reference either).
double naive_value(const std::string& op, const std::vector<double>& vals) {
  long double sum = 0, top = -kInf;
  for (double v : vals)
    if (std::isfinite(v) && v > top) top = v;
  if (!std::isfinite(top)) top = 0;
  for (double v : vals) {
    if (op == "ReduceL1") sum += std::fabs(static_cast<long double>(v));
    if (op == "ReduceL2" || op == "ReduceSumSquare") sum += static_cast<long double>(v) * v;
    if (op == "ReduceLogSum") sum += v;
    if (op == "ReduceLogSumExp") sum += std::exp(static_cast<long double>(v) - top);
  }
  if (op == "ReduceL2") return static_cast<double>(std::sqrt(sum));
  if (op == "ReduceLogSum") return static_cast<double>(std::log(sum));
  if (op == "ReduceLogSumExp") return static_cast<double>(std::log(sum) + top);
  return static_cast<double>(sum);
}

// numpy's astype to an integer dtype: truncation toward zero.
double as_dtype(double v, DType t) { return is_integer(t) ? std::trunc(v) : v; }

// The expected result over the dims flagged in `red` (kept-dims order), for any rank.
std::vector<double> naive_reduce(const Host& x, const std::vector<bool>& red, const char* op) {
  const Dims& s = x.shape();
  const int r = static_cast<int>(s.size());
  Dims kept = s;
  for (int d = 0; d < r; ++d)
    if (red[d]) kept[d] = 1;
  std::vector<std::vector<double>> groups(static_cast<size_t>(element_count(kept)));
  for (int64_t i = 0; i < element_count(s); ++i) {
    int64_t rest = i, j = 0, scale = 1;
    for (int d = r - 1; d >= 0; --d) {
      const int64_t c = rest % s[d];
      rest /= s[d];
      j += (red[d] ? 0 : c) * scale;
      scale *= kept[d];
    }
    groups[j].push_back(x.at(i));
  }
  std::vector<double> out;
  for (const auto& g : groups) out.push_back(as_dtype(naive_value(op, g), x.desc.dtype));
  return out;
}

double tolerance(DType t) {
  if (t == DType::kFloat16) return 4e-3;
  if (t == DType::kBFloat16) return 2e-2;
  return t == DType::kFloat ? 1e-5 : 1e-9;
}

// Positive values, so LogSum's sums are positive for every dtype.
Host positive(std::mt19937& rng, DType t, const Dims& shape) {
  return Host::random(t, shape, rng, is_integer(t) ? 1 : 0.25, is_integer(t) ? 9 : 3);
}

void expect_reduce(const Host& x, const char* op, int opset, std::vector<int64_t> axes, bool keep,
                   bool const_axes = true) {
  const int r = x.desc.rank();
  std::vector<bool> red(static_cast<size_t>(r), axes.empty());
  for (int64_t a : axes) red[a < 0 ? a + r : a] = true;
  Dims out;
  for (int d = 0; d < r; ++d)
    if (!red[d] || keep) out.push_back(red[d] ? 1 : x.shape()[d]);
  NodeGraph ng(op, opset);
  ng.in(x);
  if (opset >= 18)
    ng.in(ints(axes), const_axes);
  else if (!axes.empty())
    ng.attr_ints("axes", axes);
  ng.out(x.desc.dtype, out).attr_i("keepdims", keep);
  const std::vector<double> want = naive_reduce(x, red, op);
  SCOPED_TRACE(std::string(op) + "-" + std::to_string(opset) + " " + to_string(x.desc));
  // out may be rank 0 (every dim reduced without keepdims): compare through the kept shape.
  const Host got = ng.run(gen())[0];
  expect_values(
      got, out, [&](int64_t i) { return want[i]; }, tolerance(x.desc.dtype));
}

TEST(CpuGenericReduceComposed, BothFormsRandomAxesFloat) {
  std::mt19937 rng(61);
  for (const char* op : kOps) {
    for (int trial = 0; trial < 10; ++trial) {
      const int r = 1 + trial % 4;
      Host x = Host::random(DType::kFloat, random_shape(rng, r, 5), rng, -3, 3);
      if (std::string(op) == "ReduceLogSum") x = positive(rng, DType::kFloat, x.shape());
      if (trial % 3 == 1 && r == 3) x = x.strided({2, 0, 1});
      std::vector<int64_t> axes;
      for (int d = 0; d < r; ++d)
        if (rng() % 2) axes.push_back(d - (trial % 2 ? r : 0));
      expect_reduce(x, op, trial < 5 ? 13 : 18, axes, trial % 3 != 2, trial % 4 != 3);
    }
  }
}

TEST(CpuGenericReduceComposed, EverySpecDtype) {
  std::mt19937 rng(62);
  const DType dtypes[] = {DType::kFloat, DType::kDouble, DType::kFloat16, DType::kBFloat16,
                          DType::kInt32, DType::kInt64,  DType::kUInt32,  DType::kUInt64};
  for (const char* op : kOps)
    for (DType t : dtypes)
      for (int trial = 0; trial < 3; ++trial) {
        const Host x = positive(rng, t, random_shape(rng, 3, 4));
        expect_reduce(x, op, 18, {static_cast<int64_t>(trial)}, trial != 1);
      }
}

TEST(CpuGenericReduceComposed, NoopWithEmptyAxesStillMapsEachElement) {
  std::mt19937 rng(63);
  for (const char* op : kOps) {
    const Host x = positive(rng, DType::kFloat, {2, 3});
    NodeGraph ng(op, 18);
    ng.in(x).out(DType::kFloat, {2, 3}).attr_i("noop_with_empty_axes", 1);
    const std::vector<double> want = naive_reduce(x, {false, false}, op);
    SCOPED_TRACE(op);
    expect_values(ng.run(gen())[0], {2, 3}, [&](int64_t i) { return want[i]; });
  }
}

TEST(CpuGenericReduceComposed, EmptyReductionsGiveTheIdentity) {
  for (const char* op : kOps) {
    NodeGraph ng(op, 18);
    ng.in(Host::dense(DType::kFloat, {2, 0, 3})).in(ints({1}), true);
    ng.out(DType::kFloat, {2, 1, 3});
    const std::string name = op;
    const double want = name == "ReduceLogSum" || name == "ReduceLogSumExp" ? -kInf : 0.0;
    const Host got = ng.run(gen())[0];
    ASSERT_EQ(got.shape(), (Dims{2, 1, 3}));
    for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(got.at(i), want) << op;
  }
}

TEST(CpuGenericReduceComposed, LogSumExpIsStableAndHandlesInfinities) {
  // Far from 0: a naive exp overflows float at 89 and double at 710.
  for (DType t : {DType::kFloat, DType::kDouble}) {
    const Host big = Host::of(t, {2, 3}, {1000, 1001, 999, -1000, -1001, -999});
    expect_reduce(big, "ReduceLogSumExp", 18, {1}, true);
  }
  const Host inf = Host::of(DType::kFloat, {3, 2}, {kInf, 1, -kInf, -kInf, -kInf, 5});
  NodeGraph ng("ReduceLogSumExp", 18);
  ng.in(inf).in(ints({1}), true).out(DType::kFloat, {3});
  ng.attr_i("keepdims", 0);
  const Host got = ng.run(gen())[0];
  EXPECT_EQ(got.at(0), kInf);   // +inf dominates
  EXPECT_EQ(got.at(1), -kInf);  // exp(-inf) sums to 0
  EXPECT_NEAR(got.at(2), 5.0, 1e-6);
}

TEST(CpuGenericReduceComposed, BadAxesAreErrors) {
  const Host x = Host::of(DType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  NodeGraph far("ReduceL2", 18);
  far.in(x).in(ints({2})).out(DType::kFloat);
  expect_error(far, gen(), ErrorCode::kInvalidArgument, {"ReduceL2", "axis 2", "rank 2"});
  NodeGraph attr("ReduceLogSumExp", 13);
  attr.in(x).out(DType::kFloat).attr_ints("axes", {-3});
  expect_error(attr, gen(), ErrorCode::kInvalidArgument, {"ReduceLogSumExp", "axis -3"});
}

}  // namespace
}  // namespace geon::cpu::testing
