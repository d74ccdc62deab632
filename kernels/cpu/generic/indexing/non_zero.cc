// NonZero (9, 13): the coordinates of the input's nonzero elements, one column per element in
// row-major order: an int64 tensor of shape (rank, count). Truth is Cast's to bool (NaN is
// nonzero, -0.0 is zero, a complex number is nonzero when either part is), so one engine
// assign into bool flags serves every numeric dtype and layout; a string is nonzero when it is
// not empty (numpy's truth of str), read through the view's positions.
#include "core/base/error.h"
#include "core/strings/strings.h"
#include "kernels/cpu/generic/indexing/ops.h"
#include "kernels/cpu/generic/indexing/positions.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

void non_zero(KernelContext& ctx) {
  const TensorRef& x = ctx.input(0);
  const Dims& xs = x.desc.shape;
  const int r = x.desc.rank();
  const int64_t count = element_count(xs);
  std::vector<uint8_t> flags(static_cast<size_t>(count));
  if (x.desc.dtype == DType::kString) {
    const auto* e = static_cast<const StringElem*>(x.data) + x.desc.offset;
    const std::vector<int64_t> pos = positions_of(xs, x.desc.strides);
    for (size_t i = 0; i < pos.size(); ++i) flags[i] = e[pos[i]].size != 0;
  } else if (count > 0) {
    assign(Operand{row_major(DType::kBool, xs), flags.data()}, src_of(x));
  }
  int64_t hits = 0;
  for (uint8_t f : flags) hits += f != 0;
  std::vector<int64_t> coords(static_cast<size_t>(r * hits));
  int64_t j = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (!flags[i]) continue;
    int64_t rest = i;
    for (int d = r - 1; d >= 0; --d) {
      coords[d * hits + j] = rest % xs[d];
      rest /= xs[d];
    }
    ++j;
  }
  const Dims shape{r, hits};
  const TensorRef& out = ctx.output(0, shape);
  if (!coords.empty())
    assign(dst_of(out), ConstOperand(row_major(DType::kInt64, shape), coords.data()));
}

}  // namespace

Reason supports_non_zero(const Graph& g, const Node& n) {
  if (Reason r = movable_dtype_reason(input_dtype(g, n, 0), "the input")) return r;
  if (output_dtype(g, n, 0) != DType::kInt64) return "NonZero must output int64";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_non_zero(const Graph& /*g*/, const Node& n) {
  return make_node_kernel(n, [](KernelContext& ctx) { non_zero(ctx); });
}

}  // namespace geon::cpu
