// cpu.generic ImageDecoder on images built here: BMP (bottom-up and top-down, 24- and 32-bit),
// PNM (P5, P6, comments), PNG written with libpng's simplified API; RGB, BGR and Grayscale
// (Pillow's luma) against the pixels written; and hostile streams (truncated, a size past the
// limit, bytes in no format, a JPEG cut short) refused with geon::Error.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/text/text_harness.h"

#ifdef GEON_TEST_HAVE_PNG
#include <png.h>
#endif

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Pixels {
  int w = 0, h = 0;
  std::vector<uint8_t> rgb;
};

Pixels random_pixels(std::mt19937& rng, int w, int h) {
  Pixels p{w, h, {}};
  for (int i = 0; i < w * h * 3; ++i) p.rgb.push_back(static_cast<uint8_t>(rng()));
  return p;
}

void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

std::vector<uint8_t> bmp(const Pixels& p, int bpp, bool top_down) {
  const int stride = (p.w * bpp / 8 + 3) / 4 * 4;
  std::vector<uint8_t> b(54 + static_cast<size_t>(stride) * p.h, 0);
  b[0] = 'B';
  b[1] = 'M';
  put32(b, 2, static_cast<uint32_t>(b.size()));
  put32(b, 10, 54);
  put32(b, 14, 40);
  put32(b, 18, static_cast<uint32_t>(p.w));
  put32(b, 22, static_cast<uint32_t>(top_down ? -p.h : p.h));
  b[26] = 1;
  b[28] = static_cast<uint8_t>(bpp);
  for (int y = 0; y < p.h; ++y)
    for (int x = 0; x < p.w; ++x) {
      const int row = top_down ? y : p.h - 1 - y;
      uint8_t* o = &b[54 + static_cast<size_t>(row) * stride + x * bpp / 8];
      const uint8_t* s = &p.rgb[(y * p.w + x) * 3];
      o[0] = s[2];
      o[1] = s[1];
      o[2] = s[0];
    }
  return b;
}

Host bytes_of(const std::vector<uint8_t>& b) {
  std::vector<double> v(b.begin(), b.end());
  return Host::of(DType::kUInt8, {static_cast<int64_t>(b.size())}, v);
}

Host decode(const std::vector<uint8_t>& b, const std::string& format) {
  NodeGraph ng("ImageDecoder", 20);
  ng.in(bytes_of(b)).out(DType::kUInt8).attr_s("pixel_format", format);
  return ng.run(gen())[0];
}

void expect_pixels(const Host& y, const Pixels& p, const std::string& format) {
  const int c = format == "Grayscale" ? 1 : 3;
  ASSERT_EQ(y.shape(), (Dims{p.h, p.w, c}));
  for (int i = 0; i < p.w * p.h; ++i) {
    const uint8_t* s = &p.rgb[i * 3];
    if (c == 1) {
      // Pillow's convert("L"), written out.
      EXPECT_EQ(y.at(i), (s[0] * 19595 + s[1] * 38470 + s[2] * 7471 + 0x8000) >> 16) << i;
    } else {
      for (int k = 0; k < 3; ++k) EXPECT_EQ(y.at(i * 3 + k), s[format == "BGR" ? 2 - k : k]);
    }
  }
}

TEST(TextImageDecoder, BmpEveryLayoutAndPixelFormat) {
  std::mt19937 rng(4);
  const Pixels p = random_pixels(rng, 5, 3);  // 15-byte rows: padded to 16
  for (int bpp : {24, 32})
    for (bool top_down : {false, true})
      for (const char* f : {"RGB", "BGR", "Grayscale"})
        expect_pixels(decode(bmp(p, bpp, top_down), f), p, f);
}

TEST(TextImageDecoder, PnmGrayAndColourWithComments) {
  std::mt19937 rng(8);
  const Pixels p = random_pixels(rng, 4, 2);
  std::string head = "P6\n# a comment\n4 2\n255\n";
  std::vector<uint8_t> b(head.begin(), head.end());
  b.insert(b.end(), p.rgb.begin(), p.rgb.end());
  expect_pixels(decode(b, "RGB"), p, "RGB");
  head = "P5 4 2 255\n";
  std::vector<uint8_t> g(head.begin(), head.end());
  Pixels gray{4, 2, {}};
  for (int i = 0; i < 8; ++i) {
    g.push_back(static_cast<uint8_t>(i * 30));
    for (int k = 0; k < 3; ++k) gray.rgb.push_back(static_cast<uint8_t>(i * 30));
  }
  expect_pixels(decode(g, "BGR"), gray, "BGR");
}

#ifdef GEON_TEST_HAVE_PNG
TEST(TextImageDecoder, PngWrittenByLibpng) {
  std::mt19937 rng(6);
  const Pixels p = random_pixels(rng, 7, 5);
  png_image img{};
  img.version = PNG_IMAGE_VERSION;
  img.width = 7;
  img.height = 5;
  img.format = PNG_FORMAT_RGB;
  png_alloc_size_t size = 0;
  ASSERT_TRUE(png_image_write_to_memory(&img, nullptr, &size, 0, p.rgb.data(), 0, nullptr));
  std::vector<uint8_t> b(size);
  ASSERT_TRUE(png_image_write_to_memory(&img, b.data(), &size, 0, p.rgb.data(), 0, nullptr));
  b.resize(size);
  for (const char* f : {"RGB", "Grayscale"}) expect_pixels(decode(b, f), p, f);
  b.resize(b.size() / 2);  // cut short
  NodeGraph ng("ImageDecoder", 20);
  ng.in(bytes_of(b)).out(DType::kUInt8);
  expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"PNG"});
}
#endif

TEST(TextImageDecoder, HostileStreamsAreRefused) {
  std::mt19937 rng(2);
  std::vector<uint8_t> cut = bmp(random_pixels(rng, 4, 4), 24, false);
  cut.resize(cut.size() - 5);
  NodeGraph a("ImageDecoder", 20);
  a.in(bytes_of(cut)).out(DType::kUInt8);
  expect_error(a, gen(), ErrorCode::kInvalidArgument, {"BMP", "shorter"});

  const std::string huge = "P6\n2000000000 2000000000\n255\n";
  NodeGraph b("ImageDecoder", 20);
  b.in(bytes_of(std::vector<uint8_t>(huge.begin(), huge.end()))).out(DType::kUInt8);
  expect_error(b, gen(), ErrorCode::kInvalidArgument, {"PNM", "shorter"});

  std::vector<uint8_t> big = bmp(random_pixels(rng, 1, 1), 24, false);
  put32(big, 18, 1u << 30);  // claims a width the bytes do not hold
  NodeGraph c("ImageDecoder", 20);
  c.in(bytes_of(big)).out(DType::kUInt8);
  expect_error(c, gen(), ErrorCode::kInvalidArgument, {"BMP"});

  NodeGraph d("ImageDecoder", 20);
  d.in(bytes_of({1, 2, 3, 4, 5})).out(DType::kUInt8);
  expect_error(d, gen(), ErrorCode::kInvalidArgument, {"no format"});

  std::vector<uint8_t> jpeg{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0};
  NodeGraph e("ImageDecoder", 20);
  e.in(bytes_of(jpeg)).out(DType::kUInt8);
  try {
    e.run(gen());
    ADD_FAILURE() << "a truncated JPEG decoded";
  } catch (const Error& err) {
    // Malformed, or refused when geon was built without libjpeg.
    EXPECT_TRUE(err.code() == ErrorCode::kInvalidArgument || err.code() == ErrorCode::kNotSupported)
        << err.what();
    EXPECT_NE(std::string(err.what()).find("JPEG"), std::string::npos) << err.what();
  }
}

// Random byte flips and truncations of valid streams: each decodes or fails with geon::Error
// (under ASan, without reading out of bounds).
TEST(TextImageDecoder, MutatedStreamsDecodeOrFailCleanly) {
  std::mt19937 rng(12);
  const Pixels p = random_pixels(rng, 6, 4);
  std::vector<std::vector<uint8_t>> seeds{bmp(p, 24, false), bmp(p, 32, true)};
  const std::string head = "P6\n6 4\n255\n";
  seeds.emplace_back(head.begin(), head.end());
  seeds.back().insert(seeds.back().end(), p.rgb.begin(), p.rgb.end());
#ifdef GEON_TEST_HAVE_PNG
  png_image img{};
  img.version = PNG_IMAGE_VERSION;
  img.width = 6;
  img.height = 4;
  img.format = PNG_FORMAT_RGB;
  png_alloc_size_t size = 1 << 16;
  std::vector<uint8_t> png(size);
  ASSERT_TRUE(png_image_write_to_memory(&img, png.data(), &size, 0, p.rgb.data(), 0, nullptr));
  png.resize(size);
  seeds.push_back(png);
#endif
  int decoded = 0, refused = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<uint8_t> b = seeds[trial % seeds.size()];
    for (int k = 1 + static_cast<int>(rng() % 4); k > 0; --k)
      b[rng() % b.size()] = static_cast<uint8_t>(rng());
    if (trial % 3 == 0) b.resize(rng() % b.size() + 1);
    NodeGraph ng("ImageDecoder", 20);
    ng.in(bytes_of(b)).out(DType::kUInt8);
    try {
      const Host y = ng.run(gen())[0];
      EXPECT_EQ(y.shape().size(), 3u);
      ++decoded;
    } catch (const Error&) {
      ++refused;
    }
  }
  EXPECT_GT(decoded, 0);
  EXPECT_GT(refused, 0);
}

TEST(TextImageDecoder, RefusesAnUnknownPixelFormat) {
  NodeGraph ng("ImageDecoder", 20);
  ng.in(bytes_of({1})).out(DType::kUInt8).attr_s("pixel_format", "CMYK");
  const auto why = ng.supports(gen());
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("CMYK"), std::string::npos) << *why;
}

}  // namespace
}  // namespace geon::cpu::testing
