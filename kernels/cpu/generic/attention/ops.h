// cpu.generic's attention family: the newest attention and state-space ops of ONNX
// (LinearAttention, CausalConvWithState, ai.onnx.preview FlexAttention), the direct Conv for
// the dtypes cpu.dnnl lacks, and the random ops (which share this family's seed handling).
// rows.cc binds them to ONNX op names; each op family has one .cc here.
#pragma once

#include <memory>

#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {

// linear_attention.cc: LinearAttention-27 (linear, gated, delta, gated_delta; GQA).
GEON_CPU_FAMILY(linear_attention);
// causal_conv.cc: CausalConvWithState-27 (depthwise causal conv with a carry state).
GEON_CPU_FAMILY(causal_conv_with_state);
// flex_attention.cc: ai.onnx.preview FlexAttention-1, score_mod / prob_mod graphs included.
GEON_CPU_FAMILY(flex_attention);
// conv.cc: Conv in float16, bfloat16 and double (cpu.dnnl runs float).
GEON_CPU_FAMILY(direct_conv);
// random.cc: RandomUniform, RandomNormal (from attributes), their *Like forms, Bernoulli and
// Multinomial.
GEON_CPU_FAMILY(random_attrs);
GEON_CPU_FAMILY(random_like);
GEON_CPU_FAMILY(bernoulli);
GEON_CPU_FAMILY(multinomial);

}  // namespace geon::cpu
