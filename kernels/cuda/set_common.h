// What the cuda set's op families share: the refusal when CUDA is unusable, the CUDA op
// table's dtype coverage, and a Kernel made from a function that runs on the device the
// tensors live on and waits for its work before returning (the executor is synchronous).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/onnx/node.h"
#include "core/runtime/kernel.h"
#include "kernels/cuda/engine.h"

namespace geon::cuda {

using Reason = onnx::Reason;

// The probe's reason when CUDA is unusable in this process, else nullopt.
Reason unavailable_reason();
// A reason unless the CUDA engine has `op` for values stored as t.
Reason check_cuda_op(std::string_view op, DType t);
// Both of the common checks of an assign-shaped node: CUDA usable, engine dtypes throughout.
Reason check_device_io(const Graph& g, const Node& n);

// A kernel whose compute is fn(ctx, opt): opt names the CUDA device of the node's first input
// in CUDA memory and the stream the engine calls queue on; compute waits for that stream
// before it returns, and errors leave it prefixed with the node's op and name.
using DeviceFn = std::function<void(KernelContext& ctx, const Options& opt)>;
std::unique_ptr<Kernel> make_device_kernel(const Node& n, DeviceFn fn);

// Operands over tensors on opt's device; throws geon::Error naming `what` when t is elsewhere.
ConstOperand device_src(const TensorRef& t, const Options& opt, std::string_view what);
Operand device_dst(const TensorRef& t, const Options& opt, std::string_view what);

}  // namespace geon::cuda
