// The TensorProto wire-format reader: every field encoding the backend test data uses, and
// malformed bytes (truncated, corrupted, lying about sizes) that must fail with a ToolError.
#include "tools/common/tensor_proto.h"

#include <gtest/gtest.h>

#include <random>

#include "tests/tools/common/proto_writer.h"
#include "tools/common/compare.h"

namespace geon::tools {
namespace {

using testing::ProtoWriter;
using testing::raw_bytes;

HostTensor parse(const ProtoWriter& w) { return parse_tensor_proto(w.bytes(), "test.pb"); }

template <typename T>
std::vector<T> values(const HostTensor& t) {
  std::vector<T> v(t.data.size() / sizeof(T));
  std::memcpy(v.data(), t.data.data(), v.size() * sizeof(T));
  return v;
}

ProtoWriter float_tensor() {
  ProtoWriter w;
  w.packed_varints(1, {2, 3}).varint_field(2, kFloat).bytes_field(8, "x");
  w.bytes_field(9, raw_bytes(std::vector<float>{1, 2, 3, 4, 5, 6.5f}));
  return w;
}

TEST(TensorProtoReader, RawDataGivesDtypeShapeNameAndValues) {
  const HostTensor t = parse(float_tensor());
  EXPECT_EQ(t.name, "x");
  EXPECT_EQ(t.dtype, kFloat);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<float>(t), (std::vector<float>{1, 2, 3, 4, 5, 6.5f}));
}

TEST(TensorProtoReader, UnpackedDimsReadLikePackedOnes) {
  ProtoWriter w;
  w.varint_field(1, 2).varint_field(1, 3).varint_field(2, kInt64);
  w.varint_field(7, 5).packed_varints(7, {-1, 7, 8, 9, 1ll << 40});
  const HostTensor t = parse(w);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<int64_t>(t), (std::vector<int64_t>{5, -1, 7, 8, 9, 1ll << 40}));
}

TEST(TensorProtoReader, TypedFieldsOfEachStorageKind) {
  {
    ProtoWriter w;
    w.varint_field(1, 3)
        .varint_field(2, kFloat)
        .packed_fixed<float>(4, {0.5f, -1.0f})
        .fixed32_field(4, 3.0f);
    EXPECT_EQ(values<float>(parse(w)), (std::vector<float>{0.5f, -1.0f, 3.0f}));
  }
  {
    ProtoWriter w;
    w.varint_field(1, 2).varint_field(2, kDouble).packed_fixed<double>(10, {0.25, -8.0});
    EXPECT_EQ(values<double>(parse(w)), (std::vector<double>{0.25, -8.0}));
  }
  {
    ProtoWriter w;
    w.varint_field(1, 3).varint_field(2, kInt32).packed_varints(5, {-5, 0, 70000});
    EXPECT_EQ(values<int32_t>(parse(w)), (std::vector<int32_t>{-5, 0, 70000}));
  }
  {
    ProtoWriter w;
    w.varint_field(1, 2)
        .varint_field(2, kUint64)
        .varint_field(11, ~uint64_t{0})
        .varint_field(11, 3);
    EXPECT_EQ(values<uint64_t>(parse(w)), (std::vector<uint64_t>{~uint64_t{0}, 3}));
  }
  {
    ProtoWriter w;
    w.varint_field(1, 2).varint_field(2, kUint32).packed_varints(11, {4000000000ll, 1});
    EXPECT_EQ(values<uint32_t>(parse(w)), (std::vector<uint32_t>{4000000000u, 1}));
  }
  {
    ProtoWriter w;
    w.varint_field(1, 3).varint_field(2, kInt8).packed_varints(5, {-128, 127, -1});
    EXPECT_EQ(values<int8_t>(parse(w)), (std::vector<int8_t>{-128, 127, -1}));
  }
}

TEST(TensorProtoReader, HalfFloatsInInt32DataKeepTheirBitPatterns) {
  ProtoWriter w;
  w.varint_field(1, 2).varint_field(2, kFloat16).packed_varints(5, {0x3c00, 0xc000});
  const HostTensor t = parse(w);
  EXPECT_EQ(values<uint16_t>(t), (std::vector<uint16_t>{0x3c00, 0xc000}));
  EXPECT_EQ(element_value(t, 0), 1.0);
  EXPECT_EQ(element_value(t, 1), -2.0);
}

TEST(TensorProtoReader, FourBitTypesPackTwoElementsPerInt32Entry) {
  ProtoWriter w;
  w.varint_field(1, 3).varint_field(2, kInt4).packed_varints(5, {0xf3, 0x07});
  const HostTensor t = parse(w);
  ASSERT_EQ(t.data.size(), 2u);
  EXPECT_EQ(element_value(t, 0), 3);
  EXPECT_EQ(element_value(t, 1), -1);
  EXPECT_EQ(element_value(t, 2), 7);
}

TEST(TensorProtoReader, ScalarHasEmptyShapeAndOneElement) {
  ProtoWriter w;
  w.varint_field(2, kFloat).bytes_field(9, raw_bytes(std::vector<float>{42}));
  const HostTensor t = parse(w);
  EXPECT_TRUE(t.shape.empty());
  EXPECT_EQ(values<float>(t), std::vector<float>{42});
}

TEST(TensorProtoReader, UnknownFieldsAreSkipped) {
  ProtoWriter w = float_tensor();
  w.bytes_field(12, "doc").varint_field(99, 5).fixed32_field(98, 1.0f);
  EXPECT_EQ(parse(w).shape, (std::vector<int64_t>{2, 3}));
}

void expect_error(const ProtoWriter& w, const std::string& fragment) {
  try {
    parse(w);
    FAIL() << "expected an error mentioning '" << fragment << "'";
  } catch (const ToolError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("test.pb"), std::string::npos) << e.what();
  }
}

TEST(TensorProtoReader, RawDataOfTheWrongSizeNamesBothSizes) {
  ProtoWriter w;
  w.packed_varints(1, {2, 3}).varint_field(2, kFloat).bytes_field(
      9, raw_bytes(std::vector<float>{1, 2}));
  expect_error(w, "raw_data has 8 bytes");
}

TEST(TensorProtoReader, TypedFieldWithTooFewValuesIsAnError) {
  ProtoWriter w;
  w.varint_field(1, 4).varint_field(2, kInt64).packed_varints(7, {1, 2});
  expect_error(w, "int64_data has 2 values");
}

TEST(TensorProtoReader, MissingDataTypeIsAnError) {
  ProtoWriter w;
  w.varint_field(1, 1).bytes_field(9, raw_bytes(std::vector<float>{1}));
  expect_error(w, "no data_type");
}

TEST(TensorProtoReader, NegativeDimensionIsAnError) {
  ProtoWriter w;
  w.packed_varints(1, {-2}).varint_field(2, kFloat);
  expect_error(w, "negative dimension");
}

TEST(TensorProtoReader, HugeShapeWithoutDataFailsBeforeAllocating) {
  ProtoWriter w;
  w.packed_varints(1, {1 << 20, 1 << 19}).varint_field(2, kDouble);
  expect_error(w, "needs more values than the file holds");
  ProtoWriter overflow;
  overflow.packed_varints(1, {1ll << 40, 1ll << 40}).varint_field(2, kFloat);
  expect_error(overflow, "elements");
}

TEST(TensorProtoReader, LengthBeyondTheEndIsAnError) {
  ProtoWriter w;
  w.varint_field(2, kFloat).tag(9, 2);
  w.varint(1000);
  w.raw("abc");
  expect_error(w, "claims 1000 bytes");
}

TEST(TensorProtoReader, OverlongVarintIsAnError) {
  ProtoWriter w;
  w.raw(std::string(11, '\xff'));
  expect_error(w, "varint");
}

TEST(TensorProtoReader, StringsAreReadAsElementsWithHandles) {
  ProtoWriter strings;
  strings.varint_field(1, 2).varint_field(2, kString).bytes_field(6, "hello").bytes_field(6, "");
  const HostTensor t = parse(strings);
  EXPECT_EQ(t.dtype, kString);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2}));
  ASSERT_EQ(t.strings, (std::vector<std::string>{"hello", ""}));
  // The data a feed passes: one GeonString per element over the strings.
  ASSERT_EQ(t.data.size(), 2 * sizeof(GeonString));
  const auto* h = reinterpret_cast<const GeonString*>(t.data.data());
  EXPECT_EQ(std::string(h[0].data, h[0].size), "hello");
  EXPECT_EQ(h[1].size, 0u);
  ProtoWriter short_of_strings;
  short_of_strings.varint_field(1, 3).varint_field(2, kString).bytes_field(6, "a");
  EXPECT_THROW(parse(short_of_strings), ToolError);
}

TEST(TensorProtoReader, ExternalDataAndUnknownTypesAreUnsupportedNotMalformed) {
  ProtoWriter external = float_tensor();
  external.varint_field(14, 1);
  EXPECT_THROW(parse(external), UnsupportedData);
  ProtoWriter unknown;
  unknown.varint_field(1, 1).varint_field(2, 77);
  EXPECT_THROW(parse(unknown), UnsupportedData);
}

// Every prefix of a valid message either parses (a prefix can end between fields) or fails
// with a ToolError; none may crash or read past the end (ASan builds check the latter).
TEST(TensorProtoReader, EveryTruncationFailsCleanly) {
  const std::vector<std::byte> full = float_tensor().bytes();
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<std::byte> prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
    try {
      parse_tensor_proto(prefix, "prefix");
    } catch (const ToolError&) {
    }
  }
  SUCCEED();
}

TEST(TensorProtoReader, RandomCorruptionNeverEscapesAsAnythingButToolError) {
  const std::vector<std::byte> full = float_tensor().bytes();
  std::mt19937 rng(7);
  int parsed = 0, refused = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<std::byte> b = full;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) b[rng() % b.size()] = static_cast<std::byte>(rng() & 0xff);
    try {
      const HostTensor t = parse_tensor_proto(b, "fuzz");
      // A tensor that parses is consistent: its bytes are exactly what its shape needs.
      EXPECT_EQ(t.data.size(), byte_size(t.dtype, element_count(t.shape, "fuzz"), "fuzz"));
      ++parsed;
    } catch (const ToolError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_EQ(parsed + refused, 3000);
}

#ifdef GEON_ONNX_WHEEL_DATA
// The real backend data: test_add's output is the sum of its inputs.
TEST(TensorProtoReader, ReadsTheBackendTestDataOfTestAdd) {
  const std::string dir = std::string(GEON_ONNX_WHEEL_DATA) + "/node/test_add/test_data_set_0/";
  const HostTensor a = read_tensor_proto(dir + "input_0.pb");
  const HostTensor b = read_tensor_proto(dir + "input_1.pb");
  const HostTensor y = read_tensor_proto(dir + "output_0.pb");
  ASSERT_EQ(a.dtype, kFloat);
  ASSERT_EQ(a.shape, b.shape);
  ASSERT_EQ(a.shape, y.shape);
  ASSERT_GT(element_count(a.shape, "a"), 1);
  HostTensor sum = a;
  std::vector<float> av = values<float>(a), bv = values<float>(b);
  for (size_t i = 0; i < av.size(); ++i) av[i] += bv[i];
  std::memcpy(sum.data.data(), av.data(), sum.data.size());
  EXPECT_FALSE(compare_tensors(sum, y, Tolerance{}).has_value());
  EXPECT_TRUE(compare_tensors(a, y, Tolerance{}).has_value());
}
#endif

}  // namespace
}  // namespace geon::tools
