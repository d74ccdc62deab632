// TensorProto decoding. Sizes come from untrusted dims, so the element count is computed with
// overflow checks and compared with the payload before anything is allocated.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/base/error.h"
#include "core/dtype/scalar.h"
#include "importer/external_data.h"
#include "importer/proto.h"

namespace geon::importer {
namespace {

// A bool element is one byte holding 0 or 1 everywhere in geon (kernels read it as C++ bool);
// a file may hold any nonzero byte for true, as ONNX's readers take it.
template <typename Data>
Data canonical_bools(Data out, int64_t bytes) {
  if (out->desc.dtype != DType::kBool) return out;
  std::byte* p = out->storage->data();
  for (int64_t i = 0; i < bytes; ++i) p[i] = p[i] != std::byte{0} ? std::byte{1} : std::byte{0};
  return out;
}

constexpr int64_t kMaxTensorBytes = int64_t{1} << 40;
// Densifying a sparse tensor allocates what the model does not store; 2 GiB, like protobuf's
// own limit on a model, is plenty for a sparse initializer.
constexpr int64_t kMaxSparseDenseBytes = int64_t{2} << 30;

// x86-64: LE. An empty tensor's source (an empty vector) may be null, which memcpy forbids.
void copy_le(void* dst, const void* src, size_t n) {
  if (n) std::memcpy(dst, src, n);
}

template <class Field, class Store>
void from_field(const Field& f, int64_t expect, const std::string& where, const char* field,
                Store&& store) {
  if (static_cast<int64_t>(f.size()) != expect)
    fail(ErrorCode::kInvalidArgument, where + ": " + field + " holds " + std::to_string(f.size()) +
                                          " values but the shape needs " + std::to_string(expect));
  for (int64_t i = 0; i < expect; ++i) store(i, f.Get(static_cast<int>(i)));
}

}  // namespace

DType dtype_of(int32_t elem_type, const std::string& where) {
  auto t = dtype_from_onnx(elem_type);
  if (!t)
    fail(ErrorCode::kInvalidArgument, where + ": unknown data type " + std::to_string(elem_type));
  return *t;
}

std::shared_ptr<TensorData> decode_tensor(const onnx::TensorProto& t, const std::string& base_dir,
                                          const std::string& where_in, const CutRawData* cut) {
  const std::string where = where_in.empty() ? "tensor '" + t.name() + "'" : where_in;
  if (!t.has_data_type()) fail(ErrorCode::kInvalidArgument, where + ": no data type");
  const DType dtype = dtype_of(t.data_type(), where);
  Dims shape(t.dims().begin(), t.dims().end());
  for (int64_t d : shape)
    if (d < 0) fail(ErrorCode::kInvalidArgument, where + ": negative dim " + std::to_string(d));
  int64_t n = 0;
  try {
    n = element_count(shape);
  } catch (const Error&) {
    fail(ErrorCode::kInvalidArgument, where + ": element count of the dims overflows 64 bits");
  }
  if (t.has_segment())
    fail(ErrorCode::kNotSupported, where + ": segmented tensors are not supported");

  if (dtype == DType::kString) {
    if (static_cast<int64_t>(t.string_data_size()) != n)
      fail(ErrorCode::kInvalidArgument, where + ": string_data holds " +
                                            std::to_string(t.string_data_size()) +
                                            " strings but the shape needs " + std::to_string(n));
    auto out = make_tensor_data(dtype, shape, kMaxTensorBytes);
    for (int64_t i = 0; i < n; ++i) out->strings[i] = t.string_data(static_cast<int>(i));
    return out;
  }
  int64_t bytes = 0;
  try {
    bytes = dtype_bytes_for(dtype, n);
  } catch (const Error&) {
    fail(ErrorCode::kInvalidArgument, where + ": byte size of " + std::to_string(n) + " " +
                                          std::string(dtype_name(dtype)) +
                                          " elements overflows 64 bits");
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    // The file's size bounds the read; allocate only after it was checked.
    ExternalDataRef ref;
    for (const auto& kv : t.external_data()) {
      auto number = [&](const std::string& s) {
        size_t pos = 0;
        long long v = -1;
        try {
          v = std::stoll(s, &pos);
        } catch (...) {
          pos = 0;
        }
        if (pos != s.size() || s.empty() || v < 0)
          fail(ErrorCode::kInvalidArgument, where + ": external data " + kv.key() + " '" + s +
                                                "' is not a non-negative integer");
        return static_cast<int64_t>(v);
      };
      if (kv.key() == "location")
        ref.location = kv.value();
      else if (kv.key() == "offset")
        ref.offset = number(kv.value());
      else if (kv.key() == "length")
        ref.length = number(kv.value());
    }
    std::shared_ptr<TensorData> out;
    read_external_data(ref, base_dir, bytes, where, [&] {
      out = make_tensor_data_for_overwrite(dtype, shape, kMaxTensorBytes);
      return out->storage->data();
    });
    return canonical_bools(std::move(out), bytes);
  }
  // Check the payload's size against the shape before allocating, so dims cannot ask for
  // memory the data lacks. Each dtype has one field (or raw_data) that holds it.
  const int bits = dtype_bits(dtype);
  // raw_data, as parsed or as cut from the model's bytes before parsing.
  if (cut || t.has_raw_data()) {
    const int64_t raw_bytes = cut ? cut->payload.size : static_cast<int64_t>(t.raw_data().size());
    if (raw_bytes != bytes)
      fail(ErrorCode::kInvalidArgument, where + ": raw_data has " + std::to_string(raw_bytes) +
                                            " bytes but dtype " + std::string(dtype_name(dtype)) +
                                            " and shape need " + std::to_string(bytes));
    // Every byte is written from the payload: the storage is not cleared first.
    auto out = make_tensor_data_for_overwrite(dtype, shape, kMaxTensorBytes);
    if (cut)
      cut->reader->read(cut->payload, out->storage->data(), where);
    else
      copy_le(out->storage->data(), t.raw_data().data(), static_cast<size_t>(bytes));
    return canonical_bools(std::move(out), bytes);
  }
  const char* field = "int32_data";
  int64_t have = t.int32_data_size(), need = bits < 8 ? bytes : n;
  switch (dtype) {
    case DType::kFloat:
    case DType::kComplex64:
      field = "float_data", have = t.float_data_size(), need = bytes / 4;
      break;
    case DType::kDouble:
    case DType::kComplex128:
      field = "double_data", have = t.double_data_size(), need = bytes / 8;
      break;
    case DType::kInt64:
      field = "int64_data", have = t.int64_data_size(), need = n;
      break;
    case DType::kUInt32:
    case DType::kUInt64:
      field = "uint64_data", have = t.uint64_data_size(), need = n;
      break;
    default:
      break;
  }
  if (have != need)
    fail(ErrorCode::kInvalidArgument,
         where + ": " +
             (have == 0 ? std::string("no data (") + field + " is empty)"
                        : std::string(field) + " holds " + std::to_string(have) + " values") +
             " but dtype " + std::string(dtype_name(dtype)) + " and shape need " +
             std::to_string(need));
  auto out = make_tensor_data(dtype, shape, kMaxTensorBytes);
  std::byte* dst = out->storage->data();
  switch (dtype) {
    case DType::kFloat:
    case DType::kComplex64:
      from_field(t.float_data(), bytes / 4, where, "float_data",
                 [&](int64_t i, float v) { copy_le(dst + i * 4, &v, 4); });
      break;
    case DType::kDouble:
    case DType::kComplex128:
      from_field(t.double_data(), bytes / 8, where, "double_data",
                 [&](int64_t i, double v) { copy_le(dst + i * 8, &v, 8); });
      break;
    case DType::kInt64:
      from_field(t.int64_data(), n, where, "int64_data",
                 [&](int64_t i, int64_t v) { copy_le(dst + i * 8, &v, 8); });
      break;
    case DType::kUInt32:
    case DType::kUInt64:
      from_field(t.uint64_data(), n, where, "uint64_data", [&](int64_t i, uint64_t v) {
        copy_le(dst + i * (bits / 8), &v, static_cast<size_t>(bits / 8));
      });
      break;
    default:
      if (bits < 8) {
        // Packed types: each int32_data entry is one byte of packed elements.
        from_field(t.int32_data(), bytes, where, "int32_data",
                   [&](int64_t i, int32_t v) { dst[i] = static_cast<std::byte>(v & 0xff); });
      } else {
        // int32, int16, int8, uint16, uint8, bool, float16, bfloat16, float8: one per entry,
        // the low bits of each int32.
        from_field(t.int32_data(), n, where, "int32_data", [&](int64_t i, int32_t v) {
          copy_le(dst + i * (bits / 8), &v, static_cast<size_t>(bits / 8));
        });
      }
  }
  return canonical_bools(std::move(out), bytes);
}

std::shared_ptr<TensorData> decode_sparse_tensor(const onnx::SparseTensorProto& t,
                                                 const std::string& base_dir,
                                                 const std::string& where) {
  auto values = decode_tensor(t.values(), base_dir, where + " values");
  auto indices = decode_tensor(t.indices(), base_dir, where + " indices");
  Dims shape(t.dims().begin(), t.dims().end());
  for (int64_t d : shape)
    if (d < 0) fail(ErrorCode::kInvalidArgument, where + ": negative dim " + std::to_string(d));
  int64_t n = 0, dense_bytes = 0;
  try {
    n = element_count(shape);
    // A string element costs at least its std::string.
    dense_bytes = values->desc.dtype != DType::kString ? dtype_bytes_for(values->desc.dtype, n)
                  : n > INT64_MAX / 32                 ? INT64_MAX
                                                       : n * 32;
  } catch (const Error&) {
    fail(ErrorCode::kInvalidArgument, where + ": element count of the dims overflows 64 bits");
  }
  // The dense form is not backed by data in the model, so its size is capped.
  if (dense_bytes > kMaxSparseDenseBytes)
    fail(ErrorCode::kResourceExhausted,
         where + ": the dense form needs " + std::to_string(dense_bytes) +
             " bytes, over the limit of " + std::to_string(kMaxSparseDenseBytes));
  const int64_t nnz = values->elements();
  if (values->desc.rank() != 1)
    fail(ErrorCode::kInvalidArgument,
         where + ": values must be 1-D, got rank " + std::to_string(values->desc.rank()));
  if (!is_integer(indices->desc.dtype))
    fail(ErrorCode::kInvalidArgument,
         where + ": indices must be integers, got " + std::string(dtype_name(indices->desc.dtype)));
  const bool linear = indices->desc.rank() == 1;
  if (!linear &&
      !(indices->desc.rank() == 2 && indices->desc.shape[1] == static_cast<int64_t>(shape.size())))
    fail(ErrorCode::kInvalidArgument, where + ": indices must be [NNZ] or [NNZ, " +
                                          std::to_string(shape.size()) + "], got " +
                                          to_string(indices->desc));
  if (indices->desc.shape[0] != nnz)
    fail(ErrorCode::kInvalidArgument, where + ": indices hold " +
                                          std::to_string(indices->desc.shape[0]) +
                                          " positions but values hold " + std::to_string(nnz));
  auto out = make_tensor_data(values->desc.dtype, shape, kMaxSparseDenseBytes);
  for (int64_t k = 0; k < nnz; ++k) {
    int64_t flat = 0;
    if (linear) {
      flat = element_as_int(*indices, k);
    } else {
      for (size_t d = 0; d < shape.size(); ++d) {
        const int64_t idx = element_as_int(*indices, k * static_cast<int64_t>(shape.size()) + d);
        if (idx < 0 || idx >= shape[d])
          fail(ErrorCode::kOutOfRange, where + ": index " + std::to_string(idx) + " of entry " +
                                           std::to_string(k) + " is out of range for dim " +
                                           std::to_string(d) + " of length " +
                                           std::to_string(shape[d]));
        flat = flat * shape[d] + idx;
      }
    }
    if (flat < 0 || flat >= n)
      fail(ErrorCode::kOutOfRange, where + ": index " + std::to_string(flat) + " of entry " +
                                       std::to_string(k) + " is out of range for " +
                                       std::to_string(n) + " elements");
    if (out->desc.dtype == DType::kString)
      out->strings[flat] = values->strings[k];
    else
      store_scalar(out->desc.dtype, out->storage->data(), flat,
                   load_scalar(values->desc.dtype, values->bytes(), k));
  }
  return out;
}

}  // namespace geon::importer

namespace geon {

std::shared_ptr<TensorData> read_tensor_bytes(std::span<const std::byte> bytes,
                                              const std::string& base_dir) {
  onnx::TensorProto t;
  if (bytes.size() > static_cast<size_t>(INT32_MAX) ||
      !t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    fail(ErrorCode::kInvalidArgument, "not a serialized TensorProto");
  return importer::decode_tensor(t, base_dir, "");
}

std::shared_ptr<TensorData> read_tensor_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(ErrorCode::kInvalidArgument, path + ": cannot open");
  std::vector<char> buf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return read_tensor_bytes(std::as_bytes(std::span(buf)),
                             std::filesystem::path(path).parent_path().string());
  } catch (const Error& e) {
    fail(e.code(), path + ": " + e.what());
  }
}

}  // namespace geon
