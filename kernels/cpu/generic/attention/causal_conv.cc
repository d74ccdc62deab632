// CausalConvWithState-27 on the host: a depthwise 1-D convolution over the input with the
// carry state (or zeros) prepended, y[b, c, t] = bias[c] + sum_j w[c, 0, j] x'[b, c, t + j]
// with x' = concat(past_state, input) of length L + k - 1, an optional SiLU (swish) on y, and
// present_state = the last k - 1 positions of x'. Computes in float, as the reference does.
#include <cmath>

#include "kernels/cpu/generic/attention/dense.h"
#include "kernels/cpu/generic/attention/ops.h"

namespace geon::cpu {
namespace {

enum In { kInput, kWeight, kBias, kPast };

bool float_kind(DType t) {
  return t == DType::kFloat || t == DType::kFloat16 || t == DType::kBFloat16;
}

void run(KernelContext& ctx, bool silu, bool want_state) {
  const Dims& xs = ctx.input(kInput).desc.shape;
  const Dims& ws = ctx.input(kWeight).desc.shape;
  require(xs.size() == 3,
          [&] { return "input must be (batch, channels, length), got " + dims_text(xs); });
  const int64_t B = xs[0], C = xs[1], L = xs[2];
  require(ws.size() == 3 && ws[0] == C && ws[1] == 1 && ws[2] >= 1, [&] {
    return "weight " + dims_text(ws) + " must be (channels, 1, k) with channels " +
           std::to_string(C) + " and k >= 1";
  });
  const int64_t K = ws[2], P = K - 1, W = L + P;  // kernel, state and padded lengths
  const bool has_bias = given(ctx, kBias), has_past = given(ctx, kPast);
  if (has_bias)
    require(ctx.input(kBias).desc.shape == Dims{C}, [&] {
      return "bias " + dims_text(ctx.input(kBias).desc.shape) + " must be (channels) [" +
             std::to_string(C) + "]";
    });
  const Dims state_shape{B, C, P};
  if (has_past)
    require(ctx.input(kPast).desc.shape == state_shape, [&] {
      return "past_state " + dims_text(ctx.input(kPast).desc.shape) +
             " must be (batch, channels, k - 1) " + dims_text(state_shape);
    });
  // The state's size comes from the weight, not the input: a short input with a long kernel
  // must not make a run allocate without limit.
  check_output_size(ctx.input(kInput).desc.dtype, state_shape, "present_state");
  const std::vector<float> x = dense_as<float>(ctx.input(kInput));
  const std::vector<float> w = dense_as<float>(ctx.input(kWeight));
  const std::vector<float> bias =
      has_bias ? dense_as<float>(ctx.input(kBias)) : std::vector<float>{};
  const std::vector<float> past =
      has_past ? dense_as<float>(ctx.input(kPast)) : std::vector<float>{};
  std::vector<float> y(static_cast<size_t>(std::max<int64_t>(B * C * L, 1)));
  std::vector<float> present(static_cast<size_t>(std::max<int64_t>(B * C * P, 1)));
  // W == 0: empty input and state; the rows are not walked (B * C may be huge then).
  if (W > 0)
    parallel_rows(B * C, cost_of({W, K + 1}), [&](int64_t lo, int64_t hi) {
      std::vector<float> padded(static_cast<size_t>(std::max<int64_t>(W, 1)));
      for (int64_t r = lo; r < hi; ++r) {
        const int64_t c = r % C;
        if (has_past)
          std::copy_n(past.data() + r * P, P, padded.data());
        else
          std::fill_n(padded.data(), P, 0.0f);
        std::copy_n(x.data() + r * L, L, padded.data() + P);
        const float* wc = w.data() + c * K;
        float* yr = y.data() + r * L;
        for (int64_t t = 0; t < L; ++t) {
          float acc = has_bias ? bias[c] : 0.0f;
          for (int64_t j = 0; j < K; ++j) acc += wc[j] * padded[t + j];
          yr[t] = silu ? acc / (1.0f + std::exp(-acc)) : acc;
        }
        std::copy_n(padded.data() + L, P, present.data() + r * P);
      }
    });
  store_dense(ctx.output(0, xs), y);
  if (want_state) store_dense(ctx.output(1, state_shape), present);
}

}  // namespace

Reason supports_causal_conv_with_state(const Graph& g, const Node& n) {
  const char* names[] = {"input", "weight", "bias", "past_state"};
  for (int i = 0; i < 4; ++i)
    if (has_input(n, i) && !float_kind(input_dtype(g, n, i)))
      return "CausalConvWithState " + std::string(names[i]) + " of " +
             std::string(dtype_name(input_dtype(g, n, i))) +
             " is not one of float, float16, bfloat16";
  const std::string act = attr_string(n, "activation", "none");
  if (act != "none" && act != "silu" && act != "swish")
    return "CausalConvWithState activation '" + act + "' is unknown (silu, swish or none)";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_causal_conv_with_state(const Graph&, const Node& n) {
  const std::string act = attr_string(n, "activation", "none");
  const bool silu = act == "silu" || act == "swish";
  const bool want_state = n.outputs.size() > 1 && n.outputs[1] >= 0;
  return make_node_kernel(n,
                          [silu, want_state](KernelContext& ctx) { run(ctx, silu, want_state); });
}

}  // namespace geon::cpu
