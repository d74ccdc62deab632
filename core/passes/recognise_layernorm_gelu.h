// Recognises two functions that exporters spell out op by op and turns each back into its one
// ONNX node, so a kernel computes it in one pass:
//  - LayerNorm: m = ReduceMean(x, last axis); d = Sub(x, m); v = ReduceMean(Pow(d, 2) or
//    Mul(d, d), the same axis); y = Div(d, Sqrt(Add(v, eps))) or Mul(d, Reciprocal(Sqrt(...)))
//    [then Mul gamma, Add beta]
//    => LayerNormalization(x, gamma, beta; axis -1, epsilon eps), opset 17. gamma and beta
//    must be fixed constants with one value per element of the last axis (absent: 1 and 0).
//  - GELU: x * 0.5 * (1 + Erf(x / sqrt 2)) (or x * 1/sqrt 2) => Gelu (approximate "none"), and
//    x * 0.5 * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 x^3))) => Gelu (approximate "tanh"),
//    opset 20; the three products in any order.
// Constants match within 1e-4. Only where a set in `sets` has a row for the node that supports
// it; each node made lists the replaced nodes in `members`.
#pragma once

#include <span>

#include "core/graph/graph.h"
#include "core/runtime/kernel.h"

namespace geon {

// Returns the number of nodes made (LayerNormalization and Gelu together).
int recognise_layernorm_gelu(Graph& g, std::span<const KernelSet* const> sets);

}  // namespace geon
