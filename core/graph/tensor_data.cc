// TensorData construction and element access.
#include "core/graph/tensor_data.h"

#include <cstring>

#include "core/base/error.h"
#include "core/dtype/scalar.h"

namespace geon {

std::shared_ptr<TensorData> make_tensor_data(DType dtype, const Dims& shape, int64_t max_bytes) {
  auto t = make_tensor_data_for_overwrite(dtype, shape, max_bytes);
  if (t->storage) std::memset(t->storage->data(), 0, t->storage->size());
  return t;
}

std::shared_ptr<TensorData> make_tensor_data_for_overwrite(DType dtype, const Dims& shape,
                                                           int64_t max_bytes) {
  auto t = std::make_shared<TensorData>();
  t->desc = row_major(dtype, shape);
  const int64_t n = element_count(t->desc);
  if (dtype == DType::kString) {
    require(n <= max_bytes / 8, "string tensor of " + std::to_string(n) + " elements is too large");
    t->strings.resize(n);
    return t;
  }
  const int64_t bytes = dtype_bytes_for(dtype, n);
  if (bytes > max_bytes)
    fail(ErrorCode::kResourceExhausted, "tensor of shape " + to_string(t->desc) + " needs " +
                                            std::to_string(bytes) + " bytes, over the limit of " +
                                            std::to_string(max_bytes));
  t->storage = std::make_shared<Storage>(host_constants_allocator(), static_cast<size_t>(bytes));
  return t;
}

std::shared_ptr<const TensorData> without_contents(const TensorData& t) {
  auto out = std::make_shared<TensorData>();
  out->desc = t.desc;
  return out;
}

namespace {
Scalar load(const TensorData& t, int64_t i) {
  require(i >= 0 && i < t.elements(), "tensor element index out of range");
  return load_scalar(t.desc.dtype, t.bytes(), i);
}
}  // namespace

int64_t element_as_int(const TensorData& t, int64_t i) { return scalar_to_int(load(t, i)); }

double element_as_double(const TensorData& t, int64_t i) { return scalar_to_double(load(t, i)); }

}  // namespace geon
