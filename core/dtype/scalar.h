// The exact, element-at-a-time conversion between any two numeric dtypes that `assign` falls
// back on when no fast kernel exists. It is slow on purpose: every value travels in the widest
// form of its kind, so the only rounding is the one the target type itself requires.
#pragma once

#include <cstdint>

#include "core/dtype/dtype.h"
#include "core/dtype/float8.h"

namespace geon {

struct CastOptions {
  bool saturate = true;  // Cast's `saturate`; affects float8 targets only
  using RoundMode = E8M0Round;
  RoundMode e8m0_round = RoundMode::kUp;  // Cast's `round_mode`; affects float8e8m0 only
};

// A value in transit between dtypes. Integers keep all 64 bits (int64 -> int64 through double
// would lose them). Only the fields `kind` names are meaningful: re for kFloat, i for kSigned,
// u for kUnsigned (bool loads as kUnsigned 0 or 1), re and im for kComplex.
struct Scalar {
  enum class Kind { kFloat, kSigned, kUnsigned, kComplex } kind = Kind::kFloat;
  double re = 0, im = 0;
  int64_t i = 0;
  uint64_t u = 0;
};

// Element `index` of storage `base` holding dtype `t` (packed types handled; index >= 0).
// Throws geon::Error(kNotSupported) for string and undefined.
Scalar load_scalar(DType t, const void* base, int64_t index);

// Writes v, converted to `t`, as element `index` of `base`. The rules are ONNX Cast's, and
// numpy's astype where Cast is silent (see scalar.cc for each choice). Throws like load_scalar.
void store_scalar(DType t, void* base, int64_t index, const Scalar& v, const CastOptions& opt = {});

// The value as a double (integers round to nearest; complex gives its real part), and as an
// int64 (floats truncate toward zero; unsigned values above INT64_MAX wrap).
double scalar_to_double(const Scalar& v);
int64_t scalar_to_int(const Scalar& v);

}  // namespace geon
