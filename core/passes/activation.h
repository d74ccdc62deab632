// The activations a fused geon.FusedConv / geon.FusedMatMul node applies last (fused.md's
// contract): which ONNX nodes are one, their parameters as the node's activation attributes,
// and the scalar definition the kernels' fallback paths and the tests share.
#pragma once

#include <optional>
#include <string>

#include "core/graph/graph.h"

namespace geon::passes {

// op is "" (none) or Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid, HardSwish, Elu, Gelu,
// or GeluTanh (ONNX Gelu with approximate="tanh", as GPT-2 style exports spell it; a name of
// its own so that a kernel that knows only Gelu refuses it instead of computing the erf form).
// alpha: LeakyRelu/Elu alpha, Clip min, HardSigmoid alpha; beta: Clip max, HardSigmoid beta.
struct Activation {
  std::string op;
  float alpha = 0;
  float beta = 0;
};

// The activation n computes on its input 0, or nullopt (another op, a Clip bound that is not a
// fixed scalar constant, a Gelu approximation other than none/tanh, more than one output).
std::optional<Activation> match_activation(const Graph& g, const Node& n);

// Sets / reads the activation, activation_alpha and activation_beta attributes.
void set_activation(Node& n, const Activation& a);
Activation read_activation(const Node& n);
// Whether `op` is one of the names above (or "").
bool known_activation(const std::string& op);

// act(x) as ONNX defines the op.
float apply_activation(const Activation& a, float x);

}  // namespace geon::passes
