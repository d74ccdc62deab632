// ONNX RotaryEmbedding (opset 23) on the host: each head vector's first rotary_embedding_dim
// values are rotated pairwise by the cached cos/sin of its position (pairs are (k, k + dim/2),
// or (2k, 2k + 1) when interleaved); the rest pass through. Input 3-D (batch, seq, heads·head)
// with num_heads, or 4-D (batch, heads, seq, head); the caches are indexed by position_ids
// (batch, seq) when given, else they are (batch, seq, dim/2). Computes in float (double for
// double), reading every input dense.
#include <algorithm>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

struct Attrs {
  bool interleaved = false;
  int64_t rotary_dim = 0;  // 0: the whole head
  int64_t num_heads = 0;
};

template <class T>
std::vector<T> dense(const TensorRef& t, DType acc) {
  std::vector<T> v(static_cast<size_t>(std::max<int64_t>(element_count(t.desc), 1)));
  assign(Operand{row_major(acc, t.desc.shape), v.data()}, src_of(t));
  return v;
}

template <class T>
void run(KernelContext& ctx, const Attrs& at, DType acc) {
  const TensorRef& x_in = ctx.input(0);
  const Dims& xs = x_in.desc.shape;
  require(xs.size() == 3 || xs.size() == 4, "the input must have rank 3 or 4");
  // Element strides of (batch, seq, head, dim) in the dense input.
  int64_t B, S, H, D, st_b, st_s, st_h;
  if (xs.size() == 4) {
    B = xs[0], H = xs[1], S = xs[2], D = xs[3];
    st_b = H * S * D, st_h = S * D, st_s = D;
  } else {
    require(at.num_heads > 0, "num_heads is required for a 3-D input");
    require(xs[2] % at.num_heads == 0, [&] {
      return "hidden size " + std::to_string(xs[2]) + " is not a multiple of num_heads " +
             std::to_string(at.num_heads);
    });
    B = xs[0], S = xs[1], H = at.num_heads, D = xs[2] / at.num_heads;
    st_b = S * xs[2], st_s = xs[2], st_h = D;
  }
  const int64_t rot = at.rotary_dim > 0 ? at.rotary_dim : D;
  require(rot <= D && rot % 2 == 0, [&] {
    return "rotary_embedding_dim " + std::to_string(rot) +
           " must be even and at most the head size " + std::to_string(D);
  });
  const int64_t half = rot / 2;
  const std::vector<T> x = dense<T>(x_in, acc);
  const std::vector<T> cosv = dense<T>(ctx.input(1), acc), sinv = dense<T>(ctx.input(2), acc);
  const Dims& cs = ctx.input(1).desc.shape;
  require(ctx.input(2).desc.shape == cs, "cos_cache and sin_cache shapes differ");
  require(!cs.empty() && cs.back() == half, [&] {
    return "the caches' last dim must be rotary_embedding_dim/2 (" + std::to_string(half) + ")";
  });
  const bool has_pos = ctx.num_inputs() > 3 && ctx.input(3).present();
  std::vector<int64_t> pos;
  if (has_pos) {
    const TensorRef& p = ctx.input(3);
    require(p.desc.shape == (Dims{B, S}), "position_ids must be (batch, seq)");
    pos.resize(static_cast<size_t>(B * S));
    assign(Operand{row_major(DType::kInt64, p.desc.shape), pos.data()}, src_of(p));
    require(cs.size() == 2, "with position_ids the caches must be (max_position, dim/2)");
  } else {
    require(cs.size() == 3 && cs[0] == B && cs[1] == S,
            "without position_ids the caches must be (batch, seq, dim/2)");
  }
  std::vector<T> y(x.size());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t s = 0; s < S; ++s) {
      int64_t row = b * S + s;
      if (has_pos) {
        row = pos[b * S + s];
        require(row >= 0 && row < cs[0], [&] {
          return "position id " + std::to_string(row) + " is outside the caches' " +
                 std::to_string(cs[0]) + " positions";
        });
      }
      const T* c = cosv.data() + row * half;
      const T* sn = sinv.data() + row * half;
      for (int64_t h = 0; h < H; ++h) {
        const int64_t o = b * st_b + s * st_s + h * st_h;
        const T* xi = x.data() + o;
        T* yo = y.data() + o;
        for (int64_t k = 0; k < half; ++k) {
          const int64_t i1 = at.interleaved ? 2 * k : k, i2 = at.interleaved ? 2 * k + 1 : k + half;
          const T x1 = xi[i1], x2 = xi[i2];
          yo[i1] = c[k] * x1 - sn[k] * x2;
          yo[i2] = sn[k] * x1 + c[k] * x2;
        }
        std::copy(xi + rot, xi + D, yo + rot);
      }
    }
  assign(dst_of(ctx.output(0, xs)), ConstOperand(row_major(acc, xs), y.data()));
}

bool is_float_kind(DType t) {
  return t == DType::kFloat || t == DType::kDouble || t == DType::kFloat16 || t == DType::kBFloat16;
}

}  // namespace

Reason supports_rotary_embedding(const Graph& g, const Node& n) {
  for (int i = 0; i < 3; ++i)
    if (!is_float_kind(input_dtype(g, n, i)))
      return "RotaryEmbedding input " + std::to_string(i) + " of " +
             std::string(dtype_name(input_dtype(g, n, i))) + " is not implemented";
  if (has_input(n, 3) && !is_integer(input_dtype(g, n, 3)))
    return "RotaryEmbedding position_ids must be integers";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_rotary_embedding(const Graph& g, const Node& n) {
  Attrs at;
  at.interleaved = attr_int(n, "interleaved", 0) != 0;
  at.rotary_dim = attr_int(n, "rotary_embedding_dim", 0);
  at.num_heads = attr_int(n, "num_heads", 0);
  const DType acc = input_dtype(g, n, 0) == DType::kDouble ? DType::kDouble : DType::kFloat;
  return make_node_kernel(n, [at, acc](KernelContext& ctx) {
    if (acc == DType::kDouble)
      run<double>(ctx, at, acc);
    else
      run<float>(ctx, at, acc);
  });
}

}  // namespace geon::cpu
