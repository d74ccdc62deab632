// The .npy reader and writer: NumPy's own header layout, every dtype round-tripping, and
// malformed files failing with a ToolError that names the file.
#include "tools/common/npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace geon::tools {
namespace {

std::vector<std::byte> to_bytes(const std::string& s) {
  std::vector<std::byte> b(s.size());
  if (!s.empty()) std::memcpy(b.data(), s.data(), s.size());
  return b;
}

// A file as np.save writes it (format 1.0): magic, version, little-endian header length, the
// header dict padded with spaces and ended by a newline, then the data.
std::string npy_file(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  const size_t prefix = major == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string out = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
  const size_t n = header.size();
  out.push_back(static_cast<char>(n & 0xff));
  out.push_back(static_cast<char>((n >> 8) & 0xff));
  if (major != 1) {
    out.push_back(static_cast<char>((n >> 16) & 0xff));
    out.push_back(static_cast<char>((n >> 24) & 0xff));
  }
  return out + header + data;
}

template <typename T>
std::string data_of(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

HostTensor parse(const std::string& file) { return parse_npy(to_bytes(file), "in.npy"); }

TEST(NpyReader, ReadsWhatNumpySaves) {
  const std::vector<int64_t> v{0, 1, 2, 3, 4, 5};
  const HostTensor t =
      parse(npy_file("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", data_of(v)));
  EXPECT_EQ(t.dtype, kInt64);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(t.data.size(), 48u);
  EXPECT_EQ(element_value(t, 5), 5.0);
}

TEST(NpyReader, ReadsVersionTwoHeadersAndOneElementTuples) {
  const std::vector<float> v{1.5f, -2.5f, 3.0f};
  const HostTensor t =
      parse(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", data_of(v), 2));
  EXPECT_EQ(t.dtype, kFloat);
  EXPECT_EQ(t.shape, std::vector<int64_t>{3});
  EXPECT_EQ(element_value(t, 1), -2.5);
}

TEST(NpyReader, ScalarsAndEmptyArrays) {
  const HostTensor scalar = parse(npy_file(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", data_of(std::vector<double>{7})));
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(element_value(scalar, 0), 7.0);
  const HostTensor empty =
      parse(npy_file("{'descr': '|b1', 'fortran_order': False, 'shape': (0, 4), }", ""));
  EXPECT_EQ(empty.dtype, kBool);
  EXPECT_EQ(empty.shape, (std::vector<int64_t>{0, 4}));
  EXPECT_TRUE(empty.data.empty());
}

TEST(NpyWriter, EveryDtypeRoundTripsAndTheHeaderIsAlignedTo64Bytes) {
  for (int32_t dtype : {kFloat, kDouble, kFloat16, kInt8, kUint8, kInt16, kUint16, kInt32, kUint32,
                        kInt64, kUint64, kBool, kComplex64, kComplex128}) {
    HostTensor t;
    t.name = "t";
    t.dtype = dtype;
    t.shape = {2, 1, 3};
    t.data.resize(byte_size(dtype, 6, "t"));
    for (size_t i = 0; i < t.data.size(); ++i)
      t.data[i] = static_cast<std::byte>(dtype == kBool ? i % 2 : i * 7 + 1);
    const std::string file = format_npy(t);
    const size_t header_len =
        static_cast<unsigned char>(file[8]) | (static_cast<unsigned char>(file[9]) << 8);
    EXPECT_EQ((10 + header_len) % 64, 0u) << dtype_name(dtype);
    EXPECT_EQ(file[10 + header_len - 1], '\n');
    const HostTensor back = parse(file);
    EXPECT_EQ(back.dtype, dtype) << dtype_name(dtype);
    EXPECT_EQ(back.shape, t.shape);
    EXPECT_EQ(back.data, t.data) << dtype_name(dtype);
  }
}

void expect_error(const std::string& file, const std::string& fragment) {
  try {
    parse(file);
    FAIL() << "expected an error mentioning '" << fragment << "'";
  } catch (const ToolError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("in.npy"), std::string::npos) << e.what();
  }
}

TEST(NpyReader, MalformedFilesAreClearErrors) {
  const std::string four_floats = data_of(std::vector<float>{1, 2, 3, 4});
  expect_error("PK\x03\x04 not numpy", "magic");
  expect_error(npy_file("{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", four_floats),
               "big-endian");
  expect_error(npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", four_floats),
               "Fortran");
  expect_error(npy_file("{'descr': '<U5', 'fortran_order': False, 'shape': (4,), }", four_floats),
               "'U5'");
  expect_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", four_floats),
               "truncated");
  expect_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", four_floats),
               "4 bytes more");
  expect_error(npy_file("{'descr': '<f4', 'fortran_order': False, }", four_floats), "'shape'");
  expect_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", four_floats),
               "malformed");
  expect_error(
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", four_floats, 9),
      "version 9");
}

TEST(NpyReader, HugeShapeFailsWithoutAllocating) {
  expect_error(
      npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }", "abcd"),
      "truncated");
  expect_error(
      npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999, 99999999999), }",
               ""),
      "elements");
}

TEST(NpyReader, TruncationsAndCorruptionFailCleanly) {
  const std::string full = npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
                                    data_of(std::vector<float>{1, 2, 3, 4}));
  for (size_t n = 0; n < full.size(); ++n) {
    EXPECT_THROW(parse(full.substr(0, n)), ToolError) << "prefix of " << n << " bytes";
  }
  std::mt19937 rng(11);
  for (int round = 0; round < 3000; ++round) {
    std::string b = full;
    for (int k = 0; k < 3; ++k) b[rng() % 80] = static_cast<char>(rng() & 0xff);
    try {
      const HostTensor t = parse(b);
      EXPECT_EQ(t.data.size(), byte_size(t.dtype, element_count(t.shape, "t"), "t"));
    } catch (const ToolError&) {
    }
  }
}

}  // namespace
}  // namespace geon::tools
