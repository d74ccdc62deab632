// cpu.generic Unique against a naive reference (a linear search for each entry's group, then
// sorting the groups): flattened and per-axis (negative too), sorted and by first occurrence,
// all four outputs, NaN and -0.0 as numpy counts them, strided inputs and other dtypes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }
bool before(double a, double b) { return !std::isnan(a) && (std::isnan(b) || a < b); }

struct Expected {
  std::vector<std::vector<double>> rows;  // per unique entry, its slice
  std::vector<int64_t> first, inverse, counts;
};

Expected reference(const Host& x, std::optional<int> axis, bool sorted) {
  const Dims xs = x.shape();
  const int64_t count = element_count(xs);
  const int64_t rows = axis ? xs[*axis] : count;
  int64_t outer = 1, inner = 1;
  if (axis) {
    for (int d = 0; d < *axis; ++d) outer *= xs[d];
    for (size_t d = static_cast<size_t>(*axis) + 1; d < xs.size(); ++d) inner *= xs[d];
  }
  auto slice = [&](int64_t row) {
    std::vector<double> s;
    if (!axis) return std::vector<double>{x.at(row)};
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) s.push_back(x.at((o * rows + row) * inner + i));
    return s;
  };
  auto equal = [](const std::vector<double>& a, const std::vector<double>& b) {
    for (size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i])) return false;
    return true;
  };
  Expected e;
  for (int64_t row = 0; row < rows; ++row) {
    const std::vector<double> s = slice(row);
    size_t u = 0;
    while (u < e.rows.size() && !equal(e.rows[u], s)) ++u;
    if (u == e.rows.size()) {
      e.rows.push_back(s);
      e.first.push_back(row);
      e.counts.push_back(0);
    }
    ++e.counts[u];
    e.inverse.push_back(static_cast<int64_t>(u));
  }
  if (!sorted) return e;
  // Slices compare element by element in the order slice() lists them (numpy's moveaxis).
  std::vector<int64_t> order(e.rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const auto &ra = e.rows[a], &rb = e.rows[b];
    for (size_t i = 0; i < ra.size(); ++i) {
      if (before(ra[i], rb[i])) return true;
      if (before(rb[i], ra[i])) return false;
    }
    return false;
  });
  Expected s;
  std::vector<int64_t> rank(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    rank[order[k]] = static_cast<int64_t>(k);
    s.rows.push_back(e.rows[order[k]]);
    s.first.push_back(e.first[order[k]]);
    s.counts.push_back(e.counts[order[k]]);
  }
  for (int64_t v : e.inverse) s.inverse.push_back(rank[v]);
  return s;
}

void expect_unique(const Host& x, std::optional<int64_t> axis_attr, bool sorted) {
  NodeGraph ng("Unique", 11);
  ng.in(x).out(x.desc.dtype).out(DType::kInt64).out(DType::kInt64).out(DType::kInt64);
  ng.attr_i("sorted", sorted);
  std::optional<int> axis;
  if (axis_attr) {
    ng.attr_i("axis", *axis_attr);
    axis = static_cast<int>(*axis_attr < 0 ? *axis_attr + x.desc.rank() : *axis_attr);
  }
  const Expected e = reference(x, axis, sorted);
  const std::vector<Host> got = ng.run(gen());
  const auto n = static_cast<int64_t>(e.first.size());
  const Dims xs = x.shape();
  if (!axis) {
    expect_values(
        got[0], {n}, [&](int64_t i) { return e.rows[i][0]; }, 0);
  } else {
    Dims shape = xs;
    shape[*axis] = n;
    int64_t inner = 1;
    for (size_t d = static_cast<size_t>(*axis) + 1; d < xs.size(); ++d) inner *= xs[d];
    expect_values(
        got[0], shape,
        [&](int64_t i) {
          const int64_t in = i % inner, u = (i / inner) % n, o = i / inner / n;
          return e.rows[u][o * inner + in];
        },
        0);
  }
  auto as_double = [](const std::vector<int64_t>& v) {
    return [&v](int64_t i) { return static_cast<double>(v[i]); };
  };
  expect_values(got[1], {n}, as_double(e.first), 0);
  expect_values(got[2], {static_cast<int64_t>(e.inverse.size())}, as_double(e.inverse), 0);
  expect_values(got[3], {n}, as_double(e.counts), 0);
}

TEST(CpuGenericUnique, FlattenedAndPerAxisSortedOrNot) {
  std::mt19937 rng(91);
  for (int trial = 0; trial < 48; ++trial) {
    const int r = 1 + trial % 3;
    const Dims xs = random_shape(rng, r, 4);
    // Few distinct values, so slices repeat.
    Host x = Host::random(DType::kFloat, xs, rng, 0, 2);
    for (int64_t i = 0; i < element_count(xs); ++i) x.set(i, std::round(x.at(i)));
    const bool sorted = trial % 2 == 0;
    if (trial % 4 < 2) {
      expect_unique(x, std::nullopt, sorted);
    } else {
      const int axis = static_cast<int>(rng() % r);
      expect_unique(x, trial % 3 ? axis : axis - r, sorted);
    }
  }
}

TEST(CpuGenericUnique, NanAndNegativeZeroAsNumpy) {
  const Host x = Host::of(DType::kFloat, {7}, {std::nan(""), 1, -0.0, std::nan(""), 0, -2, 1});
  expect_unique(x, std::nullopt, true);
  expect_unique(x, std::nullopt, false);
}

TEST(CpuGenericUnique, StridedInputsAndOtherDtypes) {
  std::mt19937 rng(92);
  for (DType t : {DType::kInt8, DType::kUInt64, DType::kInt64, DType::kFloat16, DType::kDouble,
                  DType::kBool, DType::kComplex64}) {
    const Host x = Host::random(t, {3, 4, 2}, rng, 0, 2);
    expect_unique(x, std::nullopt, true);
    expect_unique(x.strided({2, 0, 1}), 1, true);
    expect_unique(x.strided({1, 2, 0}), -1, false);
  }
}

TEST(CpuGenericUnique, OnlyTheRequestedOutputs) {
  NodeGraph ng("Unique", 11);
  ng.in(Host::of(DType::kInt32, {5}, {3, 1, 3, 2, 1})).out(DType::kInt32);
  expect_values(
      ng.run(gen())[0], {3}, [](int64_t i) { return static_cast<double>(i + 1); }, 0);
}

}  // namespace
}  // namespace geon::cpu::testing
