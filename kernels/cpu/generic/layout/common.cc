// Helpers the layout family's kernels share: which dtypes a pure rearrangement accepts (every
// one the engine's assign moves, complex included) and shapes as text for error messages.
#include <string>

#include "kernels/cpu/generic/layout/ops.h"

namespace geon::cpu {

Reason layout_movable_reason(DType t, std::string_view what) {
  if (t == DType::kUndefined) return std::string(what) + " has no known dtype";
  if (!is_numeric(t))
    return std::string(what) + " is " + std::string(dtype_name(t)) +
           ", which the engine's assign does not move";
  return std::nullopt;
}

std::string layout_dims_text(const Dims& d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + ")";
}

}  // namespace geon::cpu
