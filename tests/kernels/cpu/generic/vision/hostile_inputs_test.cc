// The vision kernels on hostile input: random small shapes that may not fit together, values
// mixing NaN, infinities and huge magnitudes, and extreme attributes. Every run must end in a
// result or a geon::Error; under the sanitizers (build-asan) it must also never touch memory
// out of bounds or overflow.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/base/error.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/harness.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

class Hostile {
 public:
  explicit Hostile(uint32_t seed) : rng_(seed) {}
  std::mt19937& rng() { return rng_; }
  int64_t pick(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  double value() {
    constexpr double inf = std::numeric_limits<double>::infinity();
    switch (pick(0, 9)) {
      case 0:
        return std::nan("");
      case 1:
        return pick(0, 1) ? inf : -inf;
      case 2:
        return pick(0, 1) ? 1e30 : -1e30;
      default:
        return std::uniform_real_distribution<double>(-3, 3)(rng_);
    }
  }
  Host tensor(DType t, const Dims& shape) {
    Host h = Host::dense(t, shape);
    for (int64_t i = 0; i < element_count(shape); ++i) h.set(i, value());
    return h;
  }
  Host ints_of(const Dims& shape, int64_t lo, int64_t hi) {
    Host h = Host::dense(DType::kInt64, shape);
    for (int64_t i = 0; i < element_count(shape); ++i) h.set(i, static_cast<double>(pick(lo, hi)));
    return h;
  }
  // A length that is usually sensible, sometimes 0.
  int64_t len() { return pick(0, 9) == 0 ? 0 : pick(1, 4); }
  int64_t attr() {
    const int64_t v[] = {-1, 0, 1, 2, 3, int64_t{1} << 40};
    return v[pick(0, 5)];
  }

 private:
  std::mt19937 rng_;
};

// Runs ng; only a geon::Error may come out.
void survive(const NodeGraph& ng, int trial) {
  try {
    if (ng.supports(gen())) return;
    ng.run(gen());
  } catch (const Error&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << "trial " << trial << ": " << e.what();
  }
}

TEST(CpuGenericVisionHostile, GridSampleAndAffineGrid) {
  Hostile h(71);
  const char* modes[] = {"nearest", "linear", "cubic"};
  const char* pads[] = {"zeros", "border", "reflection"};
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t r = h.pick(1, 3);
    Dims xs = {h.len(), h.len()}, gs = {h.pick(0, 3) == 0 ? h.len() : xs[0]};
    for (int64_t i = 0; i < r; ++i) {
      xs.push_back(h.len());
      gs.push_back(h.len());
    }
    gs.push_back(h.pick(0, 5) == 0 ? h.len() : r);
    NodeGraph ng("GridSample", 20);
    ng.in(h.tensor(DType::kFloat, xs)).in(h.tensor(DType::kFloat, gs)).out(DType::kFloat);
    ng.attr_s("mode", modes[h.pick(0, 2)]).attr_s("padding_mode", pads[h.pick(0, 2)]);
    ng.attr_i("align_corners", h.pick(0, 1));
    survive(ng, trial);
    NodeGraph ag("AffineGrid", 20);
    const int64_t n = h.len();
    Dims size = {h.pick(0, 3) == 0 ? h.len() : n, h.attr()};
    for (int64_t i = 0; i < h.pick(1, 4); ++i)
      size.push_back(h.pick(0, 6) == 0 ? h.attr() : h.len());
    ag.in(h.tensor(DType::kFloat, {n, h.pick(1, 3), h.pick(2, 4)}));
    ag.in(Host::of(DType::kInt64, {static_cast<int64_t>(size.size())},
                   std::vector<double>(size.begin(), size.end())));
    ag.out(DType::kFloat).attr_i("align_corners", h.pick(0, 1));
    survive(ag, trial);
  }
}

TEST(CpuGenericVisionHostile, NonMaxSuppressionAndRoiAlign) {
  Hostile h(72);
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t b = h.len(), n = h.len();
    NodeGraph nms("NonMaxSuppression", 11);
    nms.in(h.tensor(DType::kFloat, {b, n, h.pick(0, 4) == 0 ? h.len() : 4}));
    nms.in(h.tensor(DType::kFloat, {h.pick(0, 4) == 0 ? h.len() : b, h.len(), n}));
    nms.in(h.ints_of({h.pick(0, 3) == 0 ? h.len() : 1}, -5, int64_t{1} << 50));
    const double iou = h.pick(0, 4) == 0 ? h.value() : static_cast<double>(h.pick(0, 10)) / 10;
    nms.in(Host::of(DType::kFloat, {}, {iou})).in(h.tensor(DType::kFloat, {}));
    nms.out(DType::kInt64).attr_i("center_point_box", h.pick(0, 1));
    survive(nms, trial);
    NodeGraph ra("RoiAlign", 16);
    const int64_t rois = h.len();
    const int64_t images = h.pick(1, 2);
    ra.in(h.tensor(DType::kFloat, {images, h.len(), h.len(), h.len()}));
    const Dims rs = {rois, h.pick(0, 4) == 0 ? h.len() : 4};
    ra.in(h.pick(0, 3) == 0 ? h.tensor(DType::kFloat, rs)
                            : Host::random(DType::kFloat, rs, h.rng(), -2, 6));
    ra.in(h.pick(0, 4) == 0 ? h.ints_of({h.len()}, -2, 4) : h.ints_of({rois}, 0, images - 1));
    ra.out(DType::kFloat).attr_s("mode", h.pick(0, 1) ? "avg" : "max");
    ra.attr_i("output_height", h.attr()).attr_i("output_width", h.pick(1, 3));
    ra.attr_i("sampling_ratio", h.attr()).attr_f("spatial_scale", static_cast<float>(h.value()));
    survive(ra, trial);
  }
}

TEST(CpuGenericVisionHostile, DeformConv) {
  Hostile h(73);
  for (int trial = 0; trial < 300; ++trial) {
    // Mostly shapes that fit (so the sampling runs on NaN, infinite and huge offsets), now and
    // then one dim or attribute off.
    const int64_t r = h.pick(1, 2), group = h.pick(1, 2), og = h.pick(1, 2);
    const int64_t n = h.pick(1, 2), c = group * og * h.pick(1, 2), m = group * h.pick(1, 2);
    Dims xs = {n, c}, ws = {m, c / group}, out;
    std::vector<int64_t> strides, dil, pads;
    int64_t taps = 1;
    for (int64_t i = 0; i < r; ++i) {
      const int64_t k = h.pick(1, 3);
      ws.push_back(k);
      taps *= k;
      strides.push_back(h.pick(0, 9) == 0 ? h.attr() : h.pick(1, 2));
      dil.push_back(h.pick(0, 9) == 0 ? h.attr() : h.pick(1, 2));
      pads.push_back(h.pick(0, 9) == 0 ? h.attr() : h.pick(0, 1));
      pads.push_back(h.pick(0, 1));
      // X itself stays small whatever the dilation: a huge one meets a too short image.
      xs.push_back((k - 1) * std::clamp<int64_t>(dil.back(), 0, 2) + h.pick(1, 4));
      const int64_t room = xs.back() + pads[2 * i] + pads[2 * i + 1] - ((k - 1) * dil.back() + 1);
      out.push_back(room >= 0 && strides.back() > 0 && room < 64 ? room / strides.back() + 1 : 1);
    }
    std::vector<int64_t> all_pads;  // begins, then ends
    for (int64_t i = 0; i < r; ++i) all_pads.push_back(pads[2 * i]);
    for (int64_t i = 0; i < r; ++i) all_pads.push_back(pads[2 * i + 1]);
    Dims os = {n, og * taps * r}, ms = {n, og * taps};
    os.insert(os.end(), out.begin(), out.end());
    ms.insert(ms.end(), out.begin(), out.end());
    Dims* bent[] = {&xs, &ws, &os, &ms};
    if (h.pick(0, 4) == 0) {
      Dims& d = *bent[h.pick(0, 3)];
      d[static_cast<size_t>(h.pick(0, static_cast<int64_t>(d.size()) - 1))] = h.len();
    }
    NodeGraph ng("DeformConv", 19);
    ng.in(h.tensor(DType::kFloat, xs)).in(h.tensor(DType::kFloat, ws));
    ng.in(h.tensor(DType::kFloat, os)).in(h.tensor(DType::kFloat, {h.pick(0, 5) ? m : h.len()}));
    ng.in(h.tensor(DType::kFloat, ms)).out(DType::kFloat);
    ng.attr_i("group", h.pick(0, 9) ? group : h.attr());
    ng.attr_i("offset_group", h.pick(0, 9) ? og : h.attr());
    ng.attr_ints("strides", strides).attr_ints("dilations", dil).attr_ints("pads", all_pads);
    survive(ng, trial);
  }
}

}  // namespace
}  // namespace geon::cpu::testing
