// cpu.generic Softmax, LogSoftmax and Hardmax against naive loops: both forms (the 2-D coercion
// before opset 13, one axis from 13), every axis of random odd shapes, strided inputs, large
// values (the maximum must be subtracted) and Hardmax ties (the first maximum wins).
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// Reference over [outer, n, inner] blocks of a dense copy of x.
std::vector<double> naive(const std::string& op, const Host& x, int64_t outer, int64_t n,
                          int64_t inner) {
  std::vector<double> y(element_count(x.desc.shape));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return o * n * inner + k * inner + i; };
      double mx = x.at(at(0));
      int64_t arg = 0;
      for (int64_t k = 1; k < n; ++k)
        if (x.at(at(k)) > mx) mx = x.at(at(k)), arg = k;
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += std::exp(x.at(at(k)) - mx);
      for (int64_t k = 0; k < n; ++k) {
        const double v = x.at(at(k));
        if (op == "Softmax") y[at(k)] = std::exp(v - mx) / sum;
        if (op == "LogSoftmax") y[at(k)] = v - mx - std::log(sum);
        if (op == "Hardmax") y[at(k)] = k == arg ? 1 : 0;
      }
    }
  return y;
}

TEST(CpuGenericSoftmax, EveryAxisBothFormsStrided) {
  std::mt19937 rng(11);
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    for (int opset : {1, 13}) {
      for (int axis = -3; axis < (opset < 13 ? 4 : 3); ++axis) {
        const Dims s = random_shape(rng, 3, 7);
        Host x = Host::random(DType::kFloat, s, rng, -5, 5);
        if ((axis + 3) % 2) x = x.strided({2, 0, 1});
        const int a = axis < 0 ? axis + 3 : axis;
        int64_t outer = 1, n = 1, inner = 1;
        for (int k = 0; k < 3; ++k) (k < a ? outer : (k == a || opset < 13) ? n : inner) *= s[k];
        const std::vector<double> want = naive(op, x, outer, n, inner);
        NodeGraph ng(op, opset);
        ng.in(x).out(DType::kFloat, s).attr_i("axis", axis);
        SCOPED_TRACE(std::string(op) + " opset " + std::to_string(opset) + " axis " +
                     std::to_string(axis) + " " + to_string(x.desc));
        expect_values(ng.run(gen())[0], s, [&](int64_t i) { return want[i]; });
      }
    }
  }
}

TEST(CpuGenericSoftmax, DefaultAxisIsOneBefore13AndLastFrom13) {
  std::mt19937 rng(12);
  const Dims s{3, 4, 5};
  const Host x = Host::random(DType::kFloat, s, rng);
  const std::vector<double> old_form = naive("Softmax", x, 3, 20, 1);
  const std::vector<double> new_form = naive("Softmax", x, 12, 5, 1);
  NodeGraph a("Softmax", 1), b("Softmax", 13);
  a.in(x).out(DType::kFloat, s);
  b.in(x).out(DType::kFloat, s);
  expect_values(a.run(gen())[0], s, [&](int64_t i) { return old_form[i]; });
  expect_values(b.run(gen())[0], s, [&](int64_t i) { return new_form[i]; });
}

TEST(CpuGenericSoftmax, LargeValuesStayFinite) {
  const Dims s{2, 4};
  const Host x = Host::of(DType::kFloat, s, {1000, 1001, 1002, 1003, -1e30, 0, 1e30, 5});
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    const std::vector<double> want = naive(op, x, 2, 4, 1);
    NodeGraph ng(op, 13);
    ng.in(x).out(DType::kFloat, s);
    expect_values(
        ng.run(gen())[0], s, [&](int64_t i) { return want[i]; }, 1e-4);
  }
}

TEST(CpuGenericSoftmax, HardmaxFirstMaximumWinsOnTies) {
  const Dims s{2, 2, 3};
  const Host x = Host::of(DType::kFloat, s, {1, 3, 3, 3, 3, 1, 2, 2, 2, 0, 5, 5});
  const std::vector<double> row = {0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0};
  const std::vector<double> col = {0, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1};  // axis 1
  NodeGraph a("Hardmax", 13), b("Hardmax", 13);
  a.in(x).out(DType::kFloat, s);
  b.in(x).out(DType::kFloat, s).attr_i("axis", 1);
  expect_values(a.run(gen())[0], s, [&](int64_t i) { return row[i]; });
  expect_values(b.run(gen())[0], s, [&](int64_t i) { return col[i]; });
}

TEST(CpuGenericSoftmax, DoubleAndFloat16) {
  std::mt19937 rng(13);
  for (DType t : {DType::kDouble, DType::kFloat16}) {
    const Dims s{3, 300};  // more columns than one block of the column form
    const Host x = Host::random(t, s, rng);
    const std::vector<double> want = naive("Softmax", x, 1, 3, 300);
    NodeGraph ng("Softmax", 13);
    ng.in(x).out(t, s).attr_i("axis", 0);
    expect_values(
        ng.run(gen())[0], s, [&](int64_t i) { return want[i]; },
        t == DType::kFloat16 ? 2e-3 : 1e-9);
  }
}

// Big enough that the rows and the column blocks are split across the thread pool.
TEST(CpuGenericSoftmax, LargeShapesRunThreaded) {
  std::mt19937 rng(14);
  const Dims s{40, 101, 67};
  const Host x = Host::random(DType::kFloat, s, rng, -20, 20);
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    for (int axis : {1, 2}) {
      const std::vector<double> want =
          axis == 1 ? naive(op, x, 40, 101, 67) : naive(op, x, 40 * 101, 67, 1);
      NodeGraph ng(op, 13);
      ng.in(x).out(DType::kFloat, s).attr_i("axis", axis);
      SCOPED_TRACE(std::string(op) + " axis " + std::to_string(axis));
      expect_values(
          ng.run(gen())[0], s, [&](int64_t i) { return want[i]; }, 1e-4);
    }
  }
}

}  // namespace
}  // namespace geon::cpu::testing
