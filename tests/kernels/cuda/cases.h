// Seeded test cases shared by the CUDA tests that run on the CPU (replaying the kernel bodies)
// and those that run on a GPU: one random case per op and compute type, random reductions,
// and value comparison with a tolerance that depends on the destination dtype.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/engine/engine.h"
#include "tests/core/engine/random_views.h"

namespace geon::cuda::testing {

using testing_views::Buffer;

struct OpCase {
  std::vector<Buffer> in;
  Buffer dst;
  Expr expr;
  std::string what;
};

// Narrow float storage for float compute, so the interpreter's conversions are exercised too.
inline DType storage_for(std::mt19937_64& rng, DType compute) {
  if (compute == DType::kFloat) {
    const DType choices[] = {DType::kFloat, DType::kFloat, DType::kFloat16, DType::kBFloat16};
    return choices[rng() % 4];
  }
  return compute;
}

// A random pass of `op` on compute type `compute`: broadcast inputs over random strided views,
// sometimes a scale per argument, sometimes a destination of another dtype.
inline OpCase op_case(std::mt19937_64& rng, const OpDef& op, DType compute, int rep) {
  using namespace testing_views;
  OpCase c;
  Dims loop = random_shape(rng, 4, 5);
  if (rep == 4) loop = {2, 1500};
  for (int a = 0; a < op.arity; ++a) {
    const DType t = (a == 0 && op.condition_first) ? DType::kBool : storage_for(rng, compute);
    c.in.push_back(random_view(rng, t, broadcastable_shape(rng, loop)));
  }
  const int full = op.condition_first ? 1 : 0;
  c.in[full] = random_view(rng, c.in[full].desc.dtype, loop);
  const DType rt = op.result == OpResult::kBool ? DType::kBool : compute;
  const DType dt = (rng() % 3 == 0) ? storage_for(rng, DType::kFloat) : rt;
  c.dst = random_view(rng, dt, loop);
  std::vector<DType> dtypes;
  for (const Buffer& b : c.in) dtypes.push_back(b.desc.dtype);
  ExprBuilder eb(dtypes);
  std::vector<double> scale(op.arity, 1.0);
  if (rng() % 4 == 0 && compute != DType::kBool && !op.condition_first)
    for (double& s : scale)
      s = (compute == DType::kFloat || compute == DType::kDouble)
              ? 0.5 + static_cast<double>(rng() % 4)
              : static_cast<double>(1 + rng() % 3);
  switch (op.arity) {
    case 1:
      eb.apply(op.name, {eb.input(0)}, {scale[0]}, {0.25});
      break;
    case 2:
      eb.apply(op.name, {eb.input(0), eb.input(1)}, {scale[0], scale[1]});
      break;
    default:
      eb.apply(op.name, {eb.input(0), eb.input(1), eb.input(2)});
      break;
  }
  c.expr = eb.build();
  c.what = std::string(op.name) + " on " + std::string(dtype_name(compute)) + " into " +
           to_string(c.dst.desc);
  return c;
}

inline double as_double(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::kSigned:
      return static_cast<double>(s.i);
    case Scalar::Kind::kUnsigned:
      return static_cast<double>(s.u);
    default:
      return s.re;
  }
}

// Relative tolerance for results stored as t when the computation may differ by a few ulps of
// float (CUDA's math library against glibc's): a float ulp is 6e-8; storing to a narrow type
// can then move one of its own ulps.
inline double tolerance_for(DType t, bool exact) {
  if (exact || !is_floating(t)) return 0;
  switch (t) {
    case DType::kDouble:
      return 1e-12;
    case DType::kFloat:
      return 2e-6;
    case DType::kFloat16:
      return 2e-3;
    default:
      return 1.6e-2;  // bfloat16 and the 8-bit formats
  }
}

// Compares every element of got's view with want's; NaN equals NaN. Floats within rel * |want|
// (plus rel as an absolute floor near zero; infinities must match exactly).
inline void expect_same_values(const Buffer& got, const Buffer& want, double rel,
                               const std::string& what) {
  int bad = 0;
  testing_views::for_each_index(got.desc.shape, [&](const Dims& idx) {
    const int64_t o = testing_views::reference_offset(got.desc, idx);
    const Scalar g = load_scalar(got.desc.dtype, got.bytes.data(), o);
    const Scalar w = load_scalar(want.desc.dtype, want.bytes.data(), o);
    bool ok;
    if (g.kind == Scalar::Kind::kFloat || g.kind == Scalar::Kind::kComplex) {
      const double a = g.re, b = w.re;
      ok = (std::isnan(a) && std::isnan(b)) || a == b ||
           (std::isfinite(a) && std::isfinite(b) && std::abs(a - b) <= rel * (std::abs(b) + 1));
      if (g.kind == Scalar::Kind::kComplex)
        ok = ok && (g.im == w.im || std::abs(g.im - w.im) <= rel * (std::abs(w.im) + 1));
    } else {
      ok = g.kind == w.kind && g.i == w.i && g.u == w.u;
    }
    if (!ok && bad++ < 3)
      ADD_FAILURE() << what << " at offset " << o << ": got " << as_double(g) << " want "
                    << as_double(w);
  });
}

}  // namespace geon::cuda::testing
