// The CUDA op table's entries: one line per op, naming the shared functor (core/engine/
// op_functors.h), the CPU table's name, the type classes it exists for, whether it yields bool
// and whether its first argument is a condition. Plain C++: the host table, the typed kernels
// and the expression interpreter are all generated from these lists.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/base/hd.h"

namespace geon::cuda {

// Type classes, as in the CPU table: float, signed, unsigned, bool.
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

// X(Functor, "name", type classes, bool result, condition first)
#define GEON_CUDA_UNARY_OPS(X)                             \
  X(Identity, "identity", kAll, false, false)              \
  X(Neg, "neg", kF | kI, false, false)                     \
  X(Abs, "abs", kNum, false, false)                        \
  X(Square, "square", kNum, false, false)                  \
  X(Sign, "sign", kNum, false, false)                      \
  X(Relu, "relu", kF | kI, false, false)                   \
  X(Not, "not", kB, false, false)                          \
  X(BitwiseNot, "bitwise_not", kInts, false, false)        \
  X(Exp, "exp", kF, false, false)                          \
  X(Log, "log", kF, false, false)                          \
  X(Sqrt, "sqrt", kF, false, false)                        \
  X(Reciprocal, "reciprocal", kF, false, false)            \
  X(Sin, "sin", kF, false, false)                          \
  X(Cos, "cos", kF, false, false)                          \
  X(Tan, "tan", kF, false, false)                          \
  X(Asin, "asin", kF, false, false)                        \
  X(Acos, "acos", kF, false, false)                        \
  X(Atan, "atan", kF, false, false)                        \
  X(Sinh, "sinh", kF, false, false)                        \
  X(Cosh, "cosh", kF, false, false)                        \
  X(Asinh, "asinh", kF, false, false)                      \
  X(Acosh, "acosh", kF, false, false)                      \
  X(Atanh, "atanh", kF, false, false)                      \
  X(Tanh, "tanh", kF, false, false)                        \
  X(Erf, "erf", kF, false, false)                          \
  X(Floor, "floor", kF, false, false)                      \
  X(Ceil, "ceil", kF, false, false)                        \
  X(Round, "round", kF, false, false)                      \
  X(Sigmoid, "sigmoid", kF, false, false)                  \
  X(Softplus, "softplus", kF, false, false)                \
  X(Softsign, "softsign", kF, false, false)                \
  X(LeakyRelu, "leaky_relu", kF, false, false)             \
  X(Elu, "elu", kF, false, false)                          \
  X(Selu, "selu", kF, false, false)                        \
  X(Celu, "celu", kF, false, false)                        \
  X(Gelu, "gelu", kF, false, false)                        \
  X(GeluTanh, "gelu_tanh", kF, false, false)               \
  X(HardSigmoid, "hard_sigmoid", kF, false, false)         \
  X(HardSwish, "hard_swish", kF, false, false)             \
  X(Mish, "mish", kF, false, false)                        \
  X(Swish, "swish", kF, false, false)                      \
  X(ThresholdedRelu, "thresholded_relu", kF, false, false) \
  X(Shrink, "shrink", kNum, false, false)                  \
  X(IsNan, "isnan", kF, true, false)                       \
  X(IsInf, "isinf", kF, true, false)                       \
  X(IsInfSigned, "isinf_signed", kF, true, false)

#define GEON_CUDA_BINARY_OPS(X)                                  \
  X(Add, "add", kNum, false, false)                              \
  X(Sub, "sub", kNum, false, false)                              \
  X(Mul, "mul", kNum, false, false)                              \
  X(Div, "div", kNum, false, false)                              \
  X(SquaredDifference, "squared_difference", kNum, false, false) \
  X(Max, "max", kNum, false, false)                              \
  X(Min, "min", kNum, false, false)                              \
  X(Pow, "pow", kNum, false, false)                              \
  X(Mod, "mod", kNum, false, false)                              \
  X(Fmod, "fmod", kNum, false, false)                            \
  X(Atan2, "atan2", kF, false, false)                            \
  X(Prelu, "prelu", kF | kI, false, false)                       \
  X(Equal, "equal", kAll, true, false)                           \
  X(NotEqual, "not_equal", kAll, true, false)                    \
  X(Less, "less", kNum, true, false)                             \
  X(LessEqual, "less_equal", kNum, true, false)                  \
  X(Greater, "greater", kNum, true, false)                       \
  X(GreaterEqual, "greater_equal", kNum, true, false)            \
  X(And, "and", kB, false, false)                                \
  X(Or, "or", kB, false, false)                                  \
  X(Xor, "xor", kB, false, false)                                \
  X(BitwiseAnd, "bitwise_and", kInts, false, false)              \
  X(BitwiseOr, "bitwise_or", kInts, false, false)                \
  X(BitwiseXor, "bitwise_xor", kInts, false, false)              \
  X(ShiftLeft, "shift_left", kU, false, false)                   \
  X(ShiftRight, "shift_right", kU, false, false)

#define GEON_CUDA_TERNARY_OPS(X)       \
  X(Where, "where", kAll, false, true) \
  X(Clip, "clip", kNum, false, false)  \
  X(MulAdd, "mul_add", kNum, false, false)

// Op ids: positions in the CUDA table (unary ops, then binary, then ternary).
enum class OpId : int16_t {
#define GEON_CUDA_OP_ID(F, name, mask, bool_out, cond_first) F,
  GEON_CUDA_UNARY_OPS(GEON_CUDA_OP_ID) GEON_CUDA_BINARY_OPS(GEON_CUDA_OP_ID)
      GEON_CUDA_TERNARY_OPS(GEON_CUDA_OP_ID)
#undef GEON_CUDA_OP_ID
          kCount
};

}  // namespace geon::cuda
