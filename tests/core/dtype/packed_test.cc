// Pins ONNX's sub-byte layout (lower index in the lower bits), sign extension of int4/int2,
// and that a store touches only its own bits.
#include "core/dtype/packed.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace geon {
namespace {

TEST(PackedStorage, LowerIndexGoesInTheLowNibble) {
  uint8_t bytes[2] = {0, 0};
  store_uint4(bytes, 0, 0x1);
  store_uint4(bytes, 1, 0x2);
  store_uint4(bytes, 2, 0xA);
  EXPECT_EQ(bytes[0], 0x21);  // ONNX: pack(x, y) = y << 4 | x
  EXPECT_EQ(bytes[1], 0x0A);
  const uint8_t given[1] = {0x9C};
  EXPECT_EQ(load_uint4(given, 0), 0xC);
  EXPECT_EQ(load_uint4(given, 1), 0x9);
}

TEST(PackedStorage, TwoBitElementsFillTheByteFromTheBottom) {
  uint8_t byte[1] = {0};
  const uint8_t v[4] = {1, 2, 3, 0};
  for (int i = 0; i < 4; ++i) store_uint2(byte, i, v[i]);
  EXPECT_EQ(byte[0], 0b00'11'10'01);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(load_uint2(byte, i), v[i]);
}

TEST(PackedStorage, Int4SignExtendsEveryValue) {
  for (int v = -8; v <= 7; ++v) {
    uint8_t bytes[3] = {0x5A, 0x5A, 0x5A};
    store_int4(bytes, 3, v);
    EXPECT_EQ(load_int4(bytes, 3), v);
    EXPECT_EQ(load_uint4(bytes, 3), static_cast<uint8_t>(v & 0xF));
    EXPECT_EQ(load_int4(bytes, 2), 0xA - 16);  // neighbour in the same byte untouched
    EXPECT_EQ(bytes[0], 0x5A);
    EXPECT_EQ(bytes[2], 0x5A);
  }
  for (unsigned v = 0; v <= 15; ++v) {
    uint8_t bytes[1] = {0xFF};
    store_uint4(bytes, 0, v);
    EXPECT_EQ(load_uint4(bytes, 0), v);
    EXPECT_EQ(load_uint4(bytes, 1), 0xF);
  }
}

TEST(PackedStorage, Int2SignExtendsEveryValue) {
  for (int v = -2; v <= 1; ++v) {
    for (int i = 0; i < 4; ++i) {
      uint8_t bytes[1] = {0xFF};
      store_int2(bytes, i, v);
      EXPECT_EQ(load_int2(bytes, i), v);
      for (int j = 0; j < 4; ++j) {
        if (j != i) {
          EXPECT_EQ(load_int2(bytes, j), -1) << i << " " << j;
        }
      }
    }
  }
}

TEST(PackedStorage, StoresKeepOnlyTheLowBits) {
  uint8_t bytes[1] = {0};
  store_int4(bytes, 0, 8);  // wraps to -8
  EXPECT_EQ(load_int4(bytes, 0), -8);
  store_int4(bytes, 1, -9);  // wraps to 7
  EXPECT_EQ(load_int4(bytes, 1), 7);
  EXPECT_EQ(load_int4(bytes, 0), -8);
  store_int2(bytes, 0, 2);  // wraps to -2
  EXPECT_EQ(load_int2(bytes, 0), -2);
}

TEST(PackedStorage, IndexesFarIntoTheBuffer) {
  uint8_t bytes[1000] = {};
  store_int4(bytes, 1999, -3);
  EXPECT_EQ(bytes[999], 0xD0);
  store_uint2(bytes, 3997, 3);
  EXPECT_EQ(bytes[999], 0xDC);
  EXPECT_EQ(load_int4(bytes, 1999), -3);
}

}  // namespace
}  // namespace geon
