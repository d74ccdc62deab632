// Helpers of the elementwise and quantization families: dtype sets that change with the opset
// (each op's type constraints, per ONNX schema version), expression folding through the CPU
// engine for ops that are several engine ops, and the entries of small shape-like integer
// tensors (Shape -> Cast -> Mul ...) carried through elementwise arithmetic.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "core/engine/expr.h"
#include "importer/rule.h"

namespace geon::importer {

// ---- dtype sets ------------------------------------------------------------------------------
using TypeSet = uint32_t;  // bit k set: DType k allowed
constexpr TypeSet type_bit(DType t) { return TypeSet{1} << static_cast<int>(t); }
constexpr TypeSet type_set(std::initializer_list<DType> ts) {
  TypeSet s = 0;
  for (DType t : ts) s |= type_bit(t);
  return s;
}
inline constexpr TypeSet kFloat3 = type_set({DType::kFloat16, DType::kFloat, DType::kDouble});
inline constexpr TypeSet kFloat4 = kFloat3 | type_bit(DType::kBFloat16);
inline constexpr TypeSet kSigned4 =
    type_set({DType::kInt8, DType::kInt16, DType::kInt32, DType::kInt64});
inline constexpr TypeSet kUnsigned4 =
    type_set({DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64});
inline constexpr TypeSet kInts8 = kSigned4 | kUnsigned4;
inline constexpr TypeSet kInt32_64 =
    type_set({DType::kInt32, DType::kInt64, DType::kUInt32, DType::kUInt64});
inline constexpr TypeSet kFloat8 = type_set(
    {DType::kFloat8E4M3FN, DType::kFloat8E4M3FNUZ, DType::kFloat8E5M2, DType::kFloat8E5M2FNUZ});
inline constexpr TypeSet kBoolSet = type_bit(DType::kBool);
inline constexpr TypeSet kStringSet = type_bit(DType::kString);

// The dtypes an op accepts from opset `since` on (until the next step).
struct TypeStep {
  int since;
  TypeSet types;
};
// The set of the last step whose `since` <= opset (the first step's set below all of them).
TypeSet types_at(std::span<const TypeStep> steps, int opset);
// Requires input i's dtype to be in `allowed`; an input whose dtype is not known yet
// (undefined) passes. The message names the input, its dtype and the accepted ones.
void require_types(RuleContext& c, int i, TypeSet allowed, std::string_view role = {});
std::string type_set_names(TypeSet s);

// Requires between `lo` and `hi` inputs (counting omitted optional ones by position), each a
// tensor (not a sequence, optional or map).
void require_input_count(RuleContext& c, int lo, int hi);
void require_tensor_inputs(RuleContext& c);

// ---- folding -----------------------------------------------------------------------------------
// When every present input is constant (or an integer tensor whose entries are all known),
// evaluates an expression over them into output 0, which must already have static axes and
// its dtype. `build` gets one argument per present input, then one per `scalars` entry (rank-0
// constants in the compute type of input 0's dtype), and returns the expression's value.
// Silently does nothing when the engine cannot evaluate it (the value is computed at run time).
using ExprFn = std::function<ExprArg(ExprBuilder&, std::span<const ExprArg>)>;
void fold_expr(RuleContext& c, const ExprFn& build, std::vector<double> scalars = {});

// ---- shape-like entries ------------------------------------------------------------------------
// Entries of a small integer or bool tensor (see shape_contents.h) pushed through a two-input
// elementwise op with numpy broadcasting of rank <= 1 inputs: `combine` gets each pair and
// returns the result entry (unknown when not expressible). Sets output 0's contents (and its
// data when all entries are numbers); a no-op when any input's entries are unknown.
using EntryFn = std::function<Length(const Length&, const Length&)>;
void binary_entries(RuleContext& c, int in_a, int in_b, const EntryFn& combine);

// ---- legacy broadcasting -------------------------------------------------------------------
// Opset < 7 binary ops: with broadcast=1, B's dims match A's starting at `axis` (default:
// B is A's suffix); without it, B has A's shape. Sets output 0 to A's axes and dtype `dtype`.
void legacy_broadcast_output(RuleContext& c, DType dtype);

// The parts joined into elementwise_rules() and quantization_rules().
std::span<const RuleEntry> elementwise_unary_rules();
std::span<const RuleEntry> elementwise_activation_rules();
std::span<const RuleEntry> elementwise_binary_rules();
std::span<const RuleEntry> elementwise_select_cast_rules();
std::span<const RuleEntry>
quantization_conv_matmul_rules();  // QLinearConv, *Integer, QLinearMatMul

}  // namespace geon::importer
