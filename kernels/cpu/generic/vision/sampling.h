// What the vision kernels share: dense staged copies of inputs and outputs in a compute dtype
// (generic/norm_stage.cc does the converting), and GridSample's 1-D sampling rules:
// reflection at the borders and Keys' cubic weights.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "kernels/cpu/generic/ops.h"

namespace geon::cpu::vision {

// Float data computes in float, double in double, and integer or bool data (GridSample takes
// any) in double, so that every 32-bit integer is exact.
inline DType compute_dtype(DType t) {
  return t == DType::kFloat || t == DType::kFloat16 || t == DType::kBFloat16 ? DType::kFloat
                                                                             : DType::kDouble;
}

// An input as a dense row-major array of `compute`: its own memory when it already is one.
class StagedIn {
 public:
  StagedIn(const TensorRef& t, DType compute) : data_(stage_input(t, {}, compute, scratch_)) {}
  StagedIn(const StagedIn&) = delete;
  StagedIn& operator=(const StagedIn&) = delete;
  template <class T>
  const T* as() const {
    return static_cast<const T*>(data_);
  }

 private:
  std::vector<std::byte> scratch_;
  const void* data_;
};

// An output computed as a dense row-major array of `compute`, converted into the real output
// by store() (nothing to do when the output is such an array already).
class StagedOut {
 public:
  StagedOut(const TensorRef& t, DType compute)
      : dst_(t), compute_(compute), data_(stage_output(t, {}, compute, scratch_)) {}
  StagedOut(const StagedOut&) = delete;
  StagedOut& operator=(const StagedOut&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  void store() const { store_output(dst_, {}, compute_, scratch_); }

 private:
  const TensorRef& dst_;
  DType compute_;
  std::vector<std::byte> scratch_;
  void* data_;
};

// x reflected at lo and hi until it lies in [lo, hi]: the reference's repeated reflection by
// the nearer border, with fmod instead of a count of whole ranges so that any finite x works.
inline double reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;  // a single pixel with align_corners: only one place to be
  if (x >= lo && x <= hi) return x;
  const double d = x < lo ? lo - x : x - hi;
  const double t = std::fmod(d, 2 * range);
  // t <= range: an even number of whole ranges crossed, measured from the border passed.
  if (x < lo) return t <= range ? lo + t : hi - (t - range);
  return t <= range ? hi - t : lo + (t - range);
}

// Keys' cubic convolution weights (a = -0.75, as ONNX and PyTorch use) of the four pixels at
// offsets -1, 0, 1, 2 from floor(x), for t = x - floor(x).
inline void cubic_weights(double t, double w[4]) {
  constexpr double a = -0.75;
  auto outer = [](double s) { return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a; };  // 1 < s < 2
  auto inner = [](double s) { return ((a + 2) * s - (a + 3)) * s * s + 1; };        // s <= 1
  w[0] = outer(t + 1);
  w[1] = inner(t);
  w[2] = inner(1 - t);
  w[3] = outer(2 - t);
}

}  // namespace geon::cpu::vision
