// The shape family's parts (one concept per file) and the small helpers they share. Only the
// shape_*.cc files include this; shape_rules() in shape.cc joins the parts.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "importer/rule.h"

namespace geon::importer {

std::span<const RuleEntry>
shape_source_rules();  // Constant, Shape, Size, ConstantOfShape, Range, EyeLike
std::span<const RuleEntry>
shape_view_rules();  // Identity, Reshape, Flatten, Squeeze, Unsqueeze, Transpose
std::span<const RuleEntry> shape_slice_rules();   // Slice, Split, Concat
std::span<const RuleEntry> shape_extend_rules();  // Pad, Tile, Expand, CenterCropPad
std::span<const RuleEntry> shape_layout_rules();  // DepthToSpace, SpaceToDepth, Trilu, Col2Im
std::span<const RuleEntry> shape_resize_rules();  // Resize, Upsample

// Normalizes a list of axes against rank: each in [-rank, rank), none twice. Errors name
// `what`. Negative axes are accepted at every opset: ONNX documents them from opset 11, but
// models exported for older opsets use them (pytorch-converted GLU: Split-6 on axis -1) and
// ONNX Runtime accepts them, so the older rules do too.
std::vector<int> normalize_axes(const RuleContext& c, std::span<const int64_t> axes, int rank,
                                std::string_view what);

// Fresh axes with these lengths; a negative static entry is an Error naming `what`.
Axes axes_from_entries(RuleContext& c, std::span<const Length> entries, std::string_view what);

// Output i keeps input 0's rank with every length unknown (or unknown rank).
void unknown_lengths_like_input(RuleContext& c, int out, DType t);

// "[1, 2, 3]" for messages.
std::string list_string(std::span<const int64_t> v);

}  // namespace geon::importer
