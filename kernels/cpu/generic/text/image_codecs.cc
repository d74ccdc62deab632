// The library-backed image codecs of ImageDecoder: libjpeg-turbo, libpng, libwebp, libtiff and
// openjpeg, each compiled in when CMake found it (GEON_HAVE_<LIB>), otherwise refusing the
// format with the Debian package it needs. libjpeg and libpng report errors by longjmp back to
// the decode call (C frames only in between); libtiff and openjpeg by return values. Sizes
// are checked (make_image) before any pixel buffer is allocated.
#include <csetjmp>
#include <cstring>
#include <string>

#include "core/base/error.h"
#include "kernels/cpu/generic/text/image_codecs.h"

#ifdef GEON_HAVE_JPEG
#include <jpeglib.h>
#include <cstdio>  // jpeglib.h needs FILE
#endif
#ifdef GEON_HAVE_PNG
#include <png.h>
#endif
#ifdef GEON_HAVE_WEBP
#include <webp/decode.h>
#endif
#ifdef GEON_HAVE_TIFF
#include <tiffio.h>
#endif
#ifdef GEON_HAVE_OPENJPEG
#include <openjpeg.h>
#endif

namespace geon::cpu {
namespace {

[[noreturn]] [[maybe_unused]] void without(const char* format, const char* package) {
  fail(ErrorCode::kNotSupported,
       std::string("geon was built without ") + format + " decoding (Debian " + package + ")");
}

[[noreturn]] void malformed(const char* format, const std::string& why) {
  fail(ErrorCode::kInvalidArgument, std::string("the encoded ") + format + " is malformed: " + why);
}

}  // namespace

#ifdef GEON_HAVE_JPEG
namespace {
struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};
void jpeg_fail(j_common_ptr c) {
  auto* e = reinterpret_cast<JpegError*>(c->err);
  (*c->err->format_message)(c, e->message);
  std::longjmp(e->jump, 1);
}
void jpeg_quiet(j_common_ptr, int) {}
}  // namespace

// The decode between setjmp and the error longjmp: the image lives in the caller's frame
// (reached through `img`), so no local of this frame is read after a jump but the libjpeg
// structs, which are in memory.
bool run_jpeg(std::span<const uint8_t> bytes, Image& img, bool& oversize, std::string& why) {
  jpeg_decompress_struct d{};
  JpegError err{};
  d.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = jpeg_fail;
  err.mgr.emit_message = jpeg_quiet;
  volatile bool ok = false;  // read after a longjmp
  if (setjmp(err.jump) == 0) {
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, bytes.data(), static_cast<unsigned long>(bytes.size()));
    jpeg_read_header(&d, TRUE);
    d.out_color_space = JCS_RGB;  // grayscale and YCbCr alike, as Pillow's RGB
    jpeg_start_decompress(&d);
    img.height = d.output_height;
    img.width = d.output_width;
    if (d.output_components == 3 && img.height > 0 && img.width > 0 &&
        img.height <= kMaxImageBytes / 3 / img.width) {
      img.rgb.assign(static_cast<size_t>(img.height * img.width * 3), 0);
      while (d.output_scanline < d.output_height) {
        JSAMPROW row = &img.rgb[static_cast<size_t>(d.output_scanline) * d.output_width * 3];
        jpeg_read_scanlines(&d, &row, 1);
      }
      jpeg_finish_decompress(&d);
      ok = true;
    } else {
      oversize = d.output_components == 3;
      why = "unexpected colour components";
    }
  } else {
    why = err.message;
  }
  jpeg_destroy_decompress(&d);
  return ok;
}

Image decode_jpeg(std::span<const uint8_t> bytes) {
  Image img;
  bool oversize = false;
  std::string why;
  if (!run_jpeg(bytes, img, oversize, why)) {
    if (oversize) make_image(img.height, img.width);  // throws, naming the size
    malformed("JPEG", why);
  }
  return img;
}
#else
Image decode_jpeg(std::span<const uint8_t>) { without("JPEG", "libjpeg-dev"); }
#endif

#ifdef GEON_HAVE_PNG
namespace {
struct PngSource {
  std::span<const uint8_t> bytes;
  size_t at = 0;
};
void png_read(png_structp p, png_bytep out, png_size_t n) {
  auto* s = static_cast<PngSource*>(png_get_io_ptr(p));
  if (s->bytes.size() - s->at < n) png_error(p, "the data ends early");
  std::memcpy(out, s->bytes.data() + s->at, n);
  s->at += n;
}
void png_quiet(png_structp, png_const_charp) {}
}  // namespace

// As run_jpeg: the image and the row pointers live in the caller's frame.
bool run_png(PngSource& src, Image& img, std::vector<png_bytep>& rows, bool& oversize) {
  png_structp p = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, png_quiet);
  if (!p) return false;
  png_infop info = png_create_info_struct(p);
  volatile bool ok = false;  // read after a longjmp
  if (info && setjmp(png_jmpbuf(p)) == 0) {
    png_set_read_fn(p, &src, png_read);
    png_set_user_limits(p, 1 << 20, 1 << 20);
    png_read_info(p, info);
    // Everything to 8-bit RGB: palettes expanded, 16-bit stripped, gray to RGB, alpha dropped.
    png_set_expand(p);
    png_set_strip_16(p);
    png_set_gray_to_rgb(p);
    png_set_strip_alpha(p);
    png_read_update_info(p, info);
    img.width = png_get_image_width(p, info);
    img.height = png_get_image_height(p, info);
    if (png_get_channels(p, info) != 3) png_error(p, "unexpected channel count");
    if (img.height > kMaxImageBytes / 3 / img.width) {
      oversize = true;
    } else {
      img.rgb.assign(static_cast<size_t>(img.height * img.width * 3), 0);
      rows.resize(static_cast<size_t>(img.height));
      for (int64_t y = 0; y < img.height; ++y)
        rows[y] = &img.rgb[static_cast<size_t>(y * img.width * 3)];
      png_read_image(p, rows.data());
      ok = true;
    }
  }
  png_destroy_read_struct(&p, info ? &info : nullptr, nullptr);
  return ok;
}

Image decode_png(std::span<const uint8_t> bytes) {
  PngSource src{bytes, 0};
  Image img;
  std::vector<png_bytep> rows;
  bool oversize = false;
  if (!run_png(src, img, rows, oversize)) {
    if (oversize) make_image(img.height, img.width);  // throws, naming the size
    malformed("PNG", "libpng refused it");
  }
  return img;
}
#else
Image decode_png(std::span<const uint8_t>) { without("PNG", "libpng-dev"); }
#endif

#ifdef GEON_HAVE_WEBP
Image decode_webp(std::span<const uint8_t> bytes) {
  int w = 0, h = 0;
  if (!WebPGetInfo(bytes.data(), bytes.size(), &w, &h)) malformed("WebP", "no valid header");
  Image img = make_image(h, w);
  if (!WebPDecodeRGBInto(bytes.data(), bytes.size(), img.rgb.data(), img.rgb.size(), w * 3))
    malformed("WebP", "libwebp could not decode it");
  return img;
}
#else
Image decode_webp(std::span<const uint8_t>) { without("WebP", "libwebp-dev"); }
#endif

#ifdef GEON_HAVE_TIFF
namespace {
struct TiffSource {
  std::span<const uint8_t> bytes;
  toff_t at = 0;
};
tsize_t tiff_read(thandle_t h, tdata_t out, tsize_t n) {
  auto* s = static_cast<TiffSource*>(h);
  const toff_t left = s->at < s->bytes.size() ? s->bytes.size() - s->at : 0;
  const auto k = static_cast<toff_t>(n) < left ? static_cast<toff_t>(n) : left;
  std::memcpy(out, s->bytes.data() + s->at, k);
  s->at += k;
  return static_cast<tsize_t>(k);
}
tsize_t tiff_write(thandle_t, tdata_t, tsize_t) { return 0; }
toff_t tiff_seek(thandle_t h, toff_t off, int whence) {
  auto* s = static_cast<TiffSource*>(h);
  const toff_t base = whence == SEEK_CUR ? s->at : whence == SEEK_END ? s->bytes.size() : 0;
  s->at = base + off;
  return s->at;
}
int tiff_close(thandle_t) { return 0; }
toff_t tiff_size(thandle_t h) { return static_cast<TiffSource*>(h)->bytes.size(); }
int tiff_map(thandle_t, tdata_t*, toff_t*) { return 0; }
void tiff_unmap(thandle_t, tdata_t, toff_t) {}
}  // namespace

Image decode_tiff(std::span<const uint8_t> bytes) {
  static const bool quiet = [] {
    TIFFSetErrorHandler(nullptr);
    TIFFSetWarningHandler(nullptr);
    return true;
  }();
  (void)quiet;
  TiffSource src{bytes, 0};
  TIFF* t = TIFFClientOpen("image", "rm", &src, tiff_read, tiff_write, tiff_seek, tiff_close,
                           tiff_size, tiff_map, tiff_unmap);
  if (!t) malformed("TIFF", "libtiff could not open it");
  uint32_t w = 0, h = 0;
  TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w);
  TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h);
  Image img;
  try {
    img = make_image(h, w);
  } catch (...) {
    TIFFClose(t);
    throw;
  }
  std::vector<uint32_t> raster(static_cast<size_t>(w) * h);
  const int ok = TIFFReadRGBAImageOriented(t, w, h, raster.data(), ORIENTATION_TOPLEFT, 0);
  TIFFClose(t);
  if (!ok) malformed("TIFF", "libtiff could not decode it");
  for (size_t i = 0; i < raster.size(); ++i) {
    img.rgb[i * 3 + 0] = static_cast<uint8_t>(TIFFGetR(raster[i]));
    img.rgb[i * 3 + 1] = static_cast<uint8_t>(TIFFGetG(raster[i]));
    img.rgb[i * 3 + 2] = static_cast<uint8_t>(TIFFGetB(raster[i]));
  }
  return img;
}
#else
Image decode_tiff(std::span<const uint8_t>) { without("TIFF", "libtiff-dev"); }
#endif

#ifdef GEON_HAVE_OPENJPEG
namespace {
struct JpSource {
  std::span<const uint8_t> bytes;
  size_t at = 0;
};
OPJ_SIZE_T jp_read(void* out, OPJ_SIZE_T n, void* user) {
  auto* s = static_cast<JpSource*>(user);
  const size_t left = s->bytes.size() - s->at;
  if (left == 0) return static_cast<OPJ_SIZE_T>(-1);
  const size_t k = n < left ? n : left;
  std::memcpy(out, s->bytes.data() + s->at, k);
  s->at += k;
  return k;
}
OPJ_OFF_T jp_skip(OPJ_OFF_T n, void* user) {
  auto* s = static_cast<JpSource*>(user);
  if (n < 0 || static_cast<size_t>(n) > s->bytes.size() - s->at) return -1;
  s->at += static_cast<size_t>(n);
  return n;
}
OPJ_BOOL jp_seek(OPJ_OFF_T n, void* user) {
  auto* s = static_cast<JpSource*>(user);
  if (n < 0 || static_cast<size_t>(n) > s->bytes.size()) return OPJ_FALSE;
  s->at = static_cast<size_t>(n);
  return OPJ_TRUE;
}
}  // namespace

Image decode_jpeg2000(std::span<const uint8_t> bytes) {
  const bool jp2 = bytes.size() > 4 && bytes[0] == 0 && bytes[3] == 12;
  opj_codec_t* codec = opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
  opj_stream_t* stream = opj_stream_create(1 << 16, OPJ_TRUE);
  JpSource src{bytes, 0};
  opj_stream_set_user_data(stream, &src, nullptr);
  opj_stream_set_user_data_length(stream, bytes.size());
  opj_stream_set_read_function(stream, jp_read);
  opj_stream_set_skip_function(stream, jp_skip);
  opj_stream_set_seek_function(stream, jp_seek);
  opj_dparameters_t params;
  opj_set_default_decoder_parameters(&params);
  opj_image_t* image = nullptr;
  std::string why;
  Image img;
  if (!opj_setup_decoder(codec, &params) || !opj_read_header(stream, codec, &image)) {
    why = "no valid header";
  } else {
    const int64_t w = image->x1 - image->x0, h = image->y1 - image->y0;
    try {
      img = make_image(h, w);
    } catch (...) {
      opj_image_destroy(image);
      opj_stream_destroy(stream);
      opj_destroy_codec(codec);
      throw;
    }
    if (!opj_decode(codec, stream, image) || !opj_end_decompress(codec, stream)) {
      why = "openjpeg could not decode it";
    } else if (image->numcomps < 1) {
      why = "no components";
    } else {
      for (OPJ_UINT32 k = 0; k < image->numcomps && why.empty(); ++k) {
        const opj_image_comp_t& c = image->comps[k];
        if (c.w != static_cast<OPJ_UINT32>(w) || c.h != static_cast<OPJ_UINT32>(h) || c.prec > 16)
          why = "subsampled or deep components are not supported";
      }
      for (int64_t p = 0; why.empty() && p < w * h; ++p)
        for (int k = 0; k < 3; ++k) {
          const opj_image_comp_t& c = image->comps[image->numcomps >= 3 ? k : 0];
          int v = c.data[p] + (c.sgnd ? 1 << (c.prec - 1) : 0);
          if (c.prec > 8) v >>= (c.prec - 8);
          img.rgb[static_cast<size_t>(p * 3 + k)] = static_cast<uint8_t>(v < 0     ? 0
                                                                         : v > 255 ? 255
                                                                                   : v);
        }
    }
  }
  if (image) opj_image_destroy(image);
  opj_stream_destroy(stream);
  opj_destroy_codec(codec);
  if (!why.empty()) malformed("JPEG 2000", why);
  return img;
}
#else
Image decode_jpeg2000(std::span<const uint8_t>) { without("JPEG 2000", "libopenjp2-7-dev"); }
#endif

}  // namespace geon::cpu
