// ONNX's elementwise ops as strided-view engine expressions: the one table from ONNX op names
// (and the opset each rule starts at) to engine op names, the attribute-selected variants,
// and the fused expression a node evaluates (variadic Sum/Mean/Max/Min as one expression, so
// no intermediate reaches memory). cpu.generic and cuda both build their kernels from it.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine/engine.h"
#include "core/onnx/legacy_broadcast.h"
#include "core/onnx/node.h"
#include "core/runtime/kernel.h"

namespace geon::onnx {

enum class EwShape { kUnary, kBinary, kVariadic, kWhere };

struct ElementwiseOp {
  std::string_view onnx;
  int since;  // the first opset whose semantics this row implements
  std::string_view engine;
  EwShape shape;
  std::string_view alpha = {};  // the attribute holding OpParams::alpha, if any
  float alpha_default = 0;
  std::string_view beta = {};  // the attribute holding OpParams::beta, if any
  float beta_default = 0;
};

std::span<const ElementwiseOp> elementwise_ops();
// The row for an ONNX op name (default domain), or null.
const ElementwiseOp* find_elementwise(std::string_view onnx_op);

// A kernel set's table: one row per elementwise_ops() op, from its first opset, bound to the
// set's elementwise family, then the set's `others`; so every set takes the elementwise ops
// and their opsets from the one list above.
std::vector<KernelEntry> with_elementwise_rows(decltype(KernelEntry::supports) supports,
                                               decltype(KernelEntry::create) create,
                                               std::span<const KernelEntry> others);

// What one node computes: its engine op with attribute variants resolved (Mod's fmod,
// BitShift's direction), the op's parameter, and whether the result is divided by the number
// of inputs (Mean).
struct ElementwiseSpec {
  std::string engine_op;
  EwShape shape = EwShape::kUnary;
  OpParams params{};
  bool mean = false;
  LegacyBroadcast legacy;  // opset < 7 binary ops: how B aligns with A
};
// Throws geon::Error (kNotSupported) unless find_elementwise(n.op) has a row.
ElementwiseSpec elementwise_spec(const Node& n);

// Whether a backend's engine has `op` for values stored as t (nullopt) or why not.
using EngineOpCheck = Reason (*)(std::string_view op, DType t);

// Why a kernel set (named `set` in the message) cannot run n as an elementwise node, or
// nullopt: unknown op, operand count, dtypes, attribute values the engines do not implement,
// and the backend's op coverage through has_op.
Reason elementwise_reason(const Graph& g, const Node& n, std::string_view set,
                          EngineOpCheck has_op);

// The expression of spec over the node's present inputs, whose dtypes are `inputs`.
Expr elementwise_expr(const ElementwiseSpec& spec, std::span<const DType> inputs);

// The present inputs of a kernel call as engine operands, and their broadcast shape (the
// output's shape).
struct ElementwiseInputs {
  std::vector<ConstOperand> srcs;
  std::vector<DType> dtypes;
  Dims shape;
};
ElementwiseInputs elementwise_inputs(const KernelContext& ctx);
// The same with spec's legacy (opset < 7) broadcast applied to the second operand.
ElementwiseInputs elementwise_inputs(const KernelContext& ctx, const ElementwiseSpec& spec);

}  // namespace geon::onnx
