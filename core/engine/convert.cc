// Typed conversion loops for the common dtypes; the rest go through core/dtype/scalar.h.
#include "core/engine/convert.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "core/base/error.h"
#include "core/dtype/half.h"

namespace geon {
namespace {

// Storage wrappers for the two 16-bit float formats, so they dispatch like the other types.
struct F16 {
  uint16_t bits;
};
struct BF16 {
  uint16_t bits;
};

template <class T>
using Value = std::conditional_t<std::is_same_v<T, F16> || std::is_same_v<T, BF16>, float, T>;

template <class S>
Value<S> load(const S& s) {
  if constexpr (std::is_same_v<S, F16>)
    return half_to_float(s.bits);
  else if constexpr (std::is_same_v<S, BF16>)
    return bfloat16_to_float(s.bits);
  else
    return s;
}

// float → integer truncates toward zero, NaN becomes 0 and out-of-range values saturate (the
// same rule as store_scalar), so both conversion paths agree.
template <class I, class F>
I saturating(F x) {
  if (!(x == x)) return 0;
  constexpr F lo = static_cast<F>(std::numeric_limits<I>::min());
  constexpr F hi = static_cast<F>(std::numeric_limits<I>::max());  // may round up to 2^k
  if (x <= lo) return std::numeric_limits<I>::min();
  if (x >= hi) return std::numeric_limits<I>::max();
  return static_cast<I>(x);
}

template <class D, class V>
D store(V v) {
  // Doubles round once, straight to the 16-bit format (through float they could round twice).
  // 32-bit integers are exact in double; 64-bit ones take the scalar path (see typed_loop).
  if constexpr (std::is_same_v<D, F16>) {
    if constexpr (std::is_same_v<V, float>)
      return F16{float_to_half(v)};
    else
      return F16{double_to_half(static_cast<double>(v))};
  } else if constexpr (std::is_same_v<D, BF16>) {
    if constexpr (std::is_same_v<V, float>)
      return BF16{float_to_bfloat16(v)};
    else
      return BF16{double_to_bfloat16(static_cast<double>(v))};
  } else if constexpr (std::is_same_v<D, bool>)
    return v != V(0);
  else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<V>)
    return saturating<D>(v);
  else
    return static_cast<D>(v);
}

template <class S, class D>
void loop(const void* src, int64_t ss, void* dst, int64_t ds, int64_t n) {
  const S* s = static_cast<const S*>(src);
  D* d = static_cast<D*>(dst);
  if constexpr (std::is_same_v<S, bool>) {
    // Bools written by others may hold any nonzero byte; read them as 0/1.
    const uint8_t* b = reinterpret_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n; ++i) d[i * ds] = store<D>(b[i * ss] != 0);
  } else if (ss == 1 && ds == 1) {
    for (int64_t i = 0; i < n; ++i) d[i] = store<D>(load(s[i]));
  } else if (ss == 0 && ds == 1) {
    // A broadcast operand filling a chunk (a scalar divisor, a per-channel bias): converted
    // once, then a fill the compiler vectorises, where the strided loop stored one by one.
    const D v = store<D>(load(s[0]));
    std::fill_n(d, n, v);
  } else {
    for (int64_t i = 0; i < n; ++i) d[i * ds] = store<D>(load(s[i * ss]));
  }
}

using LoopFn = void (*)(const void*, int64_t, void*, int64_t, int64_t);

// The typed dtypes, in one list for both dispatch levels.
template <class F>
bool with_type(DType t, F&& f) {
  switch (t) {
    case DType::kFloat:
      f(float{});
      return true;
    case DType::kDouble:
      f(double{});
      return true;
    case DType::kInt8:
      f(int8_t{});
      return true;
    case DType::kInt16:
      f(int16_t{});
      return true;
    case DType::kInt32:
      f(int32_t{});
      return true;
    case DType::kInt64:
      f(int64_t{});
      return true;
    case DType::kUInt8:
      f(uint8_t{});
      return true;
    case DType::kUInt16:
      f(uint16_t{});
      return true;
    case DType::kUInt32:
      f(uint32_t{});
      return true;
    case DType::kUInt64:
      f(uint64_t{});
      return true;
    case DType::kBool:
      f(bool{});
      return true;
    case DType::kFloat16:
      f(F16{});
      return true;
    case DType::kBFloat16:
      f(BF16{});
      return true;
    default:
      return false;
  }
}

LoopFn typed_loop(DType from, DType to) {
  // 64-bit integers into 16-bit floats must round once, from the exact value: scalar path.
  const bool wide_int = from == DType::kInt64 || from == DType::kUInt64;
  if (wide_int && (to == DType::kFloat16 || to == DType::kBFloat16)) return nullptr;
  LoopFn fn = nullptr;
  with_type(from,
            [&](auto s) { with_type(to, [&](auto d) { fn = &loop<decltype(s), decltype(d)>; }); });
  return fn;
}

}  // namespace

bool has_typed_conversion(DType from, DType to) { return typed_loop(from, to) != nullptr; }

void convert_strided(DType from, const void* src_base, int64_t src_first, int64_t src_stride,
                     DType to, void* dst_base, int64_t dst_first, int64_t dst_stride, int64_t n,
                     const CastOptions& opt) {
  if (n <= 0) return;
  if (LoopFn fn = typed_loop(from, to)) {
    const int64_t sb = dtype_bits(from) / 8, db = dtype_bits(to) / 8;
    fn(static_cast<const char*>(src_base) + src_first * sb, src_stride,
       static_cast<char*>(dst_base) + dst_first * db, dst_stride, n);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    store_scalar(to, dst_base, dst_first + i * dst_stride,
                 load_scalar(from, src_base, src_first + i * src_stride), opt);
}

}  // namespace geon
