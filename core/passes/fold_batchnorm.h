// BatchNormalization folding: Conv (or ConvTranspose) followed by an inference-mode
// BatchNormalization whose scale, bias, mean and variance are fixed constants, with a fixed
// constant weight (and bias), becomes the Conv alone with new constant weight and bias:
//   s = scale / sqrt(var + eps);  W'[oc] = W[oc] * s[oc];  B'[oc] = (B[oc] - mean[oc]) * s[oc] +
//   bias[oc]
// The original W and B values are left as they are for any other reader. The Conv takes the
// BatchNormalization's output value and a `members` attribute naming both nodes.
#pragma once

#include "core/graph/graph.h"

namespace geon {

// Folds every eligible pair (float tensors); returns the number folded.
int fold_batchnorm(Graph& g);

}  // namespace geon
