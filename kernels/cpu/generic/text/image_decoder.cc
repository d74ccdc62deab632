// ImageDecoder: an encoded image (uint8 bytes) to [H, W, 3] RGB or BGR, or [H, W, 1]
// grayscale. JPEG through libjpeg-turbo and PNG through libpng (Debian's libjpeg-dev,
// libpng-dev), WebP, TIFF and JPEG 2000 through libwebp / libtiff / openjpeg when built with
// them (image_codecs.cc); BMP and PNM are read here. Decoding follows the reference evaluator
// (Pillow): grayscale is ITU-R 601-2 luma of the RGB image, alpha is dropped. Every header is
// checked against the bytes present and the output is bounded, so hostile input is refused
// with geon::Error instead of crashing or allocating without limit.
#include "kernels/cpu/generic/text/image_codecs.h"

#include <cstring>

#include "core/base/error.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {
namespace {

[[noreturn]] void bad(const std::string& what) {
  fail(ErrorCode::kInvalidArgument, "the encoded image is malformed: " + what);
}

uint32_t le(const uint8_t* p, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// BMP: uncompressed 24- or 32-bit (BI_RGB), rows bottom-up unless the height is negative.
Image decode_bmp(std::span<const uint8_t> b) {
  if (b.size() < 54) bad("BMP header is truncated");
  const uint32_t offset = le(&b[10], 4);
  const auto w = static_cast<int32_t>(le(&b[18], 4));
  const auto h = static_cast<int32_t>(le(&b[22], 4));
  const uint32_t bpp = le(&b[28], 2), compression = le(&b[30], 4);
  if (compression != 0 || (bpp != 24 && bpp != 32))
    fail(ErrorCode::kNotSupported, "ImageDecoder reads uncompressed 24- and 32-bit BMP only (got " +
                                       std::to_string(bpp) + "-bit, compression " +
                                       std::to_string(compression) + ")");
  if (w <= 0 || h == 0 || h == INT32_MIN)
    bad("BMP size " + std::to_string(w) + "x" + std::to_string(h));
  const int64_t height = h < 0 ? -int64_t{h} : h, width = w;
  const int64_t stride = (width * (bpp / 8) + 3) / 4 * 4;
  if (offset > b.size() || static_cast<int64_t>(b.size() - offset) / stride < height)
    bad("BMP pixel data is shorter than " + std::to_string(width) + "x" + std::to_string(height));
  Image img = make_image(height, width);
  for (int64_t y = 0; y < height; ++y) {
    const uint8_t* row = &b[offset + static_cast<size_t>((h < 0 ? y : height - 1 - y) * stride)];
    for (int64_t x = 0; x < width; ++x) {
      const uint8_t* px = row + x * (bpp / 8);
      uint8_t* o = &img.rgb[static_cast<size_t>((y * width + x) * 3)];
      o[0] = px[2];
      o[1] = px[1];
      o[2] = px[0];
    }
  }
  return img;
}

// PNM: P5 (gray) and P6 (RGB), binary, maxval up to 255.
Image decode_pnm(std::span<const uint8_t> b) {
  size_t i = 2;
  auto number = [&]() -> int64_t {
    while (i < b.size()) {
      if (b[i] == '#') {
        while (i < b.size() && b[i] != '\n') ++i;
      } else if (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
        ++i;
      } else {
        break;
      }
    }
    int64_t v = 0;
    const size_t start = i;
    while (i < b.size() && b[i] >= '0' && b[i] <= '9' && v < (int64_t{1} << 31))
      v = v * 10 + (b[i++] - '0');
    if (i == start) bad("PNM header has no number where one is due");
    return v;
  };
  const bool color = b[1] == '6';
  const int64_t w = number(), h = number(), maxval = number();
  ++i;  // the single whitespace before the pixels
  if (w <= 0 || h <= 0 || maxval <= 0 || maxval > 255)
    fail(ErrorCode::kNotSupported,
         "ImageDecoder reads 8-bit PNM only (maxval " + std::to_string(maxval) + ")");
  const int64_t c = color ? 3 : 1;
  if (i > b.size() || static_cast<int64_t>(b.size() - i) / c / w < h)
    bad("PNM pixel data is shorter than " + std::to_string(w) + "x" + std::to_string(h));
  Image img = make_image(h, w);
  for (int64_t p = 0; p < w * h; ++p)
    for (int k = 0; k < 3; ++k) {
      const int v = b[i + static_cast<size_t>(p * c + (color ? k : 0))];
      img.rgb[static_cast<size_t>(p * 3 + k)] = static_cast<uint8_t>(v * 255 / maxval);
    }
  return img;
}

Image decode(std::span<const uint8_t> b) {
  auto starts = [&](std::initializer_list<uint8_t> magic, size_t at = 0) {
    if (b.size() < at + magic.size()) return false;
    return std::equal(magic.begin(), magic.end(), b.begin() + static_cast<std::ptrdiff_t>(at));
  };
  if (starts({0xFF, 0xD8, 0xFF})) return decode_jpeg(b);
  if (starts({0x89, 'P', 'N', 'G'})) return decode_png(b);
  if (starts({'B', 'M'})) return decode_bmp(b);
  if (starts({'P', '5'}) || starts({'P', '6'})) return decode_pnm(b);
  if (starts({'R', 'I', 'F', 'F'}) && starts({'W', 'E', 'B', 'P'}, 8)) return decode_webp(b);
  if (starts({'I', 'I', 42, 0}) || starts({'M', 'M', 0, 42})) return decode_tiff(b);
  if (starts({0, 0, 0, 12, 'j', 'P', ' ', ' '}) || starts({0xFF, 0x4F, 0xFF, 0x51}))
    return decode_jpeg2000(b);
  fail(ErrorCode::kInvalidArgument,
       "the encoded image is in no format ImageDecoder reads (JPEG, PNG, BMP, PNM, WebP, TIFF, "
       "JPEG 2000)");
}

}  // namespace

Image make_image(int64_t h, int64_t w) {
  if (h <= 0 || w <= 0 || h > kMaxImageBytes / 3 / w)
    fail(ErrorCode::kResourceExhausted, "an image of " + std::to_string(w) + "x" +
                                            std::to_string(h) + " pixels is over the limit of " +
                                            std::to_string(kMaxImageBytes) + " bytes");
  Image img;
  img.height = h;
  img.width = w;
  img.rgb.assign(static_cast<size_t>(h * w * 3), 0);
  return img;
}

Reason supports_image_decoder(const Graph& g, const Node& n) {
  if (input_dtype(g, n, 0) != DType::kUInt8) return "input 0 must be uint8";
  const std::string f = attr_string(n, "pixel_format", "RGB");
  if (f != "RGB" && f != "BGR" && f != "Grayscale")
    return "attribute 'pixel_format' is '" + f + "'; it must be RGB, BGR or Grayscale";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_image_decoder(const Graph&, const Node& n) {
  const std::string format = attr_string(n, "pixel_format", "RGB");
  return make_node_kernel(n, [format](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    require(x.desc.rank() == 1,
            [&] { return "input 0 must be 1-D bytes, got " + to_string(x.desc); });
    std::vector<uint8_t> bytes(static_cast<size_t>(element_count(x.desc)));
    if (!bytes.empty())
      assign(Operand{row_major(DType::kUInt8, x.desc.shape), bytes.data()}, src_of(x));
    const Image img = decode(bytes);
    const int64_t c = format == "Grayscale" ? 1 : 3;
    const Dims shape{img.height, img.width, c};
    std::vector<uint8_t> out(static_cast<size_t>(img.height * img.width * c));
    for (int64_t p = 0; p < img.height * img.width; ++p) {
      const uint8_t* px = &img.rgb[static_cast<size_t>(p * 3)];
      if (c == 1) {
        // Pillow's RGB -> L: ITU-R 601-2 luma in 16-bit fixed point.
        out[static_cast<size_t>(p)] =
            static_cast<uint8_t>((px[0] * 19595 + px[1] * 38470 + px[2] * 7471 + 0x8000) >> 16);
      } else {
        for (int k = 0; k < 3; ++k)
          out[static_cast<size_t>(p * 3 + k)] = px[format == "BGR" ? 2 - k : k];
      }
    }
    const TensorRef& dst = ctx.output(0, shape);
    assign(dst_of(dst), ConstOperand(row_major(DType::kUInt8, shape), out.data()));
  });
}

}  // namespace geon::cpu
