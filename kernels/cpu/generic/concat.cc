// Concat: each input is assigned straight into its slice (a narrow() view) of the output, so
// nothing is gathered twice; empty inputs are skipped.
#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {

Reason supports_concat(const Graph& g, const Node& n) {
  if (!n.attr("axis")) return "Concat needs an axis attribute";
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (Reason r = string_or_engine_reason(input_dtype(g, n, static_cast<int>(i)),
                                           "input " + std::to_string(i)))  // strings: handles
      return r;
  return string_or_engine_reason(output_dtype(g, n, 0), "the output");
}

std::unique_ptr<Kernel> create_concat(const Graph&, const Node& n) {
  const int64_t axis_attr = attr_int(n, "axis", 0);
  return make_kernel([axis_attr](KernelContext& ctx) {
    require(ctx.num_inputs() > 0, "Concat: no inputs");
    const TensorDesc& first = ctx.input(0).desc;
    const int axis = normalize_axis(axis_attr, first.rank());
    Dims shape = first.shape;
    shape[axis] = 0;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const TensorDesc& d = ctx.input(i).desc;
      require(d.rank() == first.rank(), "Concat: inputs of different ranks");
      for (int k = 0; k < d.rank(); ++k)
        require(k == axis || d.shape[k] == first.shape[k],
                "Concat: inputs differ in a dim other than the axis");
      shape[axis] += d.shape[axis];
    }
    const TensorRef& out = ctx.output(0, shape);
    int64_t at = 0;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const TensorRef& src = ctx.input(i);
      const int64_t len = src.desc.shape[axis];
      if (len > 0) assign(Operand{narrow(out.desc, axis, at, len), out.data}, src_of(src));
      at += len;
    }
  });
}

}  // namespace geon::cpu
