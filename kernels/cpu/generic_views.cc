// Movement ops as views: each changes only the input's description (core/desc/views.h), then
// one assign copies it into the output. Parameter inputs (shape, axes, starts...) are
// constants read once in create().
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic_ops.h"

namespace geon::cpu {
namespace {

using Ints = std::vector<int64_t>;

Reason check_io(const Graph& g, const Node& n) {
  if (Reason r = check_engine_dtype(input_dtype(g, n, 0), "the input")) return r;
  return check_engine_dtype(output_dtype(g, n, 0), "the output");
}

// Constant inputs [first, last] must be constants; the reason names the first that is not.
Reason check_constants(const Graph& g, const Node& n, int first, int last) {
  static constexpr const char* kNames[] = {"data", "parameter 1", "parameter 2", "parameter 3",
                                           "parameter 4"};
  for (int i = first; i <= last; ++i)
    if (Reason r = require_constant(g, n, i, kNames[std::min(i, 4)])) return r;
  return std::nullopt;
}

Ints ints_or(std::optional<Ints> v) { return v.value_or(Ints{}); }

// Writes src into an output of `shape` holding the same elements in row-major order: as a view
// of the input, else as a view of the output, else through a dense temporary.
void copy_reshaped(KernelContext& ctx, const TensorRef& src, const Dims& shape) {
  const TensorRef& out = ctx.output(0, shape);
  if (ReshapeResult r = reshape(src.desc, shape); r.view) {
    assign(dst_of(out), ConstOperand(*r.view, src.data));
  } else if (ReshapeResult w = reshape(out.desc, src.desc.shape); w.view) {
    assign(Operand{*w.view, out.data}, src_of(src));
  } else {
    const TensorDesc dense = row_major(src.desc.dtype, src.desc.shape);
    std::vector<std::byte> tmp(dtype_bytes_for(dense.dtype, element_count(dense)));
    assign(Operand{dense, tmp.data()}, src_of(src));
    assign(dst_of(out), ConstOperand(*reshape(dense, shape).view, tmp.data()));
  }
}

// One view function of the input's description, then a copy into the output.
std::unique_ptr<Kernel> view_kernel(std::function<TensorDesc(const TensorDesc&)> view) {
  return make_kernel([view](KernelContext& ctx) {
    const TensorRef& src = ctx.input(0);
    const TensorDesc v = view(src.desc);
    assign(dst_of(ctx.output(0, v.shape)), ConstOperand(v, src.data));
  });
}

// ONNX Reshape's shape: 0 copies the input's dim (unless allowzero), -1 takes what is left.
Dims resolve_reshape(const Dims& in, const Ints& spec, bool allowzero) {
  Dims out(spec.size());
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < spec.size(); ++i) {
    if (spec[i] == -1) {
      require(infer < 0, "Reshape: more than one -1 in the shape");
      infer = static_cast<int>(i);
      continue;
    }
    require(spec[i] >= 0, "Reshape: negative length in the shape");
    out[i] = spec[i] == 0 && !allowzero ? in.at(i) : spec[i];
    known *= out[i];
  }
  if (infer >= 0) {
    const int64_t total = element_count(in);
    require(known != 0 && total % known == 0, "Reshape: -1 cannot be inferred");
    out[infer] = total / known;
  }
  return out;
}

std::unique_ptr<Kernel> slice_kernel(Ints starts, Ints ends, Ints axes, Ints steps) {
  require(starts.size() == ends.size(), "Slice: starts and ends differ in length");
  return view_kernel([=](const TensorDesc& d) {
    TensorDesc v = d;
    for (size_t i = 0; i < starts.size(); ++i) {
      const int axis =
          normalize_axis(axes.empty() ? static_cast<int64_t>(i) : axes.at(i), d.rank());
      const int64_t step = steps.empty() ? 1 : steps.at(i);
      require(step != 0, "Slice: a step is 0");
      v = slice(v, axis, starts[i], ends[i], step);
    }
    return v;
  });
}

}  // namespace

Reason supports_transpose(const Graph& g, const Node& n) { return check_io(g, n); }
std::unique_ptr<Kernel> create_transpose(const Graph&, const Node& n) {
  const std::optional<Ints> perm = attr_ints(n, "perm");
  return view_kernel([perm](const TensorDesc& d) {
    if (perm) return permute(d, *perm);
    return transpose(d);
  });
}

Reason supports_reshape(const Graph& g, const Node& n) {
  if (Reason r = check_io(g, n)) return r;
  if (!has_input(n, 1)) return "Reshape needs a shape input";
  return check_constants(g, n, 1, 1);
}
std::unique_ptr<Kernel> create_reshape(const Graph& g, const Node& n) {
  const Ints spec = ints_or(constant_ints(g, n, 1));
  const bool allowzero = attr_int(n, "allowzero", 0) != 0;
  return make_kernel([spec, allowzero](KernelContext& ctx) {
    const TensorRef& src = ctx.input(0);
    copy_reshaped(ctx, src, resolve_reshape(src.desc.shape, spec, allowzero));
  });
}

Reason supports_flatten(const Graph& g, const Node& n) { return check_io(g, n); }
std::unique_ptr<Kernel> create_flatten(const Graph&, const Node& n) {
  const int64_t axis = attr_int(n, "axis", 1);
  return make_kernel([axis](KernelContext& ctx) {
    const TensorRef& src = ctx.input(0);
    const int a =
        axis == src.desc.rank() ? static_cast<int>(axis) : normalize_axis(axis, src.desc.rank());
    int64_t outer = 1;
    for (int d = 0; d < a; ++d) outer *= src.desc.shape[d];
    const int64_t total = element_count(src.desc);
    copy_reshaped(ctx, src, {outer, outer == 0 ? 0 : total / outer});
  });
}

Reason supports_squeeze_attr(const Graph& g, const Node& n) { return check_io(g, n); }
std::unique_ptr<Kernel> create_squeeze_attr(const Graph&, const Node& n) {
  const Ints axes = ints_or(attr_ints(n, "axes"));
  return view_kernel([axes](const TensorDesc& d) { return squeeze(d, axes); });
}
Reason supports_squeeze_input(const Graph& g, const Node& n) {
  if (Reason r = check_io(g, n)) return r;
  return check_constants(g, n, 1, 1);
}
std::unique_ptr<Kernel> create_squeeze_input(const Graph& g, const Node& n) {
  const Ints axes = ints_or(constant_ints(g, n, 1));
  return view_kernel([axes](const TensorDesc& d) { return squeeze(d, axes); });
}

Reason supports_unsqueeze_attr(const Graph& g, const Node& n) { return check_io(g, n); }
std::unique_ptr<Kernel> create_unsqueeze_attr(const Graph&, const Node& n) {
  const Ints axes = ints_or(attr_ints(n, "axes"));
  return view_kernel([axes](const TensorDesc& d) { return unsqueeze(d, axes); });
}
Reason supports_unsqueeze_input(const Graph& g, const Node& n) {
  if (Reason r = check_io(g, n)) return r;
  if (!has_input(n, 1)) return "Unsqueeze needs an axes input";
  return check_constants(g, n, 1, 1);
}
std::unique_ptr<Kernel> create_unsqueeze_input(const Graph& g, const Node& n) {
  const Ints axes = ints_or(constant_ints(g, n, 1));
  return view_kernel([axes](const TensorDesc& d) { return unsqueeze(d, axes); });
}

Reason supports_expand(const Graph& g, const Node& n) {
  if (Reason r = check_io(g, n)) return r;
  if (!has_input(n, 1)) return "Expand needs a shape input";
  return check_constants(g, n, 1, 1);
}
std::unique_ptr<Kernel> create_expand(const Graph& g, const Node& n) {
  const Ints shape = ints_or(constant_ints(g, n, 1));
  return view_kernel(
      [shape](const TensorDesc& d) { return broadcast_to(d, broadcast_shapes(d.shape, shape)); });
}

Reason supports_slice_attr(const Graph& g, const Node& n) { return check_io(g, n); }
std::unique_ptr<Kernel> create_slice_attr(const Graph&, const Node& n) {
  return slice_kernel(ints_or(attr_ints(n, "starts")), ints_or(attr_ints(n, "ends")),
                      ints_or(attr_ints(n, "axes")), {});
}
Reason supports_slice_input(const Graph& g, const Node& n) {
  if (Reason r = check_io(g, n)) return r;
  if (!has_input(n, 1) || !has_input(n, 2)) return "Slice needs starts and ends";
  return check_constants(g, n, 1, 4);
}
std::unique_ptr<Kernel> create_slice_input(const Graph& g, const Node& n) {
  return slice_kernel(ints_or(constant_ints(g, n, 1)), ints_or(constant_ints(g, n, 2)),
                      ints_or(constant_ints(g, n, 3)), ints_or(constant_ints(g, n, 4)));
}

}  // namespace geon::cpu
