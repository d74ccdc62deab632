// The strided-view engine on CUDA: the CPU engine's entry points (core/engine/engine.h) with
// the same descriptions, op names, broadcasting, reductions and casts, over device memory.
// Operands' data are device pointers on opt.device (scalar operands made with
// ConstOperand::scalar are fine as inputs). Work is queued on opt.stream and the calls return
// without waiting, except the host<->device assign, which returns once host memory is no
// longer needed. Inputs are never modified; an input overlapping the destination other than
// as the very same view is copied first. Reductions are deterministic: the same inputs give
// bit-identical results run after run on the same device model (no floating-point atomics).
// Every function throws geon::Error(kDeviceUnavailable), with the reason, when CUDA is not
// usable in this process.
#pragma once

#include <span>
#include <string_view>

#include "core/buffer/buffer.h"
#include "core/engine/engine.h"
#include "kernels/cuda/stream.h"

namespace geon::cuda {

// Evaluates `expr` over `inputs` into `dst` (see geon::evaluate). Expressions of up to
// kMaxNodes (16) nodes; more give kNotSupported.
void evaluate(const Expr& expr, const Operand& dst, std::span<const ConstOperand> inputs,
              Reduce reduce = Reduce::kNone, const Options& opt = {});

// y = op(a*x), y = op(a*x, b*z), y = op(x, y, z), as on the CPU.
void unary(std::string_view op, const Operand& dst, const ConstOperand& x, double a = 1,
           const Options& opt = {});
void binary(std::string_view op, const Operand& dst, const ConstOperand& x, const ConstOperand& z,
            double a = 1, double b = 1, const Options& opt = {});
void ternary(std::string_view op, const Operand& dst, const ConstOperand& x, const ConstOperand& y,
             const ConstOperand& z, const Options& opt = {});
// dst = reduction of src over the dims where dst is shorter (length 1, or a divisor: tiles).
void reduce(Reduce r, const Operand& dst, const ConstOperand& src, const Options& opt = {});
// dst = src converted to dst's dtype, broadcasting src to dst's shape; both on the device.
void assign(const Operand& dst, const ConstOperand& src, const Options& opt = {});

// assign across devices: each side is on the device named (host, or cuda:N with N the same
// on both sides when both are CUDA). The dtype conversion runs on whichever side keeps the
// transfer smaller; broadcasting and strides are allowed on both sides. Returns once host
// memory may be reused (host->device) or holds the result (device->host).
void assign(const Operand& dst, Device dst_device, const ConstOperand& src, Device src_device,
            const Options& opt = {});

}  // namespace geon::cuda
