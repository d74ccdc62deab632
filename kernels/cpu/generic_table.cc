// cpu.generic: the one table mapping ONNX ops (and the opset each rule starts at) to kernels
// on the strided-view engine. Opset-dependent forms (attribute vs. input parameters) are
// separate rows; the latest row at or below a node's opset applies.
#include "kernels/cpu/generic_ops.h"
#include "kernels/cpu/kernel_sets.h"

namespace geon::cpu {
namespace {

const KernelEntry kGeneric[] = {
    {"", "Abs", 6, supports_elementwise, create_elementwise},
    {"", "Neg", 6, supports_elementwise, create_elementwise},
    {"", "Sign", 9, supports_elementwise, create_elementwise},
    {"", "Relu", 6, supports_elementwise, create_elementwise},
    {"", "Not", 1, supports_elementwise, create_elementwise},
    {"", "BitwiseNot", 18, supports_elementwise, create_elementwise},
    {"", "Exp", 6, supports_elementwise, create_elementwise},
    {"", "Log", 6, supports_elementwise, create_elementwise},
    {"", "Sqrt", 6, supports_elementwise, create_elementwise},
    {"", "Reciprocal", 6, supports_elementwise, create_elementwise},
    {"", "Sin", 7, supports_elementwise, create_elementwise},
    {"", "Cos", 7, supports_elementwise, create_elementwise},
    {"", "Tan", 7, supports_elementwise, create_elementwise},
    {"", "Asin", 7, supports_elementwise, create_elementwise},
    {"", "Acos", 7, supports_elementwise, create_elementwise},
    {"", "Atan", 7, supports_elementwise, create_elementwise},
    {"", "Sinh", 9, supports_elementwise, create_elementwise},
    {"", "Cosh", 9, supports_elementwise, create_elementwise},
    {"", "Asinh", 9, supports_elementwise, create_elementwise},
    {"", "Acosh", 9, supports_elementwise, create_elementwise},
    {"", "Atanh", 9, supports_elementwise, create_elementwise},
    {"", "Tanh", 6, supports_elementwise, create_elementwise},
    {"", "Erf", 9, supports_elementwise, create_elementwise},
    {"", "Floor", 6, supports_elementwise, create_elementwise},
    {"", "Ceil", 6, supports_elementwise, create_elementwise},
    {"", "Round", 11, supports_elementwise, create_elementwise},
    {"", "Sigmoid", 6, supports_elementwise, create_elementwise},
    {"", "Softplus", 1, supports_elementwise, create_elementwise},
    {"", "Softsign", 1, supports_elementwise, create_elementwise},
    {"", "IsNaN", 9, supports_elementwise, create_elementwise},
    {"", "IsInf", 10, supports_elementwise, create_elementwise},
    {"", "LeakyRelu", 6, supports_elementwise, create_elementwise},
    {"", "Elu", 6, supports_elementwise, create_elementwise},
    {"", "Add", 7, supports_elementwise, create_elementwise},
    {"", "Sub", 7, supports_elementwise, create_elementwise},
    {"", "Mul", 7, supports_elementwise, create_elementwise},
    {"", "Div", 7, supports_elementwise, create_elementwise},
    {"", "Pow", 7, supports_elementwise, create_elementwise},
    {"", "Mod", 10, supports_elementwise, create_elementwise},
    {"", "PRelu", 7, supports_elementwise, create_elementwise},
    {"", "Equal", 7, supports_elementwise, create_elementwise},
    {"", "Less", 7, supports_elementwise, create_elementwise},
    {"", "LessOrEqual", 12, supports_elementwise, create_elementwise},
    {"", "Greater", 7, supports_elementwise, create_elementwise},
    {"", "GreaterOrEqual", 12, supports_elementwise, create_elementwise},
    {"", "And", 7, supports_elementwise, create_elementwise},
    {"", "Or", 7, supports_elementwise, create_elementwise},
    {"", "Xor", 7, supports_elementwise, create_elementwise},
    {"", "BitwiseAnd", 18, supports_elementwise, create_elementwise},
    {"", "BitwiseOr", 18, supports_elementwise, create_elementwise},
    {"", "BitwiseXor", 18, supports_elementwise, create_elementwise},
    {"", "BitShift", 11, supports_elementwise, create_elementwise},
    {"", "Sum", 6, supports_elementwise, create_elementwise},
    {"", "Mean", 6, supports_elementwise, create_elementwise},
    {"", "Max", 6, supports_elementwise, create_elementwise},
    {"", "Min", 6, supports_elementwise, create_elementwise},
    {"", "Where", 9, supports_elementwise, create_elementwise},
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
    {"", "Constant", 1, supports_constant, create_constant},
};

}  // namespace

const KernelSet& generic_kernels() {
  static const KernelSet set{"cpu.generic", Device{DeviceKind::kHost, 0}, kGeneric};
  return set;
}

}  // namespace geon::cpu
