// NonMaxSuppression (10, 11) on the CPU: per batch and class, the boxes whose score passes
// score_threshold are taken best first (ties by lower box index) and each is kept unless its
// IoU with a box already kept exceeds iou_threshold, up to max_output_boxes_per_class. Box
// geometry and IoU are computed in float with the reference's exact formulas, so that IoUs on
// the threshold decide as onnx.reference and ONNX Runtime do. The number of selected boxes is
// known only at the end: the output is asked for then.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "kernels/cpu/generic/vision/ops.h"
#include "kernels/cpu/generic/vision/sampling.h"

namespace geon::cpu {
namespace {

// A box as the reference sees it: corner format sorts each pair of coordinates, centre
// format (center_point_box 1) spans centre -/+ half the size.
struct Box {
  float x_min, x_max, y_min, y_max, area;
};

Box box_of(const float* b, bool center) {
  Box r{};
  if (center) {
    r.x_min = b[0] - b[2] / 2;
    r.x_max = b[0] + b[2] / 2;
    r.y_min = b[1] - b[3] / 2;
    r.y_max = b[1] + b[3] / 2;
  } else {  // [y1, x1, y2, x2], either corner first
    r.x_min = std::min(b[1], b[3]);
    r.x_max = std::max(b[1], b[3]);
    r.y_min = std::min(b[0], b[2]);
    r.y_max = std::max(b[0], b[2]);
  }
  r.area = (r.x_max - r.x_min) * (r.y_max - r.y_min);
  return r;
}

// Whether b suppresses a (NaN coordinates never suppress: every comparison is false).
bool suppresses(const Box& a, const Box& b, float iou_threshold) {
  const float ix_min = std::max(a.x_min, b.x_min), ix_max = std::min(a.x_max, b.x_max);
  if (!(ix_max > ix_min)) return false;
  const float iy_min = std::max(a.y_min, b.y_min), iy_max = std::min(a.y_max, b.y_max);
  if (!(iy_max > iy_min)) return false;
  const float inter = (ix_max - ix_min) * (iy_max - iy_min);
  if (!(inter > 0)) return false;
  const float uni = a.area + b.area - inter;
  if (!(a.area > 0) || !(b.area > 0) || !(uni > 0)) return false;
  return inter / uni > iou_threshold;
}

// The single element of an optional scalar input as double; nullopt when omitted or empty
// (the reference reads an empty tensor as absent).
std::optional<double> scalar_input(const KernelContext& ctx, int i, const char* what) {
  if (i >= ctx.num_inputs() || !ctx.input(i).present()) return std::nullopt;
  const TensorRef& t = ctx.input(i);
  const int64_t count = element_count(t.desc);
  require(count <= 1, [&] {
    return std::string(what) + " must be a scalar, it has " + std::to_string(count) + " elements";
  });
  if (count == 0) return std::nullopt;
  if (t.device.kind != DeviceKind::kHost)
    fail(ErrorCode::kNotSupported, std::string(what) + " must be in host memory");
  double v = 0;
  assign(Operand{row_major(DType::kDouble, t.desc.shape), &v}, src_of(t));
  return v;
}

void non_max_suppression(KernelContext& ctx, bool center) {
  const TensorRef& boxes = ctx.input(0);
  const TensorRef& scores = ctx.input(1);
  require(boxes.desc.rank() == 3 && boxes.desc.shape[2] == 4, [&] {
    return "boxes must be (num_batches, spatial_dimension, 4), it is " + to_string(boxes.desc);
  });
  require(scores.desc.rank() == 3, [&] {
    return "scores must be (num_batches, num_classes, spatial_dimension), it is " +
           to_string(scores.desc);
  });
  const int64_t batches = boxes.desc.shape[0], count = boxes.desc.shape[1];
  const int64_t classes = scores.desc.shape[1];
  require(scores.desc.shape[0] == batches && scores.desc.shape[2] == count, [&] {
    return "scores " + to_string(scores.desc) + " does not match boxes " + to_string(boxes.desc) +
           " (batches and spatial_dimension)";
  });
  const auto max_in = ctx.num_inputs() > 2 && ctx.input(2).present()
                          ? read_ints(ctx.input(2), "max_output_boxes_per_class")
                          : std::vector<int64_t>{};
  require(max_in.size() <= 1, "max_output_boxes_per_class must be a scalar");
  const int64_t per_class = max_in.empty() ? 0 : std::clamp<int64_t>(max_in[0], 0, count);
  const double iou_in = scalar_input(ctx, 3, "iou_threshold").value_or(0.0);
  require(iou_in >= 0 && iou_in <= 1,
          [&] { return "iou_threshold is " + std::to_string(iou_in) + "; it must be in [0, 1]"; });
  const auto score_in = scalar_input(ctx, 4, "score_threshold");
  const auto iou_threshold = static_cast<float>(iou_in);
  const auto score_threshold = static_cast<float>(score_in.value_or(0.0));

  // Not reached with no boxes, so batches * classes is bounded by the scores held in memory.
  std::vector<std::vector<int64_t>> kept;
  if (per_class > 0 && count > 0) {
    kept.resize(static_cast<size_t>(batches * classes));
    const vision::StagedIn bs(boxes, DType::kFloat), ss(scores, DType::kFloat);
    const float* bp = bs.as<float>();
    const float* sp = ss.as<float>();
    parallel_rows(batches * classes, count * 8, [&](int64_t lo, int64_t hi) {
      std::vector<int64_t> order;
      std::vector<Box> chosen;
      for (int64_t bc = lo; bc < hi; ++bc) {
        const int64_t b = bc / classes;
        const float* s = sp + bc * count;
        order.clear();
        for (int64_t i = 0; i < count; ++i)
          if (!score_in || s[i] > score_threshold) order.push_back(i);
        // Best score first, ties by lower index; NaN scores last (a strict weak order).
        std::stable_sort(order.begin(), order.end(), [s](int64_t i, int64_t j) {
          const bool ni = std::isnan(s[i]), nj = std::isnan(s[j]);
          if (ni || nj) return !ni && nj;
          return s[i] > s[j];
        });
        chosen.clear();
        std::vector<int64_t>& out = kept[bc];
        for (int64_t i : order) {
          if (static_cast<int64_t>(out.size()) >= per_class) break;
          const Box cand = box_of(bp + (b * count + i) * 4, center);
          bool keep = true;
          for (const Box& k : chosen)
            if (suppresses(cand, k, iou_threshold)) {
              keep = false;
              break;
            }
          if (!keep) continue;
          chosen.push_back(cand);
          out.push_back(i);
        }
      }
    });
  }
  int64_t total = 0;
  for (const auto& v : kept) total += static_cast<int64_t>(v.size());
  const TensorRef& y = ctx.output(0, {total, 3});
  if (total == 0) return;
  std::vector<int64_t> rows;
  rows.reserve(static_cast<size_t>(total) * 3);
  for (int64_t bc = 0; bc < static_cast<int64_t>(kept.size()); ++bc)
    for (int64_t i : kept[bc]) rows.insert(rows.end(), {bc / classes, bc % classes, i});
  assign(dst_of(y), ConstOperand(row_major(DType::kInt64, Dims{total, 3}), rows.data()));
}

}  // namespace

Reason supports_non_max_suppression(const Graph& g, const Node& n) {
  const char* names[] = {"boxes", "scores", "max_output_boxes_per_class", "iou_threshold",
                         "score_threshold"};
  for (int i = 0; i < 5; ++i) {
    if (!has_input(n, i)) continue;
    const DType t = input_dtype(g, n, i);
    const DType want = i == 2 ? DType::kInt64 : DType::kFloat;
    if (t != want)
      return std::string("NonMaxSuppression: ") + names[i] + " has dtype " +
             std::string(dtype_name(t)) + "; it must be " + std::string(dtype_name(want));
  }
  const int64_t center = attr_int(n, "center_point_box", 0);
  if (center != 0 && center != 1) return "NonMaxSuppression: center_point_box must be 0 or 1";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_non_max_suppression(const Graph&, const Node& n) {
  const bool center = attr_int(n, "center_point_box", 0) == 1;
  return make_node_kernel(n, [center](KernelContext& ctx) { non_max_suppression(ctx, center); });
}

}  // namespace geon::cpu
