// ONNX's pre-opset-7 broadcast of binary ops (Add/Sub/Mul/Div/Pow with `broadcast`/`axis`,
// PRelu-1/6's per-channel slope): B is re-viewed so that the engines' numpy broadcast against
// A gives the legacy alignment; cpu.generic and cuda apply it to their operands.
#pragma once

#include <cstdint>
#include <string>

#include "core/desc/desc.h"
#include "core/onnx/node.h"

namespace geon::onnx {

struct LegacyBroadcast {
  bool on = false;         // the node has legacy semantics (binary op below opset 7)
  bool broadcast = false;  // the `broadcast` attribute is 1 (PRelu: always)
  bool has_axis = false;   // `axis` is set: B aligns with A's dims from there
  int64_t axis = 0;
  bool channel = false;  // PRelu: a vector slope of A's dim 1 length is per channel
  std::string op;        // for messages
};

// The legacy rule a node follows (on = false for opset >= 7 and for other ops).
LegacyBroadcast legacy_broadcast(const Node& n);

// B as a view that numpy-broadcasts against A's shape as the legacy rule aligns it: B's dims
// matched to A's from `axis` (default: A's trailing dims), trailing length-1 dims appended.
// Throws geon::Error when broadcast = 0 and the shapes differ, or when B does not fit A there.
TensorDesc legacy_operand(const LegacyBroadcast& lb, const TensorDesc& a, const TensorDesc& b);

}  // namespace geon::onnx
