// cpu.generic's attention family: its rows of the kernel table (generic/families.h).
#include "kernels/cpu/generic/attention/ops.h"
#include "kernels/cpu/generic/families.h"

namespace geon::cpu {
namespace {

const KernelEntry kRows[] = {
    {"", "LinearAttention", 27, supports_linear_attention, create_linear_attention},
    {"", "CausalConvWithState", 27, supports_causal_conv_with_state, create_causal_conv_with_state},
    {"ai.onnx.preview", "FlexAttention", 1, supports_flex_attention, create_flex_attention},
    // One row serves every Conv opset: the attributes are the same, only the types widened.
    {"", "Conv", 1, supports_direct_conv, create_direct_conv},
    {"", "RandomUniform", 1, supports_random_attrs, create_random_attrs},
    {"", "RandomNormal", 1, supports_random_attrs, create_random_attrs},
    {"", "RandomUniformLike", 1, supports_random_like, create_random_like},
    {"", "RandomNormalLike", 1, supports_random_like, create_random_like},
    {"", "Bernoulli", 15, supports_bernoulli, create_bernoulli},
    {"", "Multinomial", 7, supports_multinomial, create_multinomial},
};

}  // namespace

std::span<const KernelEntry> attention_rows() { return kRows; }

}  // namespace geon::cpu
