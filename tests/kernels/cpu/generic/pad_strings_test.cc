// cpu.generic Pad on string tensors against a naive per-element loop: constant padding with the
// string constant_value or "" when it is omitted, edge / reflect / wrap copying handles, negative
// pads cropping, the axes input (opset 18), dense and permuted-storage inputs; a numeric
// constant_value for string data and pads past the arena limit are refused.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/string_views.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// Position `rel` (from the first kept element) of a padded axis of `kept` elements: the kept
// element it copies, found by walking the mode's rule (reflect bounces off both ends), or -1
// for the constant.
int64_t naive_source(const std::string& mode, int64_t rel, int64_t kept) {
  if (rel >= 0 && rel < kept) return rel;
  if (mode == "constant") return -1;
  if (mode == "edge") return rel < 0 ? 0 : kept - 1;
  if (mode == "wrap") {
    while (rel < 0) rel += kept;
    while (rel >= kept) rel -= kept;
    return rel;
  }
  if (kept == 1) return 0;
  while (rel < 0 || rel >= kept) rel = rel < 0 ? -rel : 2 * (kept - 1) - rel;
  return rel;
}

// Pads x (shape s, strings v) by `pads` (begin..., end..., over `axes` or every axis).
void expect_pad(const Host& x, const std::vector<std::string>& v, const std::string& mode,
                const std::vector<int64_t>& pads, const std::optional<std::string>& value,
                const std::vector<int64_t>& axes, int opset) {
  const Dims s = x.shape();
  const int r = static_cast<int>(s.size());
  std::vector<int64_t> before(r, 0), after(r, 0);
  const size_t n = axes.empty() ? s.size() : axes.size();
  for (size_t i = 0; i < n; ++i) {
    const int64_t a = axes.empty() ? static_cast<int64_t>(i) : (axes[i] + r) % r;
    before[a] = pads[i];
    after[a] = pads[i + n];
  }
  NodeGraph ng("Pad", opset);
  ng.in(x).in(ints(pads), true);
  if (value)
    ng.in(strings({}, {*value}));
  else if (!axes.empty())
    ng.omitted();
  if (!axes.empty()) ng.in(ints(axes), true);
  ng.out(DType::kString).attr_s("mode", mode);
  const Host out = ng.run(gen())[0];
  Dims os(r);
  for (int k = 0; k < r; ++k) os[k] = s[k] + before[k] + after[k];
  ASSERT_EQ(out.shape(), os);
  for (int64_t f = 0; f < element_count(os); ++f) {
    std::vector<int64_t> o = unflatten(os, f);
    bool constant = false;
    for (int k = 0; k < r; ++k) {
      const int64_t cut = before[k] < 0 ? -before[k] : 0;
      const int64_t kept = s[k] - cut - (after[k] < 0 ? -after[k] : 0);
      const int64_t src = naive_source(mode, o[k] - std::max<int64_t>(before[k], 0), kept);
      constant = constant || src < 0;
      o[k] = cut + src;
    }
    const std::string want = constant ? value.value_or("") : v[flat_index(s, o)];
    EXPECT_EQ(string_at(out, f), want) << mode << " at " << f;
  }
}

TEST(CpuGenericPadStrings, EveryModeCopiesHandlesOrTheConstant) {
  const Dims s{3, 4};
  const std::vector<std::string> v = words(12);
  const std::vector<Host> xs{strings(s, v), permuted_strings(s, v, {1, 0})};
  for (const Host& x : xs) {
    for (const char* mode : {"constant", "edge", "reflect", "wrap"}) {
      expect_pad(x, v, mode, {1, 2, 2, 3}, std::nullopt, {}, 19);
      expect_pad(x, v, mode, {0, -1, 2, 1}, std::nullopt, {}, 19);  // a crop and pads
      expect_pad(x, v, mode, {2, 0, 0, 5}, std::string("pad!"), {}, 19);
      expect_pad(x, v, mode, {3, 1}, std::nullopt, {-1}, 19);  // the last axis only
    }
    for (const char* mode : {"constant", "edge", "reflect"}) {
      expect_pad(x, v, mode, {1, 1, 1, 1}, std::string("x"), {}, 11);
      expect_pad(x, v, mode, {2, 0}, std::nullopt, {0}, 18);
    }
  }
  // Rank 3 through a permuted layout, and an empty constant string.
  const Dims s3{2, 3, 2};
  const std::vector<std::string> v3 = words(12);
  expect_pad(permuted_strings(s3, v3, {2, 0, 1}), v3, "constant", {0, 1, 1, 1, 0, 2}, std::string(),
             {}, 21);
  expect_pad(permuted_strings(s3, v3, {2, 0, 1}), v3, "reflect", {1, 2, 1, 1, 1, 0}, std::nullopt,
             {}, 21);
}

TEST(CpuGenericPadStrings, RefusesBadConstantsAndHugePads) {
  NodeGraph numeric("Pad", 19);
  numeric.in(strings({2}, words(2))).in(ints({1, 1}), true);
  numeric.in(Host::of(DType::kFloat, {}, {0})).out(DType::kString);
  const std::optional<std::string> r = numeric.supports(gen());
  ASSERT_TRUE(r.has_value());
  EXPECT_NE(r->find("constant_value"), std::string::npos) << *r;
  NodeGraph huge("Pad", 19);
  huge.in(strings({2}, words(2))).in(ints({0, int64_t{1} << 50})).out(DType::kString);
  try {
    huge.run(gen());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("output"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace geon::cpu::testing
