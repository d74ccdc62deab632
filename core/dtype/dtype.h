// Element types: every ONNX tensor element type, with its ONNX enum value, name and width.
// Sub-byte types (int4, uint4, int2, uint2, float4e2m1) are packed, lowest bits first, as ONNX
// stores them; their width is given in bits and tensor strides stay in elements.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace geon {

// Values equal ONNX's TensorProto.DataType, so conversion from the protobuf is a range check.
enum class DType : uint8_t {
  kUndefined = 0,
  kFloat = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUInt2 = 25,
  kInt2 = 26,
};
inline constexpr int kDTypeCount = 27;

// Width of one element in bits (4 for int4, 64 for complex64 = two floats, ...).
// A string element is a 128-bit handle to its bytes (core/strings/strings.h).
int dtype_bits(DType t);
// Bytes needed for n elements (rounds packed types up to whole bytes).
int64_t dtype_bytes_for(DType t, int64_t n);
// ONNX's spelling in lower case: "float", "float16", "float8e4m3fn", "int4", "complex64"...
std::string_view dtype_name(DType t);
// From ONNX's enum value; nullopt for values ONNX does not define (or UNDEFINED).
std::optional<DType> dtype_from_onnx(int32_t value);
std::optional<DType> dtype_from_name(std::string_view name);

bool is_floating(
    DType t);              // real floating types: float, double, float16, bfloat16, float8*, float4
bool is_integer(DType t);  // int*, uint* (packed ones included); bool is not an integer
bool is_signed(DType t);   // signed integers and all floating types
bool is_complex(DType t);
bool is_packed(DType t);  // fewer than 8 bits per element
// Numeric: everything but string and undefined (bool and complex count).
bool is_numeric(DType t);

}  // namespace geon
