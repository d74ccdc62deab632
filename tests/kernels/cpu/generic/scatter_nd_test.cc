// cpu.generic ScatterND against a naive loop over the index tuples (applied in order): odd
// shapes, full and partial index tuples (slices), negative indices, strided data and updates,
// each reduction with duplicate indices, integer and float16 data, and the errors for an
// out-of-range index, a bad updates shape and a reduction its opset lacks; string data (moved
// as handles, from dense and transposed views) and its refused reductions.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/text/text_harness.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// The expected output: data, then each tuple's slice combined with its updates in order.
std::vector<double> scattered(const Host& data, const std::vector<int64_t>& idx, int64_t k,
                              const Host& upd, const std::string& red) {
  const Dims ds = data.shape();
  std::vector<double> out(static_cast<size_t>(element_count(ds)));
  for (size_t i = 0; i < out.size(); ++i) out[i] = data.at(static_cast<int64_t>(i));
  int64_t slice = 1;
  for (size_t d = static_cast<size_t>(k); d < ds.size(); ++d) slice *= ds[d];
  const int64_t tuples =
      k == 0 ? element_count(upd.shape()) / slice : static_cast<int64_t>(idx.size()) / k;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t off = 0;
    for (int64_t d = 0; d < k; ++d) {
      int64_t v = idx[t * k + d];
      if (v < 0) v += ds[d];
      off = off * ds[d] + v;
    }
    for (int64_t j = 0; j < slice; ++j) {
      double& o = out[off * slice + j];
      const double u = upd.at(t * slice + j);
      if (red == "add")
        o += u;
      else if (red == "mul")
        o *= u;
      else if (red == "max")
        o = std::max(o, u);
      else if (red == "min")
        o = std::min(o, u);
      else
        o = u;
    }
  }
  return out;
}

struct Case {
  Host data, indices, updates;
  std::vector<int64_t> idx;
  int64_t k;
};

// Random data of rank r, `tuples` (shaped `lead`) index tuples of length k (negative half the
// time), matching random updates; `unique` tuples when the reduction is "none".
Case random_case(std::mt19937& rng, DType t, int r, int64_t k, const Dims& lead, bool unique) {
  Case c;
  c.k = k;
  Dims ds = random_shape(rng, r, 5);
  const int64_t tuples = element_count(lead);
  int64_t space = 1;
  for (int64_t d = 0; d < k; ++d) space *= ds[d];
  if (unique && space < tuples) {  // room for distinct tuples along axis 0
    space = space / ds[0] * (ds[0] + tuples);
    ds[0] += tuples;
  }
  c.data = Host::random(t, ds, rng, -4, 4);
  std::vector<int64_t> picks;
  for (int64_t i = 0; i < space; ++i) picks.push_back(i);
  std::shuffle(picks.begin(), picks.end(), rng);
  for (int64_t i = 0; i < tuples; ++i) {
    int64_t flat = unique ? picks[i] : static_cast<int64_t>(rng() % space);
    std::vector<int64_t> tuple(k);
    for (int64_t d = k - 1; d >= 0; --d) {
      tuple[d] = flat % ds[d];
      flat /= ds[d];
      if (rng() % 2) tuple[d] -= ds[d];
    }
    c.idx.insert(c.idx.end(), tuple.begin(), tuple.end());
  }
  Dims is = lead;
  is.push_back(k);
  c.indices = Host::of(DType::kInt64, is, std::vector<double>(c.idx.begin(), c.idx.end()));
  Dims us = lead;
  us.insert(us.end(), ds.begin() + k, ds.end());
  c.updates = Host::random(t, us, rng, -4, 4);
  return c;
}

void expect_scatter(const Case& c, const std::string& red, int opset, DType t,
                    bool const_indices = false, double tol = 1e-5) {
  NodeGraph ng("ScatterND", opset);
  ng.in(c.data).in(c.indices, const_indices).in(c.updates).out(t);
  if (red != "none" || opset >= 16) ng.attr_s("reduction", red);
  const std::vector<double> want = scattered(c.data, c.idx, c.k, c.updates, red);
  expect_values(
      ng.run(gen())[0], c.data.shape(), [&](int64_t i) { return want[i]; }, tol);
}

TEST(CpuGenericScatterND, FullAndPartialTuplesOverRandomShapes) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    const int r = 1 + trial % 4;
    const int64_t k = 1 + static_cast<int64_t>(rng() % r);
    const Dims lead = trial % 3 == 0 ? Dims{2, 1} : Dims{static_cast<int64_t>(1 + rng() % 3)};
    const Case c = random_case(rng, DType::kFloat, r, k, lead, true);
    expect_scatter(c, "none", trial % 2 ? 11 : 13, DType::kFloat, trial % 5 == 0);
  }
}

TEST(CpuGenericScatterND, StridedDataAndUpdates) {
  std::mt19937 rng(12);
  for (int trial = 0; trial < 12; ++trial) {
    Case c = random_case(rng, DType::kFloat, 3, 1 + trial % 2, {2}, true);
    c.data = c.data.strided({2, 0, 1});
    // updates is (2, d1, d2) for k = 1, (2, d2) for k = 2: reverse its layout.
    std::vector<int64_t> perm(c.updates.shape().size());
    for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int64_t>(perm.size() - 1 - d);
    c.updates = c.updates.strided(perm);
    expect_scatter(c, trial % 2 ? "none" : "add", 16, DType::kFloat);
  }
}

TEST(CpuGenericScatterND, EachReductionWithDuplicateIndices) {
  std::mt19937 rng(13);
  for (const char* red : {"add", "mul", "max", "min"}) {
    for (int trial = 0; trial < 8; ++trial) {
      const int r = 1 + trial % 3;
      const Case c = random_case(rng, DType::kFloat, r, 1 + trial % r, {6}, false);
      expect_scatter(c, red, 18, DType::kFloat);
    }
  }
  // Reduction none with repeated tuples: applied in order, the last write stays.
  const Case c = random_case(rng, DType::kFloat, 2, 1, {7}, false);
  expect_scatter(c, "none", 18, DType::kFloat);
}

TEST(CpuGenericScatterND, IntegerAndHalfData) {
  std::mt19937 rng(14);
  for (DType t : {DType::kInt64, DType::kInt32, DType::kUInt8, DType::kInt8, DType::kFloat16,
                  DType::kDouble, DType::kBFloat16}) {
    const bool is_unsigned = t == DType::kUInt8;
    for (const char* red : {"none", "add", "max", "mul"}) {
      // Distinct tuples: one combine per element, so int8 cannot overflow and half types
      // round once.
      Case c = random_case(rng, t, 3, 2, {3}, true);
      if (is_unsigned) {
        c.data = Host::random(t, c.data.shape(), rng, 0, 9);
        c.updates = Host::random(t, c.updates.shape(), rng, 0, 9);
      }
      const bool half = t == DType::kFloat16 || t == DType::kBFloat16;
      expect_scatter(c, red, 18, t, false, half ? 1e-2 : 1e-5);
    }
  }
  // int4 (two elements a byte) goes slice by slice through the engine.
  Case c = random_case(rng, DType::kInt4, 2, 1, {2}, true);
  c.data = Host::random(DType::kInt4, c.data.shape(), rng, -8, 7);
  c.updates = Host::random(DType::kInt4, c.updates.shape(), rng, -8, 7);
  expect_scatter(c, "none", 18, DType::kInt4);
}

TEST(CpuGenericScatterND, EmptyTupleReplacesWholeData) {
  std::mt19937 rng(15);
  Case c;
  c.k = 0;
  c.data = Host::random(DType::kFloat, {3, 4}, rng);
  c.indices = Host::dense(DType::kInt64, {1, 0});
  c.updates = Host::random(DType::kFloat, {1, 3, 4}, rng);
  expect_scatter(c, "add", 16, DType::kFloat);
}

TEST(CpuGenericScatterND, OutOfRangeIndexIsAnErrorNamingIt) {
  const Host data = Host::of(DType::kFloat, {4, 3}, std::vector<double>(12, 1));
  NodeGraph hi("ScatterND", 13);
  hi.in(data).in(Host::of(DType::kInt64, {2, 1}, {1, 4})).in(Host::dense(DType::kFloat, {2, 3}));
  hi.out(DType::kFloat);
  expect_error(hi, gen(), ErrorCode::kInvalidArgument, {"ScatterND", "index 4", "length 4"});
  NodeGraph lo("ScatterND", 13);
  lo.in(data).in(Host::of(DType::kInt64, {1, 2}, {0, -4})).in(Host::dense(DType::kFloat, {1}));
  lo.out(DType::kFloat);
  expect_error(lo, gen(), ErrorCode::kInvalidArgument, {"index -4", "length 3"});
}

TEST(CpuGenericScatterND, BadUpdatesShapeAndReductionAreRefused) {
  const Host data = Host::of(DType::kFloat, {4, 3}, std::vector<double>(12, 1));
  NodeGraph shape("ScatterND", 13);
  shape.in(data).in(Host::of(DType::kInt64, {2, 1}, {1, 2})).in(Host::dense(DType::kFloat, {2}));
  shape.out(DType::kFloat);
  expect_error(shape, gen(), ErrorCode::kInvalidArgument, {"updates has shape (2)", "(2, 3)"});
  const Host idx = Host::of(DType::kInt64, {1, 1}, {0});
  const Host upd = Host::dense(DType::kFloat, {1, 3});
  NodeGraph g16("ScatterND", 16);
  g16.in(data).in(idx).in(upd).out(DType::kFloat).attr_s("reduction", "max");
  ASSERT_TRUE(g16.supports(gen()).has_value());
  EXPECT_NE(g16.supports(gen())->find("reduction 'max'"), std::string::npos);
}

TEST(CpuGenericScatterND, StringDataMovesRowsAndElements) {
  std::vector<std::string> v;
  for (int i = 0; i < 12; ++i) v.push_back(i == 5 ? std::string() : "s" + std::to_string(i * 7));
  // Rows: tuples (2), (-4) replace rows 2 and 0 of a (4, 3) tensor; elements: (1, 2), (3, -3).
  const std::vector<std::string> rows_upd{"r0", "r1", "r2", "r3", "r4", "r5"};
  std::vector<std::string> want_rows = v;
  for (int j = 0; j < 3; ++j) {
    want_rows[2 * 3 + j] = rows_upd[j];
    want_rows[0 * 3 + j] = rows_upd[3 + j];
  }
  std::vector<std::string> want_elems = v;
  want_elems[1 * 3 + 2] = "e0";
  want_elems[3 * 3 + 0] = "e1";
  for (const Host& data : {strings({4, 3}, v), transposed_strings({4, 3}, v)}) {
    NodeGraph rows("ScatterND", 18);
    rows.in(data).in(Host::of(DType::kInt64, {2, 1}, {2, -4}));
    rows.in(transposed_strings({2, 3}, rows_upd)).out(DType::kString);
    EXPECT_EQ(all_strings(rows.run(gen())[0]), want_rows);
    NodeGraph elems("ScatterND", 11);
    elems.in(data).in(Host::of(DType::kInt32, {2, 2}, {1, 2, 3, -3}));
    elems.in(strings({2}, {"e0", "e1"})).out(DType::kString);
    EXPECT_EQ(all_strings(elems.run(gen())[0]), want_elems);
  }
  for (const char* red : {"add", "mul", "max", "min"}) {
    NodeGraph ng("ScatterND", 18);
    ng.in(strings({2}, {"a", "b"})).in(Host::of(DType::kInt64, {1, 1}, {0}));
    ng.in(strings({1}, {"c"})).out(DType::kString).attr_s("reduction", red);
    const auto why = ng.supports(gen());
    ASSERT_TRUE(why.has_value()) << red;
    EXPECT_NE(why->find("string"), std::string::npos) << *why;
  }
}

}  // namespace
}  // namespace geon::cpu::testing
