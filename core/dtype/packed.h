// Element access for sub-byte storage (int4, uint4, float4e2m1: two per byte; int2, uint2: four
// per byte). ONNX puts the lower-index element in the lower bits, so element i of a packed
// tensor is a shift away from its byte; signed codes are sign-extended on the way out. The loads
// are GEON_HD (the CUDA casts share them); stores are host-only read-modify-writes.
#pragma once

#include <cstdint>

#include "core/base/hd.h"

namespace geon {

// Raw code of element i (i >= 0), in the low `Bits` bits of the result.
template <int Bits>
GEON_HD uint8_t load_packed(const void* base, int64_t i) {
  static_assert(Bits == 2 || Bits == 4, "ONNX packs 2- and 4-bit elements only");
  constexpr int kPerByte = 8 / Bits;
  const auto* bytes = static_cast<const uint8_t*>(base);
  const int shift = static_cast<int>(i % kPerByte) * Bits;
  return static_cast<uint8_t>((bytes[i / kPerByte] >> shift) & ((1u << Bits) - 1));
}

// Writes the low `Bits` bits of `code` as element i and leaves its byte-mates alone. This is a
// read-modify-write of a shared byte: threads must not store neighbours of one byte at once.
template <int Bits>
inline void store_packed(void* base, int64_t i, uint8_t code) {
  static_assert(Bits == 2 || Bits == 4, "ONNX packs 2- and 4-bit elements only");
  constexpr int kPerByte = 8 / Bits;
  constexpr unsigned kMask = (1u << Bits) - 1;
  auto* byte = static_cast<uint8_t*>(base) + i / kPerByte;
  const int shift = static_cast<int>(i % kPerByte) * Bits;
  *byte = static_cast<uint8_t>((*byte & ~(kMask << shift)) | ((code & kMask) << shift));
}

// Two's complement value of a `Bits`-wide code.
template <int Bits>
GEON_HD int8_t sign_extend(uint8_t code) {
  constexpr int kUnused = 8 - Bits;
  return static_cast<int8_t>(static_cast<int8_t>(static_cast<uint8_t>(code << kUnused)) >> kUnused);
}

GEON_HD int8_t load_int4(const void* base, int64_t i) {
  return sign_extend<4>(load_packed<4>(base, i));
}
GEON_HD uint8_t load_uint4(const void* base, int64_t i) { return load_packed<4>(base, i); }
GEON_HD int8_t load_int2(const void* base, int64_t i) {
  return sign_extend<2>(load_packed<2>(base, i));
}
GEON_HD uint8_t load_uint2(const void* base, int64_t i) { return load_packed<2>(base, i); }

// Stores keep the low bits of v, i.e. they wrap like any narrowing integer conversion.
inline void store_int4(void* base, int64_t i, int64_t v) {
  store_packed<4>(base, i, static_cast<uint8_t>(v));
}
inline void store_uint4(void* base, int64_t i, uint64_t v) {
  store_packed<4>(base, i, static_cast<uint8_t>(v));
}
inline void store_int2(void* base, int64_t i, int64_t v) {
  store_packed<2>(base, i, static_cast<uint8_t>(v));
}
inline void store_uint2(void* base, int64_t i, uint64_t v) {
  store_packed<2>(base, i, static_cast<uint8_t>(v));
}

}  // namespace geon
