// Reading and writing one element of any numeric dtype in the CUDA kernels: the device
// counterpart of core's load_scalar/store_scalar, with the same ONNX Cast rules (float8
// saturation, e8m0 rounding, packed int4/int2/float4, complex). Packed stores on the device
// are atomic on the containing 32-bit word, so neighbours sharing a byte may be written by
// different threads. GEON_HD: the CPU tests compare it with core for every dtype pair.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "core/base/hd.h"
#include "core/dtype/dtype.h"
#include "core/dtype/half.h"
#include "core/dtype/packed.h"
#include "core/dtype/scalar.h"
#include "kernels/cuda/narrow_float.h"
#include "kernels/cuda/value.h"

// The two 27-way switches are large: on the device they are real calls, so each kernel holds
// one copy instead of one per call site.
#if defined(__CUDACC__)
#define GEON_HD_NOINLINE __host__ __device__ __noinline__ inline
#else
#define GEON_HD_NOINLINE inline
#endif

namespace geon::cuda {

template <class T>
GEON_HD T read_elem(const void* base, int64_t i) {
  return static_cast<const T*>(base)[i];
}

template <class T>
GEON_HD void write_elem(void* base, int64_t i, T v) {
  static_cast<T*>(base)[i] = v;
}

GEON_HD Scalar real_scalar(double x) {
  Scalar s;
  s.kind = Scalar::Kind::kFloat;
  s.re = x;
  return s;
}

GEON_HD Scalar complex_scalar(double re, double im) {
  Scalar s;
  s.kind = Scalar::Kind::kComplex;
  s.re = re;
  s.im = im;
  return s;
}

// Element `index` of `base` holding dtype t.
GEON_HD_NOINLINE Scalar load_any(DType t, const void* base, int64_t index) {
  using K = float8_detail::Kind;
  switch (t) {
    case DType::kFloat:
      return real_scalar(read_elem<float>(base, index));
    case DType::kDouble:
      return real_scalar(read_elem<double>(base, index));
    case DType::kFloat16:
      return real_scalar(half_to_float(read_elem<uint16_t>(base, index)));
    case DType::kBFloat16:
      return real_scalar(bfloat16_to_float(read_elem<uint16_t>(base, index)));
    case DType::kFloat8E4M3FN:
      return real_scalar(decode_narrow(K::kE4M3FN, read_elem<uint8_t>(base, index)));
    case DType::kFloat8E4M3FNUZ:
      return real_scalar(decode_narrow(K::kE4M3FNUZ, read_elem<uint8_t>(base, index)));
    case DType::kFloat8E5M2:
      return real_scalar(decode_narrow(K::kE5M2, read_elem<uint8_t>(base, index)));
    case DType::kFloat8E5M2FNUZ:
      return real_scalar(decode_narrow(K::kE5M2FNUZ, read_elem<uint8_t>(base, index)));
    case DType::kFloat8E8M0:
      return real_scalar(decode_narrow(K::kE8M0, read_elem<uint8_t>(base, index)));
    case DType::kFloat4E2M1:
      return real_scalar(decode_narrow(K::kE2M1, load_packed<4>(base, index)));
    case DType::kInt8:
      return scalar_of(read_elem<int8_t>(base, index));
    case DType::kInt16:
      return scalar_of(read_elem<int16_t>(base, index));
    case DType::kInt32:
      return scalar_of(read_elem<int32_t>(base, index));
    case DType::kInt64:
      return scalar_of(read_elem<int64_t>(base, index));
    case DType::kInt4:
      return scalar_of(static_cast<int64_t>(load_int4(base, index)));
    case DType::kInt2:
      return scalar_of(static_cast<int64_t>(load_int2(base, index)));
    case DType::kUInt8:
      return scalar_of(read_elem<uint8_t>(base, index));
    case DType::kUInt16:
      return scalar_of(read_elem<uint16_t>(base, index));
    case DType::kUInt32:
      return scalar_of(read_elem<uint32_t>(base, index));
    case DType::kUInt64:
      return scalar_of(read_elem<uint64_t>(base, index));
    case DType::kUInt4:
      return scalar_of(static_cast<uint64_t>(load_uint4(base, index)));
    case DType::kUInt2:
      return scalar_of(static_cast<uint64_t>(load_uint2(base, index)));
    case DType::kBool:
      return scalar_of(read_elem<uint8_t>(base, index) != 0);  // any nonzero byte is true
    case DType::kComplex64:
      return complex_scalar(read_elem<float>(base, 2 * index),
                            read_elem<float>(base, 2 * index + 1));
    case DType::kComplex128:
      return complex_scalar(read_elem<double>(base, 2 * index),
                            read_elem<double>(base, 2 * index + 1));
    default:
      return Scalar{};  // string/undefined: rejected on the host before any launch
  }
}

// Rounds an integer magnitude to 53 bits by round-to-odd, so one later ties-to-even rounding
// to a narrower float equals rounding the integer directly (core/dtype/scalar.cc).
GEON_HD double odd_double(uint64_t m) {
  if (m < (uint64_t{1} << 53)) return static_cast<double>(m);
#if defined(__CUDA_ARCH__)
  const int width = 64 - __clzll(static_cast<long long>(m));
#else
  const int width = std::bit_width(m);
#endif
  const int shift = width - 53;
  uint64_t t = m >> shift;
  if (m & ((uint64_t{1} << shift) - 1)) t |= 1;
  return std::ldexp(static_cast<double>(t), shift);
}

// The real part, ready for one rounding to a float type narrower than float32.
GEON_HD double narrowable(const Scalar& v) {
  switch (v.kind) {
    case Scalar::Kind::kSigned: {
      const uint64_t m = v.i < 0 ? uint64_t{0} - static_cast<uint64_t>(v.i) : v.i;
      return v.i < 0 ? -odd_double(m) : odd_double(m);
    }
    case Scalar::Kind::kUnsigned:
      return odd_double(v.u);
    default:
      return v.re;
  }
}

// Nearest integer (ties to even) of x, kept to its low `bits` bits; non-finite gives 0.
GEON_HD uint8_t float_to_low_bits(double x, int bits) {
  if (!std::isfinite(x)) return 0;
  const double n = x - std::remainder(x, 1.0);
  const double mod = std::ldexp(1.0, bits);
  double r = std::fmod(n, mod);
  if (r < 0) r += mod;
  return static_cast<uint8_t>(r);
}

GEON_HD uint8_t scalar_low_bits(const Scalar& v, int bits) {
  if (scalar_is_int(v)) return static_cast<uint8_t>(scalar_int_bits(v));
  return float_to_low_bits(v.re, bits);
}

// Writes the low `bits` bits of code as packed element i, leaving its neighbours alone.
GEON_HD void store_code(void* base, int64_t i, uint8_t code, int bits) {
#if defined(__CUDA_ARCH__)
  const int per_byte = 8 / bits;
  const uintptr_t byte = reinterpret_cast<uintptr_t>(base) + static_cast<uintptr_t>(i / per_byte);
  auto* word = reinterpret_cast<unsigned int*>(byte & ~uintptr_t{3});
  const unsigned shift = static_cast<unsigned>((byte & 3) * 8 + (i % per_byte) * bits);
  const unsigned mask = ((1u << bits) - 1) << shift;
  atomicAnd(word, ~mask);
  atomicOr(word, (static_cast<unsigned>(code) << shift) & mask);
#else
  if (bits == 4)
    store_packed<4>(base, i, code);
  else
    store_packed<2>(base, i, code);
#endif
}

// Writes v, converted to t, as element `index` of `base` (store_scalar's rules).
GEON_HD_NOINLINE void store_any(DType t, void* base, int64_t index, const Scalar& v,
                                const CastOptions& opt) {
  switch (t) {
    case DType::kFloat:
      return write_elem(base, index, scalar_real<float>(v));
    case DType::kDouble:
      return write_elem(base, index, scalar_real<double>(v));
    case DType::kFloat16:
      return write_elem(base, index, double_to_half(narrowable(v)));
    case DType::kBFloat16:
      return write_elem(base, index, double_to_bfloat16(narrowable(v)));
    case DType::kFloat8E4M3FN:
      return write_elem(base, index, encode_e4m3fn(narrowable(v), opt.saturate));
    case DType::kFloat8E4M3FNUZ:
      return write_elem(base, index, encode_fnuz(narrowable(v), opt.saturate, 3, -7));
    case DType::kFloat8E5M2:
      return write_elem(base, index, encode_e5m2(narrowable(v), opt.saturate));
    case DType::kFloat8E5M2FNUZ:
      return write_elem(base, index, encode_fnuz(narrowable(v), opt.saturate, 2, -15));
    case DType::kFloat8E8M0:
      return write_elem(base, index, encode_e8m0(narrowable(v), opt.saturate, opt.e8m0_round));
    case DType::kFloat4E2M1:
      return store_code(base, index, encode_e2m1(narrowable(v)), 4);
    case DType::kInt8:
      return write_elem(base, index, compute_of<int8_t>(v));
    case DType::kInt16:
      return write_elem(base, index, compute_of<int16_t>(v));
    case DType::kInt32:
      return write_elem(base, index, compute_of<int32_t>(v));
    case DType::kInt64:
      return write_elem(base, index, compute_of<int64_t>(v));
    case DType::kUInt8:
      return write_elem(base, index, compute_of<uint8_t>(v));
    case DType::kUInt16:
      return write_elem(base, index, compute_of<uint16_t>(v));
    case DType::kUInt32:
      return write_elem(base, index, compute_of<uint32_t>(v));
    case DType::kUInt64:
      return write_elem(base, index, compute_of<uint64_t>(v));
    case DType::kInt4:
    case DType::kUInt4:
      return store_code(base, index, scalar_low_bits(v, 4), 4);
    case DType::kInt2:
    case DType::kUInt2:
      return store_code(base, index, scalar_low_bits(v, 2), 2);
    case DType::kBool:
      return write_elem(base, index, static_cast<uint8_t>(scalar_truth(v)));
    case DType::kComplex64:  // a real source gets im = 0; each part rounds on its own
      write_elem(base, 2 * index, scalar_real<float>(v));
      return write_elem(base, 2 * index + 1,
                        static_cast<float>(v.kind == Scalar::Kind::kComplex ? v.im : 0.0));
    case DType::kComplex128:
      write_elem(base, 2 * index, scalar_real<double>(v));
      return write_elem(base, 2 * index + 1, v.kind == Scalar::Kind::kComplex ? v.im : 0.0);
    default:
      return;
  }
}

// One element of any numeric dtype as compute type ci.
GEON_HD Value load_compute(DType t, const void* base, int64_t index, int ci) {
  return value_of(load_any(t, base, index), ci);
}

}  // namespace geon::cuda
