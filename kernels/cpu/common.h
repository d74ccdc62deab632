// Helpers shared by the CPU kernel families: reading a node's attributes and constant inputs,
// turning TensorRefs into engine operands, and a Kernel made from a function, so each family
// file holds only its ONNX semantics.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/engine.h"
#include "core/graph/graph.h"
#include "core/runtime/kernel.h"

namespace geon::cpu {

using Reason = std::optional<std::string>;

// A kernel whose compute is a stored function (the function captures what create() decided).
class FnKernel : public Kernel {
 public:
  using Fn = std::function<void(KernelContext&)>;
  explicit FnKernel(Fn fn) : fn_(std::move(fn)) {}
  void compute(KernelContext& ctx) const override { fn_(ctx); }

 private:
  Fn fn_;
};
inline std::unique_ptr<Kernel> make_kernel(FnKernel::Fn fn) {
  return std::make_unique<FnKernel>(std::move(fn));
}

// Attribute values with ONNX defaults.
int64_t attr_int(const Node& n, std::string_view name, int64_t dflt);
float attr_float(const Node& n, std::string_view name, float dflt);
std::string attr_string(const Node& n, std::string_view name, std::string dflt);
std::optional<std::vector<int64_t>> attr_ints(const Node& n, std::string_view name);

// Whether input i is given (present and not an omitted optional).
bool has_input(const Node& n, int i);
DType input_dtype(const Graph& g, const Node& n, int i);
DType output_dtype(const Graph& g, const Node& n, int i);

// The contents of a constant integer input, or nullopt when it is not a constant.
std::optional<std::vector<int64_t>> constant_ints(const Graph& g, const Node& n, int i);
// A reason unless input i is absent or a constant (parameter inputs such as shape and axes).
Reason require_constant(const Graph& g, const Node& n, int i, std::string_view what);
// A reason unless the engine computes in dtype t (string and complex are refused).
Reason check_engine_dtype(DType t, std::string_view what);
// A reason unless the engine op `op` exists for the compute type of t.
Reason check_engine_op(std::string_view op, DType t);

inline ConstOperand src_of(const TensorRef& t) { return ConstOperand(t.desc, t.data); }
inline Operand dst_of(const TensorRef& t) { return Operand{t.desc, t.data}; }

}  // namespace geon::cpu
