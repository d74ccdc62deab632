// ai.onnx.preview FlexAttention-1 on the host: Y = prob_mod(softmax(score_mod(scale Q K^T))) V
// over rank-4 (batch, heads, seq, dim) inputs, K/V heads shared by groups of query heads.
// score_mod and prob_mod are ONNX graphs: each is compiled once, as a nested executable on the
// CPU sets, and run on the whole (B, Hq, L, S) tensor in the softmax precision. The roundings
// follow the spec's reference: Q and K are pre-scaled by sqrt(scale) in their own dtype, the
// scores rounded to it and then to the softmax precision, Y computed in that precision.
#include <cmath>
#include <limits>

#include "core/runtime/executor.h"
#include "core/runtime/graph_uses.h"
#include "kernels/cpu/generic/attention/dense.h"
#include "kernels/cpu/generic/attention/ops.h"
#include "kernels/cpu/kernel_sets.h"

namespace geon::cpu {
namespace {

bool float_kind(DType t) {
  return t == DType::kFloat || t == DType::kDouble || t == DType::kFloat16 || t == DType::kBFloat16;
}

// The softmax precision: the attribute, else double for double inputs and float otherwise.
std::optional<DType> precision_of(const Node& n, DType input) {
  const Attribute* a = n.attr("softmax_precision");
  if (!a) return input == DType::kDouble ? DType::kDouble : DType::kFloat;
  const std::optional<DType> t = dtype_from_onnx(static_cast<int32_t>(a->i));
  if (!t || !float_kind(*t)) return std::nullopt;
  return t;
}

struct Mods {
  std::shared_ptr<const Executable> score, prob;
};

// v (values of A) rounded through dtype t and back: what storing it as t keeps.
template <class A>
void round_through(std::vector<A>& v, DType t, const Dims& shape) {
  if (t == dtype_of_compute<A>() || element_count(shape) == 0) return;
  std::vector<std::byte> tmp(static_cast<size_t>(dtype_bytes_for(t, element_count(shape))));
  const TensorDesc narrow = row_major(t, shape), wide = row_major(dtype_of_compute<A>(), shape);
  assign(Operand{narrow, tmp.data()}, ConstOperand(wide, v.data()));
  assign(Operand{wide, v.data()}, ConstOperand(narrow, tmp.data()));
}

// Runs a modifier graph on v (as dtype p, of this shape) and takes its result back into v.
template <class A>
void apply_mod(const Executable& mod, const char* what, std::vector<A>& v, DType p,
               const Dims& shape) {
  std::vector<std::byte> tmp(
      static_cast<size_t>(std::max<int64_t>(dtype_bytes_for(p, element_count(shape)), 1)));
  const TensorDesc in = row_major(p, shape);
  if (element_count(shape) > 0)
    assign(Operand{in, tmp.data()},
           ConstOperand(row_major(dtype_of_compute<A>(), shape), v.data()));
  const TensorRef arg{in, tmp.data(), Device{}};
  const int first = 0;
  std::vector<OwnedTensor> out;
  try {
    out = mod.run(std::span<const TensorRef>(&arg, 1), std::span<const int>(&first, 1));
  } catch (const Error& e) {
    throw Error(e.code(), std::string(what) + ": " + e.what());
  }
  require(out.size() == 1, [&] { return std::string(what) + " must give one output"; });
  const OwnedTensor& r = out[0];
  require(r.desc.dtype == p && r.desc.shape == shape, [&] {
    return std::string(what) + " gave " + std::string(dtype_name(r.desc.dtype)) + " " +
           dims_text(r.desc.shape) + "; it must keep its input's " + std::string(dtype_name(p)) +
           " " + dims_text(shape);
  });
  if (element_count(shape) > 0)
    assign(Operand{row_major(dtype_of_compute<A>(), shape), v.data()},
           ConstOperand(r.desc, r.data()));
}

template <class A>
void run(KernelContext& ctx, std::optional<float> scale_attr, DType p, const Mods& mods) {
  const TensorRef &qr = ctx.input(0), &kr = ctx.input(1), &vr = ctx.input(2);
  for (const TensorRef* t : {&qr, &kr, &vr})
    require(t->desc.rank() == 4, "Q, K and V must have rank 4 (batch, heads, seq, dim)");
  const Dims &qs = qr.desc.shape, &ks = kr.desc.shape, &vs = vr.desc.shape;
  const int64_t B = qs[0], Hq = qs[1], L = qs[2], E = qs[3];
  const int64_t Hkv = ks[1], S = ks[2], Ev = vs[3];
  require(ks[0] == B && vs[0] == B, "Q, K and V must have the same batch size");
  require(ks[3] == E, [&] {
    return "Q's head size " + std::to_string(E) + " differs from K's " + std::to_string(ks[3]);
  });
  require(vs[1] == Hkv && vs[2] == S, [&] {
    return "K " + dims_text(ks) + " and V " + dims_text(vs) +
           " must have the same heads and sequence length";
  });
  require(Hkv > 0 && Hq % Hkv == 0, [&] {
    return "Q's " + std::to_string(Hq) + " heads are not a multiple of K's " + std::to_string(Hkv);
  });
  const Dims score_shape{B, Hq, L, S}, out_shape{B, Hq, L, Ev};
  check_output_size(dtype_of_compute<A>(), score_shape, "the attention scores");
  check_output_size(dtype_of_compute<A>(), out_shape, "Y");
  if (element_count(out_shape) == 0) {  // nothing to compute (B * Hq * L may still be huge)
    ctx.output(0, out_shape);
    return;
  }
  require(S > 0, "K and V have no positions to attend to (sequence length 0)");
  const DType t = qr.desc.dtype;
  const double scale = scale_attr ? *scale_attr : 1.0 / std::sqrt(static_cast<double>(E));
  // sqrt(scale) in float, as the reference computes it, then in Q's dtype.
  const ConstOperand root = ConstOperand::scalar(std::sqrt(static_cast<float>(scale)), t);
  auto prescaled = [&](const TensorRef& x) {
    std::vector<std::byte> tmp(
        static_cast<size_t>(std::max<int64_t>(dtype_bytes_for(t, element_count(x.desc)), 1)));
    const TensorRef scaled{row_major(t, x.desc.shape), tmp.data(), Device{}};
    if (element_count(x.desc) > 0) binary("mul", dst_of(scaled), src_of(x), root);
    return dense_as<A>(scaled);
  };
  const std::vector<A> q = prescaled(qr), k = prescaled(kr);
  std::vector<A> v = dense_as<A>(vr);
  std::vector<A> s(static_cast<size_t>(std::max<int64_t>(element_count(score_shape), 1)));
  const int64_t G = Hq / Hkv;
  parallel_rows(B * Hq * L, cost_of({S, E}), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t b = r / (Hq * L), h = (r / L) % Hq;
      const A* qrow = q.data() + r * E;
      const A* kh = k.data() + (b * Hkv + h / G) * S * E;
      for (int64_t j = 0; j < S; ++j) {
        A dot = 0;
        for (int64_t e = 0; e < E; ++e) dot += qrow[e] * kh[j * E + e];
        s[r * S + j] = dot;
      }
    }
  });
  round_through(s, t, score_shape);  // Q K^T in Q's dtype
  round_through(s, p, score_shape);
  if (mods.score) apply_mod(*mods.score, "score_mod", s, p, score_shape);
  parallel_rows(B * Hq * L, S, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      A* row = s.data() + r * S;
      A best = -std::numeric_limits<A>::infinity();
      for (int64_t j = 0; j < S; ++j) best = std::max(best, row[j]);
      A sum = 0;
      for (int64_t j = 0; j < S; ++j) sum += (row[j] = std::exp(row[j] - best));
      for (int64_t j = 0; j < S; ++j) row[j] /= sum;
    }
  });
  round_through(s, p, score_shape);
  if (mods.prob) apply_mod(*mods.prob, "prob_mod", s, p, score_shape);
  round_through(v, p, vs);
  std::vector<A> y(static_cast<size_t>(std::max<int64_t>(element_count(out_shape), 1)));
  parallel_rows(B * Hq * L, cost_of({S, Ev}), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t b = r / (Hq * L), h = (r / L) % Hq;
      const A* vh = v.data() + (b * Hkv + h / G) * S * Ev;
      A* yr = y.data() + r * Ev;
      for (int64_t j = 0; j < S; ++j) {
        const A pj = s[r * S + j];
        for (int64_t e = 0; e < Ev; ++e) yr[e] += pj * vh[j * Ev + e];
      }
    }
  });
  round_through(y, p, out_shape);
  store_dense(ctx.output(0, out_shape), y);
}

}  // namespace

Reason supports_flex_attention(const Graph& g, const Node& n) {
  if (!has_input(n, 0) || !has_input(n, 1) || !has_input(n, 2) || onnx::present_inputs(n) != 3)
    return "FlexAttention takes Q, K and V";
  const DType t = input_dtype(g, n, 0);
  for (int i = 0; i < 3; ++i)
    if (input_dtype(g, n, i) != t || !float_kind(t))
      return "FlexAttention of " + std::string(dtype_name(input_dtype(g, n, i))) +
             " is not implemented (Q, K and V of one float type)";
  if (!precision_of(n, t)) return "FlexAttention softmax_precision is not a float type";
  for (const char* name : {"score_mod", "prob_mod"}) {
    const Attribute* a = n.attr(name);
    if (a && (a->kind != Attribute::Kind::kGraph || !a->g))
      return "FlexAttention attribute '" + std::string(name) + "' is not a graph";
  }
  // The modifier graphs run as executables of their own, outside the enclosing run.
  if (node_reads(g, n).size() > 3)
    return "FlexAttention modifier graphs that read values of the enclosing graph are not "
           "implemented";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_flex_attention(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  const std::optional<DType> p = precision_of(n, t);
  require(p.has_value(), "softmax_precision is not a float type");
  const KernelSet* sets[] = {&dnnl_kernels(), &generic_kernels()};
  Mods mods;
  for (const char* name : {"score_mod", "prob_mod"}) {
    const Attribute* a = n.attr(name);
    if (!a || !a->g) continue;
    std::shared_ptr<const Executable> exe;
    try {
      exe = Executable::compile(a->g, sets);
    } catch (const Error& e) {
      throw Error(e.code(), "graph '" + std::string(name) + "': " + e.what());
    }
    (std::string_view(name) == "score_mod" ? mods.score : mods.prob) = std::move(exe);
  }
  // An explicit scale of 0 is a scale (all scores 0), not the default.
  const std::optional<float> scale =
      n.attr("scale") ? std::optional<float>(attr_float(n, "scale", 0.0f)) : std::nullopt;
  const bool dbl = t == DType::kDouble || *p == DType::kDouble;
  const DType precision = *p;
  return make_node_kernel(n, [=](KernelContext& ctx) {
    if (dbl)
      run<double>(ctx, scale, precision, mods);
    else
      run<float>(ctx, scale, precision, mods);
  });
}

}  // namespace geon::cpu
