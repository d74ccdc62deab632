// cpu.generic NonMaxSuppression against a naive greedy selection (repeatedly the best
// remaining box, ties by lower index, dropped when its IoU with a kept box is above the
// threshold): both box formats with flipped corners, score thresholds present and absent,
// every form of max_output_boxes_per_class (absent, 0, negative, huge), strided inputs,
// NaN scores, and the errors for bad shapes and an iou_threshold outside [0, 1].
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Rect {
  double x0, x1, y0, y1;
};

Rect rect(const Host& boxes, int64_t i, bool center) {
  double v[4];
  for (int k = 0; k < 4; ++k) v[k] = boxes.at(i * 4 + k);
  if (center) return {v[0] - v[2] / 2, v[0] + v[2] / 2, v[1] - v[3] / 2, v[1] + v[3] / 2};
  return {std::min(v[1], v[3]), std::max(v[1], v[3]), std::min(v[0], v[2]), std::max(v[0], v[2])};
}

double iou(const Rect& a, const Rect& b) {
  const double w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
  const double h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  if (w <= 0 || h <= 0) return 0;
  const double area_a = (a.x1 - a.x0) * (a.y1 - a.y0), area_b = (b.x1 - b.x0) * (b.y1 - b.y0);
  if (area_a <= 0 || area_b <= 0) return 0;
  return w * h / (area_a + area_b - w * h);
}

std::vector<int64_t> reference(const Host& boxes, const Host& scores, int64_t max_out, double iou_t,
                               std::optional<double> score_t, bool center) {
  const int64_t batches = scores.shape()[0], classes = scores.shape()[1], n = scores.shape()[2];
  std::vector<int64_t> out;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      std::vector<bool> used(static_cast<size_t>(n), false);
      std::vector<int64_t> kept;
      while (static_cast<int64_t>(kept.size()) < max_out) {
        int64_t best = -1;
        for (int64_t i = 0; i < n; ++i) {
          const double s = scores.at((b * classes + c) * n + i);
          if (used[i] || (score_t && !(s > *score_t))) continue;
          if (best < 0 || s > scores.at((b * classes + c) * n + best)) best = i;
        }
        if (best < 0) break;
        used[best] = true;
        bool keep = true;
        for (int64_t k : kept)
          if (iou(rect(boxes, b * n + best, center), rect(boxes, b * n + k, center)) > iou_t)
            keep = false;
        if (!keep) continue;
        kept.push_back(best);
        out.insert(out.end(), {b, c, best});
      }
    }
  return out;
}

struct Inputs {
  Host boxes, scores;
};

Inputs random_inputs(std::mt19937& rng, int64_t batches, int64_t classes, int64_t n) {
  Inputs in;
  // Boxes crowd a small field so that many overlap.
  in.boxes = Host::random(DType::kFloat, {batches, n, 4}, rng, 0, 4);
  in.scores = Host::random(DType::kFloat, {batches, classes, n}, rng, 0, 1);
  return in;
}

std::vector<int64_t> run(const Inputs& in, std::optional<int64_t> max_out,
                         std::optional<double> iou_t, std::optional<double> score_t, bool center) {
  NodeGraph ng("NonMaxSuppression", 11);
  ng.in(in.boxes).in(in.scores);
  const int given = score_t ? 5 : iou_t ? 4 : max_out ? 3 : 2;
  if (given > 2) {
    if (max_out)
      ng.in(Host::of(DType::kInt64, {1}, {static_cast<double>(*max_out)}));
    else
      ng.omitted();
  }
  if (given > 3) {
    if (iou_t)
      ng.in(Host::of(DType::kFloat, {}, {*iou_t}));
    else
      ng.omitted();
  }
  if (given > 4) ng.in(Host::of(DType::kFloat, {}, {*score_t}));
  ng.out(DType::kInt64).attr_i("center_point_box", center ? 1 : 0);
  const Host y = ng.run(gen())[0];
  EXPECT_EQ(y.shape().size(), 2u);
  EXPECT_EQ(y.shape()[1], 3);
  std::vector<int64_t> v;
  for (int64_t i = 0; i < element_count(y.shape()); ++i) v.push_back(static_cast<int64_t>(y.at(i)));
  return v;
}

TEST(CpuGenericNonMaxSuppression, GreedySelectionOverRandomBoxes) {
  std::mt19937 rng(41);
  for (int trial = 0; trial < 40; ++trial) {
    const Inputs in = random_inputs(rng, 1 + trial % 3, 1 + trial % 2, 3 + trial % 9);
    const bool center = trial % 2 == 1;
    const double iou_t = std::uniform_real_distribution<double>(0, 1)(rng);
    const std::optional<double> score_t =
        trial % 3 == 0 ? std::nullopt : std::optional<double>(0.3);
    const int64_t max_out = 1 + trial % 5;
    EXPECT_EQ(run(in, max_out, iou_t, score_t.value_or(-1), center),
              reference(in.boxes, in.scores, max_out, iou_t, score_t.value_or(-1), center))
        << "trial " << trial;
    if (!score_t) {  // no score_threshold input at all: every box is a candidate
      EXPECT_EQ(run(in, max_out, iou_t, std::nullopt, center),
                reference(in.boxes, in.scores, max_out, iou_t, std::nullopt, center));
    }
  }
}

TEST(CpuGenericNonMaxSuppression, MaxOutputForms) {
  std::mt19937 rng(42);
  const Inputs in = random_inputs(rng, 2, 2, 6);
  EXPECT_TRUE(run(in, std::nullopt, std::nullopt, std::nullopt, false).empty());  // absent: 0
  EXPECT_TRUE(run(in, 0, 0.5, std::nullopt, false).empty());
  EXPECT_TRUE(run(in, -3, 0.5, std::nullopt, false).empty());
  EXPECT_EQ(run(in, int64_t{1} << 62, 0.5, std::nullopt, false),
            reference(in.boxes, in.scores, 6, 0.5, std::nullopt, false));
  // iou_threshold absent means 0: any overlap at all suppresses.
  EXPECT_EQ(run(in, 6, std::nullopt, std::nullopt, false),
            reference(in.boxes, in.scores, 6, 0, std::nullopt, false));
}

TEST(CpuGenericNonMaxSuppression, StridedInputs) {
  std::mt19937 rng(43);
  Inputs in = random_inputs(rng, 2, 3, 7);
  const std::vector<int64_t> want = reference(in.boxes, in.scores, 4, 0.4, 0.2, false);
  in.boxes = in.boxes.strided({2, 1, 0});
  in.scores = in.scores.strided({1, 2, 0});
  EXPECT_EQ(run(in, 4, 0.4, 0.2, false), want);
}

TEST(CpuGenericNonMaxSuppression, NaNScoresAreTakenLastOrFiltered) {
  Inputs in;
  in.boxes = Host::of(DType::kFloat, {1, 3, 4}, {0, 0, 1, 1, 5, 5, 6, 6, 10, 10, 11, 11});
  in.scores = Host::of(DType::kFloat, {1, 1, 3}, {std::nan(""), 0.5, 0.7});
  EXPECT_EQ(run(in, 3, 0.5, std::nullopt, false),
            (std::vector<int64_t>{0, 0, 2, 0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(run(in, 3, 0.5, 0.0, false), (std::vector<int64_t>{0, 0, 2, 0, 0, 1}));
}

TEST(CpuGenericNonMaxSuppression, EmptyInputs) {
  Inputs in;
  in.boxes = Host::dense(DType::kFloat, {2, 0, 4});
  in.scores = Host::dense(DType::kFloat, {2, 3, 0});
  EXPECT_TRUE(run(in, 5, 0.5, std::nullopt, false).empty());
}

TEST(CpuGenericNonMaxSuppression, BadShapesAndThresholdsAreErrors) {
  const Host boxes = Host::dense(DType::kFloat, {1, 2, 4});
  const Host scores = Host::dense(DType::kFloat, {1, 1, 2});
  const Host max_out = Host::of(DType::kInt64, {1}, {2});
  NodeGraph iou("NonMaxSuppression", 11);
  iou.in(boxes).in(scores).in(max_out).in(Host::of(DType::kFloat, {}, {1.5})).out(DType::kInt64);
  expect_error(iou, gen(), ErrorCode::kInvalidArgument, {"NonMaxSuppression", "iou_threshold"});
  NodeGraph width("NonMaxSuppression", 11);
  width.in(Host::dense(DType::kFloat, {1, 2, 5})).in(scores).in(max_out).out(DType::kInt64);
  expect_error(width, gen(), ErrorCode::kInvalidArgument, {"boxes must be"});
  NodeGraph count("NonMaxSuppression", 11);
  count.in(boxes).in(Host::dense(DType::kFloat, {1, 1, 3})).in(max_out).out(DType::kInt64);
  expect_error(count, gen(), ErrorCode::kInvalidArgument, {"does not match boxes"});
  NodeGraph many("NonMaxSuppression", 11);
  many.in(boxes).in(scores).in(Host::of(DType::kInt64, {2}, {1, 2})).out(DType::kInt64);
  expect_error(many, gen(), ErrorCode::kInvalidArgument, {"must be a scalar"});
  NodeGraph dtype("NonMaxSuppression", 11);
  dtype.in(Host::dense(DType::kDouble, {1, 2, 4})).in(scores).out(DType::kInt64);
  EXPECT_TRUE(dtype.supports(gen()).has_value());
}

}  // namespace
}  // namespace geon::cpu::testing
