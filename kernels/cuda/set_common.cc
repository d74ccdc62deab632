// The cuda set's shared checks and the device kernel wrapper.
#include "kernels/cuda/set_common.h"

#include "core/base/error.h"
#include "kernels/cuda/device.h"
#include "kernels/cuda/op_table.h"

namespace geon::cuda {
namespace {

class DeviceKernel final : public Kernel {
 public:
  DeviceKernel(std::string label, DeviceFn fn) : label_(std::move(label)), fn_(std::move(fn)) {}

  void compute(KernelContext& ctx) const override {
    // The device of the first input in CUDA memory. Only the operands a family reads are
    // checked (device_src/device_dst), so parameter inputs the executor keeps on the host
    // (constant axes) do not matter.
    Options opt;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const TensorRef& t = ctx.input(i);
      if (t.data != nullptr && t.device.kind == DeviceKind::kCuda) {
        opt.device = t.device.index;
        break;
      }
    }
    // The legacy default stream: the executor's allocations through the pool are ordered on
    // it, and it orders this work after whatever wrote the inputs.
    opt.stream = nullptr;
    try {
      fn_(ctx, opt);
    } catch (const Error& e) {
      try {
        synchronize(opt);  // nothing queued may outlive the call that queued it
      } catch (const Error&) {
        // The first error is the one to report.
      }
      fail(e.code(), label_ + ": " + e.what());
    }
    synchronize(opt);
  }

 private:
  std::string label_;  // "cuda Add (node 'add_1')", for error messages
  DeviceFn fn_;
};

void require_on(const TensorRef& t, const Options& opt, std::string_view what) {
  if (t.data == nullptr && element_count(t.desc) == 0) return;  // nothing to address
  if (t.device.kind != DeviceKind::kCuda || t.device.index != opt.device)
    fail(ErrorCode::kInvalidArgument, std::string(what) + " is on " + to_string(t.device) +
                                          ", expected cuda:" + std::to_string(opt.device));
}

}  // namespace

Reason unavailable_reason() {
  const Availability& a = cached_availability();
  if (a.available) return std::nullopt;
  return "CUDA is not usable: " + a.reason;
}

Reason check_cuda_op(std::string_view op, DType t) {
  if (Reason r = onnx::engine_dtype_reason(t, "the input")) return r;
  const CudaOpDef* def = find_op(op);
  if (!def) return "the CUDA engine has no op " + std::string(op);
  if (!def->types[compute_index(compute_dtype(t))])
    return "the CUDA engine's " + std::string(op) + " does not exist for " +
           std::string(dtype_name(t));
  return std::nullopt;
}

Reason check_device_io(const Graph& g, const Node& n) {
  if (Reason r = unavailable_reason()) return r;
  if (!onnx::has_input(n, 0)) return n.op + " needs its first input";
  return onnx::engine_io_reason(g, n);
}

std::unique_ptr<Kernel> make_device_kernel(const Node& n, DeviceFn fn) {
  return std::make_unique<DeviceKernel>("cuda " + n.op + " (node '" + n.name + "')", std::move(fn));
}

ConstOperand device_src(const TensorRef& t, const Options& opt, std::string_view what) {
  require_on(t, opt, what);
  return ConstOperand(t.desc, t.data);
}

Operand device_dst(const TensorRef& t, const Options& opt, std::string_view what) {
  require_on(t, opt, what);
  return Operand{t.desc, t.data};
}

}  // namespace geon::cuda
