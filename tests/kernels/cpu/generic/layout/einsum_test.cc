// cpu.generic Einsum against a naive sum over every assignment of the labels: matrix and batch
// products, traces and diagonals, sums, transposes, inner and outer products, three operands,
// implicit outputs, ellipses (checked against the same equation with letters), length-1 dims
// that stretch, strided inputs, integer dtypes (wrapping) and float16; and the errors for a
// rank that does not match its term and labels of different lengths, and the bound on what a
// stretched length-1 dim may make it stage.
#include <gtest/gtest.h>

#include <map>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// Letters-only equations with an explicit "->".
std::vector<double> naive(const std::string& eq, const std::vector<Host>& xs, Dims& out_shape) {
  const size_t arrow = eq.find("->");
  std::vector<std::string> terms;
  for (size_t s = 0;;) {
    const size_t c = eq.find(',', s);
    terms.push_back(eq.substr(s, (c == std::string::npos || c > arrow ? arrow : c) - s));
    if (c == std::string::npos || c > arrow) break;
    s = c + 1;
  }
  const std::string out = eq.substr(arrow + 2);
  std::map<char, int64_t> len;
  for (size_t i = 0; i < terms.size(); ++i)
    for (size_t d = 0; d < terms[i].size(); ++d)
      len[terms[i][d]] = std::max(len[terms[i][d]], xs[i].shape()[d]);
  std::vector<char> labels;
  for (auto& [l, n] : len) labels.push_back(l);
  out_shape.clear();
  for (char l : out) out_shape.push_back(len[l]);
  std::vector<double> res(static_cast<size_t>(element_count(out_shape)), 0.0);
  int64_t total = 1;
  for (char l : labels) total *= len[l];
  std::map<char, int64_t> v;
  for (int64_t a = 0; a < total; ++a) {
    int64_t rem = a;
    for (char l : labels) {
      v[l] = rem % len[l];
      rem /= len[l];
    }
    double p = 1;
    for (size_t i = 0; i < terms.size(); ++i) {
      int64_t idx = 0;
      for (size_t d = 0; d < terms[i].size(); ++d) {
        const int64_t n = xs[i].shape()[d];
        idx = idx * n + (n == 1 ? 0 : v[terms[i][d]]);
      }
      p *= xs[i].at(idx);
    }
    int64_t o = 0;
    for (char l : out) o = o * len[l] + v[l];
    res[o] += p;
  }
  return res;
}

void expect_einsum(const std::string& eq, const std::vector<Host>& xs,
                   const std::string& letters = "", double tol = 1e-5) {
  NodeGraph ng("Einsum", 12);
  for (const Host& x : xs) ng.in(x);
  ng.out(xs[0].desc.dtype).attr_s("equation", eq);
  Dims shape;
  const std::vector<double> want = naive(letters.empty() ? eq : letters, xs, shape);
  expect_values(
      ng.run(gen())[0], shape, [&](int64_t i) { return want[i]; }, tol);
}

TEST(CpuGenericEinsum, EveryFormOfTheData) {
  std::mt19937 rng(1);
  auto r = [&](Dims s) { return Host::random(DType::kFloat, s, rng); };
  expect_einsum("bij,bjk->bik", {r({3, 2, 4}), r({3, 4, 5})});
  expect_einsum("ii->i", {r({4, 4})});
  expect_einsum("bii->bi", {r({3, 4, 4})});
  expect_einsum("ii->", {r({5, 5})});
  expect_einsum("ij->i", {r({3, 4})});
  expect_einsum("ij->ji", {r({3, 4})});
  expect_einsum("i,i->", {r({7}), r({7})});
  expect_einsum("i,j->ij", {r({3}), r({4})});
  expect_einsum("ij,jk,kl->il", {r({2, 3}), r({3, 4}), r({4, 2})});
  expect_einsum("iij,jk->ik", {r({3, 3, 2}), r({2, 4})});
  expect_einsum("abc,cd,ae->bde", {r({2, 3, 4}), r({4, 2}), r({2, 3})});
  expect_einsum("ij,ij->ij", {r({3, 1}), r({3, 4})});
  expect_einsum("->", {r({})});
  expect_einsum(",i->i", {r({}), r({4})});
}

TEST(CpuGenericEinsum, ImplicitOutputsAndEllipses) {
  std::mt19937 rng(2);
  auto r = [&](Dims s) { return Host::random(DType::kFloat, s, rng); };
  expect_einsum("ij,jk", {r({2, 3}), r({3, 4})}, "ij,jk->ik");
  expect_einsum("ba", {r({2, 3})}, "ba->ab");
  expect_einsum("ii", {r({3, 3})}, "ii->");
  expect_einsum("...ij,...jk->...ik", {r({2, 3, 4}), r({2, 4, 5})}, "bij,bjk->bik");
  expect_einsum("...ii->...i", {r({2, 3, 3})}, "bii->bi");
  expect_einsum("...ij,...jk", {r({2, 2, 3}), r({1, 3, 4})}, "bij,bjk->bik");
  expect_einsum("i...->...", {r({3, 2, 4})}, "iab->ab");
  expect_einsum("ij...,jk...->ik...", {r({2, 3, 5}), r({3, 4, 5})}, "ije,jke->ike");
}

TEST(CpuGenericEinsum, StridedIntegerAndHalfInputs) {
  std::mt19937 rng(3);
  const Host a = Host::random(DType::kFloat, {3, 4, 5}, rng).strided({2, 0, 1});
  const Host b = Host::random(DType::kFloat, {3, 5, 2}, rng).strided({1, 2, 0});
  expect_einsum("bij,bjk->bik", {a, b});
  expect_einsum("bij->jb", {a});
  for (DType t : {DType::kInt32, DType::kInt64, DType::kUInt8, DType::kInt16, DType::kUInt32}) {
    const Host x = Host::random(t, {3, 4}, rng, 0, 6), y = Host::random(t, {4, 2}, rng, 0, 6);
    expect_einsum("ij,jk->ik", {x, y});
    expect_einsum("ij->j", {x});
  }
  // int8 products wrap like numpy's: 100 * 100 * 2 = 20000 = 32 (mod 256).
  const Host p = Host::of(DType::kInt8, {2}, {100, 100}),
             q = Host::of(DType::kInt8, {2}, {100, 100});
  NodeGraph ng("Einsum", 12);
  ng.in(p).in(q).out(DType::kInt8).attr_s("equation", "i,i->");
  EXPECT_EQ(ng.run(gen())[0].at(0), 32);
  expect_einsum(
      "ij,jk->ik",
      {Host::random(DType::kFloat16, {2, 3}, rng), Host::random(DType::kFloat16, {3, 2}, rng)}, "",
      1e-2);
  expect_einsum(
      "ij,jk->ik",
      {Host::random(DType::kDouble, {2, 3}, rng), Host::random(DType::kDouble, {3, 2}, rng)}, "",
      1e-12);
}

TEST(CpuGenericEinsum, MismatchedRanksAndLengthsAreErrors) {
  NodeGraph rank("Einsum", 12);
  rank.in(Host::dense(DType::kFloat, {2, 3, 4})).out(DType::kFloat).attr_s("equation", "ij->i");
  expect_error(rank, gen(), ErrorCode::kInvalidArgument, {"Einsum", "rank 3", "2 dims"});
  NodeGraph lens("Einsum", 12);
  lens.in(Host::dense(DType::kFloat, {2, 3})).in(Host::dense(DType::kFloat, {4, 5}));
  lens.out(DType::kFloat).attr_s("equation", "ij,jk->ik");
  expect_error(lens, gen(), ErrorCode::kInvalidArgument, {"label 'j'", "3", "4"});
  NodeGraph bad("Einsum", 12);
  bad.in(Host::dense(DType::kFloat, {2, 3})).out(DType::kFloat).attr_s("equation", "i$->i");
  ASSERT_TRUE(bad.supports(gen()).has_value());
  NodeGraph extra("Einsum", 12);
  extra.in(Host::dense(DType::kFloat, {2, 3})).out(DType::kFloat).attr_s("equation", "ij->ik");
  ASSERT_TRUE(extra.supports(gen()).has_value());
}

TEST(CpuGenericEinsum, StretchedLengthOneDimsCannotAllocateWithoutBound) {
  // A [1, 1] operand stretched by two long vectors would stage 2^40 elements.
  NodeGraph ng("Einsum", 12);
  ng.in(Host::dense(DType::kFloat, {1, 1}))
      .in(Host::dense(DType::kFloat, {int64_t{1} << 20}))
      .in(Host::dense(DType::kFloat, {int64_t{1} << 20}));
  ng.out(DType::kFloat).attr_s("equation", "ij,i,j->");
  expect_error(ng, gen(), ErrorCode::kResourceExhausted, {"Einsum", "limit"});
}

}  // namespace
}  // namespace geon::cpu::testing
