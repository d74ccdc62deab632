// The training family's entry points: the losses (loss.cc) and the ai.onnx.preview.training
// optimisers (optimizers.cc). rows.cc binds them to op names; generic/table.cc appends those
// rows to cpu.generic's table.
#pragma once

#include <memory>
#include <string>

#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {

// NegativeLogLikelihoodLoss (12, 13, 22) and SoftmaxCrossEntropyLoss (12, 13): one kernel, the
// op's name says whether a log-softmax over the classes comes first.
Reason supports_loss(const Graph& g, const Node& n);
std::unique_ptr<Kernel> create_loss(const Graph& g, const Node& n);

// Adagrad, Adam and Momentum (standard and nesterov) over any number of tensors per node.
Reason supports_optimizer(const Graph& g, const Node& n);
std::unique_ptr<Kernel> create_optimizer(const Graph& g, const Node& n);

// "(2, 3, 4)", for the error messages of the family.
inline std::string training_dims_text(const Dims& d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + ")";
}

}  // namespace geon::cpu
