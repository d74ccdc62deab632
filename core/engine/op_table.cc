// The CPU op table: one row per op, naming the functor and the type classes it exists for.
// Adding an op here is one line (plus its functor in op_functors.h).
#include <array>
#include <bit>
#include <type_traits>

#include "core/base/error.h"
#include "core/engine/op_functors.h"

namespace geon {
namespace {

enum : unsigned { kF = 1, kI = 2, kU = 4, kB = 8, kInts = kI | kU, kNum = kF | kI | kU, kAll = 15 };

template <class T>
constexpr unsigned type_class() {
  if constexpr (std::is_same_v<T, bool>)
    return kB;
  else if constexpr (std::is_floating_point_v<T>)
    return kF;
  else if constexpr (std::is_signed_v<T>)
    return kI;
  else
    return kU;
}

// The inner loops. Plain indexed loops over restrict-free but non-aliasing chunk buffers: the
// compiler vectorises them for the simple functors.
template <class F, class T, int Arity, bool BoolOut>
void chunk(int64_t n, void* out, const void* a, const void* b, const void* c, const OpParams& p) {
  using R = std::conditional_t<BoolOut, bool, T>;
  R* o = static_cast<R*>(out);
  const T* x = static_cast<const T*>(a);
  if constexpr (Arity == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<R>(F::f(x[i], p));
  } else if constexpr (Arity == 2) {
    const T* y = static_cast<const T*>(b);
    if constexpr (std::is_same_v<F, ops::Pow> && std::is_floating_point_v<T>) {
      // Pow(x, 2), the variance of decomposed normalisations: the functor's x * x for the whole
      // chunk, which vectorises, where a loop that may call pow stays scalar.
      // The check compares bits (2 has one encoding), an integer OR that vectorises: the float
      // comparison stayed scalar and took most of the chunk's time.
      using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
      const Bits two = std::bit_cast<Bits>(T(2));
      Bits differ = 0;
      for (int64_t i = 0; i < n; ++i) differ |= std::bit_cast<Bits>(y[i]) ^ two;
      if (differ == 0) {
        for (int64_t i = 0; i < n; ++i) o[i] = x[i] * x[i];
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<R>(F::f(x[i], y[i], p));
  } else {
    const T* y = static_cast<const T*>(b);
    const T* z = static_cast<const T*>(c);
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<R>(F::f(x[i], y[i], z[i], p));
  }
}

template <class F, int Arity, bool BoolOut, unsigned Mask, class T>
constexpr ChunkFn pick() {
  if constexpr ((Mask & type_class<T>()) != 0)
    return &chunk<F, T, Arity, BoolOut>;
  else
    return nullptr;
}

template <class F, int Arity, unsigned Mask, bool BoolOut = false, bool CondFirst = false>
constexpr OpDef op(std::string_view name) {
  return OpDef{name,
               Arity,
               BoolOut ? OpResult::kBool : OpResult::kSame,
               CondFirst,
               {pick<F, Arity, BoolOut, Mask, float>(), pick<F, Arity, BoolOut, Mask, double>(),
                pick<F, Arity, BoolOut, Mask, int8_t>(), pick<F, Arity, BoolOut, Mask, int16_t>(),
                pick<F, Arity, BoolOut, Mask, int32_t>(), pick<F, Arity, BoolOut, Mask, int64_t>(),
                pick<F, Arity, BoolOut, Mask, uint8_t>(), pick<F, Arity, BoolOut, Mask, uint16_t>(),
                pick<F, Arity, BoolOut, Mask, uint32_t>(),
                pick<F, Arity, BoolOut, Mask, uint64_t>(), pick<F, Arity, BoolOut, Mask, bool>()}};
}

using namespace ops;

const OpDef kOps[] = {
    // unary
    op<Identity, 1, kAll>("identity"),
    op<Neg, 1, kF | kI>("neg"),
    op<Abs, 1, kNum>("abs"),
    op<Square, 1, kNum>("square"),
    op<Sign, 1, kNum>("sign"),
    op<Relu, 1, kF | kI>("relu"),
    op<Not, 1, kB>("not"),
    op<BitwiseNot, 1, kInts>("bitwise_not"),
    op<Exp, 1, kF>("exp"),
    op<Log, 1, kF>("log"),
    op<Sqrt, 1, kF>("sqrt"),
    op<Reciprocal, 1, kF>("reciprocal"),
    op<Sin, 1, kF>("sin"),
    op<Cos, 1, kF>("cos"),
    op<Tan, 1, kF>("tan"),
    op<Asin, 1, kF>("asin"),
    op<Acos, 1, kF>("acos"),
    op<Atan, 1, kF>("atan"),
    op<Sinh, 1, kF>("sinh"),
    op<Cosh, 1, kF>("cosh"),
    op<Asinh, 1, kF>("asinh"),
    op<Acosh, 1, kF>("acosh"),
    op<Atanh, 1, kF>("atanh"),
    op<Tanh, 1, kF>("tanh"),
    op<Erf, 1, kF>("erf"),
    op<Floor, 1, kF>("floor"),
    op<Ceil, 1, kF>("ceil"),
    op<Round, 1, kF>("round"),
    op<Sigmoid, 1, kF>("sigmoid"),
    op<Softplus, 1, kF>("softplus"),
    op<Softsign, 1, kF>("softsign"),
    op<LeakyRelu, 1, kF>("leaky_relu"),
    op<Elu, 1, kF>("elu"),
    op<Selu, 1, kF>("selu"),
    op<Celu, 1, kF>("celu"),
    op<Gelu, 1, kF>("gelu"),
    op<GeluTanh, 1, kF>("gelu_tanh"),
    op<HardSigmoid, 1, kF>("hard_sigmoid"),
    op<HardSwish, 1, kF>("hard_swish"),
    op<Mish, 1, kF>("mish"),
    op<Swish, 1, kF>("swish"),
    op<ThresholdedRelu, 1, kF>("thresholded_relu"),
    op<Shrink, 1, kNum>("shrink"),
    op<IsNan, 1, kF, true>("isnan"),
    op<IsInf, 1, kF, true>("isinf"),
    op<IsInfSigned, 1, kF, true>("isinf_signed"),
    // binary
    op<Add, 2, kNum>("add"),
    op<Sub, 2, kNum>("sub"),
    op<Mul, 2, kNum>("mul"),
    op<Div, 2, kNum>("div"),
    op<SquaredDifference, 2, kNum>("squared_difference"),
    op<Max, 2, kNum>("max"),
    op<Min, 2, kNum>("min"),
    op<Pow, 2, kNum>("pow"),
    op<Mod, 2, kNum>("mod"),
    op<Fmod, 2, kNum>("fmod"),
    op<Atan2, 2, kF>("atan2"),
    op<Prelu, 2, kF | kI>("prelu"),
    op<Equal, 2, kAll, true>("equal"),
    op<NotEqual, 2, kAll, true>("not_equal"),
    op<Less, 2, kNum, true>("less"),
    op<LessEqual, 2, kNum, true>("less_equal"),
    op<Greater, 2, kNum, true>("greater"),
    op<GreaterEqual, 2, kNum, true>("greater_equal"),
    op<And, 2, kB>("and"),
    op<Or, 2, kB>("or"),
    op<Xor, 2, kB>("xor"),
    op<BitwiseAnd, 2, kInts>("bitwise_and"),
    op<BitwiseOr, 2, kInts>("bitwise_or"),
    op<BitwiseXor, 2, kInts>("bitwise_xor"),
    op<ShiftLeft, 2, kU>("shift_left"),
    op<ShiftRight, 2, kU>("shift_right"),
    // ternary
    op<Where, 3, kAll, false, true>("where"),
    op<Clip, 3, kNum>("clip"),
    op<MulAdd, 3, kNum>("mul_add"),
};

}  // namespace

DType compute_dtype(DType t) {
  switch (t) {
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ:
    case DType::kFloat8E8M0:
    case DType::kFloat4E2M1:
      return DType::kFloat;
    case DType::kInt4:
    case DType::kInt2:
      return DType::kInt8;
    case DType::kUInt4:
    case DType::kUInt2:
      return DType::kUInt8;
    case DType::kString:
    case DType::kComplex64:
    case DType::kComplex128:
    case DType::kUndefined:
      fail(ErrorCode::kNotSupported,
           "elementwise ops do not compute in " + std::string(dtype_name(t)));
    default:
      return t;
  }
}

int compute_index(DType t) {
  for (int i = 0; i < kComputeTypeCount; ++i)
    if (kComputeTypes[i] == t) return i;
  return -1;
}

const OpDef* find_op(std::string_view name) {
  for (const OpDef& d : kOps)
    if (d.name == name) return &d;
  return nullptr;
}

std::span<const OpDef> all_ops() { return kOps; }

}  // namespace geon
