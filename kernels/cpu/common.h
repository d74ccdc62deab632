// Helpers shared by the CPU kernel families: the node readers of core/onnx/node.h brought into
// this namespace, CPU engine checks, TensorRefs as engine operands, and a Kernel made from a
// function, so each family file holds only its ONNX semantics.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/engine.h"
#include "core/graph/graph.h"
#include "core/onnx/node.h"
#include "core/runtime/kernel.h"

namespace geon::cpu {

using Reason = onnx::Reason;

// A kernel whose compute is a stored function (the function captures what create() decided).
// `packed` lists the constant inputs it holds a packed copy of (Kernel::packed_inputs).
class FnKernel : public Kernel {
 public:
  using Fn = std::function<void(KernelContext&)>;
  explicit FnKernel(Fn fn, std::vector<int> packed = {})
      : fn_(std::move(fn)), packed_(std::move(packed)) {}
  void compute(KernelContext& ctx) const override { fn_(ctx); }
  std::span<const int> packed_inputs() const override { return packed_; }

 private:
  Fn fn_;
  std::vector<int> packed_;
};
inline std::unique_ptr<Kernel> make_kernel(FnKernel::Fn fn, std::vector<int> packed = {}) {
  return std::make_unique<FnKernel>(std::move(fn), std::move(packed));
}

// The node readers every kernel set shares (attributes with ONNX defaults, given inputs, their
// dtypes, constant integer inputs, the engine dtype rule), by their unqualified names.
using onnx::attr_float;
using onnx::attr_int;
using onnx::attr_ints;
using onnx::attr_string;
using onnx::constant_ints;
using onnx::engine_dtype_reason;
using onnx::has_input;
using onnx::input_dtype;
using onnx::output_dtype;

// A reason unless input i is absent or a constant (parameter inputs such as shape and axes).
Reason require_constant(const Graph& g, const Node& n, int i, std::string_view what);
// A reason unless the engine op `op` exists for the compute type of t.
Reason check_engine_op(std::string_view op, DType t);

// The entry points of one op family, as a kernel table row binds them: supports_<name> (nullopt
// or why not) and create_<name>. Each family's ops.h declares its families with this.
#define GEON_CPU_FAMILY(name)                            \
  Reason supports_##name(const Graph& g, const Node& n); \
  std::unique_ptr<Kernel> create_##name(const Graph& g, const Node& n)

inline ConstOperand src_of(const TensorRef& t) { return ConstOperand(t.desc, t.data); }
inline Operand dst_of(const TensorRef& t) { return Operand{t.desc, t.data}; }

}  // namespace geon::cpu
