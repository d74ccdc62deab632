// The dtype table: one row per ONNX element type, indexed by the enum value.
#include "core/dtype/dtype.h"

#include "core/base/error.h"

namespace geon {
namespace {

enum Kind : uint8_t { kNone, kFloatK, kSignedK, kUnsignedK, kBoolK, kComplexK, kStringK };

struct Row {
  std::string_view name;
  int bits;
  Kind kind;
};

// Indexed by the DType value; keep in enum order.
constexpr Row kRows[kDTypeCount] = {
    {"undefined", 0, kNone},        {"float", 32, kFloatK},
    {"uint8", 8, kUnsignedK},       {"int8", 8, kSignedK},
    {"uint16", 16, kUnsignedK},     {"int16", 16, kSignedK},
    {"int32", 32, kSignedK},        {"int64", 64, kSignedK},
    {"string", 128, kStringK},      {"bool", 8, kBoolK},
    {"float16", 16, kFloatK},       {"double", 64, kFloatK},
    {"uint32", 32, kUnsignedK},     {"uint64", 64, kUnsignedK},
    {"complex64", 64, kComplexK},   {"complex128", 128, kComplexK},
    {"bfloat16", 16, kFloatK},      {"float8e4m3fn", 8, kFloatK},
    {"float8e4m3fnuz", 8, kFloatK}, {"float8e5m2", 8, kFloatK},
    {"float8e5m2fnuz", 8, kFloatK}, {"uint4", 4, kUnsignedK},
    {"int4", 4, kSignedK},          {"float4e2m1", 4, kFloatK},
    {"float8e8m0", 8, kFloatK},     {"uint2", 2, kUnsignedK},
    {"int2", 2, kSignedK},
};

const Row& row(DType t) {
  auto i = static_cast<unsigned>(t);
  if (i >= static_cast<unsigned>(kDTypeCount)) fail(ErrorCode::kInvalidArgument, "invalid dtype");
  return kRows[i];
}

}  // namespace

int dtype_bits(DType t) { return row(t).bits; }

int64_t dtype_bytes_for(DType t, int64_t n) {
  const int64_t bits = row(t).bits;
  require(n >= 0, "negative element count");
  if (bits == 0) return 0;
  require(n <= (INT64_MAX - 7) / bits, "element count overflows a byte size");
  return (n * bits + 7) / 8;
}

std::string_view dtype_name(DType t) { return row(t).name; }

std::optional<DType> dtype_from_onnx(int32_t value) {
  if (value <= 0 || value >= kDTypeCount) return std::nullopt;
  return static_cast<DType>(value);
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (int i = 1; i < kDTypeCount; ++i)
    if (kRows[i].name == name) return static_cast<DType>(i);
  return std::nullopt;
}

bool is_floating(DType t) { return row(t).kind == kFloatK; }
bool is_integer(DType t) { return row(t).kind == kSignedK || row(t).kind == kUnsignedK; }
bool is_signed(DType t) { return row(t).kind == kSignedK || row(t).kind == kFloatK; }
bool is_complex(DType t) { return row(t).kind == kComplexK; }
bool is_packed(DType t) { return row(t).bits > 0 && row(t).bits < 8; }
bool is_numeric(DType t) { return row(t).kind != kNone && row(t).kind != kStringK; }

}  // namespace geon
