// Shape computations at import (Shape -> Gather -> Unsqueeze -> Concat -> Reshape ...): the
// entries of small integer tensors, each a number or a symbolic length, carried in
// Value::contents so that a Reshape or Expand fed by them gets the input's symbolic lengths.
// When every entry is a number the value's data is set too, so the usual folding takes over.
// These helpers are for any family's rules (Gather in indexing, Cast and arithmetic in
// elementwise); call them after the rule has set the output's dtype and axes.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "importer/rule.h"

namespace geon::importer {

// Contents are tracked for tensors of at most this many entries (RuleContext's limit).
inline constexpr int64_t kMaxEntries = 1024;

// A static entry; unlike Length::known it may be negative (entries are numbers).
Length entry(int64_t v);
bool all_static(std::span<const Length> entries);

// Row-major integer (or bool) data of dtype t and this shape from values; null when t is not
// an integer or bool type or the element count differs.
std::shared_ptr<TensorData> int_data(DType t, const Dims& shape, std::span<const int64_t> values);

// Sets output `out`'s contents (row-major entries, as many as its elements). When every entry
// is static and the output's shape is static, also sets its data. Does nothing when the
// output is not an integer tensor or its element count is known to differ.
void set_contents(RuleContext& c, int out, std::vector<Length> entries);

// The product of lengths as one length: a number when all are static, the one symbol when
// the rest multiply to 1, 0 when any is a static 0; unknown otherwise.
Length product(std::span<const Length> lengths);

// ---- for other families' rules --------------------------------------------------------------
// Gather from a shape tensor: output 0's contents are input 0's entries picked by constant
// indices (input 1, any rank; negative indices count from the end). Applies when input 0 has
// rank 1 (so `axis`, the op's attribute, is 0 or -1); a no-op when anything is unknown or an
// index is out of range (the Gather rule reports that).
void gather_contents(RuleContext& c, int axis);
// Cast to an integer type: output 0's contents are input 0's (static entries converted to the
// output dtype, with its wrap-around). No-op for non-integer outputs or unknown contents.
void cast_contents(RuleContext& c);
// Elementwise integer arithmetic on shape entries (Add, Sub, Mul, Div with numpy broadcasting
// of two rank <= 1 inputs): numbers are computed; a symbol survives x+0, x-0, x*1, x/1 and
// x-x gives 0, x*0 gives 0; anything else gives an unknown entry.
enum class ContentsOp { kAdd, kSub, kMul, kDiv };
void binary_contents(RuleContext& c, ContentsOp op);

}  // namespace geon::importer
