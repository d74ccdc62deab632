// The checks and the engine pass of nan_guard.h.
#include "kernels/cpu/dnnl/nan_guard.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/base/error.h"
#include "core/engine/expr.h"
#include "kernels/cpu/native/cpu_isa.h"
#include "kernels/cpu/native/magnitude.h"

namespace geon::cpu {
namespace {

// |v|, with NaN as +infinity (larger than any magnitude, and std::max keeps it).
float magnitude(float v) {
  return std::isnan(v) ? std::numeric_limits<float>::infinity() : std::fabs(v);
}

float dense_max_abs(const float* x, int64_t n) {
  if (cpu_has_avx2_fma()) return native::max_abs_avx2(x, n);
  float top = 0.0f;
  for (int64_t i = 0; i < n; ++i) top = std::max(top, magnitude(x[i]));
  return top;
}

// A view's elements dim by dim, dense runs along the last dim where its stride is 1.
float strided_max_abs(const float* p, const TensorDesc& d, int dim) {
  const int64_t n = d.shape[dim], step = d.strides[dim];
  if (dim + 1 == d.rank() && step == 1) return dense_max_abs(p, n);
  float top = 0.0f;
  for (int64_t i = 0; i < n; ++i)
    top = std::max(top, dim + 1 == d.rank() ? magnitude(p[i * step])
                                            : strided_max_abs(p + i * step, d, dim + 1));
  return top;
}

}  // namespace

bool onednn_drops_nan(const Activation& a) {
  switch (a.kind) {
    case ActivationKind::kRelu:
    case ActivationKind::kClip:
    case ActivationKind::kHardSigmoid:
      return true;
    case ActivationKind::kLeakyRelu:
      return a.alpha == 0.0f;
    default:
      return false;
  }
}

float max_abs(const TensorDesc& d, const void* data) {
  if (!data || element_count(d) == 0) return 0.0f;
  require(d.dtype == DType::kFloat, "max_abs: takes float views only");
  const float* p = static_cast<const float*>(data) + d.offset;
  // The span of floats from the first element to the last: a view dense in any dim order (a
  // channels-last block, say) spans exactly its elements and is read as one run. A sparser
  // one up to twice its elements is read whole too (the floats between lie in its storage; a
  // larger one among them only sends the caller the safe way).
  int64_t span = 1;
  bool forward = true;
  for (int i = 0; i < d.rank(); ++i) {
    if (d.shape[i] < 2) continue;
    forward = forward && d.strides[i] >= 0;
    span += (d.shape[i] - 1) * d.strides[i];
  }
  if (forward && span <= 2 * element_count(d)) return dense_max_abs(p, span);
  return strided_max_abs(p, d, 0);
}

void apply_activation(const Activation& a, const Operand& y) {
  if (a.kind == ActivationKind::kNone || element_count(y.desc) == 0) return;
  const DType f = DType::kFloat;
  const DType in[] = {f, f, f};
  ExprBuilder b(in);
  OpParams p;
  p.alpha = a.alpha;
  p.beta = a.beta;
  const ExprArg x = b.input(0);
  switch (a.kind) {
    case ActivationKind::kRelu:
      b.apply("relu", {x});
      break;
    case ActivationKind::kLeakyRelu:
      b.apply("leaky_relu", {x}, {}, p);
      break;
    case ActivationKind::kClip:
      b.apply("clip", {x, b.input(1), b.input(2)});
      break;
    case ActivationKind::kHardSigmoid:
      b.apply("hard_sigmoid", {x}, {}, p);
      break;
    default:
      fail(ErrorCode::kInternal, "apply_activation: only the activations oneDNN drops NaN in");
  }
  const ConstOperand srcs[3] = {ConstOperand(y), ConstOperand::scalar(a.alpha, f),
                                ConstOperand::scalar(a.beta, f)};
  evaluate(b.build(), y, srcs);
}

}  // namespace geon::cpu
