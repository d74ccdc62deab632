// may_overlap: can two views of one storage reach a common element? Views share an element
// exactly when offset_a + strides_a·i == offset_b + strides_b·j for in-bounds i and j, a linear
// equation in bounded integers. This file decides that equation by a small pruned search.
#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "core/desc/check.h"
#include "core/desc/desc.h"

namespace geon {
namespace {

using desc_detail::add;
using desc_detail::ceil_div;
using desc_detail::floor_div;
using desc_detail::mul;

// Candidate values tried before the search gives up and answers "may overlap": about a
// millisecond at worst. Views of one dense layout need a handful.
constexpr int64_t kSearchBudget = int64_t{1} << 12;

// One unknown of the equation: coef * x with x in [lo, hi] and coef > 0.
struct Term {
  int64_t coef, lo, hi;
};

enum class Found { kNo, kYes, kGaveUp };

std::optional<int64_t> sub(int64_t a, int64_t b) {
  if (b == std::numeric_limits<int64_t>::min()) return std::nullopt;
  return add(a, -b);
}

int64_t mod(int64_t a, int64_t m) {
  const int64_t r = a % m;
  return r < 0 ? r + m : r;
}

// a * b mod m for a, b in [0, m). When the product does not fit, shift-and-add in unsigned
// arithmetic, which cannot wrap because m < 2^63, stands in for a wider integer type.
int64_t mul_mod(int64_t a, int64_t b, int64_t m) {
  if (auto p = mul(a, b)) return *p % m;
  uint64_t r = 0, x = static_cast<uint64_t>(a), um = static_cast<uint64_t>(m);
  for (uint64_t y = static_cast<uint64_t>(b); y != 0; y >>= 1) {
    if (y & 1) r = (r + x) % um;
    x = (x + x) % um;
  }
  return static_cast<int64_t>(r);
}

// The inverse of a modulo m, for coprime a in [0, m) and m >= 1 (extended Euclid).
int64_t inverse_mod(int64_t a, int64_t m) {
  int64_t r0 = m, r1 = a, t0 = 0, t1 = 1;
  while (r1 != 0) {
    const int64_t q = r0 / r1;
    r0 = std::exchange(r1, r0 - q * r1);
    t0 = std::exchange(t1, t0 - q * t1);
  }
  return mod(t0, m);
}

// The x with c*x ≡ r (mod m), as x ≡ first (mod step); nullopt when there is none.
struct Progression {
  int64_t first, step;
};
std::optional<Progression> solve_congruence(int64_t c, int64_t r, int64_t m) {
  const int64_t g = std::gcd(c, m);
  if (r % g != 0) return std::nullopt;
  const int64_t step = m / g;
  if (step == 1) return Progression{0, 1};
  const int64_t inv = inverse_mod(mod(c / g, step), step);
  return Progression{mul_mod(mod(r / g, step), inv, step), step};
}

// The smallest x >= lo of the progression; nullopt when it would pass int64.
std::optional<int64_t> first_at_least(int64_t lo, Progression p) {
  return add(lo, mod(p.first - mod(lo, p.step), p.step));
}

class Search {
 public:
  explicit Search(std::vector<Term> terms) : t_(std::move(terms)) {
    // Largest coefficient first: its candidates are the fewest, since the smaller terms after
    // it can only make up a narrow remainder.
    std::sort(t_.begin(), t_.end(), [](const Term& a, const Term& b) { return a.coef > b.coef; });
    const size_t n = t_.size();
    min_.assign(n + 1, 0);
    max_.assign(n + 1, 0);
    gcd_.assign(n + 1, 0);
    for (size_t k = n; k-- > 0;) {
      auto lo = mul(t_[k].coef, t_[k].lo), hi = mul(t_[k].coef, t_[k].hi);
      auto sum_lo = lo ? add(*lo, min_[k + 1]) : std::nullopt;
      auto sum_hi = hi ? add(*hi, max_[k + 1]) : std::nullopt;
      if (!sum_lo || !sum_hi) {
        ok_ = false;
        return;
      }
      min_[k] = *sum_lo;
      max_[k] = *sum_hi;
      gcd_[k] = std::gcd(t_[k].coef, gcd_[k + 1]);
    }
  }

  // Is there an x in the terms' box with sum(coef * x) == target?
  Found run(int64_t target) { return ok_ ? solve(0, target) : Found::kGaveUp; }

 private:
  Found solve(size_t k, int64_t r) {
    if (r < min_[k] || r > max_[k]) return Found::kNo;
    const size_t left = t_.size() - k;
    if (left == 0) return Found::kYes;  // r == 0, as min == max == 0
    if (r % gcd_[k] != 0) return Found::kNo;
    if (left == 1) return Found::kYes;  // coef divides r and r lies within coef * [lo, hi]
    if (left == 2) return solve_two(t_[k], t_[k + 1], r);
    // The rest must sum to r - coef*x: that bounds x and fixes it modulo what their gcd allows.
    const Term& a = t_[k];
    auto top = sub(r, max_[k + 1]), bottom = sub(r, min_[k + 1]);
    if (!top || !bottom) return Found::kGaveUp;
    const int64_t lo = std::max(a.lo, ceil_div(*top, a.coef));
    const int64_t hi = std::min(a.hi, floor_div(*bottom, a.coef));
    auto p = solve_congruence(a.coef, r, gcd_[k + 1]);
    if (!p || lo > hi) return Found::kNo;
    auto x = first_at_least(lo, *p);
    for (; x && *x <= hi; x = add(*x, p->step)) {
      if (--budget_ < 0) return Found::kGaveUp;
      // In range by the bounds above, so neither product nor difference can overflow.
      const Found f = solve(k + 1, r - a.coef * *x);
      if (f != Found::kNo) return f;
    }
    return Found::kNo;
  }

  // a.coef*x + b.coef*y == r in closed form: x runs through one residue class modulo
  // b.coef/g, and y's bounds turn into bounds on x.
  static Found solve_two(const Term& a, const Term& b, int64_t r) {
    auto p = solve_congruence(a.coef, r, b.coef);
    if (!p) return Found::kNo;
    auto b_hi = mul(b.coef, b.hi), b_lo = mul(b.coef, b.lo);
    auto top = b_hi ? sub(r, *b_hi) : std::nullopt;
    auto bottom = b_lo ? sub(r, *b_lo) : std::nullopt;
    if (!top || !bottom) return Found::kGaveUp;
    const int64_t lo = std::max(a.lo, ceil_div(*top, a.coef));
    const int64_t hi = std::min(a.hi, floor_div(*bottom, a.coef));
    if (lo > hi) return Found::kNo;
    auto x = first_at_least(lo, *p);
    return x && *x <= hi ? Found::kYes : Found::kNo;
  }

  std::vector<Term> t_;
  std::vector<int64_t> min_, max_, gcd_;  // over terms k.. : sum of coef*lo, of coef*hi, gcd
  int64_t budget_ = kSearchBudget;
  bool ok_ = true;
};

// Adds stride * v for v in [0, len-1], as a term with a positive coefficient.
void add_term(std::vector<Term>& terms, int64_t stride, int64_t len) {
  if (stride == 0 || len <= 1) return;  // broadcast and length-1 dims do not move the index
  if (stride > 0)
    terms.push_back({stride, 0, len - 1});
  else
    terms.push_back({-stride, -(len - 1), 0});
}

bool ranges_meet(int64_t a_first, int64_t a_last, int64_t b_first, int64_t b_last) {
  return a_first <= b_last && b_first <= a_last;
}

}  // namespace

bool may_overlap(const TensorDesc& a, const TensorDesc& b) {
  for (const TensorDesc* d : {&a, &b})
    if (static_cast<int>(d->dtype) >= kDTypeCount)
      desc_detail::invalid("may_overlap", "dtype " + std::to_string(static_cast<int>(d->dtype)) +
                                              " is not an ONNX element type");
  const ElementSpan ea = element_span(a), eb = element_span(b);
  if (ea.empty() || eb.empty()) return false;
  const int bits_a = dtype_bits(a.dtype), bits_b = dtype_bits(b.dtype);
  if (bits_a != bits_b) {
    // Element positions of different widths do not line up; compare bytes only.
    if (bits_a == 0 || bits_b == 0) return true;
    const ByteSpan ba = byte_span(a), bb = byte_span(b);
    return ranges_meet(ba.begin, ba.end - 1, bb.begin, bb.end - 1);
  }
  if (!ranges_meet(ea.first, ea.last, eb.first, eb.last)) return false;

  // offset_a + strides_a·i == offset_b + strides_b·j  <=>  strides_a·i - strides_b·j == ob - oa.
  // element_span succeeded, so no stride here is INT64_MIN and negating one is safe.
  std::vector<Term> terms;
  for (int i = 0; i < a.rank(); ++i) add_term(terms, a.strides[i], a.shape[i]);
  for (int i = 0; i < b.rank(); ++i) add_term(terms, -b.strides[i], b.shape[i]);
  const auto target = sub(b.offset, a.offset);
  if (!target) return true;
  // Unknowns with one coefficient act as one whose range is the sum of theirs (the sum of
  // integer intervals is the whole interval between the sums). Equal strides thus become
  // index differences, and the search sees each distinct stride once.
  std::sort(terms.begin(), terms.end(),
            [](const Term& x, const Term& y) { return x.coef < y.coef; });
  std::vector<Term> merged;
  for (const Term& t : terms) {
    if (!merged.empty() && merged.back().coef == t.coef) {
      auto lo = add(merged.back().lo, t.lo), hi = add(merged.back().hi, t.hi);
      if (!lo || !hi) return true;
      merged.back().lo = *lo;
      merged.back().hi = *hi;
    } else {
      merged.push_back(t);
    }
  }
  return Search(std::move(merged)).run(*target) != Found::kNo;
}

}  // namespace geon
