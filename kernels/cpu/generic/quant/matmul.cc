// MatMulInteger and QLinearMatMul: numpy's matmul (1-D promotion, broadcast batch dims) of
// zero-point-shifted operands, accumulated in int32. The zero point of a is one value or one per
// row (a 1-D tensor of M, or any shape that broadcasts to a as (..., M, 1)); b's is one value or
// one per column (N, or (..., 1, N)). QLinearMatMul then requantizes: y = saturate(rint(acc *
// a_scale * b_scale / y_scale) + y_zero_point), the multiplier computed in the scales' type and
// the rest in double, as onnx does. float8 operands (opset 21) take a double product instead.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/quant/ops.h"

namespace geon::cpu {
namespace {

std::string shape_text(const Dims& d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + ")";
}

// The product's geometry: both operands as (..., R, C) after 1-D promotion, the broadcast batch
// shape and each batch's element offset into the dense operands.
struct Product {
  TensorDesc a, b;
  int64_t M = 0, K = 0, N = 0;
  Dims batch, out_shape;
  std::vector<int64_t> a_off, b_off;
};

std::vector<int64_t> batch_offsets(const Dims& shape, const Dims& batch) {
  const int r = static_cast<int>(shape.size()) - 2, br = static_cast<int>(batch.size());
  std::vector<int64_t> stride(br, 0);
  int64_t s = shape[r] * shape[r + 1];
  for (int k = r - 1; k >= 0; --k) {
    stride[br - r + k] = shape[k] == 1 ? 0 : s;
    s *= shape[k];
  }
  std::vector<int64_t> off(static_cast<size_t>(element_count(batch)));
  for (size_t i = 0; i < off.size(); ++i) {
    int64_t rem = static_cast<int64_t>(i), o = 0;
    for (int k = br - 1; k >= 0; --k) {
      o += (rem % batch[k]) * stride[k];
      rem /= batch[k];
    }
    off[i] = o;
  }
  return off;
}

Product plan(const TensorDesc& ra, const TensorDesc& rb, const std::string& an,
             const std::string& bn) {
  require(ra.rank() >= 1 && rb.rank() >= 1,
          [&] { return an + " and " + bn + " must have rank 1 or more"; });
  Product p;
  p.a = ra.rank() == 1 ? unsqueeze(ra, std::vector<int64_t>{0}) : ra;
  p.b = rb.rank() == 1 ? unsqueeze(rb, std::vector<int64_t>{1}) : rb;
  p.M = p.a.shape[p.a.rank() - 2];
  p.K = p.a.shape[p.a.rank() - 1];
  p.N = p.b.shape[p.b.rank() - 1];
  require(p.b.shape[p.b.rank() - 2] == p.K, [&] {
    return an + " has shape " + shape_text(ra.shape) + " but " + bn + " has " +
           shape_text(rb.shape) + "; the contracted lengths differ";
  });
  p.batch = broadcast_shapes(Dims(p.a.shape.begin(), p.a.shape.end() - 2),
                             Dims(p.b.shape.begin(), p.b.shape.end() - 2));
  p.out_shape = p.batch;
  if (ra.rank() > 1) p.out_shape.push_back(p.M);
  if (rb.rank() > 1) p.out_shape.push_back(p.N);
  check_output_size(DType::kInt32, p.out_shape, "the output");
  p.a_off = batch_offsets(p.a.shape, p.batch);
  p.b_off = batch_offsets(p.b.shape, p.batch);
  return p;
}

// The zero point `z` (null: none) seen with `operand`'s shape: one value, a 1-D tensor per row
// (rows: unsqueezed to (M, 1)) or per column, or anything that broadcasts.
TensorDesc zero_point_view(const TensorDesc& z, const TensorDesc& operand, bool rows,
                           const std::string& what) {
  TensorDesc v = z;
  if (element_count(z) == 1)
    v = reshape(z, Dims{}).view.value();
  else if (rows && z.rank() == 1)
    v = unsqueeze(z, std::vector<int64_t>{1});
  try {
    return broadcast_to(v, operand.shape);
  } catch (const Error&) {
    fail(ErrorCode::kInvalidArgument, what + " has shape " + shape_text(z.shape) +
                                          ", which does not apply to an operand of " + "shape " +
                                          shape_text(operand.shape) +
                                          (rows ? " (one per row, M)" : " (one per column, N)"));
  }
}

// operand - zero point, dense, in T (int32 or double).
template <class T>
std::vector<T> shifted(const TensorRef& x, const TensorDesc& xd, const TensorRef* z, bool rows,
                       const std::string& what) {
  const DType t = std::is_same_v<T, int32_t> ? DType::kInt32 : DType::kDouble;
  const int64_t n = element_count(xd);
  std::vector<T> v(static_cast<size_t>(std::max<int64_t>(n, 1)));
  if (n == 0) return v;
  const TensorDesc dense = row_major(t, xd.shape);
  assign(Operand{dense, v.data()}, ConstOperand(xd, x.data));
  if (z) {
    const TensorDesc zv = zero_point_view(z->desc, xd, rows, what);
    std::vector<T> zd(static_cast<size_t>(n));
    assign(Operand{dense, zd.data()}, ConstOperand(zv, z->data));
    for (int64_t i = 0; i < n; ++i)
      v[i] = static_cast<T>(v[i] - zd[i]);  // 8-bit operands: no overflow
  }
  return v;
}

const TensorRef* optional_input(const KernelContext& ctx, int i) {
  return ctx.num_inputs() > i && ctx.input(i).present() ? &ctx.input(i) : nullptr;
}

// acc = (a - za) · (b - zb) for every batch, dense (batches, M, N).
std::vector<int32_t> integer_product(const Product& p, const TensorRef& a, const TensorRef* za,
                                     const TensorRef& b, const TensorRef* zb,
                                     const std::string& zan, const std::string& zbn) {
  const std::vector<int32_t> av = shifted<int32_t>(a, p.a, za, true, zan);
  const std::vector<int32_t> bv = shifted<int32_t>(b, p.b, zb, false, zbn);
  std::vector<int32_t> c(static_cast<size_t>(std::max<int64_t>(element_count(p.out_shape), 1)));
  for (size_t bi = 0; bi < p.a_off.size(); ++bi)
    int32_product(av.data() + p.a_off[bi], bv.data() + p.b_off[bi],
                  c.data() + static_cast<int64_t>(bi) * p.M * p.N, p.M, p.K, p.N);
  return c;
}

void matmul_integer(KernelContext& ctx) {
  const TensorRef &a = ctx.input(0), &b = ctx.input(1);
  const Product p = plan(a.desc, b.desc, "input 0 (A)", "input 1 (B)");
  const TensorRef* za = optional_input(ctx, 2);
  const TensorRef* zb = optional_input(ctx, 3);
  const TensorRef& out = ctx.output(0, p.out_shape);
  if (element_count(p.out_shape) == 0) return;
  const std::vector<int32_t> c =
      integer_product(p, a, za, b, zb, "input 2 (a_zero_point)", "input 3 (b_zero_point)");
  assign(dst_of(out), ConstOperand(row_major(DType::kInt32, p.out_shape), c.data()));
}

// A scale or zero point of one value or `len` values (1-D), as doubles of length 1 or len.
std::vector<double> per_index(const TensorRef& t, int64_t len, const std::string& what,
                              const char* along) {
  const int64_t n = element_count(t.desc);
  require(n == 1 || (t.desc.rank() == 1 && n == len), [&] {
    return what + " has shape " + shape_text(t.desc.shape) + "; it must be one value or 1-D of " +
           std::to_string(len) + " (one per " + along + ")";
  });
  return dense_double(t);
}

void qlinear_matmul(KernelContext& ctx) {
  const TensorRef &a = ctx.input(0), &b = ctx.input(3);
  const Product p = plan(a.desc, b.desc, "input 0 (a)", "input 3 (b)");
  const TensorRef *za = optional_input(ctx, 2), *zb = optional_input(ctx, 5);
  const TensorRef* zy = optional_input(ctx, 7);
  const std::vector<double> as = per_index(ctx.input(1), p.M, "input 1 (a_scale)", "row of a");
  const std::vector<double> bs = per_index(ctx.input(4), p.N, "input 4 (b_scale)", "column of b");
  const std::vector<double> ys = per_index(ctx.input(6), 1, "input 6 (y_scale)", "tensor");
  const std::vector<double> yz =
      zy ? per_index(*zy, 1, "input 7 (y_zero_point)", "tensor") : std::vector<double>{0.0};
  const DType st = ctx.input(1).desc.dtype;
  const TensorRef& out = ctx.output(0, p.out_shape);
  const DType t = out.desc.dtype;
  require(!za || za->desc.dtype == a.desc.dtype, "input 2 (a_zero_point) differs from a's dtype");
  require(!zb || zb->desc.dtype == b.desc.dtype, "input 5 (b_zero_point) differs from b's dtype");
  const int64_t total = element_count(p.out_shape);
  if (total == 0) return;
  const bool integer = is_integer(a.desc.dtype);
  std::vector<double> acc(static_cast<size_t>(total));
  if (integer) {
    const std::vector<int32_t> c =
        integer_product(p, a, za, b, zb, "input 2 (a_zero_point)", "input 5 (b_zero_point)");
    std::copy(c.begin(), c.begin() + total, acc.begin());
  } else {  // float8: the product of the decoded values, in double
    const std::vector<double> av = shifted<double>(a, p.a, za, true, "input 2 (a_zero_point)");
    const std::vector<double> bv = shifted<double>(b, p.b, zb, false, "input 5 (b_zero_point)");
    for (size_t bi = 0; bi < p.a_off.size(); ++bi)
      for (int64_t i = 0; i < p.M; ++i) {
        double* cr = acc.data() + (static_cast<int64_t>(bi) * p.M + i) * p.N;
        for (int64_t k = 0; k < p.K; ++k) {
          const double x = av[p.a_off[bi] + i * p.K + k];
          const double* br = bv.data() + p.b_off[bi] + k * p.N;
          for (int64_t j = 0; j < p.N; ++j) cr[j] += x * br[j];
        }
      }
  }
  const IntRange r = is_integer(t) ? int_range(t) : IntRange{0, 0};
  parallel_rows(total / p.N, p.N, [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      const double sa = as[as.size() == 1 ? 0 : row % p.M];
      for (int64_t j = 0; j < p.N; ++j) {
        const double sb = bs[bs.size() == 1 ? 0 : j];
        const double mult = round_to(st, round_to(st, sa * sb) / ys[0]);
        double& v = acc[row * p.N + j];
        v = v * mult + yz[0];
        if (is_integer(t)) v = saturate_round(v, r);
      }
    }
  });
  assign(dst_of(out), ConstOperand(row_major(DType::kDouble, p.out_shape), acc.data()));
}

bool int8ish(DType t) { return t == DType::kInt8 || t == DType::kUInt8; }

bool float8(DType t) {
  return t == DType::kFloat8E4M3FN || t == DType::kFloat8E4M3FNUZ || t == DType::kFloat8E5M2 ||
         t == DType::kFloat8E5M2FNUZ;
}

}  // namespace

Reason supports_matmul_integer(const Graph& g, const Node& n) {
  for (int i : {0, 1}) {
    const DType t = input_dtype(g, n, i);
    if (!int8ish(t))
      return n.op + ": input " + std::to_string(i) + " of " + std::string(dtype_name(t)) +
             " is refused; it must be int8 or uint8";
  }
  return std::nullopt;
}

std::unique_ptr<Kernel> create_matmul_integer(const Graph&, const Node& n) {
  return make_node_kernel(n, matmul_integer);
}

Reason supports_qlinear_matmul(const Graph& g, const Node& n) {
  for (int i : {0, 3, 7}) {
    const DType t = input_dtype(g, n, i);
    if (!int8ish(t) && !(n.opset >= 21 && float8(t)))
      return n.op + ": input " + std::to_string(i) + " of " + std::string(dtype_name(t)) +
             " is refused; it must be int8, uint8 (or float8 from opset 21)";
  }
  if (is_integer(input_dtype(g, n, 0)) != is_integer(input_dtype(g, n, 3)))
    return n.op + ": a and b must both be integers or both float8";
  for (int i : {1, 4, 6}) {
    const DType t = input_dtype(g, n, i);
    if (t != DType::kFloat && t != DType::kFloat16 && t != DType::kBFloat16)
      return n.op + ": input " + std::to_string(i) + " (scale) of " + std::string(dtype_name(t)) +
             " is refused";
  }
  return std::nullopt;
}

std::unique_ptr<Kernel> create_qlinear_matmul(const Graph&, const Node& n) {
  return make_node_kernel(n, qlinear_matmul);
}

}  // namespace geon::cpu
