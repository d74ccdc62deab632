// Import rules: the rest of the nn family. NonMaxSuppression (a data-dependent number of
// selected boxes: an axis of unknown length), GridSample and AffineGrid (sampling grids), and
// the losses NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/nn.h"

namespace geon::importer {
namespace {

std::string in_name(int i, const char* name) {
  return "input " + std::to_string(i) + " (" + name + ")";
}

void require_dtype_is(RuleContext& c, int i, const char* name, DType t) {
  if (c.has_input(i) && c.input_dtype(i) != t)
    c.fail(in_name(i, name) + " has dtype " + std::string(dtype_name(c.input_dtype(i))) +
           "; it must be " + std::string(dtype_name(t)));
}

// A scalar input (rank 0, or one element of rank 1 as exporters often write it).
void require_scalar(RuleContext& c, int i, const char* name) {
  if (!c.has_input(i) || !c.input(i).rank_known) return;
  const Value& v = c.input(i);
  if (v.rank() > 1 ||
      (v.rank() == 1 && v.axes[0].length.is_static() && v.axes[0].length.value != 1))
    c.fail(in_name(i, name) + " must be a scalar, it is " + to_string_with_lengths(v.axes));
}

// NonMaxSuppression-10/11: boxes (B, S, 4), scores (B, C, S) -> selected_indices (K, 3) int64
// with K known only at run time.
void non_max_suppression(RuleContext& c) {
  require_arity(c, 5, 1);
  require_dtype_is(c, 0, "boxes", DType::kFloat);
  require_dtype_is(c, 1, "scores", DType::kFloat);
  require_dtype_is(c, 2, "max_output_boxes_per_class", DType::kInt64);
  require_dtype_is(c, 3, "iou_threshold", DType::kFloat);
  require_dtype_is(c, 4, "score_threshold", DType::kFloat);
  const int64_t center = c.attr_int("center_point_box", 0);
  if (center != 0 && center != 1)
    c.fail("attribute 'center_point_box' is " + std::to_string(center) + "; it must be 0 or 1");
  require_rank(c, 0, "boxes", 3);
  require_rank(c, 1, "scores", 3);
  require_scalar(c, 2, "max_output_boxes_per_class");
  require_scalar(c, 3, "iou_threshold");
  require_scalar(c, 4, "score_threshold");
  const Value& boxes = c.input(0);
  const Value& scores = c.input(1);
  if (boxes.rank_known)
    require_same_length(c, boxes.axes[2].length, Length::known(4), "input 0 (boxes) dim 2",
                        "a box");
  if (boxes.rank_known && scores.rank_known) {
    require_same_length(c, scores.axes[0].length, boxes.axes[0].length, "scores' batch count",
                        "boxes'");
    require_same_length(c, scores.axes[2].length, boxes.axes[1].length, "scores' box count (dim 2)",
                        "boxes' (dim 1)");
  }
  const Axis selected = c.new_axis(Length::unknown(), "selected");
  c.set_output(0, DType::kInt64, Axes({selected, c.new_axis(Length::known(3))}));
}

bool grid_sample_data_type(DType t, int opset) {
  switch (t) {
    case DType::kBool:
    case DType::kComplex64:
    case DType::kComplex128:
    case DType::kDouble:
    case DType::kFloat:
    case DType::kFloat16:
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64:
    case DType::kUInt8:
    case DType::kUInt16:
    case DType::kUInt32:
    case DType::kUInt64:
    case DType::kString:
      return true;
    case DType::kBFloat16:
      return opset >= 22;
    default:
      return false;
  }
}

// GridSample: X (N, C, D1, ..., Dr), grid (N, O1, ..., Or, r) -> Y (N, C, O1, ..., Or). Version
// 16 is 2-D only with bilinear/nearest/bicubic; 20 is N-D with linear/nearest/cubic.
void grid_sample(RuleContext& c, bool nd) {
  require_arity(c, 2, 1);
  const DType t = c.input_dtype(0);
  if (!grid_sample_data_type(t, c.opset()))
    c.fail("input 0 (X) has dtype " + std::string(dtype_name(t)) +
           ", which GridSample does not take");
  require_nn_float(c, 1, 22, "grid");
  const std::string mode = c.attr_string("mode", nd ? "linear" : "bilinear");
  const bool mode_ok = nd ? (mode == "linear" || mode == "nearest" || mode == "cubic")
                          : (mode == "bilinear" || mode == "nearest" || mode == "bicubic");
  if (!mode_ok)
    c.fail("attribute 'mode' is '" + mode + "'; it must be " +
           (nd ? "linear, nearest or cubic" : "bilinear, nearest or bicubic"));
  const std::string pad = c.attr_string("padding_mode", "zeros");
  if (pad != "zeros" && pad != "border" && pad != "reflection")
    c.fail("attribute 'padding_mode' is '" + pad + "'; it must be zeros, border or reflection");
  const int64_t align = c.attr_int("align_corners", 0);
  if (align != 0 && align != 1) c.fail("attribute 'align_corners' must be 0 or 1");
  const Value& x = c.input(0);
  const Value& grid = c.input(1);
  if (!nd) {
    require_rank(c, 0, "X", 4);
    require_rank(c, 1, "grid", 4);
  }
  if (x.rank_known && x.rank() < 3)
    c.fail("input 0 (X) has rank " + std::to_string(x.rank()) + "; it must be (N, C, D1, ...)");
  if (x.rank_known && grid.rank_known && grid.rank() != x.rank())
    c.fail("input 1 (grid) has rank " + std::to_string(grid.rank()) + " but X has rank " +
           std::to_string(x.rank()) + "; they must match");
  if (!x.rank_known && !grid.rank_known) {
    c.set_output_unknown_rank(0, t);
    return;
  }
  const int rank = x.rank_known ? x.rank() : grid.rank();
  if (rank < 3)
    c.fail("input 1 (grid) has rank " + std::to_string(rank) + "; it must be (N, O1, ..., r)");
  if (grid.rank_known) {
    require_same_length(c, grid.axes[rank - 1].length, Length::known(rank - 2),
                        "input 1 (grid) last dim", "the number of spatial dims");
    if (x.rank_known)
      require_same_length(c, grid.axes[0].length, x.axes[0].length, "grid's batch size", "X's");
  }
  std::vector<Axis> out;
  out.push_back(x.rank_known ? x.axes[0] : grid.axes[0]);
  out.push_back(x.rank_known ? x.axes[1] : c.new_axis(Length::unknown()));
  for (int i = 1; i < rank - 1; ++i)
    out.push_back(grid.rank_known ? grid.axes[i] : c.new_axis(Length::unknown()));
  c.set_output(0, t, distinct_axes(c, std::move(out)));
}

void grid_sample_16(RuleContext& c) { grid_sample(c, false); }
void grid_sample_20(RuleContext& c) { grid_sample(c, true); }

// AffineGrid-20: theta (N, 2, 3) with size (N, C, H, W) -> (N, H, W, 2); theta (N, 3, 4)
// with size (N, C, D, H, W) -> (N, D, H, W, 3).
void affine_grid(RuleContext& c) {
  require_arity(c, 2, 1);
  require_nn_float(c, 0, 1, "theta");
  const DType t = c.input_dtype(0);
  require_dtype_is(c, 1, "size", DType::kInt64);
  const int64_t align = c.attr_int("align_corners", 0);
  if (align != 0 && align != 1) c.fail("attribute 'align_corners' must be 0 or 1");
  require_rank(c, 0, "theta", 3);
  require_rank(c, 1, "size", 1);
  const Value& theta = c.input(0);
  const auto size = c.contents(1);
  // The number of size entries: from its contents, its length, or theta's matrix.
  int64_t entries = -1;
  const Value& sv = c.input(1);
  if (size)
    entries = static_cast<int64_t>(size->size());
  else if (sv.rank_known && sv.axes[0].length.is_static())
    entries = sv.axes[0].length.value;
  else if (theta.rank_known && theta.axes[1].length.is_static())
    entries = theta.axes[1].length.value + 2;
  if (entries < 0) {
    c.set_output_unknown_rank(0, t);
    return;
  }
  if (entries != 4 && entries != 5)
    c.fail("input 1 (size) must have 4 entries (N, C, H, W) or 5 (N, C, D, H, W), it has " +
           std::to_string(entries));
  const int spatial = static_cast<int>(entries) - 2;
  if (theta.rank_known) {
    require_same_length(c, theta.axes[1].length, Length::known(spatial), "input 0 (theta) dim 1",
                        "the number of spatial dims");
    require_same_length(c, theta.axes[2].length, Length::known(spatial + 1),
                        "input 0 (theta) dim 2", "the number of spatial dims + 1");
  }
  if (size)
    for (const Length& l : *size)
      if (l.is_static() && l.value < 0)
        c.fail("input 1 (size) has a negative length " + std::to_string(l.value));
  std::vector<Axis> out;
  out.push_back(theta.rank_known ? theta.axes[0]
                                 : c.new_axis(size ? (*size)[0] : Length::unknown()));
  if (size && theta.rank_known)
    require_same_length(c, (*size)[0], theta.axes[0].length, "size's N", "theta's batch size");
  for (int i = 0; i < spatial; ++i)
    out.push_back(c.new_axis(size ? (*size)[i + 2] : Length::unknown()));
  out.push_back(c.new_axis(Length::known(spatial)));
  c.set_output(0, t, distinct_axes(c, std::move(out)));
}

// The reduction attribute of the losses; true for 'none'.
bool no_reduction(RuleContext& c) {
  const std::string r = c.attr_string("reduction", "mean");
  if (r != "none" && r != "sum" && r != "mean")
    c.fail("attribute 'reduction' is '" + r + "'; it must be none, sum or mean");
  return r == "none";
}

// Input (N, C, d1, ...) with targets (N, d1, ...) and weights (C): checks, and returns the
// per-element loss axes (the targets' positions).
std::optional<Axes> loss_axes(RuleContext& c, const char* in, const char* target,
                              const char* weight) {
  const auto it = c.input_dtype(1);
  if (it != DType::kInt32 && it != DType::kInt64)
    c.fail(in_name(1, target) + " has dtype " + std::string(dtype_name(it)) +
           "; it must be int32 or int64");
  if (c.has_input(2)) require_same_dtype(c, 2, weight, c.input_dtype(0), in);
  const Value& x = c.input(0);
  const Value& y = c.input(1);
  if (x.rank_known && x.rank() < 2)
    c.fail(in_name(0, in) + " has rank " + std::to_string(x.rank()) +
           "; it must be (N, C) or (N, C, d1, ...)");
  if (x.rank_known && y.rank_known && y.rank() != x.rank() - 1)
    c.fail(in_name(1, target) + " has rank " + std::to_string(y.rank()) + " but " + in +
           " has rank " + std::to_string(x.rank()) + "; it must be one less");
  if (x.rank_known) {
    require_vector_of(c, 2, weight, x.axes[1].length, "the class count (dim 1)");
    if (y.rank_known)
      for (int i = 0; i < y.rank(); ++i) {
        const int xd = i == 0 ? 0 : i + 1;
        require_same_length(c, y.axes[i].length, x.axes[xd].length,
                            in_name(1, target) + " dim " + std::to_string(i),
                            "dim " + std::to_string(xd) + " of " + in);
      }
  }
  if (y.rank_known) return y.axes;
  if (!x.rank_known) return std::nullopt;
  std::vector<Axis> out = {x.axes[0]};
  for (int i = 2; i < x.rank(); ++i) out.push_back(x.axes[i]);
  return Axes(std::move(out));
}

void nll_loss(RuleContext& c) {
  require_arity(c, 3, 1);
  require_nn_float(c, 0, 22, "input");
  const DType t = c.input_dtype(0);
  const bool none = no_reduction(c);
  const auto axes = loss_axes(c, "input", "target", "weight");
  if (!none)
    c.set_output(0, t, Axes());
  else if (axes)
    c.set_output(0, t, *axes);
  else
    c.set_output_unknown_rank(0, t);
}

void softmax_cross_entropy_loss(RuleContext& c) {
  require_arity(c, 3, 2);
  require_nn_float(c, 0, 13, "scores");
  const DType t = c.input_dtype(0);
  const bool none = no_reduction(c);
  const auto axes = loss_axes(c, "scores", "labels", "weights");
  if (!none)
    c.set_output(0, t, Axes());
  else if (axes)
    c.set_output(0, t, *axes);
  else
    c.set_output_unknown_rank(0, t);
  if (c.has_output(1)) same_as_input(c, 0, 1);
}

}  // namespace

std::span<const RuleEntry> nn_misc_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "NonMaxSuppression", 10, non_max_suppression},
      {"", "GridSample", 16, grid_sample_16},
      {"", "GridSample", 20, grid_sample_20},  // N-D; modes linear, nearest, cubic
      {"", "AffineGrid", 20, affine_grid},
      {"", "NegativeLogLikelihoodLoss", 12, nll_loss},
      {"", "SoftmaxCrossEntropyLoss", 12, softmax_cross_entropy_loss},
  };
  return rules;
}

}  // namespace geon::importer
