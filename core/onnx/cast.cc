// Cast's saturate and round_mode attributes.
#include "core/onnx/cast.h"

namespace geon::onnx {

Reason cast_options(const Node& n, CastOptions& out) {
  out.saturate = attr_int(n, "saturate", 1) != 0;
  const std::string mode = attr_string(n, "round_mode", "up");
  if (mode == "up")
    out.e8m0_round = E8M0Round::kUp;
  else if (mode == "down")
    out.e8m0_round = E8M0Round::kDown;
  else if (mode == "nearest")
    out.e8m0_round = E8M0Round::kNearest;
  else
    return "Cast round_mode '" + mode + "' is unknown";
  return std::nullopt;
}

}  // namespace geon::onnx
