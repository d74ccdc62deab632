// The tools' own tensor: a name, an ONNX dtype number, a shape and the row-major bytes, owned.
// The tools read it from .npy and TensorProto files, hand it to the provider, and compare it;
// the dtype helpers here are the few facts those steps need (width, name, value as double).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "geon/geon.hpp"

namespace geon::tools {

// Every failure of the tools' own code (a bad file, a bad argument) is this, with a message
// that names the file or argument and what is wrong.
class ToolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ONNX TensorProto.DataType numbers used by name in the tools.
enum DType : int32_t {
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBfloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUint4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUint2 = 25,
  kInt2 = 26,
};

// Bits per element (0 for strings and unknown numbers) and ONNX's name ("float", "int64"):
// the wrapper's, so that the tools and the provider spell dtypes alike.
using geon::api::dtype_bits;
using geon::api::dtype_name;
// True for the types whose values compare with a tolerance.
bool dtype_is_floating(int32_t dtype);

struct HostTensor {
  std::string name;
  int32_t dtype = kFloat;
  std::vector<int64_t> shape;
  std::vector<std::byte> data;
  // String tensors (kString): the elements, and `data` holds one GeonString handle per
  // element pointing into them (set_strings), which is what a feed passes.
  std::vector<std::string> strings;
};

// Makes t a string tensor of these elements, its data the handles over them.
void set_strings(HostTensor& t, std::vector<std::string> strings);

// The number of elements of `shape`; ToolError for a negative length or an overflow of
// `limit` (so no caller allocates from a count it did not bound). `what` names the tensor.
int64_t element_count(const std::vector<int64_t>& shape, const std::string& what,
                      int64_t limit = int64_t{1} << 40);
// The bytes `count` elements of `dtype` take (4-bit types pack two per byte); ToolError for
// a dtype without a width.
size_t byte_size(int32_t dtype, int64_t count, const std::string& what);

// Element i as a double (complex: the real part; use element_imag for the other). Requires a
// numeric dtype and i in range.
double element_value(const HostTensor& t, int64_t i);
double element_imag(const HostTensor& t, int64_t i);

// "[2, 3]".
std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace geon::tools
