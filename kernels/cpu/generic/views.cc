// Movement ops as views: each changes only the input's description (core/desc/views.h). The
// executor binds that view as the output (no copy) where it can; otherwise one assign copies
// it into the output. Parameter inputs (shape, axes, starts...) are read once in create() when
// constant, else from the run's host tensors and checked against the data.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {
namespace {

using Ints = std::vector<int64_t>;

Reason check_io(const Graph& g, const Node& n) {
  // Views and their copies move elements only: strings (handles) too.
  if (Reason r = string_or_engine_reason(input_dtype(g, n, 0), "the input")) return r;
  return string_or_engine_reason(output_dtype(g, n, 0), "the output");
}

// The data's dtypes, and integer parameter inputs [first, last] (constant or not).
Reason check_params(const Graph& g, const Node& n, int first, int last) {
  if (Reason r = check_io(g, n)) return r;
  static constexpr const char* kNames[] = {"data", "parameter 1", "parameter 2", "parameter 3",
                                           "parameter 4"};
  for (int i = first; i <= last; ++i)
    if (Reason r = check_ints_input(g, n, i, kNames[std::min(i, 4)])) return r;
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

class ViewKernel final : public Kernel {
 public:
  ViewKernel(std::string op, ViewFn view, FnKernel::Fn copy)
      : op_(std::move(op)), view_(std::move(view)), copy_(std::move(copy)) {}
  bool is_view() const override { return true; }
  std::optional<TensorDesc> view(const KernelContext& ctx) const override {
    try {
      return view_(ctx.input(0).desc, ctx);
    } catch (const Error& e) {
      fail(e.code(), op_ + ": " + e.what());
    }
  }
  void compute(KernelContext& ctx) const override {
    try {
      if (copy_) return copy_(ctx);
      const TensorRef& src = ctx.input(0);
      const std::optional<TensorDesc> v = view_(src.desc, ctx);
      if (!v) fail(ErrorCode::kInternal, "the view function gave no view to copy");
      assign(dst_of(ctx.output(0, v->shape)), ConstOperand(*v, src.data));
    } catch (const Error& e) {
      fail(e.code(), op_ + ": " + e.what());
    }
  }

 private:
  std::string op_;
  ViewFn view_;
  FnKernel::Fn copy_;
};

// A view function that always has a view (everything but reshapes).
using AlwaysViewFn = std::function<TensorDesc(const TensorDesc&, const KernelContext&)>;
std::unique_ptr<Kernel> view_kernel(const Node& n, AlwaysViewFn view) {
  return make_view_kernel(n,
                          [view = std::move(view)](const TensorDesc& d, const KernelContext& ctx)
                              -> std::optional<TensorDesc> { return view(d, ctx); });
}

// ONNX Reshape's shape: 0 copies the input's dim (unless allowzero), -1 takes what is left.
Dims resolve_reshape(const Dims& in, const Ints& spec, bool allowzero) {
  Dims out(spec.size());
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < spec.size(); ++i) {
    const std::string at = "the shape's entry " + std::to_string(i);
    if (spec[i] == -1) {
      require(infer < 0, "the shape has more than one -1");
      infer = static_cast<int>(i);
      continue;
    }
    require(spec[i] >= 0, [&] { return at + " is " + std::to_string(spec[i]) + " (negative)"; });
    if (spec[i] == 0 && !allowzero) {
      require(i < in.size(), [&] {
        return at + " is 0 (copy the input's dim), but the input has rank " +
               std::to_string(in.size());
      });
      out[i] = in[i];
    } else {
      out[i] = spec[i];
    }
    require(out[i] == 0 || known <= std::numeric_limits<int64_t>::max() / out[i],
            "the shape's element count overflows int64");
    known *= out[i];
  }
  const int64_t total = element_count(in);
  if (infer >= 0) {
    require(known != 0 && total % known == 0, [&] {
      return "-1 cannot be inferred: " + std::to_string(total) +
             " elements are not a nonzero multiple of " + std::to_string(known);
    });
    out[infer] = total / known;
  } else {
    require(known == total, [&] {
      return "the shape holds " + std::to_string(known) + " elements but the input has " +
             std::to_string(total);
    });
  }
  return out;
}

// ONNX Slice on one description: starts/ends per axis (axes default 0..n-1, steps default 1),
// every list checked against the others and the data's rank.
TensorDesc slice_view(const TensorDesc& d, const Ints& starts, const Ints& ends, const Ints& axes,
                      const Ints& steps) {
  const size_t n = starts.size();
  require(ends.size() == n, [&] {
    return "starts has " + std::to_string(n) + " entries but ends has " +
           std::to_string(ends.size());
  });
  require(axes.empty() || axes.size() == n, [&] {
    return "axes has " + std::to_string(axes.size()) + " entries but starts has " +
           std::to_string(n);
  });
  require(steps.empty() || steps.size() == n, [&] {
    return "steps has " + std::to_string(steps.size()) + " entries but starts has " +
           std::to_string(n);
  });
  std::vector<bool> seen(d.rank(), false);
  TensorDesc v = d;
  for (size_t i = 0; i < n; ++i) {
    const int64_t a = axes.empty() ? static_cast<int64_t>(i) : axes[i];
    require(a >= -d.rank() && a < d.rank(), [&] {
      return "axis " + std::to_string(a) + " is out of range for data of rank " +
             std::to_string(d.rank());
    });
    const int axis = static_cast<int>(a < 0 ? a + d.rank() : a);
    require(!seen[axis],
            [&] { return "axis " + std::to_string(axis) + " is sliced more than once"; });
    seen[axis] = true;
    const int64_t step = steps.empty() ? 1 : steps[i];
    require(step != 0, [&] { return "steps[" + std::to_string(i) + "] is 0"; });
    v = slice(v, axis, starts[i], ends[i], step);
  }
  return v;
}

}  // namespace

std::unique_ptr<Kernel> make_view_kernel(const Node& n, ViewFn view, FnKernel::Fn copy) {
  return std::make_unique<ViewKernel>(n.op, std::move(view), std::move(copy));
}

Reason supports_transpose(const Graph& g, const Node& n) { return check_io(g, n); }
std::unique_ptr<Kernel> create_transpose(const Graph&, const Node& n) {
  const std::optional<Ints> perm = attr_ints(n, "perm");
  return view_kernel(n, [perm](const TensorDesc& d, const KernelContext&) {
    if (perm) return permute(d, *perm);
    return transpose(d);
  });
}

Reason supports_reshape(const Graph& g, const Node& n) {
  if (!has_input(n, 1)) return "Reshape needs a shape input";
  return check_params(g, n, 1, 1);
}
std::unique_ptr<Kernel> create_reshape(const Graph& g, const Node& n) {
  const IntsInput spec = ints_input(g, n, 1);
  const bool allowzero = attr_int(n, "allowzero", 0) != 0;
  auto shape = [spec, allowzero](const TensorDesc& d, const KernelContext& ctx) {
    return resolve_reshape(d.shape, spec.read(ctx, "the shape"), allowzero);
  };
  return make_view_kernel(
      n,
      [shape](const TensorDesc& d, const KernelContext& ctx) {
        return reshape(d, shape(d, ctx)).view;
      },
      [shape](KernelContext& ctx) {
        const TensorRef& src = ctx.input(0);
        copy_reshaped(ctx, src, shape(src.desc, ctx));
      });
}

Reason supports_flatten(const Graph& g, const Node& n) { return check_io(g, n); }
std::unique_ptr<Kernel> create_flatten(const Graph&, const Node& n) {
  const int64_t axis = attr_int(n, "axis", 1);
  auto shape = [axis](const TensorDesc& d) {
    const int a = axis == d.rank() ? static_cast<int>(axis) : normalize_axis(axis, d.rank());
    int64_t outer = 1;
    for (int i = 0; i < a; ++i) outer *= d.shape[i];
    const int64_t total = element_count(d);
    return Dims{outer, outer == 0 ? 0 : total / outer};
  };
  return make_view_kernel(
      n, [shape](const TensorDesc& d, const KernelContext&) { return reshape(d, shape(d)).view; },
      [shape](KernelContext& ctx) {
        const TensorRef& src = ctx.input(0);
        copy_reshaped(ctx, src, shape(src.desc));
      });
}

Reason supports_squeeze_attr(const Graph& g, const Node& n) { return check_io(g, n); }
std::unique_ptr<Kernel> create_squeeze_attr(const Graph&, const Node& n) {
  const Ints axes = ints_or(attr_ints(n, "axes"));
  return view_kernel(
      n, [axes](const TensorDesc& d, const KernelContext&) { return squeeze(d, axes); });
}
Reason supports_squeeze_input(const Graph& g, const Node& n) { return check_params(g, n, 1, 1); }
std::unique_ptr<Kernel> create_squeeze_input(const Graph& g, const Node& n) {
  const IntsInput axes = ints_input(g, n, 1);
  return view_kernel(n, [axes](const TensorDesc& d, const KernelContext& ctx) {
    return squeeze(d, axes.read(ctx, "the axes"));
  });
}

Reason supports_unsqueeze_attr(const Graph& g, const Node& n) { return check_io(g, n); }
std::unique_ptr<Kernel> create_unsqueeze_attr(const Graph&, const Node& n) {
  const Ints axes = ints_or(attr_ints(n, "axes"));
  return view_kernel(
      n, [axes](const TensorDesc& d, const KernelContext&) { return unsqueeze(d, axes); });
}
Reason supports_unsqueeze_input(const Graph& g, const Node& n) {
  if (!has_input(n, 1)) return "Unsqueeze needs an axes input";
  return check_params(g, n, 1, 1);
}
std::unique_ptr<Kernel> create_unsqueeze_input(const Graph& g, const Node& n) {
  const IntsInput axes = ints_input(g, n, 1);
  return view_kernel(n, [axes](const TensorDesc& d, const KernelContext& ctx) {
    return unsqueeze(d, axes.read(ctx, "the axes"));
  });
}

Reason supports_expand(const Graph& g, const Node& n) {
  if (!has_input(n, 1)) return "Expand needs a shape input";
  return check_params(g, n, 1, 1);
}
std::unique_ptr<Kernel> create_expand(const Graph& g, const Node& n) {
  const IntsInput shape_in = ints_input(g, n, 1);
  return view_kernel(n, [shape_in](const TensorDesc& d, const KernelContext& ctx) {
    // The requested shape alone bounds the result from below, so check it before broadcasting.
    const Dims spec = shape_in.read(ctx, "the shape");
    check_output_size(d.dtype, spec, "the shape");
    const Dims shape = broadcast_shapes(d.shape, spec);
    check_output_size(d.dtype, shape, "the expanded shape");
    return broadcast_to(d, shape);
  });
}

Reason supports_slice_attr(const Graph& g, const Node& n) { return check_io(g, n); }
std::unique_ptr<Kernel> create_slice_attr(const Graph&, const Node& n) {
  const Ints starts = ints_or(attr_ints(n, "starts")), ends = ints_or(attr_ints(n, "ends")),
             axes = ints_or(attr_ints(n, "axes"));
  return view_kernel(n, [=](const TensorDesc& d, const KernelContext&) {
    return slice_view(d, starts, ends, axes, {});
  });
}
Reason supports_slice_input(const Graph& g, const Node& n) {
  if (!has_input(n, 1) || !has_input(n, 2)) return "Slice needs starts and ends";
  return check_params(g, n, 1, 4);
}
std::unique_ptr<Kernel> create_slice_input(const Graph& g, const Node& n) {
  const IntsInput starts = ints_input(g, n, 1), ends = ints_input(g, n, 2),
                  axes = ints_input(g, n, 3), steps = ints_input(g, n, 4);
  return view_kernel(n, [=](const TensorDesc& d, const KernelContext& ctx) {
    return slice_view(d, starts.read(ctx, "starts"), ends.read(ctx, "ends"), axes.read(ctx, "axes"),
                      steps.read(ctx, "steps"));
  });
}

}  // namespace geon::cpu
