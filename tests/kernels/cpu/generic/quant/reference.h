// Naive references shared by the quant family's matrix and convolution tests: random int8 /
// uint8 tensors, numpy's matmul of zero-point-shifted operands, and an N-D grouped convolution
// with the spec's output lengths and pads (every auto_pad mode).
#pragma once

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "tests/kernels/cpu/harness.h"

namespace geon::cpu::testing::quant {

inline Host random_q(DType t, const Dims& shape, std::mt19937& rng) {
  return t == DType::kUInt8 ? Host::random(t, shape, rng, 0, 255)
                            : Host::random(t, shape, rng, -128, 127);
}

// acc[b, i, j] of numpy's matmul of (a - za) and (b - zb) for a (..., M, K), b (..., K, N) of
// equal rank; za is per row (M values, or one), zb per column (N values, or one).
inline std::vector<double> reference_product(const Host& a, const Host& b, const Host* za,
                                             const Host* zb, Dims& out) {
  const Dims as = a.shape(), bs = b.shape();
  const size_t r = as.size();
  const int64_t M = as[r - 2], K = as[r - 1], N = bs[r - 1];
  out.clear();
  for (size_t d = 0; d + 2 < r; ++d) out.push_back(std::max(as[d], bs[d]));
  const int64_t batches = element_count(out);
  out.push_back(M);
  out.push_back(N);
  std::vector<double> c(static_cast<size_t>(batches * M * N), 0.0);
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t ab = 0, bb = 0, rem = bi, am = 1, bm = 1;
    for (int d = static_cast<int>(r) - 3; d >= 0; --d) {
      const int64_t coord = rem % out[d];
      rem /= out[d];
      ab += (as[d] == 1 ? 0 : coord) * am;
      bb += (bs[d] == 1 ? 0 : coord) * bm;
      am *= as[d];
      bm *= bs[d];
    }
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) {
          const double x = a.at((ab * M + i) * K + k) -
                           (za ? za->at(element_count(za->shape()) == 1 ? 0 : i) : 0);
          const double y = b.at((bb * K + k) * N + j) -
                           (zb ? zb->at(element_count(zb->shape()) == 1 ? 0 : j) : 0);
          s += x * y;
        }
        c[(bi * M + i) * N + j] = s;
      }
  }
  return c;
}

struct Window {
  std::vector<int64_t> strides, dilations, pads;  // pads: begins then ends
  int64_t group = 1;
  std::string auto_pad = "NOTSET";
};

// The convolution of x (N, C, in...) with w (M, C/group, k...), shifted by zx (one value) and
// zw (one or M values), by the spec's formulas for the output lengths and pads.
inline std::vector<double> reference_conv(const Host& x, const Host& w, double zx, const Host* zw,
                                          const Window& win, Dims& out) {
  const Dims xs = x.shape(), ws = w.shape();
  const size_t s = xs.size() - 2;
  const int64_t N = xs[0], C = xs[1], M = ws[0], Cg = ws[1], Mg = M / win.group;
  std::vector<int64_t> ol(s), pb(s);
  for (size_t d = 0; d < s; ++d) {
    const int64_t in = xs[d + 2], k = ws[d + 2], st = win.strides[d], dl = win.dilations[d];
    const int64_t eff = (k - 1) * dl + 1;
    if (win.auto_pad == "SAME_UPPER" || win.auto_pad == "SAME_LOWER") {
      ol[d] = (in + st - 1) / st;
      const int64_t total = std::max<int64_t>(0, (ol[d] - 1) * st + eff - in);
      pb[d] = win.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else if (win.auto_pad == "VALID") {
      ol[d] = (in - eff) / st + 1;
      pb[d] = 0;
    } else {
      ol[d] = (in + win.pads[d] + win.pads[d + s] - eff) / st + 1;
      pb[d] = win.pads[d];
    }
  }
  out = {N, M};
  out.insert(out.end(), ol.begin(), ol.end());
  const int64_t osz = element_count(Dims(ol.begin(), ol.end()));
  const int64_t ksz = element_count(Dims(ws.begin() + 2, ws.end()));
  std::vector<double> y(static_cast<size_t>(N * M * osz), 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t o = 0; o < osz; ++o) {
        double acc = 0;
        for (int64_t c = 0; c < Cg; ++c)
          for (int64_t kk = 0; kk < ksz; ++kk) {
            int64_t xi = n * C + (m / Mg) * Cg + c, ro = o, rk = kk;
            std::vector<int64_t> oc(s), kc(s);
            for (int d = static_cast<int>(s) - 1; d >= 0; --d) {
              oc[d] = ro % ol[d];
              ro /= ol[d];
              kc[d] = rk % ws[d + 2];
              rk /= ws[d + 2];
            }
            bool inside = true;
            for (size_t d = 0; d < s; ++d) {
              const int64_t id = oc[d] * win.strides[d] - pb[d] + kc[d] * win.dilations[d];
              inside = inside && id >= 0 && id < xs[d + 2];
              xi = xi * xs[d + 2] + id;
            }
            if (!inside) continue;
            const double wz = zw ? zw->at(element_count(zw->shape()) == 1 ? 0 : m) : 0;
            acc += (x.at(xi) - zx) * (w.at((m * Cg + c) * ksz + kk) - wz);
          }
        y[(n * M + m) * osz + o] = acc;
      }
  return y;
}

inline void set_window(NodeGraph& ng, const Window& win) {
  ng.attr_ints("strides", win.strides).attr_ints("dilations", win.dilations);
  if (win.auto_pad == "NOTSET")
    ng.attr_ints("pads", win.pads);
  else
    ng.attr_s("auto_pad", win.auto_pad);
  ng.attr_i("group", win.group);
}

struct Case {
  Dims x, w;
  Window win;
};

inline std::vector<Case> cases() {
  return {
      {{1, 2, 9}, {3, 2, 3}, {{2}, {1}, {1, 2}}},
      {{2, 4, 6, 7}, {4, 2, 3, 2}, {{1, 2}, {2, 1}, {1, 0, 2, 1}, 2}},
      {{1, 3, 5, 5}, {6, 1, 3, 3}, {{2, 2}, {1, 1}, {0, 0, 0, 0}, 3, "SAME_UPPER"}},
      {{1, 2, 5, 6}, {2, 2, 2, 3}, {{2, 1}, {1, 2}, {0, 0, 0, 0}, 1, "SAME_LOWER"}},
      {{1, 1, 4, 5}, {2, 1, 2, 2}, {{1, 2}, {1, 1}, {0, 0, 0, 0}, 1, "VALID"}},
      {{1, 2, 3, 4, 5}, {2, 2, 2, 2, 3}, {{1, 1, 2}, {1, 2, 1}, {1, 0, 1, 0, 1, 1}}},
  };
}

}  // namespace geon::cpu::testing::quant
