// The image codecs ImageDecoder uses (text/image_decoder.cc): each decodes one encoded image
// into 8-bit RGB, or throws geon::Error (kInvalidArgument for malformed data, kNotSupported
// for a format geon was built without or a variant it does not read).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace geon::cpu {

struct Image {
  int64_t height = 0, width = 0;
  std::vector<uint8_t> rgb;  // height * width * 3
};

// No decoded image may be larger than this (a few bytes of header can claim any size).
inline constexpr int64_t kMaxImageBytes = int64_t{1} << 28;
// A zeroed image, or kResourceExhausted above kMaxImageBytes.
Image make_image(int64_t height, int64_t width);

Image decode_jpeg(std::span<const uint8_t> bytes);
Image decode_png(std::span<const uint8_t> bytes);
Image decode_webp(std::span<const uint8_t> bytes);
Image decode_tiff(std::span<const uint8_t> bytes);
Image decode_jpeg2000(std::span<const uint8_t> bytes);

}  // namespace geon::cpu
