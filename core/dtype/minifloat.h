// Rounds a double once, ties to even, onto the grid of a narrow binary float format. Every
// narrow-float encoder that takes a double shares this so that no conversion rounds twice (a
// double rounded to float and then to half can land on the wrong side of a tie).
#pragma once

#include <bit>
#include <cstdint>

#include "core/base/hd.h"

namespace geon::minifloat {

// The magnitude code of |x| (x finite; its sign is ignored) in a format with `mant_bits` stored
// mantissa bits and smallest normal exponent `min_exp` (unbiased), i.e. the code with the sign
// bit cleared: exponent field 0 holds the subnormals, field f > 0 holds 2^(f - 1 + min_exp).
// The exponent range is treated as unbounded above, so the caller compares the result with its
// format's largest finite code to detect overflow; a mantissa that rounds up carries into the
// exponent field on its own.
GEON_HD uint64_t round_magnitude(double x, int mant_bits, int min_exp) {
  const uint64_t bits = std::bit_cast<uint64_t>(x) & 0x7FFF'FFFF'FFFF'FFFFull;
  const int biased = static_cast<int>(bits >> 52);
  uint64_t sig = bits & ((uint64_t{1} << 52) - 1);
  int exp = -1022;  // double subnormals share the smallest exponent and have no hidden bit
  if (biased != 0) {
    sig |= uint64_t{1} << 52;
    exp = biased - 1023;
  }
  // |x| = sig * 2^(exp - 52). The target's quantum is 2^(e - mant_bits), e = max(exp, min_exp);
  // the narrow formats have at most 23 mantissa bits, so `shift` is always at least 29.
  const int e = exp > min_exp ? exp : min_exp;
  const int shift = (e - mant_bits) - (exp - 52);
  uint64_t r = 0;
  if (shift < 64) {  // otherwise |x| is below half a quantum and rounds to zero
    r = sig >> shift;
    const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (r & 1))) ++r;
  }
  // A normal r lies in [2^mant_bits, 2^(mant_bits+1)]: its hidden bit adds one to the exponent
  // field, which is why the field is (e - min_exp) and not (e - min_exp + 1).
  return (static_cast<uint64_t>(e - min_exp) << mant_bits) + r;
}

}  // namespace geon::minifloat
