// cpu.generic: the one table mapping ONNX ops (and the opset each rule starts at) to kernels
// on the strided-view engine. The elementwise rows come from core/onnx/elementwise.h (the op
// list, with each op's first opset, that cuda builds its rows from too); the other rows are
// listed here. Opset-dependent forms (attribute vs. input parameters) are separate rows; the
// latest row at or below a node's opset applies.
#include <vector>

#include "core/onnx/elementwise.h"
#include "kernels/cpu/generic/families.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/kernel_sets.h"

namespace geon::cpu {
namespace {

const KernelEntry kOther[] = {
    {"", "Identity", 1, supports_identity, create_identity},
    {"", "Cast", 6, supports_cast, create_cast},
    {"", "CastLike", 15, supports_cast_like, create_cast_like},
    {"", "Clip", 6, supports_clip_attr, create_clip_attr},
    {"", "Clip", 11, supports_clip_inputs, create_clip_inputs},
    {"", "ReduceSum", 1, supports_reduce_attr, create_reduce_attr},
    {"", "ReduceSum", 13, supports_reduce_input, create_reduce_input},
    {"", "ReduceMean", 1, supports_reduce_attr, create_reduce_attr},
    {"", "ReduceMean", 18, supports_reduce_input, create_reduce_input},
    {"", "ReduceMax", 1, supports_reduce_attr, create_reduce_attr},
    {"", "ReduceMax", 18, supports_reduce_input, create_reduce_input},
    {"", "ReduceMin", 1, supports_reduce_attr, create_reduce_attr},
    {"", "ReduceMin", 18, supports_reduce_input, create_reduce_input},
    {"", "ReduceProd", 1, supports_reduce_attr, create_reduce_attr},
    {"", "ReduceProd", 18, supports_reduce_input, create_reduce_input},
    {"", "Transpose", 1, supports_transpose, create_transpose},
    {"", "Reshape", 5, supports_reshape, create_reshape},
    {"", "Flatten", 1, supports_flatten, create_flatten},
    {"", "Squeeze", 1, supports_squeeze_attr, create_squeeze_attr},
    {"", "Squeeze", 13, supports_squeeze_input, create_squeeze_input},
    {"", "Unsqueeze", 1, supports_unsqueeze_attr, create_unsqueeze_attr},
    {"", "Unsqueeze", 13, supports_unsqueeze_input, create_unsqueeze_input},
    {"", "Expand", 8, supports_expand, create_expand},
    {"", "Slice", 1, supports_slice_attr, create_slice_attr},
    {"", "Slice", 10, supports_slice_input, create_slice_input},
    {"", "Concat", 4, supports_concat, create_concat},
    {"", "Shape", 1, supports_shape, create_shape},  // start/end (opset 15) read when present
    {"", "Size", 1, supports_size, create_size},
    {"", "Gather", 1, supports_gather, create_gather},
    {"", "ConstantOfShape", 9, supports_constant_of_shape, create_constant_of_shape},
    {"", "Range", 11, supports_range, create_range},
    // Split, Pad, Tile, Dropout: one row each; the kernels read the opset's form (attribute or
    // input parameters, num_outputs, axes, training_mode) from the node.
    {"", "Split", 1, supports_split, create_split},
    {"", "Pad", 1, supports_pad, create_pad},
    {"", "Tile", 1, supports_tile, create_tile},
    {"", "Dropout", 1, supports_dropout, create_dropout},
    {"", "ScatterND", 11, supports_scatter_nd, create_scatter_nd},  // reductions: 16, 18
    {"", "Resize", 10, supports_resize, create_resize},
    {"", "Upsample", 1, supports_resize, create_resize},
    // Normalisations and the softmax family (norm.cc, norm_lrn.cc, softmax.cc): one row per op;
    // the kernels read the opset-dependent forms (BN training_mode, GroupNormalization's scale
    // per group before 21, the softmax 2-D coercion before 13) from the node.
    {"", "BatchNormalization", 1, supports_batch_norm, create_batch_norm},
    {"", "InstanceNormalization", 1, supports_instance_norm, create_instance_norm},
    {"", "GroupNormalization", 18, supports_group_norm, create_group_norm},
    {"", "LayerNormalization", 17, supports_layer_norm, create_layer_norm},
    {"", "RMSNormalization", 23, supports_rms_norm, create_rms_norm},
    {"", "MeanVarianceNormalization", 1, supports_mvn, create_mvn},
    {"", "LpNormalization", 1, supports_lp_norm, create_lp_norm},
    {"", "LRN", 1, supports_lrn, create_lrn},
    {"", "Softmax", 1, supports_softmax, create_softmax},
    {"", "LogSoftmax", 1, supports_softmax, create_softmax},
    {"", "Hardmax", 1, supports_softmax, create_softmax},
    {"geon", "Elementwise", 1, supports_fused_elementwise, create_fused_elementwise},
    // One row per recurrent op serves every version: layout (14) and linear_before_reset
    // (GRU 3) are read when present, and opset 1's output_sequence changes nothing (Y is
    // written whenever it is requested).
    {"", "RNN", 1, supports_rnn, create_rnn},
    {"", "GRU", 1, supports_gru, create_gru},
    {"", "LSTM", 1, supports_lstm, create_lstm},
    {"", "MaxPool", 1, supports_pool, create_pool},
    {"", "AveragePool", 1, supports_pool, create_pool},
    {"", "LpPool", 1, supports_pool, create_pool},
    {"", "GlobalMaxPool", 1, supports_global_pool, create_global_pool},
    {"", "GlobalAveragePool", 1, supports_global_pool, create_global_pool},
    {"", "GlobalLpPool", 1, supports_global_pool, create_global_pool},
    {"", "MaxRoiPool", 1, supports_max_roi_pool, create_max_roi_pool},
    {"", "MaxUnpool", 9, supports_max_unpool, create_max_unpool},
    {"", "MatMul", 1, supports_matmul, create_matmul},  // after cpu.dnnl's float rows
    {"", "Gemm", 7, supports_gemm, create_gemm},
    {"", "Attention", 23, supports_attention, create_attention},  // 24's nonpad_kv_seqlen too
    {"", "RotaryEmbedding", 23, supports_rotary_embedding, create_rotary_embedding},
};

}  // namespace

const KernelSet& generic_kernels() {
  static const std::vector<KernelEntry> entries = [] {
    std::vector<KernelEntry> rows(std::begin(kOther), std::end(kOther));
    for (auto family :
         {training_rows, indexing_rows, layout_rows, signal_rows, ordering_rows, quant_rows,
          vision_rows, attention_rows, text_rows, sequence_rows, maps_rows}) {
      std::span<const KernelEntry> more = family();
      rows.insert(rows.end(), more.begin(), more.end());
    }
    return onnx::with_elementwise_rows(supports_elementwise, create_elementwise, rows);
  }();
  static const KernelSet set{"cpu.generic", Device{DeviceKind::kHost, 0}, entries};
  return set;
}

}  // namespace geon::cpu
