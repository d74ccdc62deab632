// The window loops of cpu.generic's pooling (pool.cc): each spatial dim's window taps listed once
// per output position, the outputs of the last dim whose windows lie wholly inside X, and the
// per-tap loops over runs of outputs (or channels) that the compiler vectorises.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/cpu/generic/pool/window.h"

// In their own namespace: pool.cc alone includes this.
namespace geon::cpu::pool_loops {

// The input positions of one dim's windows: for output o, taps[first[o] .. first[o + 1]) are
// the coordinates inside X; extent[o] counts the positions inside the padded extent.
struct DimTaps {
  std::vector<int64_t> first, coord, extent;
};

inline DimTaps dim_taps(const PoolGeometry& g, int d) {
  DimTaps t;
  const int64_t in = g.in[d], pb = g.pad_begin[d], pe = g.pad_end[d];
  const int64_t dil = g.dilations[d];
  for (int64_t o = 0; o < g.out[d]; ++o) {
    t.first.push_back(static_cast<int64_t>(t.coord.size()));
    // Taps k at base + k * dil: those before in + pe count in the extent, and only those in
    // [0, in) are visited (a huge kernel with huge padding costs nothing more).
    const int64_t base = o * g.strides[d] - pb;
    const int64_t ext = base >= in + pe ? 0 : std::min(g.kernel[d], (in + pe - base - 1) / dil + 1);
    for (int64_t k = base >= 0 ? 0 : (-base + dil - 1) / dil; k < ext; ++k) {
      const int64_t pos = base + k * dil;
      if (pos >= in) break;
      t.coord.push_back(pos);
    }
    t.extent.push_back(ext);
  }
  t.first.push_back(static_cast<int64_t>(t.coord.size()));
  return t;
}

// The output positions [lo, hi) of dim d whose windows read only positions inside X: every tap
// is read there and none is padding, so a row of them can be computed tap by tap.
struct Interior {
  int64_t lo = 0, hi = 0;
};
inline Interior interior_of(const PoolGeometry& g, int d) {
  const int64_t st = g.strides[d], pb = g.pad_begin[d];
  const int64_t last_tap = (g.kernel[d] - 1) * g.dilations[d];
  Interior r;
  r.lo = std::clamp<int64_t>((pb + st - 1) / st, 0, g.out[d]);
  const int64_t room = g.in[d] - 1 + pb - last_tap;  // o * st <= room keeps the last tap inside
  r.hi = room < 0 ? r.lo : std::clamp<int64_t>(room / st + 1, r.lo, g.out[d]);
  return r;
}

// One tap of a row of n outputs: output j reads r[j * step]. kStep is the step when known at
// compile time (1 or 2: contiguous or stride-2 reads the compiler vectorises), else 0. The
// updates keep the order of the window loop in element(): max takes a later tap only when
// strictly greater; sums add taps in the same order.
template <int kStep>
inline int64_t tap_at(int64_t j, int64_t step) {
  return kStep ? j * kStep : j * step;
}
template <int kStep, typename T>
void max_tap(const T* __restrict r, int64_t step, int64_t n, T* __restrict best) {
  for (int64_t j = 0; j < n; ++j) {
    const T v = r[tap_at<kStep>(j, step)];
    best[j] = v > best[j] ? v : best[j];
  }
}
template <int kStep, typename T>
void argmax_tap(const T* __restrict r, int64_t step, int64_t n, T* __restrict best,
                int64_t* __restrict where, int64_t index0, int64_t index_step) {
  for (int64_t j = 0; j < n; ++j) {
    const T v = r[tap_at<kStep>(j, step)];
    const bool greater = v > best[j];
    best[j] = greater ? v : best[j];
    where[j] = greater ? index0 + j * index_step : where[j];
  }
}
// kPower: 0 sums values (AveragePool); 1 to 4 sum |v| ** kPower by multiplying (pow() costs
// more than the rest of the loop); -1 sums |v| ** p.
template <int kStep, int kPower, typename T>
void sum_tap(const T* __restrict r, int64_t step, int64_t n, double* __restrict acc, double p) {
  for (int64_t j = 0; j < n; ++j) {
    const double v = static_cast<double>(r[tap_at<kStep>(j, step)]);
    if constexpr (kPower == 0)
      acc[j] += v;
    else if constexpr (kPower == 1)
      acc[j] += std::abs(v);
    else if constexpr (kPower == 2)
      acc[j] += v * v;
    else if constexpr (kPower == 3)
      acc[j] += std::abs(v) * v * v;
    else if constexpr (kPower == 4)
      acc[j] += (v * v) * (v * v);
    else
      acc[j] += std::pow(std::abs(v), p);
  }
}

// Interior rows shorter than this are computed window by window.
constexpr int64_t kMinInteriorRow = 4;
// Channels-last inputs with at least this many channels are computed all channels at once.
constexpr int64_t kMinChannelsLast = 8;

// A row's running results, one per interior output; per thread.
template <typename T>
struct RowState {
  std::vector<T> best;
  std::vector<int64_t> where;
  std::vector<double> acc;
};

}  // namespace geon::cpu::pool_loops
