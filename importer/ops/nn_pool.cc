// Import rules: pooling. MaxPool, AveragePool and LpPool slide a window (nn.cc's formulas,
// ceil_mode included); the global pools keep N and C and shrink every spatial dim to 1;
// MaxUnpool inverts MaxPool; RoiAlign pools fixed-size regions. N and C of the output are X's
// own axes; MaxPool's Indices share Y's axes.
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/nn.h"

namespace geon::importer {
namespace {

// What an op version accepts, beyond its window.
struct PoolVersion {
  WindowAttrs window;
  int bf16_since = 22;
  bool int8 = false;               // MaxPool-12: int8 and uint8 inputs
  bool indices = false;            // MaxPool-8: the Indices output and storage_order
  bool count_include_pad = false;  // AveragePool-7
  int lp = 0;                      // LpPool: 1 = 'p' is a float (LpPool-1), 2 = an int
};

void require_pool_dtype(RuleContext& c, const PoolVersion& v) {
  const DType t = c.input_dtype(0);
  if (v.int8 && (t == DType::kInt8 || t == DType::kUInt8)) return;
  require_nn_float(c, 0, v.bf16_since, "X");
}

void read_p(RuleContext& c, int lp) {
  if (lp == 1) {
    const float p = c.attr_float("p", 2.0f);
    if (!(p > 0)) c.fail("attribute 'p' is " + std::to_string(p) + "; it must be positive");
  } else if (lp == 2) {
    const int64_t p = c.attr_int("p", 2);
    if (p < 1) c.fail("attribute 'p' is " + std::to_string(p) + "; it must be at least 1");
  }
}

// X (N, C, D1, ...) -> Y (N, C, O1, ...), for MaxPool, AveragePool and LpPool.
void pool(RuleContext& c, const PoolVersion& v) {
  require_pool_dtype(c, v);
  const DType t = c.input_dtype(0);
  if (!v.indices && c.num_outputs() > 1)
    c.fail(c.node().op == "MaxPool"
               ? "MaxPool before opset 8 has one output; the Indices output came with MaxPool-8"
               : c.node().op + " has one output, the node has " + std::to_string(c.num_outputs()));
  require_arity(c, 1, v.indices ? 2 : 1);
  if (v.indices) {
    const int64_t order = c.attr_int("storage_order", 0);
    if (order != 0 && order != 1)
      c.fail("attribute 'storage_order' is " + std::to_string(order) + "; it must be 0 or 1");
  } else if (c.has_attr("storage_order")) {
    c.fail("attribute 'storage_order' is not part of this op version");
  }
  if (v.count_include_pad) {
    const int64_t cip = c.attr_int("count_include_pad", 0);
    if (cip != 0 && cip != 1)
      c.fail("attribute 'count_include_pad' is " + std::to_string(cip) + "; it must be 0 or 1");
  } else if (c.has_attr("count_include_pad")) {
    c.fail("attribute 'count_include_pad' is not part of this op version");
  }
  read_p(c, v.lp);
  const Value& x = c.input(0);
  const auto ks = c.attr_ints("kernel_shape", std::vector<int64_t>{});
  if (ks.empty()) c.fail("attribute 'kernel_shape' is required but missing");
  const int spatial = static_cast<int>(ks.size());
  if (x.rank_known && x.rank() != spatial + 2)
    c.fail("attribute 'kernel_shape' has " + std::to_string(spatial) + " values but X has " +
           std::to_string(x.rank() - 2 < 0 ? 0 : x.rank() - 2) + " spatial dims (X has rank " +
           std::to_string(x.rank()) + ")");
  const Window w = read_window(c, read_kernel_shape(c, spatial), v.window);
  std::vector<Axis> out;
  if (x.rank_known) {
    out = {x.axes[0], x.axes[1]};
    for (const Axis& a : window_output_axes(c, w, x.axes)) out.push_back(a);
  } else {
    for (int i = 0; i < spatial + 2; ++i) out.push_back(c.new_axis(Length::unknown()));
  }
  const Axes y(std::move(out));
  c.set_output(0, t, y);
  if (v.indices) c.set_output(1, DType::kInt64, y);
}

template <PoolVersion V>
void pool_rule(RuleContext& c) {
  pool(c, V);
}

constexpr WindowAttrs kNoDilations{.auto_pad = true, .dilations = false, .ceil_mode = false};
constexpr WindowAttrs kCeil{.auto_pad = true, .dilations = false, .ceil_mode = true};
constexpr WindowAttrs kFull{.auto_pad = true, .dilations = true, .ceil_mode = true};

constexpr PoolVersion kMaxPool1{.window = kNoDilations};
constexpr PoolVersion kMaxPool8{.window = kNoDilations, .indices = true};
constexpr PoolVersion kMaxPool10{.window = kFull, .indices = true};
constexpr PoolVersion kMaxPool12{.window = kFull, .int8 = true, .indices = true};
constexpr PoolVersion kAveragePool1{.window = kNoDilations};
constexpr PoolVersion kAveragePool7{.window = kNoDilations, .count_include_pad = true};
constexpr PoolVersion kAveragePool10{.window = kCeil, .count_include_pad = true};
constexpr PoolVersion kAveragePool19{.window = kFull, .count_include_pad = true};
constexpr PoolVersion kLpPool1{.window = kNoDilations, .lp = 1};
constexpr PoolVersion kLpPool2{.window = kNoDilations, .lp = 2};
constexpr PoolVersion kLpPool18{.window = kFull, .lp = 2};

// GlobalAveragePool, GlobalMaxPool, GlobalLpPool: (N, C, D1, ...) -> (N, C, 1, ...).
void global_pool(RuleContext& c, int lp) {
  require_arity(c, 1, 1);
  require_nn_float(c, 0, 22, "X");
  read_p(c, lp);
  const Value& x = c.input(0);
  const DType t = x.dtype();
  if (!x.rank_known) {
    c.set_output_unknown_rank(0, t);
    return;
  }
  if (x.rank() < 2)
    c.fail("input 0 (X) has rank " + std::to_string(x.rank()) +
           "; it must be (N, C, D1, ...), rank 2 or more");
  std::vector<Axis> out = {x.axes[0], x.axes[1]};
  for (int i = 2; i < x.rank(); ++i)
    out.push_back(x.axes[i].length == Length::known(1) ? x.axes[i]
                                                       : axis_like(c, x.axes[i], Length::known(1)));
  c.set_output(0, t, Axes(std::move(out)));
}

void global_pool_plain(RuleContext& c) { global_pool(c, 0); }
void global_lp_pool_1(RuleContext& c) { global_pool(c, 1); }
void global_lp_pool_2(RuleContext& c) { global_pool(c, 2); }

// MaxUnpool: X and I (N, C, D1, ...), optional output_shape; the output spatial length is
// (in - 1) * stride - pads + kernel unless output_shape says otherwise.
void max_unpool(RuleContext& c) {
  require_arity(c, 3, 1);
  require_nn_float(c, 0, 22, "X");
  const DType t = c.input_dtype(0);
  if (c.input_dtype(1) != DType::kInt64)
    c.fail("input 1 (I) has dtype " + std::string(dtype_name(c.input_dtype(1))) +
           "; it must be int64");
  const Value& x = c.input(0);
  const Value& idx = c.input(1);
  const auto ks = c.attr_ints("kernel_shape", std::vector<int64_t>{});
  if (ks.empty()) c.fail("attribute 'kernel_shape' is required but missing");
  const int spatial = static_cast<int>(ks.size());
  if (x.rank_known && x.rank() != spatial + 2)
    c.fail("attribute 'kernel_shape' has " + std::to_string(spatial) + " values but X has rank " +
           std::to_string(x.rank()) + " (" + std::to_string(spatial + 2) + " expected)");
  if (x.rank_known && idx.rank_known) {
    if (idx.rank() != x.rank())
      c.fail("input 1 (I) has rank " + std::to_string(idx.rank()) + " but X has rank " +
             std::to_string(x.rank()) + "; they must match");
    for (int i = 0; i < x.rank(); ++i)
      require_same_length(c, idx.axes[i].length, x.axes[i].length,
                          "input 1 (I) dim " + std::to_string(i), "X's");
  }
  const Window w =
      read_window(c, read_kernel_shape(c, spatial), {.auto_pad = false, .dilations = false});
  std::optional<std::vector<Length>> shape;
  if (c.has_input(2)) {
    if (c.input_dtype(2) != DType::kInt64)
      c.fail("input 2 (output_shape) has dtype " + std::string(dtype_name(c.input_dtype(2))) +
             "; it must be int64");
    require_rank(c, 2, "output_shape", 1);
    const Value& os = c.input(2);
    if (os.rank_known && os.axes[0].length.is_static() && os.axes[0].length.value != spatial + 2)
      c.fail("input 2 (output_shape) has " + std::to_string(os.axes[0].length.value) +
             " entries; it needs " + std::to_string(spatial + 2) + " (the rank of X)");
    shape = c.contents(2);
    if (shape && static_cast<int>(shape->size()) != spatial + 2)
      c.fail("input 2 (output_shape) has " + std::to_string(shape->size()) + " entries; it needs " +
             std::to_string(spatial + 2) + " (the rank of X)");
    if (shape)
      for (const Length& l : *shape)
        if (l.is_static() && l.value < 0)
          c.fail("input 2 (output_shape) has a negative length " + std::to_string(l.value));
  }
  std::vector<Axis> out;
  for (int i = 0; i < spatial + 2; ++i) {
    if (!x.rank_known) {
      out.push_back(c.new_axis(shape ? (*shape)[i] : Length::unknown()));
      continue;
    }
    const Axis& in = x.axes[i];
    if (i < 2) {
      if (shape)
        require_same_length(c, (*shape)[i], in.length, "output_shape entry " + std::to_string(i),
                            "X's dim " + std::to_string(i));
      out.push_back(in);
    } else if (shape) {
      out.push_back(axis_like(c, in, (*shape)[i]));
    } else if (c.has_input(2) || !in.length.is_static()) {
      out.push_back(axis_like(c, in, Length::unknown()));
    } else {
      const int d = i - 2;
      const auto grown = checked_mul(in.length.value - 1, w.strides[d]);
      const auto len =
          grown ? checked_add(*grown, w.kernel[d] - w.pads[d] - w.pads[d + spatial]) : std::nullopt;
      if (!len || *len < 0)
        c.fail("the output length of spatial dim " + std::to_string(d) +
               " is out of range: pads exceed the unpooled input");
      out.push_back(axis_like(c, in, Length::known(*len)));
    }
  }
  c.set_output(0, t, Axes(std::move(out)));
}

// RoiAlign: X (N, C, H, W), rois (R, 4), batch_indices (R) -> (R, C, output_height,
// output_width).
void roi_align(RuleContext& c, bool has_ctm) {
  require_arity(c, 3, 1);
  require_nn_float(c, 0, 22, "X");
  const DType t = c.input_dtype(0);
  require_same_dtype(c, 1, "rois", t, "X");
  if (c.input_dtype(2) != DType::kInt64)
    c.fail("input 2 (batch_indices) has dtype " + std::string(dtype_name(c.input_dtype(2))) +
           "; it must be int64");
  const std::string mode = c.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max")
    c.fail("attribute 'mode' is '" + mode + "'; it must be 'avg' or 'max'");
  if (has_ctm) {
    const std::string m = c.attr_string("coordinate_transformation_mode", "half_pixel");
    if (m != "half_pixel" && m != "output_half_pixel")
      c.fail("attribute 'coordinate_transformation_mode' is '" + m +
             "'; it must be 'half_pixel' or 'output_half_pixel'");
  } else if (c.has_attr("coordinate_transformation_mode")) {
    c.fail("attribute 'coordinate_transformation_mode' came with RoiAlign-16");
  }
  const int64_t oh = c.attr_int("output_height", 1);
  const int64_t ow = c.attr_int("output_width", 1);
  if (oh < 1 || ow < 1)
    c.fail("attributes 'output_height' and 'output_width' must be at least 1, got " +
           std::to_string(oh) + " and " + std::to_string(ow));
  if (c.attr_int("sampling_ratio", 0) < 0) c.fail("attribute 'sampling_ratio' must be >= 0");
  require_rank(c, 0, "X", 4);
  require_rank(c, 1, "rois", 2);
  require_rank(c, 2, "batch_indices", 1);
  const Value& x = c.input(0);
  const Value& rois = c.input(1);
  const Value& bi = c.input(2);
  if (rois.rank_known)
    require_same_length(c, rois.axes[1].length, Length::known(4), "input 1 (rois) dim 1",
                        "a box (x1, y1, x2, y2)");
  if (rois.rank_known && bi.rank_known)
    require_same_length(c, bi.axes[0].length, rois.axes[0].length, "input 2 (batch_indices)",
                        "rois' dim 0");
  const Axis r = rois.rank_known ? rois.axes[0]
                 : bi.rank_known ? bi.axes[0]
                                 : c.new_axis(Length::unknown());
  const Axis ch = x.rank_known ? x.axes[1] : c.new_axis(Length::unknown());
  const Axis h =
      x.rank_known ? axis_like(c, x.axes[2], Length::known(oh)) : c.new_axis(Length::known(oh));
  const Axis w =
      x.rank_known ? axis_like(c, x.axes[3], Length::known(ow)) : c.new_axis(Length::known(ow));
  c.set_output(0, t, distinct_axes(c, {r, ch, h, w}));
}

// MaxRoiPool: X (N, C, H, W), rois (R, 5: batch index, x1, y1, x2, y2) -> (R, C,
// pooled_shape[0], pooled_shape[1]).
void max_roi_pool(RuleContext& c) {
  require_arity(c, 2, 1);
  require_nn_float(c, 0, 22, "X");
  const DType t = c.input_dtype(0);
  require_same_dtype(c, 1, "rois", t, "X");
  const std::vector<int64_t> pooled = c.attr_ints("pooled_shape");  // required: fails if absent
  if (pooled.size() != 2 || pooled[0] < 1 || pooled[1] < 1)
    c.fail("attribute 'pooled_shape' must be two lengths of at least 1");
  if (!(c.attr_float("spatial_scale", 1.0f) > 0))
    c.fail("attribute 'spatial_scale' must be positive");
  require_rank(c, 0, "X", 4);
  require_rank(c, 1, "rois", 2);
  const Value& x = c.input(0);
  const Value& rois = c.input(1);
  if (rois.rank_known)
    require_same_length(c, rois.axes[1].length, Length::known(5), "input 1 (rois) dim 1",
                        "a box (batch index, x1, y1, x2, y2)");
  const Axis r = rois.rank_known ? rois.axes[0] : c.new_axis(Length::unknown());
  const Axis ch = x.rank_known ? x.axes[1] : c.new_axis(Length::unknown());
  const Length ph = Length::known(pooled[0]), pw = Length::known(pooled[1]);
  const Axis h = x.rank_known ? axis_like(c, x.axes[2], ph) : c.new_axis(ph);
  const Axis w = x.rank_known ? axis_like(c, x.axes[3], pw) : c.new_axis(pw);
  c.set_output(0, t, distinct_axes(c, {r, ch, h, w}));
}

void roi_align_10(RuleContext& c) { roi_align(c, false); }
void roi_align_16(RuleContext& c) { roi_align(c, true); }

}  // namespace

std::span<const RuleEntry> nn_pool_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "MaxPool", 1, pool_rule<kMaxPool1>},
      {"", "MaxPool", 8, pool_rule<kMaxPool8>},    // Indices output, storage_order
      {"", "MaxPool", 10, pool_rule<kMaxPool10>},  // ceil_mode, dilations
      {"", "MaxPool", 12, pool_rule<kMaxPool12>},  // int8, uint8
      {"", "AveragePool", 1, pool_rule<kAveragePool1>},
      {"", "AveragePool", 7, pool_rule<kAveragePool7>},    // count_include_pad
      {"", "AveragePool", 10, pool_rule<kAveragePool10>},  // ceil_mode
      {"", "AveragePool", 19, pool_rule<kAveragePool19>},  // dilations
      {"", "LpPool", 1, pool_rule<kLpPool1>},              // p is a float
      {"", "LpPool", 2, pool_rule<kLpPool2>},              // p is an int
      {"", "LpPool", 18, pool_rule<kLpPool18>},            // ceil_mode, dilations
      {"", "GlobalAveragePool", 1, global_pool_plain},
      {"", "GlobalMaxPool", 1, global_pool_plain},
      {"", "GlobalLpPool", 1, global_lp_pool_1},
      {"", "GlobalLpPool", 2, global_lp_pool_2},
      {"", "MaxUnpool", 9, max_unpool},
      {"", "MaxRoiPool", 1, max_roi_pool},
      {"", "RoiAlign", 10, roi_align_10},
      {"", "RoiAlign", 16, roi_align_16},  // coordinate_transformation_mode
  };
  return rules;
}

}  // namespace geon::importer
