// Naive direct (transposed) convolution for the cpu.dnnl conv tests: explicit loops over every
// output and kernel position, 1-D to 3-D (shorter ranks padded with length-1 dims), groups,
// strides, dilations and begin pads. Independent of the kernel's oneDNN setup. Also the seeded
// random values those tests feed it.
#pragma once

#include <random>
#include <vector>

#include "tests/kernels/cpu/harness.h"

namespace geon::cpu::testing {

struct ConvRef {
  Dims strides, dilations, pad_begin;  // per spatial dim; pads in ONNX terms
  int64_t group = 1;
  bool transpose = false;
};

namespace conv_ref_detail {
// (N, C, d...) padded to (N, C, d0, d1, d2).
inline Dims five(const Dims& d) {
  Dims f = d;
  while (f.size() < 5) f.push_back(1);
  return f;
}
inline int64_t flat(const Dims& s, int64_t a, int64_t b, const int64_t* sp) {
  return (((a * s[1] + b) * s[2] + sp[0]) * s[3] + sp[1]) * s[4] + sp[2];
}
inline int64_t at_or(const Dims& d, size_t i, int64_t fill) { return i < d.size() ? d[i] : fill; }
}  // namespace conv_ref_detail

// Y (of shape `out`, ONNX order) for X, W and optional B.
inline std::vector<double> conv_reference(const Host& x, const Host& w, const Host* b,
                                          const Dims& out, const ConvRef& p) {
  using namespace conv_ref_detail;
  const Dims xs = five(x.shape()), ws = five(w.shape()), ys = five(out);
  int64_t st[3], dl[3], pb[3];
  for (size_t i = 0; i < 3; ++i) {
    st[i] = at_or(p.strides, i, 1);
    dl[i] = at_or(p.dilations, i, 1);
    pb[i] = at_or(p.pad_begin, i, 0);
  }
  const int64_t cg = xs[1] / p.group, mg = ys[1] / p.group;
  std::vector<double> y(element_count(out), 0.0);
  for (int64_t n = 0; n < ys[0]; ++n)
    for (int64_t m = 0; m < ys[1]; ++m) {
      const double bias = b ? b->at(m) : 0.0;
      int64_t o[3];
      for (o[0] = 0; o[0] < ys[2]; ++o[0])
        for (o[1] = 0; o[1] < ys[3]; ++o[1])
          for (o[2] = 0; o[2] < ys[4]; ++o[2]) y[flat(ys, n, m, o)] = bias;
    }
  int64_t k[3], i[3], o[3];
  for (int64_t n = 0; n < xs[0]; ++n)
    for (int64_t c = 0; c < xs[1]; ++c) {
      const int64_t g = c / cg;
      for (int64_t mm = 0; mm < mg; ++mm) {
        const int64_t m = g * mg + mm;
        for (k[0] = 0; k[0] < ws[2]; ++k[0])
          for (k[1] = 0; k[1] < ws[3]; ++k[1])
            for (k[2] = 0; k[2] < ws[4]; ++k[2]) {
              // Forward: W is (M, C/G, k...); transposed: (C, M/G, k...).
              const double wv =
                  p.transpose ? w.at(flat(ws, c, mm, k)) : w.at(flat(ws, m, c % cg, k));
              if (!p.transpose) {
                for (o[0] = 0; o[0] < ys[2]; ++o[0])
                  for (o[1] = 0; o[1] < ys[3]; ++o[1])
                    for (o[2] = 0; o[2] < ys[4]; ++o[2]) {
                      bool inside = true;
                      for (int d = 0; d < 3; ++d) {
                        i[d] = o[d] * st[d] - pb[d] + k[d] * dl[d];
                        inside = inside && i[d] >= 0 && i[d] < xs[2 + d];
                      }
                      if (inside) y[flat(ys, n, m, o)] += x.at(flat(xs, n, c, i)) * wv;
                    }
              } else {
                for (i[0] = 0; i[0] < xs[2]; ++i[0])
                  for (i[1] = 0; i[1] < xs[3]; ++i[1])
                    for (i[2] = 0; i[2] < xs[4]; ++i[2]) {
                      bool inside = true;
                      for (int d = 0; d < 3; ++d) {
                        o[d] = i[d] * st[d] - pb[d] + k[d] * dl[d];
                        inside = inside && o[d] >= 0 && o[d] < ys[2 + d];
                      }
                      if (inside) y[flat(ys, n, m, o)] += x.at(flat(xs, n, c, i)) * wv;
                    }
              }
            }
      }
    }
  return y;
}

// n values uniform in [-scale, scale) from rng, in double (weights and inputs for the reference).
inline std::vector<double> uniform_values(std::mt19937& rng, int64_t n, double scale) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& e : v) e = u(rng) * scale;
  return v;
}

}  // namespace geon::cpu::testing
