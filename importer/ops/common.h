// Helpers shared by the rule families: the recurring output patterns (same as an input,
// numpy broadcast) and constant folding through the CPU engine.
#pragma once

#include <string_view>

#include "importer/rule.h"

namespace geon::importer {

// The most dims a rule will make for an output whose rank comes from a declared length (the
// length of a 1-D shape or axes input, which a malformed model may set to anything): above
// it, the rank is left unknown rather than a Length allocated per dim.
inline constexpr int64_t kMaxInferredRank = 1024;

// Output `out` gets input `in`'s dtype (or `dtype` when given) and the very same axes: an
// elementwise unary op does not change which axes a value has.
void same_as_input(RuleContext& c, int in = 0, int out = 0, DType dtype = DType::kUndefined);

// Output 0 is the numpy broadcast of all present inputs, with dtype `dtype`.
void broadcast_output(RuleContext& c, DType dtype);

// Requires inputs (all present ones when `which` is empty) to share one dtype; returns it.
DType common_dtype(RuleContext& c, std::initializer_list<int> which = {});

// Requires input i's dtype to be one of `allowed`, naming the input and the dtype otherwise.
void require_dtype(RuleContext& c, int i, std::initializer_list<DType> allowed);
bool is_float_type(DType t);  // float, double, float16, bfloat16

// When every input is constant, evaluates the engine op `engine_op` (a name from
// core/engine/ops.h) over them into output 0, which must already have static axes.
void fold_elementwise(RuleContext& c, std::string_view engine_op, double scale_a = 1,
                      double scale_b = 1);
// Folds output 0 as a cast of constant input 0 to output 0's dtype.
void fold_cast(RuleContext& c);

// Output axes assembled from operands' axes (gathered, contracted, ...) may name one axis
// twice, e.g. MatMul(x, transpose(x)) or Gather(x, i) where i shares an axis with x. An axis
// cannot repeat, so every repeat after the first becomes a new axis of its class and length.
Axes distinct_axes(RuleContext& c, std::vector<Axis> axes);

// Fails naming `what` and `other` when two lengths are provably different (two different
// numbers); equal or undecided (symbols, unknown) lengths pass, to be checked at run time.
void require_same_length(RuleContext& c, const Length& a, const Length& b, const std::string& what,
                         const std::string& other);

// Whether a folded output of n elements of dtype t is within the importer's folding limit,
// checked before allocating it.
bool fits_folding(RuleContext& c, DType t, int64_t n);
bool fits_folding(RuleContext& c, DType t, const Dims& shape);  // false on overflow too

}  // namespace geon::importer
