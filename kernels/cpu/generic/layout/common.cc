// Helpers the layout family's kernels share: which dtypes a pure rearrangement accepts (every
// one the engine's assign moves, complex and string included), the "zero" a masked or padded
// element becomes, and shapes as text for error messages.
#include <string>

#include "core/strings/strings.h"
#include "kernels/cpu/generic/layout/ops.h"

namespace geon::cpu {

Reason layout_movable_reason(DType t, std::string_view what) {
  if (t == DType::kUndefined) return std::string(what) + " has no known dtype";
  if (!is_numeric(t) && t != DType::kString)
    return std::string(what) + " is " + std::string(dtype_name(t)) +
           ", which the engine's assign does not move";
  return std::nullopt;
}

ConstOperand layout_zero(DType t) {
  // The empty string: a null handle of size 0 (core/strings), never written through.
  static const StringElem kEmpty{};
  if (t == DType::kString) return ConstOperand(row_major(DType::kString, {}), &kEmpty);
  return ConstOperand::scalar(0, DType::kFloat);
}

std::string layout_dims_text(const Dims& d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + ")";
}

}  // namespace geon::cpu
