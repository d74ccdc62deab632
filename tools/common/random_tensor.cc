#include "tools/common/random_tensor.h"

#include <bit>
#include <cstring>

namespace geon::tools {
namespace {

// splitmix64: tiny, fast, and its output is fully specified.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

template <typename T>
void put(std::vector<std::byte>& out, size_t i, T v) {
  std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
}

uint16_t float_to_half_bits(float f) {
  // Values here lie in [-1, 1): normal or subnormal halves, no overflow; truncation is fine
  // for random data.
  const uint32_t b = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((b >> 16) & 0x8000u);
  const int exp = static_cast<int>((b >> 23) & 0xff) - 127 + 15;
  if (exp <= 0) return sign;
  return static_cast<uint16_t>(sign | (exp << 10) | ((b >> 13) & 0x3ffu));
}

}  // namespace

HostTensor random_tensor(const std::string& name, int32_t dtype, const std::vector<int64_t>& shape,
                         uint64_t seed) {
  HostTensor t;
  t.name = name;
  t.dtype = dtype;
  t.shape = shape;
  const int64_t count = element_count(shape, name, int64_t{1} << 34);
  t.data.resize(byte_size(dtype, count, name));
  SplitMix64 rng{seed};
  const auto n = static_cast<size_t>(count);
  auto signed_unit = [&] { return 2.0 * rng.unit() - 1.0; };
  auto small_int = [&] { return static_cast<int64_t>(rng.next() % 10); };
  for (size_t i = 0; i < n; ++i) {
    switch (dtype) {
      case kFloat:
        put(t.data, i, static_cast<float>(signed_unit()));
        break;
      case kDouble:
        put(t.data, i, signed_unit());
        break;
      case kFloat16:
        put(t.data, i, float_to_half_bits(static_cast<float>(signed_unit())));
        break;
      case kBfloat16:
        put(t.data, i,
            static_cast<uint16_t>(std::bit_cast<uint32_t>(static_cast<float>(signed_unit())) >>
                                  16));
        break;
      case kBool:
        put(t.data, i, static_cast<uint8_t>(rng.next() >> 63));
        break;
      case kInt8:
        put(t.data, i, static_cast<int8_t>(small_int()));
        break;
      case kUint8:
        put(t.data, i, static_cast<uint8_t>(small_int()));
        break;
      case kInt16:
        put(t.data, i, static_cast<int16_t>(small_int()));
        break;
      case kUint16:
        put(t.data, i, static_cast<uint16_t>(small_int()));
        break;
      case kInt32:
        put(t.data, i, static_cast<int32_t>(small_int()));
        break;
      case kUint32:
        put(t.data, i, static_cast<uint32_t>(small_int()));
        break;
      case kInt64:
        put(t.data, i, small_int());
        break;
      case kUint64:
        put(t.data, i, static_cast<uint64_t>(small_int()));
        break;
      default:
        throw ToolError("input '" + name + "': no random generator for dtype " + dtype_name(dtype) +
                        "; give it with --input " + name + "=FILE.npy");
    }
  }
  return t;
}

}  // namespace geon::tools
