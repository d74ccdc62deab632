// The ai.onnx.preview.training optimisers on cpu.generic: Adagrad, Adam and Momentum (standard
// and nesterov). Inputs are R (learning rate) and T (update count), both scalars, then one block
// per state kind, each holding one tensor per optimised tensor (X..., G..., H... for Adagrad);
// the outputs are the new X... then the new state blocks. Every update is elementwise: each
// tensor's operands are staged as dense double, updated with the formulas of the ONNX spec in
// double, and written back in their own dtype.
#include <algorithm>
#include <cmath>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/training/ops.h"

namespace geon::cpu {
namespace {

enum class Kind { kAdagrad, kAdam, kMomentum, kNesterov };

struct OptSpec {
  Kind kind = Kind::kAdagrad;
  int groups = 3;               // input blocks after R and T: X, G, then the state tensors
  std::vector<int> out_blocks;  // the input block each output block updates
  std::vector<bool> wanted;     // per output: requested by the node (else computed and dropped)
  double alpha = 0, beta = 0, epsilon = 0, norm = 0, norm_post = 0, decay = 0;
};

// One optimised tensor: its input operands (X, G, state...) and outputs, dense double.
struct Step {
  int64_t count = 0;
  std::vector<const double*> in;
  std::vector<double*> out;
};

// The scalar coefficients of this run, from R and T (bias corrections, decayed rates).
struct Rates {
  double r = 0;     // the learning rate to apply
  double beta = 0;  // Momentum's gradient coefficient (1 at the first update)
};

Rates rates_of(const OptSpec& s, double r, int64_t t) {
  Rates k;
  const double td = static_cast<double>(t);
  switch (s.kind) {
    case Kind::kAdagrad:
      k.r = r / (1 + td * s.decay);
      break;
    case Kind::kAdam:
      // Bias correction of both moments from the second update on (T counts from 0).
      k.r = t > 0 ? r * std::sqrt(1 - std::pow(s.beta, td)) / (1 - std::pow(s.alpha, td)) : r;
      break;
    default:
      k.r = r;
      k.beta = t > 0 ? s.beta : 1.0;
      break;
  }
  return k;
}

void update(const OptSpec& s, const Rates& k, const Step& st) {
  const double* x = st.in[0];
  const double* g = st.in[1];
  parallel_rows(st.count, 16, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const double gr = s.norm * x[i] + g[i];  // gradient with the L2 regularisation term
      switch (s.kind) {
        case Kind::kAdagrad: {
          const double h = st.in[2][i] + gr * gr;
          st.out[0][i] = x[i] - k.r * gr / (std::sqrt(h) + s.epsilon);
          st.out[1][i] = h;
          break;
        }
        case Kind::kAdam: {
          const double v = s.alpha * st.in[2][i] + (1 - s.alpha) * gr;
          const double h = s.beta * st.in[3][i] + (1 - s.beta) * gr * gr;
          const double xn = x[i] - k.r * (v / (std::sqrt(h) + s.epsilon));
          st.out[0][i] = (1 - s.norm_post) * xn;
          st.out[1][i] = v;
          st.out[2][i] = h;
          break;
        }
        case Kind::kMomentum:
        case Kind::kNesterov: {
          const double v = s.alpha * st.in[2][i] + k.beta * gr;
          st.out[0][i] = x[i] - k.r * (s.kind == Kind::kMomentum ? v : gr + s.alpha * v);
          st.out[1][i] = v;
          break;
        }
      }
    }
  });
}

double read_scalar(const TensorRef& t, const std::string& what) {
  require(element_count(t.desc) == 1, [&] {
    return what + " must hold one value, not shape " + training_dims_text(t.desc.shape);
  });
  double v = 0;
  assign(Operand{row_major(DType::kDouble, t.desc.shape), &v}, src_of(t));
  return v;
}

void optimizer_run(KernelContext& ctx, const OptSpec& s) {
  const int tensors = (ctx.num_inputs() - 2) / s.groups;
  const double r = read_scalar(ctx.input(0), "input 0 (R)");
  const std::vector<int64_t> t = read_ints(ctx.input(1), "input 1 (T)");
  require(t.size() == 1,
          [&] { return "input 1 (T) must hold one value, not " + std::to_string(t.size()); });
  const Rates k = rates_of(s, r, t[0]);
  for (int j = 0; j < tensors; ++j) {
    const TensorRef& x = ctx.input(2 + j);
    const Dims& shape = x.desc.shape;
    Step st;
    st.count = element_count(shape);
    std::vector<std::vector<std::byte>> ins(static_cast<size_t>(s.groups));
    for (int b = 0; b < s.groups; ++b) {
      const int i = 2 + b * tensors + j;
      const TensorRef& in = ctx.input(i);
      require(in.desc.shape == shape, [&] {
        return "input " + std::to_string(i) + " has shape " + training_dims_text(in.desc.shape) +
               " but the tensor it belongs to (input " + std::to_string(2 + j) + ") has shape " +
               training_dims_text(shape);
      });
      st.in.push_back(static_cast<const double*>(stage_input(in, {}, DType::kDouble, ins[b])));
    }
    std::vector<std::vector<std::byte>> outs(s.out_blocks.size());
    std::vector<std::vector<double>> dropped(s.out_blocks.size());
    std::vector<TensorRef*> refs(s.out_blocks.size(), nullptr);
    for (size_t b = 0; b < s.out_blocks.size(); ++b) {
      const int o = static_cast<int>(b) * tensors + j;
      if (!s.wanted[static_cast<size_t>(o)]) {
        dropped[b].resize(static_cast<size_t>(st.count));
        st.out.push_back(dropped[b].data());
        continue;
      }
      refs[b] = &ctx.output(o, shape);
      st.out.push_back(static_cast<double*>(stage_output(*refs[b], {}, DType::kDouble, outs[b])));
    }
    update(s, k, st);
    for (size_t b = 0; b < refs.size(); ++b)
      if (refs[b]) store_output(*refs[b], {}, DType::kDouble, outs[b]);
  }
}

OptSpec spec_of(const Node& n) {
  OptSpec s;
  if (n.op == "Adagrad") {
    s.kind = Kind::kAdagrad;
    s.out_blocks = {0, 2};
    s.decay = attr_float(n, "decay_factor", 0);
    s.epsilon = attr_float(n, "epsilon", 1e-6f);  // the spec's default
    s.norm = attr_float(n, "norm_coefficient", 0);
  } else if (n.op == "Adam") {
    s.kind = Kind::kAdam;
    s.groups = 4;
    s.out_blocks = {0, 2, 3};
    s.alpha = attr_float(n, "alpha", 0.9f);
    s.beta = attr_float(n, "beta", 0.999f);
    s.epsilon = attr_float(n, "epsilon", 1e-6f);  // the spec's default
    s.norm = attr_float(n, "norm_coefficient", 0);
    s.norm_post = attr_float(n, "norm_coefficient_post", 0);
  } else {
    s.kind = attr_string(n, "mode", "") == "nesterov" ? Kind::kNesterov : Kind::kMomentum;
    s.out_blocks = {0, 2};
    s.alpha = attr_float(n, "alpha", 0);
    s.beta = attr_float(n, "beta", 0);
    s.norm = attr_float(n, "norm_coefficient", 0);
  }
  return s;
}

}  // namespace

Reason supports_optimizer(const Graph& g, const Node& n) {
  const OptSpec s = spec_of(n);
  const int rest = static_cast<int>(n.inputs.size()) - 2;
  if (rest < s.groups || rest % s.groups != 0)
    return "takes R, T and then " + std::to_string(s.groups) +
           " blocks of one tensor per optimized tensor; got " + std::to_string(n.inputs.size()) +
           " inputs";
  const int tensors = rest / s.groups;
  const size_t outs = static_cast<size_t>(tensors) * s.out_blocks.size();
  if (n.outputs.size() != outs)
    return "has " + std::to_string(n.outputs.size()) + " outputs but optimizes " +
           std::to_string(tensors) + " tensors, which gives " + std::to_string(outs);
  for (int i = 0; i < static_cast<int>(n.inputs.size()); ++i)
    if (!has_input(n, i)) return "input " + std::to_string(i) + " is omitted; none is optional";
  if (n.op == "Momentum") {
    for (const char* a : {"alpha", "beta", "norm_coefficient", "mode"})
      if (!n.attr(a)) return std::string("attribute '") + a + "' is required";
    const std::string mode = attr_string(n, "mode", "");
    if (mode != "standard" && mode != "nesterov")
      return "attribute 'mode' is '" + mode + "'; it must be standard or nesterov";
  }
  if (Reason r = norm_dtype_reason(input_dtype(g, n, 0), "input 0 (R)")) return r;
  if (!is_integer(input_dtype(g, n, 1)))
    return "input 1 (T) has dtype " + std::string(dtype_name(input_dtype(g, n, 1))) +
           "; it must be int64";
  for (int i = 2; i < static_cast<int>(n.inputs.size()); ++i)
    if (Reason r = norm_dtype_reason(input_dtype(g, n, i), "input " + std::to_string(i))) return r;
  return std::nullopt;
}

std::unique_ptr<Kernel> create_optimizer(const Graph&, const Node& n) {
  OptSpec s = spec_of(n);
  for (int o : n.outputs) s.wanted.push_back(o >= 0);
  return make_node_kernel(n, [s](KernelContext& ctx) { optimizer_run(ctx, s); });
}

}  // namespace geon::cpu
