// Dense layouts (row- and column-major, with optional alignment padding) and the questions
// asked of a layout as a whole: how many elements, is it dense, how to print it.
#include <algorithm>
#include <string>

#include "core/desc/check.h"
#include "core/desc/desc.h"
#include "core/desc/in_place.h"

namespace geon {
namespace {

using desc_detail::dims_str;

// Strides follow the allocated sizes, so padding shows up as gaps between rows (or columns)
// while the logical shape stays what the user asked for.
// Writes into `d` (assigning its vectors, so their memory is reused).
void dense_into(TensorDesc& d, const char* fn, DType dtype, std::span<const int64_t> shape,
                std::span<const int64_t> padded, bool row) {
  if (static_cast<int>(dtype) >= kDTypeCount)
    desc_detail::invalid(
        fn, "dtype " + std::to_string(static_cast<int>(dtype)) + " is not an ONNX element type");
  desc_detail::count_elements(shape, fn, "shape");
  if (!padded.empty()) {
    if (padded.size() != shape.size())
      desc_detail::invalid(fn, "padded " + dims_str(padded) + " has " +
                                   std::to_string(padded.size()) + " dims but shape " +
                                   dims_str(shape) + " has " + std::to_string(shape.size()));
    for (size_t i = 0; i < shape.size(); ++i)
      if (padded[i] < shape[i])
        desc_detail::invalid(fn, "padded " + dims_str(padded) + " is smaller than shape " +
                                     dims_str(shape) + " at dim " + std::to_string(i));
  }
  const std::span<const int64_t> sizes = padded.empty() ? shape : padded;
  const size_t rank = shape.size();
  d.dtype = dtype;
  d.offset = 0;
  d.shape.assign(shape.begin(), shape.end());
  d.strides.assign(rank, 0);
  int64_t step = 1;
  for (size_t k = 0; k < rank; ++k) {
    const size_t i = row ? rank - 1 - k : k;
    d.strides[i] = step;
    // A zero length would zero every outer stride and make them read as broadcast; the
    // tensor is empty either way, so count it as 1.
    const int64_t len = sizes[i] > 0 ? sizes[i] : 1;
    auto next = desc_detail::mul(step, len);
    if (!next)
      desc_detail::out_of_range(fn, std::string(padded.empty() ? "shape " : "padded ") +
                                        dims_str(sizes) + " has more elements than int64 holds");
    step = *next;
  }
  // Padding equal to the shape is no padding; keeping it empty makes equal layouts compare equal.
  if (!padded.empty() && !std::equal(padded.begin(), padded.end(), shape.begin()))
    d.padded.assign(padded.begin(), padded.end());
  else
    d.padded.clear();
}

TensorDesc dense(const char* fn, DType dtype, std::span<const int64_t> shape,
                 std::span<const int64_t> padded, bool row) {
  TensorDesc d;
  dense_into(d, fn, dtype, shape, padded, row);
  return d;
}

}  // namespace

TensorDesc row_major(DType dtype, std::span<const int64_t> shape, std::span<const int64_t> padded) {
  return dense("row_major", dtype, shape, padded, true);
}

void row_major_into(TensorDesc& d, DType dtype, std::span<const int64_t> shape) {
  dense_into(d, "row_major", dtype, shape, {}, true);
}

TensorDesc col_major(DType dtype, std::span<const int64_t> shape, std::span<const int64_t> padded) {
  return dense("col_major", dtype, shape, padded, false);
}

int64_t element_count(std::span<const int64_t> shape) {
  return desc_detail::count_elements(shape, "element_count", "shape");
}

int64_t element_count(const TensorDesc& d) { return element_count(d.shape); }

bool is_contiguous(const TensorDesc& d) {
  desc_detail::check_desc(d, "is_contiguous");
  if (element_count(d.shape) == 0) return true;
  int64_t expected = 1;
  for (int i = d.rank() - 1; i >= 0; --i) {
    // A length-1 dim never moves the index, so its stride says nothing about density.
    if (d.shape[i] == 1) continue;
    if (d.strides[i] != expected) return false;
    expected *= d.shape[i];  // bounded by the element count, which check_desc verified
  }
  return true;
}

std::string to_string(const TensorDesc& d) {
  const int code = static_cast<int>(d.dtype);
  std::string s =
      code < kDTypeCount ? std::string(dtype_name(d.dtype)) : "dtype(" + std::to_string(code) + ")";
  s +=
      dims_str(d.shape) + " strides " + dims_str(d.strides) + " offset " + std::to_string(d.offset);
  if (!d.padded.empty()) s += " padded " + dims_str(d.padded);
  return s;
}

}  // namespace geon
