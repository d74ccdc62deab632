// Helpers shared by the rule families: the recurring output patterns (same as an input,
// numpy broadcast) and constant folding through the CPU engine.
#pragma once

#include <string_view>

#include "importer/rule.h"

namespace geon::importer {

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

}  // namespace geon::importer
