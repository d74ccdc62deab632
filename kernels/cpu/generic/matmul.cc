// MatMul and Gemm on the host for the dtypes cpu.dnnl does not take: integers (wrapping like
// numpy), double, and float16/bfloat16 (accumulated in float). Each operand is converted once
// into a dense buffer of the accumulation type (assign reads any strides and dtype); the
// product is an i-k-j loop over rows, split across the engine's thread pool.
#include <algorithm>
#include <cmath>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/engine/op_functors.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

// Calls fn(T{}) with T the C++ type that values of dtype `acc` accumulate in.
template <class Fn>
void with_acc_type(DType acc, Fn&& fn) {
  switch (acc) {
    case DType::kFloat:
      return fn(float{});
    case DType::kDouble:
      return fn(double{});
    case DType::kInt8:
      return fn(int8_t{});
    case DType::kInt16:
      return fn(int16_t{});
    case DType::kInt32:
      return fn(int32_t{});
    case DType::kInt64:
      return fn(int64_t{});
    case DType::kUInt8:
      return fn(uint8_t{});
    case DType::kUInt16:
      return fn(uint16_t{});
    case DType::kUInt32:
      return fn(uint32_t{});
    case DType::kUInt64:
      return fn(uint64_t{});
    default:
      fail(ErrorCode::kNotSupported, "no host product in " + std::string(dtype_name(acc)));
  }
}

// The dtype a product of `t` operands accumulates in: float for the narrow floats, else t.
DType acc_dtype(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 ? DType::kFloat : t;
}

Reason dtype_reason(const Graph& g, const Node& n, int inputs) {
  const DType t = input_dtype(g, n, 0);
  const bool ok = t == DType::kFloat || t == DType::kDouble || t == DType::kFloat16 ||
                  t == DType::kBFloat16 || (is_integer(t) && dtype_bits(t) >= 8);
  if (!ok) return n.op + " of " + std::string(dtype_name(t)) + " is not implemented";
  for (int i = 1; i < inputs; ++i)
    if (has_input(n, i) && input_dtype(g, n, i) != t)
      return n.op + " input " + std::to_string(i) + " is " +
             std::string(dtype_name(input_dtype(g, n, i))) + ", input 0 is " +
             std::string(dtype_name(t));
  return std::nullopt;
}

// d's elements, dense row-major, converted to T.
template <class T>
std::vector<T> dense(const TensorDesc& d, const void* data, DType acc) {
  std::vector<T> v(static_cast<size_t>(std::max<int64_t>(element_count(d), 1)));
  assign(Operand{row_major(acc, d.shape), v.data()}, ConstOperand(d, data));
  return v;
}

// Element offsets of each batch of a dense (..., R, C) operand along the broadcast batch
// shape `batch` (length-1 dims of the operand repeat).
std::vector<int64_t> batch_offsets(const Dims& shape, const Dims& batch) {
  const int r = static_cast<int>(shape.size()) - 2, br = static_cast<int>(batch.size());
  const int64_t mat = shape[r] * shape[r + 1];
  std::vector<int64_t> stride(br, 0);
  int64_t s = mat;
  for (int k = r - 1; k >= 0; --k) {
    stride[br - r + k] = shape[k] == 1 ? 0 : s;
    s *= shape[k];
  }
  const int64_t nb = element_count(batch);
  std::vector<int64_t> off(static_cast<size_t>(nb));
  for (int64_t i = 0; i < nb; ++i) {
    int64_t rem = i, o = 0;
    for (int k = br - 1; k >= 0; --k) {
      o += (rem % batch[k]) * stride[k];
      rem /= batch[k];
    }
    off[i] = o;
  }
  return off;
}

// c[b] = a[b] · b[b] for every batch b: a is (M, K) at a_off[b], b is (K, N) at b_off[b], c is
// dense (batches, M, N). Rows are shared out across the thread pool.
template <class T>
void batched_product(const T* a, const std::vector<int64_t>& a_off, const T* b,
                     const std::vector<int64_t>& b_off, T* c, int64_t M, int64_t K, int64_t N) {
  const int64_t rows = static_cast<int64_t>(a_off.size()) * M;
  if (rows == 0 || N == 0) return;
  auto run_rows = [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t bi = r / M, i = r % M;
      const T* ar = a + a_off[bi] + i * K;
      const T* bm = b + b_off[bi];
      T* cr = c + r * N;
      std::fill(cr, cr + N, T(0));
      for (int64_t k = 0; k < K; ++k) {
        const T x = ar[k];
        const T* bk = bm + k * N;
        for (int64_t j = 0; j < N; ++j) cr[j] = ops::wrap_add(cr[j], ops::wrap_mul(x, bk[j]));
      }
    }
  };
  ThreadPool& pool = default_thread_pool();
  const int64_t work = rows * K * N;
  const int parts = static_cast<int>(
      std::min<int64_t>({pool.size(), rows, std::max<int64_t>(work / (1 << 16), 1)}));
  if (parts <= 1) return run_rows(0, rows);
  pool.run(parts, [&](int p) { run_rows(rows * p / parts, rows * (p + 1) / parts); });
}

// Writes the dense T result `c` of `shape` into the output.
template <class T>
void store(const TensorRef& out, const std::vector<T>& c, DType acc) {
  if (out.desc.dtype == acc && is_contiguous(out.desc)) {
    std::copy(c.begin(), c.begin() + element_count(out.desc),
              static_cast<T*>(out.data) + out.desc.offset);
    return;
  }
  assign(dst_of(out), ConstOperand(row_major(acc, out.desc.shape), c.data()));
}

void run_matmul(KernelContext& ctx) {
  const TensorRef& ra = ctx.input(0);
  const TensorRef& rb = ctx.input(1);
  require(ra.desc.rank() >= 1 && rb.desc.rank() >= 1, "operands must have rank 1 or more");
  // 1-D promotion: (K) is (1, K) on the left and (K, 1) on the right; the added dim is dropped.
  const TensorDesc a = ra.desc.rank() == 1 ? unsqueeze(ra.desc, std::vector<int64_t>{0}) : ra.desc;
  const TensorDesc b = rb.desc.rank() == 1 ? unsqueeze(rb.desc, std::vector<int64_t>{1}) : rb.desc;
  const int64_t M = a.shape[a.rank() - 2], K = a.shape[a.rank() - 1];
  const int64_t N = b.shape[b.rank() - 1];
  require(b.shape[b.rank() - 2] == K, [&] {
    return "inner dims differ: " + to_string(ra.desc) + " and " + to_string(rb.desc);
  });
  const Dims batch = broadcast_shapes(Dims(a.shape.begin(), a.shape.end() - 2),
                                      Dims(b.shape.begin(), b.shape.end() - 2));
  Dims out_shape = batch;
  if (ra.desc.rank() > 1) out_shape.push_back(M);
  if (rb.desc.rank() > 1) out_shape.push_back(N);
  const TensorRef& out = ctx.output(0, out_shape);
  const DType acc = acc_dtype(ra.desc.dtype);
  with_acc_type(acc, [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> av = dense<T>(a, ra.data, acc), bv = dense<T>(b, rb.data, acc);
    std::vector<T> c(static_cast<size_t>(std::max<int64_t>(element_count(out_shape), 1)));
    batched_product(av.data(), batch_offsets(a.shape, batch), bv.data(),
                    batch_offsets(b.shape, batch), c.data(), M, K, N);
    store(out, c, acc);
  });
}

// y = alpha·p + beta·c in T: integers wrap when alpha and beta are whole numbers, else they go
// through double and truncate (ONNX's reference computes in floating point there too).
template <class T>
T gemm_epilogue(T p, T c, double alpha, double beta) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(alpha) * p + static_cast<T>(beta) * c;
  } else {
    if (alpha == std::trunc(alpha) && beta == std::trunc(beta))
      return ops::wrap_add(ops::wrap_mul(p, static_cast<T>(static_cast<int64_t>(alpha))),
                           ops::wrap_mul(c, static_cast<T>(static_cast<int64_t>(beta))));
    return static_cast<T>(alpha * static_cast<double>(p) + beta * static_cast<double>(c));
  }
}

}  // namespace

Reason supports_matmul(const Graph& g, const Node& n) { return dtype_reason(g, n, 2); }

std::unique_ptr<Kernel> create_matmul(const Graph&, const Node& n) {
  return make_node_kernel(n, run_matmul);
}

Reason supports_gemm(const Graph& g, const Node& n) { return dtype_reason(g, n, 3); }

std::unique_ptr<Kernel> create_gemm(const Graph&, const Node& n) {
  const bool ta = attr_int(n, "transA", 0) != 0, tb = attr_int(n, "transB", 0) != 0;
  const double alpha = attr_float(n, "alpha", 1.0f), beta = attr_float(n, "beta", 1.0f);
  return make_node_kernel(n, [=](KernelContext& ctx) {
    TensorDesc a = ctx.input(0).desc, b = ctx.input(1).desc;
    require(a.rank() == 2 && b.rank() == 2, "operands must be matrices");
    if (ta) a = transpose(a);
    if (tb) b = transpose(b);
    const int64_t M = a.shape[0], K = a.shape[1], N = b.shape[1];
    require(b.shape[0] == K,
            [&] { return "inner dims differ: " + to_string(a) + " and " + to_string(b); });
    const TensorRef& out = ctx.output(0, Dims{M, N});
    const bool has_c = ctx.num_inputs() > 2 && ctx.input(2).present();
    const DType acc = acc_dtype(ctx.input(0).desc.dtype);
    with_acc_type(acc, [&](auto zero) {
      using T = decltype(zero);
      const std::vector<T> av = dense<T>(a, ctx.input(0).data, acc);
      const std::vector<T> bv = dense<T>(b, ctx.input(1).data, acc);
      std::vector<T> y(static_cast<size_t>(std::max<int64_t>(M * N, 1)));
      batched_product(av.data(), {0}, bv.data(), {0}, y.data(), M, K, N);
      std::vector<T> c(y.size(), T(0));
      if (has_c)  // C broadcasts unidirectionally to (M, N)
        assign(Operand{row_major(acc, Dims{M, N}), c.data()}, src_of(ctx.input(2)));
      for (int64_t i = 0; i < M * N; ++i) y[i] = gemm_epilogue(y[i], c[i], alpha, beta);
      store(out, y, acc);
    });
  });
}

}  // namespace geon::cpu
