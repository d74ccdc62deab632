// Resize and Upsample's arithmetic, kept apart from the kernel's loops (resize.cc): the node's
// settings, a run's output lengths and scales, and for each resized axis the taps (source
// indices and weights) of every output position, from the ONNX formulas (coordinate
// transformation, nearest rounding, linear / cubic / antialiased weights, exclude_outside).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "kernels/cpu/common.h"

namespace geon::cpu::resize {

enum class Mode { kNearest, kLinear, kCubic };
enum class Coord {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize,
};
// kSimple (Resize-10, Upsample): down for an enlarged axis, up for a shrunk one, as ONNX
// Runtime does for the opsets before nearest_mode.
enum class Rounding { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };
enum class Policy { kStretch, kNotLarger, kNotSmaller };

struct Settings {
  Mode mode = Mode::kNearest;
  Coord coord = Coord::kHalfPixel;
  Rounding rounding = Rounding::kRoundPreferFloor;
  Policy policy = Policy::kStretch;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
  double extrapolation = 0;
  std::vector<int64_t> axes;                        // empty: every axis
  int roi_at = -1, scales_at = -1, sizes_at = -1;   // input positions; -1: not in this opset
  std::optional<std::vector<double>> fixed_scales;  // Upsample-1 and -7 (attributes)
};

// Reads a Resize (10..19) or Upsample (1, 7, 9) node into s; a reason when it cannot run.
Reason read_settings(const Node& n, Settings& s);

// The taps of one resized axis: output position y reads index[y * taps + t] with weight
// weight[y * taps + t] (indices already clamped into [0, in_len)); where outside[y] is set
// (tf_crop_and_resize past the input) it is the extrapolation value instead.
struct AxisTaps {
  int axis = 0;
  int64_t in_len = 0, out_len = 0;
  int taps = 1;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<uint8_t> outside;  // empty when no position is outside
  // Each position's taps are consecutive indices (index[y * taps] + t): true unless the axis
  // is shorter than the taps.
  bool consecutive = true;
};

struct Plan {
  std::vector<int64_t> out_shape;
  std::vector<AxisTaps> axes;  // the axes that change, in the order to resize them
};

// A run's plan from the input's shape and the run's roi, scales and sizes (each empty when not
// given; scales wins when both are). Throws geon::Error on inconsistent values. `on_shape`
// sees the output shape before the per-position tables are made: the kernel allocates its
// output there, so that the arena limit refuses a huge output before tables as long as its
// axes are built.
Plan make_plan(const Settings& s, const std::vector<int64_t>& in_shape,
               const std::vector<double>& roi, const std::vector<double>& scales,
               const std::vector<int64_t>& sizes,
               const std::function<void(const std::vector<int64_t>&)>& on_shape = {});

// The source coordinate of output position y along an axis (the ONNX coordinate
// transformation); exposed for the tests.
double source_coordinate(Coord c, double y, double scale, int64_t in_len, int64_t out_len,
                         double roi_start, double roi_end);

}  // namespace geon::cpu::resize
