// Activation matching and the scalar definitions of the fusable activations.
#include "core/passes/activation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/onnx/node.h"
#include "core/passes/graph_edit.h"

namespace geon::passes {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// A Clip bound from input i: absent is unbounded; else a fixed scalar constant.
bool clip_bound(const Graph& g, const Node& n, size_t i, float absent, float& out) {
  if (i >= n.inputs.size() || n.inputs[i] < 0) {
    out = absent;
    return true;
  }
  double v = 0;
  if (!scalar_value(g, n.inputs[i], v)) return false;
  out = static_cast<float>(v);
  return true;
}

}  // namespace

std::optional<Activation> match_activation(const Graph& g, const Node& n) {
  if (!onnx_domain(n) || n.outputs.size() != 1 || n.inputs.empty() || n.inputs[0] < 0)
    return std::nullopt;
  Activation a;
  a.op = n.op;
  if (n.op == "Relu" || n.op == "Sigmoid" || n.op == "Tanh" || n.op == "HardSwish") {
    if (n.inputs.size() != 1) return std::nullopt;
  } else if (n.op == "LeakyRelu") {
    a.alpha = onnx::attr_float(n, "alpha", 0.01f);
  } else if (n.op == "Elu") {
    a.alpha = onnx::attr_float(n, "alpha", 1.0f);
  } else if (n.op == "HardSigmoid") {
    a.alpha = onnx::attr_float(n, "alpha", 0.2f);
    a.beta = onnx::attr_float(n, "beta", 0.5f);
  } else if (n.op == "Gelu") {
    const std::string approximate = onnx::attr_string(n, "approximate", "none");
    if (approximate == "tanh")
      a.op = "GeluTanh";
    else if (approximate != "none")
      return std::nullopt;
  } else if (n.op == "Clip") {
    if (n.opset < 11) {
      a.alpha = onnx::attr_float(n, "min", -std::numeric_limits<float>::max());
      a.beta = onnx::attr_float(n, "max", std::numeric_limits<float>::max());
    } else if (!clip_bound(g, n, 1, -kInf, a.alpha) || !clip_bound(g, n, 2, kInf, a.beta)) {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  return a;
}

void set_activation(Node& n, const Activation& a) {
  n.attrs["activation"] = string_attr(a.op);
  n.attrs["activation_alpha"] = float_attr(a.alpha);
  n.attrs["activation_beta"] = float_attr(a.beta);
}

Activation read_activation(const Node& n) {
  Activation a;
  a.op = onnx::attr_string(n, "activation", "");
  a.alpha = onnx::attr_float(n, "activation_alpha", 0.0f);
  a.beta = onnx::attr_float(n, "activation_beta", 0.0f);
  return a;
}

bool known_activation(const std::string& op) {
  static const char* const kOps[] = {"",        "Relu", "LeakyRelu",   "Clip",
                                     "Sigmoid", "Tanh", "HardSigmoid", "HardSwish",
                                     "Elu",     "Gelu", "GeluTanh"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

float apply_activation(const Activation& a, float x) {
  const std::string& op = a.op;
  if (op.empty()) return x;
  if (op == "Relu") return x > 0 ? x : 0.0f;
  if (op == "LeakyRelu") return x >= 0 ? x : a.alpha * x;
  if (op == "Clip") return std::min(std::max(x, a.alpha), a.beta);
  if (op == "Sigmoid") return 1.0f / (1.0f + std::exp(-x));
  if (op == "Tanh") return std::tanh(x);
  if (op == "HardSigmoid") return std::clamp(a.alpha * x + a.beta, 0.0f, 1.0f);
  if (op == "HardSwish") return x * std::clamp(x / 6.0f + 0.5f, 0.0f, 1.0f);
  if (op == "Elu") return x >= 0 ? x : a.alpha * (std::exp(x) - 1.0f);
  if (op == "Gelu") return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
  if (op == "GeluTanh")
    return 0.5f * x * (1.0f + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
  return x;
}

}  // namespace geon::passes
