// cpu.generic: the one table mapping ONNX ops (and the opset each rule starts at) to kernels
// on the strided-view engine. The elementwise rows come from core/onnx/elementwise.h (the op
// list, with each op's first opset, that cuda builds its rows from too); the other rows are
// listed here. Opset-dependent forms (attribute vs. input parameters) are separate rows; the
// latest row at or below a node's opset applies.
#include <vector>

#include "core/onnx/elementwise.h"
#include "kernels/cpu/generic_ops.h"
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
};

}  // namespace

const KernelSet& generic_kernels() {
  static const std::vector<KernelEntry> entries =
      onnx::with_elementwise_rows(supports_elementwise, create_elementwise, kOther);
  static const KernelSet set{"cpu.generic", Device{DeviceKind::kHost, 0}, entries};
  return set;
}

}  // namespace geon::cpu
