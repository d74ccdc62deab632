// cuda: the one table mapping ONNX ops (and the opset each rule starts at) to kernels on the
// CUDA engine. The elementwise rows come from core/onnx/elementwise.h, the table cpu.generic
// also builds its elementwise kernels from; the other rows are listed here.
#include <vector>

#include "core/onnx/elementwise.h"
#include "kernels/cuda/allocator.h"
#include "kernels/cuda/device.h"
#include "kernels/cuda/device_copy.h"
#include "kernels/cuda/kernel_set.h"
#include "kernels/cuda/set_ops.h"

namespace geon::cuda {
namespace {

const KernelEntry kOther[] = {
    {"", "Identity", 1, supports_identity, create_identity},
    {"", "Cast", 6, supports_cast, create_cast},
    {"", "CastLike", 15, supports_cast_like, create_cast_like},
    {"", "Transpose", 1, supports_transpose, create_transpose},
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
};

}  // namespace

const KernelSet& kernel_set() {
  static const std::vector<KernelEntry> entries =
      onnx::with_elementwise_rows(supports_elementwise, create_elementwise, kOther);
  static const KernelSet set = [] {
    install_device_copy();
    // The executor finds device memory through core's registry; the pool registers itself
    // when first created, so create it before anyone asks.
    if (cached_availability().available) allocator(0);
    return KernelSet{"cuda", Device{DeviceKind::kCuda, 0}, entries};
  }();
  return set;
}

}  // namespace geon::cuda
