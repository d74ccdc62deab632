// The `reduction` of the scatter ops (ScatterElements; 16: none/add/mul, 18: max/min too) as
// one typed combine of an old and a new element. Integers wrap (computed in unsigned, so a
// hostile model cannot reach signed overflow), bool follows numpy (add = or, mul = and), max
// and min keep the old value unless the new one compares greater / smaller (Python's max and
// min, as onnx's reference does: a NaN already in place stays).
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

namespace geon::cpu {

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

// The reduction `s` names, when the node's opset defines it; nullopt otherwise.
inline std::optional<Reduction> reduction_of(const std::string& s, int opset) {
  if (s == "none") return Reduction::kNone;
  if (opset >= 16 && s == "add") return Reduction::kAdd;
  if (opset >= 16 && s == "mul") return Reduction::kMul;
  if (opset >= 18 && s == "max") return Reduction::kMax;
  if (opset >= 18 && s == "min") return Reduction::kMin;
  return std::nullopt;
}

// A bool element as stored: one byte, any nonzero value true (a byte read as C++ bool must be
// 0 or 1, which hostile data need not be).
struct BoolByte {
  uint8_t v;
};

template <typename T>
struct IsComplex : std::false_type {};
template <typename T>
struct IsComplex<std::complex<T>> : std::true_type {};

template <typename T>
T combine(T old, T upd, Reduction r) {
  if constexpr (std::is_same_v<T, BoolByte>) {
    // numpy's bool arithmetic: + is or, * is and; max is or, min is and.
    switch (r) {
      case Reduction::kAdd:
      case Reduction::kMax:
        return {static_cast<uint8_t>(old.v != 0 || upd.v != 0)};
      case Reduction::kMul:
      case Reduction::kMin:
        return {static_cast<uint8_t>(old.v != 0 && upd.v != 0)};
      default:
        return upd;
    }
  } else if constexpr (std::is_integral_v<T>) {
    // In unsigned arithmetic at least as wide as int: wraps instead of overflowing.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    switch (r) {
      case Reduction::kAdd:
        return static_cast<T>(static_cast<U>(old) + static_cast<U>(upd));
      case Reduction::kMul:
        return static_cast<T>(static_cast<U>(old) * static_cast<U>(upd));
      case Reduction::kMax:
        return upd > old ? upd : old;
      case Reduction::kMin:
        return upd < old ? upd : old;
      default:
        return upd;
    }
  } else if constexpr (IsComplex<T>::value) {
    // Complex numbers have no order: max and min are refused before a kernel is made.
    switch (r) {
      case Reduction::kAdd:
        return old + upd;
      case Reduction::kMul:
        return old * upd;
      default:
        return upd;
    }
  } else {
    switch (r) {
      case Reduction::kAdd:
        return old + upd;
      case Reduction::kMul:
        return old * upd;
      case Reduction::kMax:
        return upd > old ? upd : old;
      case Reduction::kMin:
        return upd < old ? upd : old;
      default:
        return upd;
    }
  }
}

}  // namespace geon::cpu
