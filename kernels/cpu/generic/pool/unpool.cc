// MaxUnpool on the CPU: Y is zeros but where MaxPool's Indices say each X element came from.
// The indices count elements of the tensor MaxPool read, whose shape the attributes give back
// ((in - 1) * stride - pads + kernel); with output_shape, that tensor is Y's leading corner
// (as onnx.reference computes it). Elements are copied as bytes: any dtype whose zero is 0 bits.
#include <cstring>
#include <string>

#include "core/base/error.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/pool/window.h"

namespace geon::cpu {
namespace {

std::string dims_text(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

// Calls f(offset) for every element of a strided shape, in row-major order.
template <typename F>
void for_each_offset(const Dims& shape, const std::vector<int64_t>& strides, int64_t offset, F f) {
  const int64_t total = element_count(shape);
  const int rank = static_cast<int>(shape.size());
  std::vector<int64_t> at(rank, 0);
  for (int64_t e = 0; e < total; ++e) {
    int64_t off = offset;
    for (int d = 0; d < rank; ++d) off += at[d] * strides[d];
    f(off);
    for (int d = rank - 1; d >= 0; --d) {
      if (++at[d] < shape[d]) break;
      at[d] = 0;
    }
  }
}

// The shape MaxPool read, from X's and the attributes.
Dims unpooled_shape(const Dims& x, const PoolAttrs& a) {
  const int s = a.spatial();
  require(static_cast<int>(x.size()) == s + 2, [&] {
    return "X has rank " + std::to_string(x.size()) + " but kernel_shape has " + std::to_string(s) +
           " values";
  });
  Dims out = {x[0], x[1]};
  for (int d = 0; d < s; ++d) {
    const int64_t len = (x[d + 2] - 1) * a.strides[d] - a.pads[d] - a.pads[d + s] + a.kernel[d];
    require(len >= 0, [&] {
      return "the pads exceed the unpooled length of spatial dim " + std::to_string(d);
    });
    out.push_back(len);
  }
  return out;
}

}  // namespace

Reason supports_max_unpool(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  if (t != DType::kFloat && t != DType::kDouble && t != DType::kFloat16 && t != DType::kBFloat16)
    return "MaxUnpool of " + std::string(dtype_name(t)) + " is not implemented";
  if (output_dtype(g, n, 0) != t) return "MaxUnpool: Y's dtype differs from X's";
  if (input_dtype(g, n, 1) != DType::kInt64) return "MaxUnpool: I must be int64";
  if (has_input(n, 2))
    if (Reason r = check_ints_input(g, n, 2, "MaxUnpool output_shape")) return r;
  const PoolAttrs a = read_pool_attrs(n);
  const size_t s = a.kernel.size();
  if (s == 0) return "MaxUnpool: attribute 'kernel_shape' is missing";
  if (a.strides.size() != s || a.pads.size() != 2 * s)
    return "MaxUnpool: strides or pads do not match kernel_shape's length";
  for (size_t i = 0; i < s; ++i)
    if (a.kernel[i] < 1 || a.strides[i] < 1)
      return "MaxUnpool: kernel_shape and strides must be at least 1";
  for (int64_t p : a.pads)
    if (p < 0) return "MaxUnpool: negative pads";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_max_unpool(const Graph&, const Node& n) {
  const PoolAttrs attrs = read_pool_attrs(n);
  return make_node_kernel(n, [attrs](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const TensorRef& ind = ctx.input(1);
    require(ind.desc.shape == x.desc.shape, [&] {
      return "I's shape " + to_string(ind.desc) + " differs from X's " + to_string(x.desc);
    });
    const Dims inner = unpooled_shape(x.desc.shape, attrs);
    Dims shape = inner;
    if (ctx.num_inputs() > 2 && ctx.input(2).present()) {
      shape = read_ints(ctx.input(2), "output_shape");
      require(shape.size() == inner.size(), [&] {
        return "output_shape has " + std::to_string(shape.size()) + " entries, X's rank is " +
               std::to_string(inner.size());
      });
      for (size_t d = 0; d < shape.size(); ++d)
        require(shape[d] >= inner[d], [&] {
          return "output_shape " + dims_text(shape) + " is smaller than the unpooled " +
                 dims_text(inner) + " the indices count in";
        });
      check_output_size(x.desc.dtype, shape, "output_shape");
    }
    TensorRef& y = ctx.output(0, shape);
    if (element_count(shape) == 0) return;
    const size_t bytes = dtype_bytes_for(x.desc.dtype, 1);
    std::byte* yp = static_cast<std::byte*>(y.data);
    for_each_offset(shape, y.desc.strides, y.desc.offset,
                    [&](int64_t off) { std::memset(yp + off * bytes, 0, bytes); });
    // Y's offset of each element of the unpooled tensor's row-major count.
    const int rank = static_cast<int>(inner.size());
    const int64_t total = element_count(inner);
    auto y_offset = [&](int64_t flat) {
      int64_t off = y.desc.offset;
      for (int d = rank - 1; d >= 0; --d) {
        off += flat % inner[d] * y.desc.strides[d];
        flat /= inner[d];
      }
      return off;
    };
    // X and I walked together in row-major order: a later element wins an index both name.
    std::vector<int64_t> x_offsets;
    x_offsets.reserve(element_count(x.desc));
    for_each_offset(x.desc.shape, x.desc.strides, x.desc.offset,
                    [&](int64_t off) { x_offsets.push_back(off); });
    const std::byte* xp = static_cast<const std::byte*>(x.data);
    const int64_t* ip = static_cast<const int64_t*>(ind.data);
    size_t e = 0;
    for_each_offset(ind.desc.shape, ind.desc.strides, ind.desc.offset, [&](int64_t off) {
      const int64_t i = ip[off];
      if (i < 0 || i >= total)  // not require(): its message would be built per element
        fail(ErrorCode::kInvalidArgument,
             "index " + std::to_string(i) + " is outside the unpooled tensor " + dims_text(inner));
      std::memcpy(yp + y_offset(i) * bytes, xp + x_offsets[e++] * bytes, bytes);
    });
  });
}

}  // namespace geon::cpu
