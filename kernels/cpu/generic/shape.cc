// Shape computations evaluated at run time from the actual input shapes and values: Shape,
// Size, Gather, ConstantOfShape and Range. The importer folds these when it can; these kernels
// run the ones that depend on symbolic dims (Shape -> Gather -> Concat -> Reshape chains).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/dtype/scalar.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {
namespace {

using Ints = std::vector<int64_t>;

// Writes `values` (row-major) into the output `out`, whatever its dtype and strides.
void write_ints(const TensorRef& out, const Ints& values) {
  if (values.empty()) return;
  assign(dst_of(out), ConstOperand(row_major(DType::kInt64, out.desc.shape), values.data()));
}

// Every element of an integer host tensor of any rank, as int64 in row-major order.
Ints all_ints(const TensorRef& t) {
  Ints out(element_count(t.desc));
  if (!out.empty()) assign(Operand{row_major(DType::kInt64, t.desc.shape), out.data()}, src_of(t));
  return out;
}

// One element of a one-element host tensor (rank 0 or a single element).
Scalar scalar_input(const TensorRef& t, std::string_view what) {
  require(element_count(t.desc) == 1, [&] {
    return std::string(what) + " must hold one element, not " +
           std::to_string(element_count(t.desc));
  });
  require(t.data != nullptr, [&] { return std::string(what) + " has no data"; });
  return load_scalar(t.desc.dtype, t.data, t.desc.offset);
}

// Gather between dense tensors of one whole-byte dtype: a memcpy per (outer, index) block
// instead of one engine assign per index, which matters for many small slices. False when the
// layouts or dtypes do not allow it.
bool gather_dense(const TensorRef& data, const TensorRef& out, int axis, const Ints& idx) {
  const DType t = data.desc.dtype;
  if (t != out.desc.dtype || is_packed(t) || !is_contiguous(data.desc) || !is_contiguous(out.desc))
    return false;
  const int64_t es = dtype_bytes_for(t, 1);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= data.desc.shape[d];
  for (int d = axis + 1; d < data.desc.rank(); ++d) inner *= data.desc.shape[d];
  const int64_t len = data.desc.shape[axis], n = static_cast<int64_t>(idx.size());
  const auto* src = static_cast<const std::byte*>(data.data) + data.desc.offset * es;
  auto* dst = static_cast<std::byte*>(out.data) + out.desc.offset * es;
  const size_t block = static_cast<size_t>(inner * es);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < n; ++k)
      std::memcpy(dst + (o * n + k) * inner * es, src + (o * len + idx[k]) * inner * es, block);
  return true;
}

Reason check_int64_output(const Graph& g, const Node& n) {
  if (output_dtype(g, n, 0) != DType::kInt64)
    return n.op + " must output int64, not " + std::string(dtype_name(output_dtype(g, n, 0)));
  return std::nullopt;
}

int64_t clamp_to_rank(int64_t v, int64_t rank) {
  if (v < 0) v += rank;
  return std::clamp<int64_t>(v, 0, rank);
}

// The number of elements of Range(start, limit, delta) for integers, without overflow.
int64_t int_range_count(int64_t start, int64_t limit, int64_t delta) {
  require(delta != 0, "delta is 0");
  int64_t diff = 0;
  if (__builtin_sub_overflow(limit, start, &diff)) {
    // Start and limit on opposite extremes: count in long double, which holds the magnitude.
    const long double c =
        std::ceil((static_cast<long double>(limit) - static_cast<long double>(start)) / delta);
    return c <= 0 ? 0 : static_cast<int64_t>(std::min<long double>(c, 1e18L));
  }
  if ((diff > 0) != (delta > 0) || diff == 0) return 0;
  // In magnitudes, so that INT64_MIN / -1 cannot occur.
  const auto magnitude = [](int64_t v) {
    return v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  };
  const uint64_t d = magnitude(diff), step = magnitude(delta);
  const uint64_t q = d / step + (d % step != 0 ? 1 : 0);
  return static_cast<int64_t>(std::min<uint64_t>(q, std::numeric_limits<int64_t>::max()));
}

int64_t real_range_count(double start, double limit, double delta) {
  require(delta != 0, "delta is 0");
  const double c = std::ceil((limit - start) / delta);
  require(std::isfinite(c), "start, limit and delta give no finite element count");
  if (c <= 0) return 0;
  return static_cast<int64_t>(std::min(c, 1e18));
}

}  // namespace

Reason supports_shape(const Graph& g, const Node& n) {
  if (input_dtype(g, n, 0) == DType::kUndefined) return "the input has no known dtype";
  return check_int64_output(g, n);
}
std::unique_ptr<Kernel> create_shape(const Graph&, const Node& n) {
  const int64_t start = attr_int(n, "start", 0);
  const std::optional<int64_t> end =
      n.attr("end") ? std::optional<int64_t>(attr_int(n, "end", 0)) : std::nullopt;
  return make_node_kernel(n, [start, end](KernelContext& ctx) {
    const Dims& dims = ctx.input(0).desc.shape;
    const int64_t rank = static_cast<int64_t>(dims.size());
    const int64_t s = clamp_to_rank(start, rank), e = end ? clamp_to_rank(*end, rank) : rank;
    const Ints values(dims.begin() + s, dims.begin() + std::max(s, e));
    write_ints(ctx.output(0, {static_cast<int64_t>(values.size())}), values);
  });
}

Reason supports_size(const Graph& g, const Node& n) {
  if (input_dtype(g, n, 0) == DType::kUndefined) return "the input has no known dtype";
  return check_int64_output(g, n);
}
std::unique_ptr<Kernel> create_size(const Graph&, const Node& n) {
  return make_node_kernel(n, [](KernelContext& ctx) {
    write_ints(ctx.output(0, {}), {element_count(ctx.input(0).desc)});
  });
}

Reason supports_gather(const Graph& g, const Node& n) {
  // Gather moves elements only: strings (handles) too.
  if (Reason r = string_or_engine_reason(input_dtype(g, n, 0), "the data")) return r;
  if (Reason r = string_or_engine_reason(output_dtype(g, n, 0), "the output")) return r;
  if (!has_input(n, 1)) return "Gather needs an indices input";
  return check_ints_input(g, n, 1, "the indices");
}
std::unique_ptr<Kernel> create_gather(const Graph&, const Node& n) {
  const int64_t axis_attr = attr_int(n, "axis", 0);
  return make_node_kernel(n, [axis_attr](KernelContext& ctx) {
    const TensorRef& data = ctx.input(0);
    const TensorRef& indices = ctx.input(1);
    const int rank = data.desc.rank();
    require(rank >= 1, "the data must have rank >= 1");
    require(axis_attr >= -rank && axis_attr < rank, [&] {
      return "axis " + std::to_string(axis_attr) + " is out of range for data of rank " +
             std::to_string(rank);
    });
    const int axis = static_cast<int>(axis_attr < 0 ? axis_attr + rank : axis_attr);
    require(is_integer(indices.desc.dtype), "the indices must be an integer tensor");
    Ints idx = all_ints(indices);
    const int64_t len = data.desc.shape[axis];
    for (size_t k = 0; k < idx.size(); ++k) {
      if (idx[k] < -len || idx[k] >= len)
        fail(ErrorCode::kOutOfRange, "index " + std::to_string(idx[k]) + " (at position " +
                                         std::to_string(k) + ") is out of range for axis " +
                                         std::to_string(axis) + " of length " +
                                         std::to_string(len));
      if (idx[k] < 0) idx[k] += len;
    }
    // Output dims: data's before the axis, the indices' dims, data's after the axis.
    Dims shape(data.desc.shape.begin(), data.desc.shape.begin() + axis);
    shape.insert(shape.end(), indices.desc.shape.begin(), indices.desc.shape.end());
    shape.insert(shape.end(), data.desc.shape.begin() + axis + 1, data.desc.shape.end());
    const TensorRef& out = ctx.output(0, shape);
    if (element_count(out.desc) == 0) return;
    if (gather_dense(data, out, axis, idx)) return;
    // The output seen with the indices' dims merged into one, so each index is one slice.
    Dims merged(data.desc.shape);
    merged[axis] = static_cast<int64_t>(idx.size());
    const ReshapeResult view = reshape(out.desc, merged);
    if (!view.view) fail(ErrorCode::kInternal, "the output's layout cannot be viewed: " + view.why);
    for (size_t k = 0; k < idx.size(); ++k)
      assign(Operand{select(*view.view, axis, static_cast<int64_t>(k)), out.data},
             ConstOperand(select(data.desc, axis, idx[k]), data.data));
  });
}

Reason supports_constant_of_shape(const Graph& g, const Node& n) {
  if (const Attribute* a = n.attr("value")) {
    if (a->kind != Attribute::Kind::kTensor || !a->t) return "value must be a tensor attribute";
    if (a->t->elements() != 1) return "value must hold exactly one element";
    if (Reason r = engine_dtype_reason(a->t->desc.dtype, "value")) return r;
  }
  if (Reason r = engine_dtype_reason(output_dtype(g, n, 0), "the output")) return r;
  if (!has_input(n, 0)) return "ConstantOfShape needs a shape input";
  return check_ints_input(g, n, 0, "the shape");
}
std::unique_ptr<Kernel> create_constant_of_shape(const Graph& g, const Node& n) {
  std::shared_ptr<const TensorData> value;
  if (const Attribute* a = n.attr("value")) value = a->t;
  if (!value) value = make_tensor_data(DType::kFloat, {1});  // ONNX's default: float 0
  const IntsInput shape_in = ints_input(g, n, 0);
  return make_node_kernel(n, [value, shape_in](KernelContext& ctx) {
    const Dims shape = shape_in.read(ctx, "the shape");
    check_output_size(value->desc.dtype, shape, "the shape");
    const TensorRef& out = ctx.output(0, shape);
    if (element_count(out.desc) == 0) return;
    TensorDesc one;  // the value as a scalar, broadcast over the whole output
    one.dtype = value->desc.dtype;
    assign(dst_of(out), ConstOperand(one, value->bytes()));
  });
}

Reason supports_range(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  if (Reason r = engine_dtype_reason(t, "start")) return r;
  if (t == DType::kBool || is_packed(t)) return "Range of " + std::string(dtype_name(t));
  for (int i = 1; i < 3; ++i)
    if (!has_input(n, i) || input_dtype(g, n, i) != t)
      return "start, limit and delta must be given and share one dtype";
  if (output_dtype(g, n, 0) != t) return "the output's dtype must be the inputs'";
  return std::nullopt;
}
std::unique_ptr<Kernel> create_range(const Graph&, const Node& n) {
  return make_node_kernel(n, [](KernelContext& ctx) {
    const Scalar start = scalar_input(ctx.input(0), "start");
    const Scalar limit = scalar_input(ctx.input(1), "limit");
    const Scalar delta = scalar_input(ctx.input(2), "delta");
    const DType t = ctx.input(0).desc.dtype;
    const bool real = is_floating(t);
    const int64_t count =
        real ? real_range_count(scalar_to_double(start), scalar_to_double(limit),
                                scalar_to_double(delta))
             : int_range_count(scalar_to_int(start), scalar_to_int(limit), scalar_to_int(delta));
    check_output_size(t, {count}, "the range");
    const TensorRef& out = ctx.output(0, {count});
    for (int64_t i = 0; i < count; ++i) {
      Scalar v;
      if (real) {
        v.kind = Scalar::Kind::kFloat;
        v.re = scalar_to_double(start) + static_cast<double>(i) * scalar_to_double(delta);
      } else {
        // Wrapping arithmetic: the result lies in [start, limit) even where i * delta does not
        // fit in int64.
        v.kind = Scalar::Kind::kSigned;
        v.i = static_cast<int64_t>(static_cast<uint64_t>(scalar_to_int(start)) +
                                   static_cast<uint64_t>(i) *
                                       static_cast<uint64_t>(scalar_to_int(delta)));
      }
      store_scalar(out.desc.dtype, out.data, out.desc.offset + i * out.desc.strides[0], v);
    }
  });
}

}  // namespace geon::cpu
