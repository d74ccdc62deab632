// A naive pooling reference for the pool tests of both CPU kernel sets: every window position
// of every output element visited by plain index arithmetic, straight from ONNX's definitions
// (max over the positions inside X, average over those inside X or, with count_include_pad,
// inside the explicitly padded extent, Lp over those inside X; ceil_mode's part past the pads
// never read nor counted; Indices flattened over the whole tensor in either storage order).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {

struct PoolCase {
  std::string kind = "max";                               // "max", "avg", "lp"
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: begins then ends
  bool ceil_mode = false;
  bool count_include_pad = false;
  double p = 2;
  bool column_major = false;  // storage_order 1
};

// Output length of one spatial dim with explicit pads, as ONNX defines it.
inline int64_t pool_out_len(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe,
                            bool ceil_mode) {
  const int64_t span = in + pb + pe - ((k - 1) * d + 1);
  if (!ceil_mode) return span / s + 1;
  int64_t out = (span + s - 1) / s + 1;
  if ((out - 1) * s >= in + pb) --out;
  return out;
}

struct PoolResult {
  Dims shape;
  std::vector<double> y;
  std::vector<int64_t> indices;
};

inline PoolResult naive_pool(const Host& x, const PoolCase& c) {
  const Dims& xs = x.desc.shape;
  const int sp = static_cast<int>(xs.size()) - 2;
  PoolResult r;
  r.shape = {xs[0], xs[1]};
  for (int i = 0; i < sp; ++i)
    r.shape.push_back(pool_out_len(xs[i + 2], c.kernel[i], c.strides[i], c.dilations[i], c.pads[i],
                                   c.pads[i + sp], c.ceil_mode));
  int64_t plane = 1;
  for (int i = 0; i < sp; ++i) plane *= xs[i + 2];
  const int64_t total = element_count(r.shape);
  for (int64_t e = 0; e < total; ++e) {
    std::vector<int64_t> o(sp);
    int64_t rest = e;
    for (int i = sp - 1; i >= 0; --i) o[i] = rest % r.shape[i + 2], rest /= r.shape[i + 2];
    const int64_t ch = rest % xs[1], nb = rest / xs[1];
    int64_t windows = 1;
    for (int64_t k : c.kernel) windows *= k;
    double best = 0, acc = 0;
    int64_t best_index = -1, inside = 0, extent = 0;
    for (int64_t w = 0; w < windows; ++w) {
      std::vector<int64_t> kk(sp);
      int64_t wr = w;
      for (int i = sp - 1; i >= 0; --i) kk[i] = wr % c.kernel[i], wr /= c.kernel[i];
      bool in_x = true, in_extent = true;
      int64_t flat = 0, index = 0, scale = 1;
      for (int i = 0; i < sp; ++i) {
        const int64_t pos = o[i] * c.strides[i] - c.pads[i] + kk[i] * c.dilations[i];
        if (pos < 0 || pos >= xs[i + 2]) in_x = false;
        if (pos >= xs[i + 2] + c.pads[i + sp]) in_extent = false;
        flat = flat * xs[i + 2] + pos;
      }
      if (!in_extent) continue;
      ++extent;
      if (!in_x) continue;
      ++inside;
      // Column-major index of the same position: the first spatial dim fastest.
      for (int i = 0; i < sp; ++i) {
        index += (o[i] * c.strides[i] - c.pads[i] + kk[i] * c.dilations[i]) * scale;
        scale *= xs[i + 2];
      }
      const double v = x.at((nb * xs[1] + ch) * plane + flat);
      if (c.kind == "max") {
        if (best_index < 0 || v > best) {
          best = v;
          best_index = (nb * xs[1] + ch) * plane + (c.column_major ? index : flat);
        }
      } else if (c.kind == "avg") {
        acc += v;
      } else {
        acc += std::pow(std::abs(v), c.p);
      }
    }
    if (c.kind == "max") {
      r.y.push_back(best);
      r.indices.push_back(best_index);
    } else if (c.kind == "avg") {
      r.y.push_back(acc / static_cast<double>(c.count_include_pad ? extent : inside));
    } else {
      r.y.push_back(std::pow(acc, 1.0 / c.p));
    }
  }
  return r;
}

// A random case of `sp` spatial dims: kernels 1..3, strides 1..3, dilations 1..2, pads below
// the window extent, and input lengths that fit the window.
inline PoolCase random_pool_case(std::mt19937& rng, int sp, const std::string& kind) {
  PoolCase c;
  c.kind = kind;
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  c.pads.resize(2 * sp);
  for (int i = 0; i < sp; ++i) {
    c.kernel.push_back(pick(1, 3));
    c.strides.push_back(pick(1, 3));
    c.dilations.push_back(pick(1, 2));
    const int64_t eff = (c.kernel[i] - 1) * c.dilations[i] + 1;
    c.pads[i] = pick(0, eff - 1);
    c.pads[i + sp] = pick(0, eff - 1);
  }
  c.ceil_mode = rng() % 2;
  c.count_include_pad = rng() % 2;
  return c;
}

// An input shape (N, C, D...) for which every window fits the padded input.
inline Dims random_pool_input(std::mt19937& rng, const PoolCase& c) {
  const int sp = static_cast<int>(c.kernel.size());
  Dims s = {1 + static_cast<int64_t>(rng() % 2), 1 + static_cast<int64_t>(rng() % 3)};
  for (int i = 0; i < sp; ++i) {
    const int64_t eff = (c.kernel[i] - 1) * c.dilations[i] + 1;
    s.push_back(std::max<int64_t>(1, eff - c.pads[i] - c.pads[i + sp]) +
                static_cast<int64_t>(rng() % 6));
  }
  return s;
}

}  // namespace geon::cpu::testing
