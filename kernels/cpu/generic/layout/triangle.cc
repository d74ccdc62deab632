// Trilu (14) and EyeLike (9, 22): masks along a matrix's diagonals, for every dtype the engine
// moves (Trilu's masked strings become ""). Trilu copies the input and zeroes, row by row across
// every batch at once, the columns on the wrong side of diagonal k; EyeLike zeroes its output and
// writes 1 along diagonal k, seen as one strided view (stride = row stride + column stride). No
// per-element loop.
#include <algorithm>
#include <string>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/layout/ops.h"

namespace geon::cpu {
namespace {

// The columns [begin, end) of row i that Trilu keeps for diagonal k, clamped to [0, cols].
// k is clamped first, so a huge k cannot overflow i + k.
std::pair<int64_t, int64_t> kept_columns(bool upper, int64_t i, int64_t k, int64_t rows,
                                         int64_t cols) {
  const int64_t bound = rows + cols + 1;
  k = std::clamp(k, -bound, bound);
  if (upper) return {std::clamp<int64_t>(i + k, 0, cols), cols};
  return {0, std::clamp<int64_t>(i + k + 1, 0, cols)};
}

void trilu(KernelContext& ctx, bool upper, const IntsInput& k_input) {
  const TensorRef& x = ctx.input(0);
  const int r = x.desc.rank();
  require(r >= 2, [&] { return "input 0 must have rank >= 2, got " + std::to_string(r); });
  int64_t k = 0;
  if (k_input.present()) {
    const std::vector<int64_t> kv = k_input.read(ctx, "k (input 1)");
    require(kv.size() == 1,
            [&] { return "k (input 1) must hold one value, got " + std::to_string(kv.size()); });
    k = kv[0];
  }
  const TensorRef& out = ctx.output(0, x.desc.shape);
  if (element_count(x.desc) == 0) return;
  const int64_t rows = x.desc.shape[r - 2], cols = x.desc.shape[r - 1];
  const ConstOperand zero = layout_zero(x.desc.dtype);
  for (int64_t i = 0; i < rows; ++i) {
    const TensorDesc orow = select(out.desc, r - 2, i), xrow = select(x.desc, r - 2, i);
    const auto [b, e] = kept_columns(upper, i, k, rows, cols);
    if (b > 0) assign(Operand{narrow(orow, -1, 0, b), out.data}, zero);
    if (e > b)
      assign(Operand{narrow(orow, -1, b, e - b), out.data},
             ConstOperand(narrow(xrow, -1, b, e - b), x.data));
    if (e < cols) assign(Operand{narrow(orow, -1, e, cols - e), out.data}, zero);
  }
}

void eye_like(KernelContext& ctx, int64_t k) {
  const TensorRef& x = ctx.input(0);
  require(x.desc.rank() == 2,
          [&] { return "input 0 must be 2-D, got rank " + std::to_string(x.desc.rank()); });
  const TensorRef& out = ctx.output(0, x.desc.shape);
  const int64_t rows = x.desc.shape[0], cols = x.desc.shape[1];
  if (rows == 0 || cols == 0) return;
  assign(dst_of(out), ConstOperand::scalar(0, DType::kFloat));
  // Diagonal k starts at (max(0, -k), max(0, k)); clamp k so the arithmetic cannot overflow.
  const int64_t kk = std::clamp<int64_t>(k, -rows, cols);
  const int64_t r0 = std::max<int64_t>(0, -kk), c0 = std::max<int64_t>(0, kk);
  const int64_t len = std::min(rows - r0, cols - c0);
  if (len <= 0) return;
  TensorDesc diag = out.desc;
  diag.offset += r0 * diag.strides[0] + c0 * diag.strides[1];
  diag.shape = {len};
  diag.strides = {out.desc.strides[0] + out.desc.strides[1]};
  assign(Operand{diag, out.data}, ConstOperand::scalar(1, DType::kFloat));
}

}  // namespace

Reason supports_trilu(const Graph& g, const Node& n) {
  if (Reason r = layout_movable_reason(input_dtype(g, n, 0), "input 0")) return r;
  return check_ints_input(g, n, 1, "k (input 1)");
}

std::unique_ptr<Kernel> create_trilu(const Graph& g, const Node& n) {
  const bool upper = attr_int(n, "upper", 1) != 0;
  const IntsInput k = ints_input(g, n, 1);
  return make_node_kernel(n, [upper, k](KernelContext& ctx) { trilu(ctx, upper, k); });
}

Reason supports_eye_like(const Graph& g, const Node& n) {
  if (Reason r = layout_movable_reason(output_dtype(g, n, 0), "the output")) return r;
  if (is_complex(output_dtype(g, n, 0))) return "EyeLike has no complex output";
  if (output_dtype(g, n, 0) == DType::kString)
    return "EyeLike writes ones on a diagonal; a string output has no one";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_eye_like(const Graph&, const Node& n) {
  const int64_t k = attr_int(n, "k", 0);
  return make_node_kernel(n, [k](KernelContext& ctx) { eye_like(ctx, k); });
}

}  // namespace geon::cpu
