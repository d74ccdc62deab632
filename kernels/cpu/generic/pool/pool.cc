// MaxPool (with its Indices output), AveragePool, LpPool and the global pools on the CPU with
// geon's own loops: every case ONNX defines, read and written through strides. Per spatial dim
// and output position the input positions a window reads are listed once, so the window loop is
// a product of short lists with no bounds checks; planes (n, c) are split over the engine pool.
// Along the last dim, the outputs whose windows lie wholly inside X (all but a few at the edges)
// are computed a row at a time, tap by tap over contiguous output runs the compiler vectorises;
// channels-last inputs are computed over runs of contiguous channels instead.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/base/error.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/pool/taps.h"
#include "kernels/cpu/generic/pool/window.h"

namespace geon::cpu {
namespace {

using namespace pool_loops;

enum class PoolKind { kMax, kAvg, kLp };

struct PoolSpec {
  PoolKind kind = PoolKind::kMax;
  bool global = false;
  PoolAttrs attrs;
  bool count_include_pad = false;
  double p = 2;
  bool indices = false;
  bool column_major = false;  // storage_order 1: Indices count the first spatial dim fastest
};

// Element offset in d of plane (n, c) at output position o, over its first `dims` spatial dims.
int64_t offset_at(const TensorDesc& d, int64_t n, int64_t c, const std::vector<int64_t>& o,
                  int dims) {
  int64_t at = n * d.strides[0] + c * d.strides[1];
  for (int k = 0; k < dims; ++k) at += o[k] * d.strides[k + 2];
  return at;
}

// Steps o, the output position over its first `dims` spatial dims, to the next one in
// row-major order (wrapping to all zeros after the last).
void next_position(std::vector<int64_t>& o, const Dims& out, int dims) {
  for (int k = dims - 1; k >= 0; --k) {
    if (++o[k] < out[k]) return;
    o[k] = 0;
  }
}

PoolKind kind_of(std::string_view op) {
  if (op == "MaxPool" || op == "GlobalMaxPool") return PoolKind::kMax;
  if (op == "AveragePool" || op == "GlobalAveragePool") return PoolKind::kAvg;
  return PoolKind::kLp;
}

// LpPool-1 and GlobalLpPool-1 take 'p' as a float, later versions as an int.
double read_p(const Node& n) {
  const Attribute* a = n.attr("p");
  if (!a) return 2;
  return a->kind == Attribute::Kind::kFloat ? a->f : static_cast<double>(a->i);
}

bool wants_output(const Node& n, int i) {
  return static_cast<int>(n.outputs.size()) > i && n.outputs[i] >= 0;
}

template <typename T>
struct PoolRun {
  const PoolSpec& spec;
  const PoolGeometry& g;
  const T* x;  // at the element the description's offset names
  const TensorDesc& xd;
  T* y;
  const TensorDesc& yd;
  int64_t* idx;  // null without Indices
  const TensorDesc* id;
  std::vector<DimTaps> taps;
  std::vector<std::vector<int64_t>> xoff, ioff;  // per dim and tap: X offset, Indices term
  int64_t plane = 1;                             // elements of one (n, c) plane of X
  std::vector<int64_t> index_stride;             // per dim: its step in an Indices value
  Interior inner;                                // of the last dim

  // Per-thread window cursors: each dim's tap range and position.
  struct Cursor {
    std::vector<int64_t> lo, hi, j;
  };

  void prepare() {
    for (int64_t len : g.in) plane *= len;
    const int s = g.spatial();
    int64_t scale = 1;
    index_stride.assign(s, 0);
    for (int i = 0; i < s; ++i) {
      const int d = spec.column_major ? i : s - 1 - i;
      index_stride[d] = scale;
      scale *= g.in[d];
    }
    for (int d = 0; d < s; ++d) {
      taps.push_back(dim_taps(g, d));
      std::vector<int64_t> xo, io;
      for (int64_t c : taps[d].coord) {
        xo.push_back(c * xd.strides[d + 2]);
        io.push_back(c * index_stride[d]);
      }
      xoff.push_back(std::move(xo));
      ioff.push_back(std::move(io));
    }
    if (s > 0) inner = interior_of(g, s - 1);
  }

  // One output element of plane (nn, cc) at output position `o`; K is spec.kind, fixed at
  // compile time so the tap loop has no branch on it.
  template <PoolKind K>
  void element(const T* xp, int64_t plane_index, const std::vector<int64_t>& o, T* yp, int64_t* ip,
               Cursor& cur) const {
    const int s = g.spatial();
    int64_t count = 1, extent = 1;
    std::vector<int64_t>&lo = cur.lo, &hi = cur.hi, &j = cur.j;
    for (int d = 0; d < s; ++d) {
      lo[d] = taps[d].first[o[d]];
      hi[d] = taps[d].first[o[d] + 1];
      count *= hi[d] - lo[d];
      extent *= taps[d].extent[o[d]];
      j[d] = lo[d];
    }
    if (count == 0) {  // a window that reads nothing of X (dilations over a short input)
      const bool nan = K == PoolKind::kAvg && !(spec.count_include_pad && extent > 0);
      *yp = nan ? static_cast<T>(std::numeric_limits<float>::quiet_NaN()) : T(0);
      if (ip) *ip = -1;
      return;
    }
    const int last = s - 1;
    // Max starts from the window's first tap (which then compares equal to itself).
    int64_t off0 = 0, io0 = 0;
    for (int d = 0; d < s; ++d) off0 += xoff[d][lo[d]], io0 += ioff[d][lo[d]];
    T best = xp[off0];
    int64_t best_index = io0;
    double acc = 0;
    for (;;) {
      int64_t off = 0, io = 0;
      for (int d = 0; d < last; ++d) off += xoff[d][j[d]], io += ioff[d][j[d]];
      // The innermost dim as a plain loop.
      const int64_t* xo = s > 0 ? xoff[last].data() : nullptr;
      const int64_t* iov = s > 0 ? ioff[last].data() : nullptr;
      const int64_t a = s > 0 ? lo[last] : 0, b = s > 0 ? hi[last] : 1;
      for (int64_t k = a; k < b; ++k) {
        const T v = xp[off + (s > 0 ? xo[k] : 0)];
        if constexpr (K == PoolKind::kMax) {
          if (v > best) {
            best = v;
            best_index = io + (s > 0 ? iov[k] : 0);
          }
        } else if constexpr (K == PoolKind::kAvg) {
          acc += static_cast<double>(v);
        } else {
          const double m = std::abs(static_cast<double>(v));
          acc += spec.p == 1 ? m : spec.p == 2 ? m * m : std::pow(m, spec.p);
        }
      }
      int d = last - 1;
      for (; d >= 0; --d) {
        if (++j[d] < hi[d]) break;
        j[d] = lo[d];
      }
      if (d < 0) break;
    }
    if constexpr (K == PoolKind::kMax) {
      *yp = best;
      if (ip) *ip = plane_index * plane + best_index;
    } else if constexpr (K == PoolKind::kAvg) {
      const int64_t divisor = spec.count_include_pad ? extent : count;
      *yp = static_cast<T>(acc / static_cast<double>(divisor));
    } else {
      *yp = static_cast<T>(spec.p == 1   ? acc
                           : spec.p == 2 ? std::sqrt(acc)
                                         : std::pow(acc, 1.0 / spec.p));
    }
  }

  // Planes [begin, end) of the N * C planes, one output element at a time (no spatial dims).
  template <PoolKind K>
  void planes_by_element(int64_t begin, int64_t end) const {
    const int s = g.spatial();
    const int64_t channels = xd.shape[1];
    int64_t outs = 1;
    for (int64_t len : g.out) outs *= len;
    std::vector<int64_t> o(s);
    Cursor cur{std::vector<int64_t>(s), std::vector<int64_t>(s), std::vector<int64_t>(s)};
    for (int64_t pl = begin; pl < end; ++pl) {
      const int64_t nn = pl / channels, cc = pl % channels;
      // X may be empty (a zero-length spatial dim, padded): null, and then never read.
      const T* xp = x ? x + nn * xd.strides[0] + cc * xd.strides[1] : x;
      std::fill(o.begin(), o.end(), 0);
      for (int64_t e = 0; e < outs; ++e) {
        const int64_t yo = offset_at(yd, nn, cc, o, s);
        const int64_t io = idx ? offset_at(*id, nn, cc, o, s) : 0;
        element<K>(xp, pl, o, y + yo, idx ? idx + io : nullptr, cur);
        next_position(o, g.out, s);
      }
    }
  }

  // One tap of the last dim over the interior outputs [a, a + n) of a row whose outer taps put
  // the row of X at xr (Indices term io); k is the tap.
  template <PoolKind K>
  void row_tap(const T* xr, int64_t io, int64_t a, int64_t n, int64_t k, RowState<T>& rs) const {
    const int last = g.spatial() - 1;
    const int64_t xs = xd.strides[last + 2], st = g.strides[last];
    const int64_t pos = a * st + k * g.dilations[last] - g.pad_begin[last];  // read by output a
    const T* r = xr + pos * xs;
    const int64_t step = st * xs;
    auto by_step = [&](auto tap) {
      if (step == 1)
        tap(std::integral_constant<int, 1>{});
      else if (step == 2)
        tap(std::integral_constant<int, 2>{});
      else
        tap(std::integral_constant<int, 0>{});
    };
    if constexpr (K == PoolKind::kMax) {
      if (idx) {
        const int64_t index0 = io + pos * index_stride[last];
        by_step([&](auto c) {
          argmax_tap<decltype(c)::value>(r, step, n, rs.best.data(), rs.where.data(), index0,
                                         st * index_stride[last]);
        });
      } else {
        by_step([&](auto c) { max_tap<decltype(c)::value>(r, step, n, rs.best.data()); });
      }
    } else {
      by_step([&](auto c) { sums<K, decltype(c)::value>(r, step, n, rs.acc.data()); });
    }
  }

  // sum_tap for AveragePool or LpPool's p.
  template <PoolKind K, int kS>
  void sums(const T* r, int64_t step, int64_t n, double* acc) const {
    const double p = spec.p;
    if constexpr (K == PoolKind::kAvg)
      sum_tap<kS, 0>(r, step, n, acc, p);
    else if (p == 1)
      sum_tap<kS, 1>(r, step, n, acc, p);
    else if (p == 2)
      sum_tap<kS, 2>(r, step, n, acc, p);
    else if (p == 3)
      sum_tap<kS, 3>(r, step, n, acc, p);
    else if (p == 4)
      sum_tap<kS, 4>(r, step, n, acc, p);
    else
      sum_tap<kS, -1>(r, step, n, acc, p);
  }

  // The interior outputs [a, a + n) of the row at outer output position o (o[last] unused),
  // whose outer windows read taps [lo[d], hi[d]) of each outer dim d (count of them in all,
  // extent inside the padded extent); results go to yr[j * ys] and ir[j * is].
  template <PoolKind K>
  void interior_row(const T* xp, int64_t plane_index, int64_t a, int64_t n, int64_t count,
                    int64_t extent, T* yr, int64_t ys, int64_t* ir, int64_t is, Cursor& cur,
                    RowState<T>& rs) const {
    const int last = g.spatial() - 1;
    std::vector<int64_t>&lo = cur.lo, &hi = cur.hi, &j = cur.j;
    for (int d = 0; d < last; ++d) j[d] = lo[d];
    const int64_t taps_k = g.kernel[last];
    if constexpr (K == PoolKind::kMax) {
      // Start from each window's first tap, as element() does (it then compares equal).
      int64_t off = 0, io = 0;
      for (int d = 0; d < last; ++d) off += xoff[d][lo[d]], io += ioff[d][lo[d]];
      const int64_t xs = xd.strides[last + 2], st = g.strides[last];
      const int64_t pos = a * st - g.pad_begin[last];
      for (int64_t q = 0; q < n; ++q) {
        rs.best[q] = xp[off + (pos + q * st) * xs];
        rs.where[q] = io + (pos + q * st) * index_stride[last];
      }
    } else {
      std::fill(rs.acc.begin(), rs.acc.begin() + n, 0.0);
    }
    for (;;) {
      int64_t off = 0, io = 0;
      for (int d = 0; d < last; ++d) off += xoff[d][j[d]], io += ioff[d][j[d]];
      for (int64_t k = 0; k < taps_k; ++k) row_tap<K>(xp + off, io, a, n, k, rs);
      int d = last - 1;
      for (; d >= 0; --d) {
        if (++j[d] < hi[d]) break;
        j[d] = lo[d];
      }
      if (d < 0) break;
    }
    if constexpr (K == PoolKind::kMax) {
      for (int64_t q = 0; q < n; ++q) yr[q * ys] = rs.best[q];
      if (ir)
        for (int64_t q = 0; q < n; ++q) ir[q * is] = plane_index * plane + rs.where[q];
    } else if constexpr (K == PoolKind::kAvg) {
      const double divisor =
          static_cast<double>((spec.count_include_pad ? extent : count) * taps_k);
      for (int64_t q = 0; q < n; ++q) yr[q * ys] = static_cast<T>(rs.acc[q] / divisor);
    } else {
      const double p = spec.p;
      for (int64_t q = 0; q < n; ++q) {
        const double v = rs.acc[q];
        yr[q * ys] = static_cast<T>(p == 1 ? v : p == 2 ? std::sqrt(v) : std::pow(v, 1.0 / p));
      }
    }
  }

  // Planes [begin, end) of the N * C planes, a row of the last dim at a time: the outputs at
  // its edges by element(), its interior by interior_row().
  template <PoolKind K>
  void planes(int64_t begin, int64_t end) const {
    const int s = g.spatial();
    if (s == 0) {
      planes_by_element<K>(begin, end);
      return;
    }
    const int last = s - 1;
    const int64_t channels = xd.shape[1], width = g.out[last];
    int64_t rows = 1;
    for (int d = 0; d < last; ++d) rows *= g.out[d];
    const int64_t ys = yd.strides[last + 2], is = idx ? id->strides[last + 2] : 0;
    std::vector<int64_t> o(s);
    Cursor cur{std::vector<int64_t>(s), std::vector<int64_t>(s), std::vector<int64_t>(s)};
    RowState<T> rs;
    const int64_t n = inner.hi - inner.lo;
    if (K == PoolKind::kMax) {
      rs.best.resize(n);
      rs.where.resize(n);
    } else {
      rs.acc.resize(n);
    }
    for (int64_t pl = begin; pl < end; ++pl) {
      const int64_t nn = pl / channels, cc = pl % channels;
      // X may be empty (a zero-length spatial dim, padded): null, and then never read.
      const T* xp = x ? x + nn * xd.strides[0] + cc * xd.strides[1] : x;
      std::fill(o.begin(), o.end(), 0);
      for (int64_t row = 0; row < rows; ++row) {
        const int64_t yo = offset_at(yd, nn, cc, o, last);
        const int64_t io = idx ? offset_at(*id, nn, cc, o, last) : 0;
        T* yr = y + yo;
        int64_t* ir = idx ? idx + io : nullptr;
        // The outer windows. A row none of whose windows reads X goes through element(), and so
        // does a row with a short interior (a global pool's one output), where the window's own
        // inner loop is the longer one.
        int64_t count = 1, extent = 1;
        for (int d = 0; d < last; ++d) {
          count *= taps[d].first[o[d] + 1] - taps[d].first[o[d]];
          extent *= taps[d].extent[o[d]];
        }
        const bool by_rows = count > 0 && n >= kMinInteriorRow;
        const int64_t a = by_rows ? inner.lo : width, z = by_rows ? inner.hi : width;
        auto edge = [&](int64_t from, int64_t to) {
          for (o[last] = from; o[last] < to; ++o[last])
            element<K>(xp, pl, o, yr + o[last] * ys, ir ? ir + o[last] * is : nullptr, cur);
        };
        edge(0, a);
        if (z > a) {
          for (int d = 0; d < last; ++d) {
            cur.lo[d] = taps[d].first[o[d]];
            cur.hi[d] = taps[d].first[o[d] + 1];
          }
          interior_row<K>(xp, pl, a, z - a, count, extent, yr + a * ys, ys,
                          ir ? ir + a * is : nullptr, is, cur, rs);
        }
        edge(z, width);
        o[last] = 0;
        next_position(o, g.out, last);
      }
    }
  }

  // Channels-last X (C contiguous: a layout pass's choice): the output positions [begin, end)
  // of the N * (outputs per plane), all channels at once, each window tap a contiguous run of C
  // channels. Per channel the taps come in element()'s order, so results are the same.
  template <PoolKind K>
  void positions(int64_t begin, int64_t end) const {
    const int s = g.spatial();
    const int64_t channels = xd.shape[1];
    int64_t outs = 1;
    for (int64_t len : g.out) outs *= len;
    std::vector<int64_t> o(s), lo(s), hi(s), j(s);
    RowState<T> rs;
    if (K == PoolKind::kMax) {
      rs.best.resize(channels);
      rs.where.resize(channels);
    } else {
      rs.acc.resize(channels);
    }
    int64_t rest = begin % outs;
    for (int d = s - 1; d >= 0; --d) {
      o[d] = rest % g.out[d];
      rest /= g.out[d];
    }
    const int64_t ycs = yd.strides[1], ics = idx ? id->strides[1] : 0;
    for (int64_t u = begin; u < end; ++u) {
      const int64_t nn = u / outs;
      const T* xn = x ? x + nn * xd.strides[0] : x;  // null when X is empty (never read)
      int64_t yo = nn * yd.strides[0], io = idx ? nn * id->strides[0] : 0;
      int64_t count = 1, extent = 1;
      for (int d = 0; d < s; ++d) {
        yo += o[d] * yd.strides[d + 2];
        if (idx) io += o[d] * id->strides[d + 2];
        lo[d] = j[d] = taps[d].first[o[d]];
        hi[d] = taps[d].first[o[d] + 1];
        count *= hi[d] - lo[d];
        extent *= taps[d].extent[o[d]];
      }
      if (count == 0) {  // as in element()
        const bool nan = K == PoolKind::kAvg && !(spec.count_include_pad && extent > 0);
        const T v = nan ? static_cast<T>(std::numeric_limits<float>::quiet_NaN()) : T(0);
        for (int64_t c = 0; c < channels; ++c) {
          y[yo + c * ycs] = v;
          if (idx) idx[io + c * ics] = -1;
        }
      } else {
        if constexpr (K == PoolKind::kMax) {  // start from the window's first tap
          int64_t off = 0, where = 0;
          for (int d = 0; d < s; ++d) off += xoff[d][lo[d]], where += ioff[d][lo[d]];
          std::copy(xn + off, xn + off + channels, rs.best.begin());
          std::fill(rs.where.begin(), rs.where.end(), where);
        } else {
          std::fill(rs.acc.begin(), rs.acc.end(), 0.0);
        }
        for (;;) {
          int64_t off = 0, where = 0;
          for (int d = 0; d < s; ++d) off += xoff[d][j[d]], where += ioff[d][j[d]];
          if constexpr (K == PoolKind::kMax) {
            if (idx)
              argmax_tap<1>(xn + off, 1, channels, rs.best.data(), rs.where.data(), where, 0);
            else
              max_tap<1>(xn + off, 1, channels, rs.best.data());
          } else {
            sums<K, 1>(xn + off, 1, channels, rs.acc.data());
          }
          int d = s - 1;
          for (; d >= 0; --d) {
            if (++j[d] < hi[d]) break;
            j[d] = lo[d];
          }
          if (d < 0) break;
        }
        if constexpr (K == PoolKind::kMax) {
          for (int64_t c = 0; c < channels; ++c) y[yo + c * ycs] = rs.best[c];
          if (idx)
            for (int64_t c = 0; c < channels; ++c)
              idx[io + c * ics] = (nn * channels + c) * plane + rs.where[c];
        } else if constexpr (K == PoolKind::kAvg) {
          const double divisor = static_cast<double>(spec.count_include_pad ? extent : count);
          for (int64_t c = 0; c < channels; ++c)
            y[yo + c * ycs] = static_cast<T>(rs.acc[c] / divisor);
        } else {
          const double p = spec.p;
          for (int64_t c = 0; c < channels; ++c) {
            const double v = rs.acc[c];
            y[yo + c * ycs] = static_cast<T>(p == 1   ? v
                                             : p == 2 ? std::sqrt(v)
                                                      : std::pow(v, 1.0 / p));
          }
        }
      }
      next_position(o, g.out, s);
    }
  }

  void run() const {
    const int64_t channels = xd.shape[1];
    if (g.spatial() > 0 && xd.strides[1] == 1 && channels >= kMinChannelsLast) {
      int64_t units = xd.shape[0], work = xd.shape[0] * channels;
      for (int64_t len : g.out) units *= len, work *= len;
      for (int64_t len : g.kernel) work *= len;
      split(units, work, [&](int64_t begin, int64_t end) {
        if (spec.kind == PoolKind::kMax)
          positions<PoolKind::kMax>(begin, end);
        else if (spec.kind == PoolKind::kAvg)
          positions<PoolKind::kAvg>(begin, end);
        else
          positions<PoolKind::kLp>(begin, end);
      });
      return;
    }
    const int64_t n_planes = xd.shape[0] * xd.shape[1];
    int64_t work = n_planes;
    for (int64_t len : g.out) work *= len;
    for (int64_t len : g.kernel) work *= len;
    split(n_planes, work, [&](int64_t begin, int64_t end) {
      if (spec.kind == PoolKind::kMax)
        planes<PoolKind::kMax>(begin, end);
      else if (spec.kind == PoolKind::kAvg)
        planes<PoolKind::kAvg>(begin, end);
      else
        planes<PoolKind::kLp>(begin, end);
    });
  }

  // Runs some(begin, end) over [0, units) on the engine pool, in parts of >= ~16K window taps.
  template <typename F>
  static void split(int64_t units, int64_t work, F some) {
    ThreadPool& pool = default_thread_pool();
    const int parts = static_cast<int>(std::min<int64_t>(
        {static_cast<int64_t>(pool.size()), units, std::max<int64_t>(1, work / 16384)}));
    if (parts <= 1) {
      some(0, units);
      return;
    }
    pool.run(parts, [&](int part) { some(units * part / parts, units * (part + 1) / parts); });
  }
};

// A dense copy of a tensor in dtype t, for inputs and outputs not in the compute type.
struct Staged {
  std::vector<std::byte> bytes;
  TensorDesc desc;
};
Staged staged(DType t, const Dims& shape) {
  Staged s{std::vector<std::byte>(dtype_bytes_for(t, std::max<int64_t>(element_count(shape), 1))),
           row_major(t, shape)};
  return s;
}

template <typename T>
void compute_as(const PoolSpec& spec, const PoolGeometry& g, const TensorRef& x, TensorRef& y,
                TensorRef* indices) {
  const DType ct = x.desc.dtype == DType::kDouble ? DType::kDouble : DType::kFloat;
  Staged xs, ys;
  const T* xp = static_cast<const T*>(x.data) + x.desc.offset;
  const TensorDesc* xd = &x.desc;
  if (x.desc.dtype != ct) {
    xs = staged(ct, x.desc.shape);
    assign(Operand{xs.desc, xs.bytes.data()}, src_of(x));
    xp = reinterpret_cast<const T*>(xs.bytes.data());
    xd = &xs.desc;
  }
  T* yp = static_cast<T*>(y.data) + y.desc.offset;
  const TensorDesc* yd = &y.desc;
  if (y.desc.dtype != ct) {
    ys = staged(ct, y.desc.shape);
    yp = reinterpret_cast<T*>(ys.bytes.data());
    yd = &ys.desc;
  }
  int64_t* ip = indices ? static_cast<int64_t*>(indices->data) + indices->desc.offset : nullptr;
  PoolRun<T> r{spec, g,  xp, *xd, yp, *yd, ip, indices ? &indices->desc : nullptr,
               {},   {}, {}, 1,   {}, {}};
  r.prepare();
  r.run();
  if (y.desc.dtype != ct) assign(dst_of(y), ConstOperand(ys.desc, ys.bytes.data()));
}

std::unique_ptr<Kernel> pool_kernel(const Node& n, PoolSpec spec) {
  return make_node_kernel(n, [spec, op = n.op](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const PoolGeometry g = spec.global ? global_geometry(op, x.desc.shape)
                                       : pool_geometry(op, spec.attrs, x.desc.shape);
    const Dims shape = pool_output_shape(x.desc.shape, g);
    TensorRef& y = ctx.output(0, shape);
    TensorRef* indices = spec.indices ? &ctx.output(1, shape) : nullptr;
    if (element_count(shape) == 0) return;
    if (indices) require(indices->desc.dtype == DType::kInt64, "the Indices output must be int64");
    if (x.desc.dtype == DType::kDouble)
      compute_as<double>(spec, g, x, y, indices);
    else
      compute_as<float>(spec, g, x, y, indices);
  });
}

Reason dtype_reason(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  const bool int8 = t == DType::kInt8 || t == DType::kUInt8;
  if (t != DType::kFloat && t != DType::kDouble && t != DType::kFloat16 && t != DType::kBFloat16 &&
      !(int8 && kind_of(n.op) == PoolKind::kMax))
    return n.op + " of " + std::string(dtype_name(t)) + " is not implemented";
  if (output_dtype(g, n, 0) != t) return n.op + ": Y's dtype differs from X's";
  if (wants_output(n, 1) && output_dtype(g, n, 1) != DType::kInt64)
    return n.op + ": the Indices output must be int64";
  return std::nullopt;
}

}  // namespace

Reason supports_pool(const Graph& g, const Node& n) {
  if (Reason r = dtype_reason(g, n)) return r;
  if (kind_of(n.op) == PoolKind::kLp && !(read_p(n) > 0)) return n.op + ": 'p' must be positive";
  return pool_attrs_reason(n);
}

std::unique_ptr<Kernel> create_pool(const Graph&, const Node& n) {
  PoolSpec spec;
  spec.kind = kind_of(n.op);
  spec.attrs = read_pool_attrs(n);
  spec.count_include_pad = attr_int(n, "count_include_pad", 0) != 0;
  spec.p = read_p(n);
  spec.indices = spec.kind == PoolKind::kMax && wants_output(n, 1);
  spec.column_major = attr_int(n, "storage_order", 0) == 1;
  return pool_kernel(n, spec);
}

Reason supports_global_pool(const Graph& g, const Node& n) {
  if (Reason r = dtype_reason(g, n)) return r;
  if (kind_of(n.op) == PoolKind::kLp && !(read_p(n) > 0)) return n.op + ": 'p' must be positive";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_global_pool(const Graph&, const Node& n) {
  PoolSpec spec;
  spec.kind = kind_of(n.op);
  spec.global = true;
  spec.p = read_p(n);
  return pool_kernel(n, spec);
}

}  // namespace geon::cpu
