// Reshape as a view: the same elements in the same row-major order under a new shape. It exists
// when every run of old dims that a new dim spans can be walked with one stride; otherwise the
// answer is "not as a view", with the reason, and the caller copies.
#include <optional>
#include <string>
#include <vector>

#include "core/desc/check.h"
#include "core/desc/views.h"

namespace geon {
namespace {

using desc_detail::dims_str;

ReshapeResult reshape_in(const char* fn, const TensorDesc& d, std::span<const int64_t> shape) {
  desc_detail::check_desc(d, fn);
  const int64_t count = desc_detail::count_elements(shape, fn, "shape");
  if (count != element_count(d.shape))
    desc_detail::invalid(fn, "shape " + dims_str(shape) + " has " + std::to_string(count) +
                                 " elements but desc shape " + dims_str(d.shape) + " has " +
                                 std::to_string(element_count(d.shape)));
  const size_t rank = shape.size();
  TensorDesc out = d;
  out.shape.assign(shape.begin(), shape.end());
  out.strides.assign(rank, 1);

  if (count == 0) {
    // No element is ever addressed, so any strides do; dense ones keep the layout readable.
    // Past an int64 overflow the outer strides stay 0, still harmless.
    int64_t step = 1;
    for (size_t q = rank; q-- > 0;) {
      out.strides[q] = step;
      step = desc_detail::mul(step, shape[q] > 0 ? shape[q] : 1).value_or(0);
    }
    return {out, ""};
  }

  // Length-1 dims carry no position, so only the others need to line up.
  struct Dim {
    int64_t len, stride;
    size_t index;
  };
  std::vector<Dim> old;
  for (size_t i = 0; i < d.shape.size(); ++i)
    if (d.shape[i] != 1) old.push_back({d.shape[i], d.strides[i], i});

  // Walk both shapes in minimal groups whose products agree. A group's old dims must be one
  // run in memory (each stride = next stride * next length); its new dims then split that run
  // like a row-major array whose innermost stride is the run's.
  size_t oi = 0, ni = 0;
  while (oi < old.size()) {
    int64_t old_product = old[oi].len, new_product = 1;
    size_t oj = oi + 1, nj = ni;
    while (true) {
      // Prefix products of both shapes are equal at group boundaries and bounded by count,
      // so these products fit and neither index runs past its shape.
      while (new_product < old_product) new_product *= shape[nj++];
      if (new_product == old_product) break;
      const Dim& outer = old[oj - 1];
      const Dim& inner = old[oj];
      const auto joined = desc_detail::mul(inner.stride, inner.len);
      if (!joined || *joined != outer.stride)
        return {std::nullopt,
                std::string(fn) + ": dims " + std::to_string(outer.index) + " and " +
                    std::to_string(inner.index) + " of shape " + dims_str(d.shape) +
                    " with strides " + dims_str(d.strides) + " are not one run in memory (stride " +
                    std::to_string(outer.stride) + " != " + std::to_string(inner.stride) + " * " +
                    std::to_string(inner.len) + "), and new shape " + dims_str(shape) +
                    " needs them merged"};
      old_product *= inner.len;
      ++oj;
    }
    int64_t step = old[oj - 1].stride;
    for (size_t q = nj; q-- > ni;) {
      out.strides[q] = step;
      if (q > ni) step = desc_detail::mul_or_fail(step, shape[q], fn, "stride");
    }
    oi = oj;
    ni = nj;
  }
  // Length-1 dims (inside groups or left over at the end) get the stride a dense layout would.
  for (size_t q = rank; q-- > 0;)
    if (shape[q] == 1)
      out.strides[q] = q + 1 < rank ? desc_detail::unit_dim_stride(shape[q + 1], out.strides[q + 1])
                                    : desc_detail::unit_dim_stride(std::nullopt, 0);
  return {out, ""};
}

}  // namespace

ReshapeResult reshape(const TensorDesc& d, std::span<const int64_t> shape) {
  return reshape_in("reshape", d, shape);
}

ReshapeResult flatten(const TensorDesc& d, int axis) {
  desc_detail::check_desc(d, "flatten");
  const int rank = d.rank();
  if (axis < -rank || axis > rank)
    desc_detail::out_of_range("flatten", "axis " + std::to_string(axis) + " is out of range [" +
                                             std::to_string(-rank) + ", " + std::to_string(rank) +
                                             "] for rank " + std::to_string(rank));
  const int split = axis < 0 ? axis + rank : axis;
  const std::span<const int64_t> dims(d.shape);
  const int64_t outer = element_count(dims.first(split));
  const int64_t inner = element_count(dims.subspan(split));
  const int64_t shape[] = {outer, inner};
  return reshape_in("flatten", d, shape);
}

}  // namespace geon
