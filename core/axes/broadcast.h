// Numpy broadcasting turned into axes, for importing ONNX's positional ops (Add, Where, ...).
// ONNX pairs dims by position from the right; geon pairs axes by identity. This rule decides,
// once at import, which positional dims are the same axis and which are stretched, so the
// graph says it explicitly and no kernel re-derives it from shapes.
#pragma once

#include <cstddef>
#include <vector>

#include "core/axes/axes.h"

namespace geon {

// What became of one operand dim. The operands' dims are right-aligned against `out`: dim i of
// operand k sits at out position i + out.size() - operands[k].size(); dims an operand lacks on
// the left are broadcast too (its view is 1-extended there).
enum class BroadcastRole {
  kKept,       // the out axis is this very axis
  kUnified,    // same length as the out axis, which stands for it from now on
  kStretched,  // static length 1 against a longer dim: the view has stride 0 there
};

struct BroadcastAxes {
  Axes out;
  std::vector<std::vector<BroadcastRole>> roles;  // roles[k][i], one per dim of operand k
  // Out positions whose unified lengths could not be proven equal now (a symbol against a
  // number or another symbol, or an unknown): the executor checks them once symbols are bound.
  std::vector<std::size_t> unchecked;
};

// The numpy rule per out position (a "column" of the dims that sit there):
//  - dims of static length 1 are stretched when any other dim in the column is not a static 1
//    (a symbol or unknown length counts as longer: if it turns out to be 1, stride 0 over one
//    element is still right);
//  - the remaining dims must have equal lengths; two different numbers are a geon::Error naming
//    both axes; a pair that is equal only if the symbols say so is unified and listed in
//    `unchecked` (geon does not support a symbol that is 1 at run time against a longer dim);
//  - they unify into one axis: the one whose length is best known (number, then symbol, then
//    unknown), the leftmost operand's on a tie; a column of only 1s keeps the leftmost 1;
//  - if that axis already sits at an earlier (more leading) out position, e.g. x(N,1) * x(1,N),
//    a new axis of its class and length is made with `factory`, since an axis cannot repeat.
BroadcastAxes broadcast_axes(const std::vector<Axes>& operands, AxisFactory& factory);

}  // namespace geon
