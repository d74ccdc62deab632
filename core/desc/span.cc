// The extent of storage a view can reach, in elements and in bytes. Buffers use it to check that
// a view fits its allocation; may_overlap uses it as the first, cheap disjointness test.
#include <string>

#include "core/desc/check.h"
#include "core/desc/desc.h"

namespace geon {

ElementSpan element_span(const TensorDesc& d) {
  desc_detail::check_desc(d, "element_span");
  if (element_count(d.shape) == 0) return {};
  ElementSpan s{d.offset, d.offset};
  for (int i = 0; i < d.rank(); ++i) {
    const int64_t reach =
        desc_detail::mul_or_fail(d.strides[i], d.shape[i] - 1, "element_span", "stride * length");
    // Negative strides reach below the offset, positive ones above; broadcast dims not at all.
    if (reach < 0)
      s.first = desc_detail::add_or_fail(s.first, reach, "element_span", "first element");
    else
      s.last = desc_detail::add_or_fail(s.last, reach, "element_span", "last element");
  }
  return s;
}

ByteSpan byte_span(const TensorDesc& d) {
  const int code = static_cast<int>(d.dtype);
  if (code >= kDTypeCount)
    desc_detail::invalid("byte_span",
                         "dtype " + std::to_string(code) + " is not an ONNX element type");
  const int64_t bits = dtype_bits(d.dtype);
  if (bits == 0)
    fail(ErrorCode::kNotSupported,
         "byte_span: dtype " + std::string(dtype_name(d.dtype)) + " has no fixed width in bytes");
  const ElementSpan e = element_span(d);
  if (e.empty()) return {};
  // Packed elements share bytes: the span runs from the byte holding the first element's low
  // bits to the end of the byte holding the last element's high bits.
  const int64_t lo = desc_detail::mul_or_fail(e.first, bits, "byte_span", "first bit");
  const int64_t last = desc_detail::add_or_fail(e.last, 1, "byte_span", "end element");
  const int64_t hi = desc_detail::mul_or_fail(last, bits, "byte_span", "end bit");
  return {desc_detail::floor_div(lo, 8), desc_detail::ceil_div(hi, 8)};
}

}  // namespace geon
