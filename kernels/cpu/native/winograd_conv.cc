// WinogradConv: the weights' transform at construction, and a run's split of the work: as a
// rule into chunks of tiles, each taken by one thread through all three steps (input transform,
// the 36 products, output transform) while its transformed input and products stay in L2; for
// wide layers with few tiles, each step across the pool in turn, the products split by points.
#include "kernels/cpu/native/winograd_conv.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/native/cpu_isa.h"
#include "kernels/cpu/native/magnitude.h"
#include "kernels/cpu/native/thread_floats.h"
#include "kernels/cpu/native/tile_runner.h"
#include "kernels/cpu/native/winograd_transforms.h"

namespace geon::cpu {
namespace {

using native::kTileChannels;
using native::kTilePixels;
using native::kWinogradPoints;
using native::thread_floats;
using native::TileActivation;

// A chunk's transformed input and products together (floats): 384 KiB, three quarters of the
// 512 KiB L2 of the Zen 1 machines this was tuned on (chunks twice as large were slower).
constexpr int64_t kChunkFloats = int64_t{96} << 10;
// Fewer tiles than this (one 14x14 image has 16) leave the transformed weights too little reuse
// to beat the direct kernels: ResNet-50's 256-channel layers at 16 tiles still ran 1.1-1.3x
// faster, its 512-channel ones at 4 tiles 0.6x as fast.
constexpr int64_t kMinTiles = 16;
constexpr int64_t kMaxChannels = 256;
// Transformed weights from this size (floats, 4 MiB) on no longer stay in the cache from one
// chunk of tiles to the next; where a run has more chunks than threads and its whole
// transformed input and products are at most kWholeFloats (8 MiB), it splits the products by
// points instead. ResNet-50's 256-channel layers at batch 1 (9.4 MB of weights, 16 tiles):
// 1.24 -> 0.99 ms; its 64- and 128-channel ones ran up to 20% slower that way.
constexpr int64_t kStreamedWeightsFloats = int64_t{1} << 20;
constexpr int64_t kWholeFloats = int64_t{2} << 20;

std::atomic<int64_t> g_runs{0};

// G of u = G g Gt, the transform of a 3x3 kernel g to the 6x6 points.
constexpr double kG[6][3] = {{0.25, 0, 0},
                             {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                             {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                             {1.0 / 24, 1.0 / 12, 1.0 / 6},
                             {1.0 / 24, -1.0 / 12, 1.0 / 6},
                             {0, 0, 1}};

// Input channel ci of output-channel block b (16 kernels, zero past K) transformed into its
// place of every point's [block][c][16] matrix; the loops over the 16 lanes vectorise, which
// keeps the transform of ResNet-50's weights to a few ms of session creation.
void transform_kernels(const float* w, int64_t k, int64_t c, int64_t b, int64_t ci,
                       int64_t point_floats, float* out) {
  constexpr int L = kTileChannels;
  double g[9][L] = {};
  for (int j = 0; j < L; ++j) {
    const int64_t ko = b * L + j;
    if (ko < k)
      for (int t = 0; t < 9; ++t) g[t][j] = w[(ko * c + ci) * 9 + t];
  }
  double gg[6][3][L];  // G g
  for (int i = 0; i < 6; ++i)
    for (int s = 0; s < 3; ++s)
      for (int j = 0; j < L; ++j)
        gg[i][s][j] = kG[i][0] * g[s][j] + kG[i][1] * g[3 + s][j] + kG[i][2] * g[6 + s][j];
  for (int i = 0; i < 6; ++i)
    for (int q = 0; q < 6; ++q) {
      float* o = out + (i * 6 + q) * point_floats + (b * c + ci) * L;
      for (int j = 0; j < L; ++j)
        o[j] = static_cast<float>(gg[i][0][j] * kG[q][0] + gg[i][1][j] * kG[q][1] +
                                  gg[i][2][j] * kG[q][2]);
    }
}

}  // namespace

struct WinogradConv::Impl {
  int64_t k = 0, c = 0;
  TileActivation act = TileActivation::kNone;
  float alpha = 0, beta = 0;
  float w_max = 0;  // the weights' largest magnitude
  // [point][block][c][16], zero past K (Storage is 64-byte aligned, a block 64-byte multiple).
  std::unique_ptr<Storage> packed;
  std::vector<float> zero_bias;  // the products' bias: blocks * 16 zeros

  int64_t blocks() const { return (k + kTileChannels - 1) / kTileChannels; }
  // m (rows, K) = v (rows, C) times the point's transformed weights, through the register tiles
  // as the 1x1 convolution of `rows` pixels.
  void multiply(int point, const float* v, float* m, int64_t rows) const {
    const int64_t zero_tap = 0;
    native::ConvTiles g;
    g.x = v;
    g.x_image = g.x_row = rows * c;
    g.channels = c;
    g.taps = &zero_tap;
    g.taps_count = 1;
    g.weights = weights(point);
    g.bias = zero_bias.data();
    g.y = m;
    g.batch = 1;
    g.out_h = 1;
    g.out_w = rows;
    g.k = k;
    native::run_conv_tiles_avx2(g, 0, g.blocks() * g.tiles());
  }
  const float* weights(int point) const {
    return reinterpret_cast<const float*>(packed->data()) + point * blocks() * c * kTileChannels;
  }
};

WinogradConv::WinogradConv(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
WinogradConv::~WinogradConv() = default;

std::unique_ptr<const WinogradConv> WinogradConv::make(const ConvAttrs& attrs,
                                                       const Activation& act,
                                                       const TensorData& weights) {
  const Dims& w = weights.desc.shape;
  if (!native_kernels_preferred() || w.size() != 4 || w[0] > kMaxChannels || w[1] > kMaxChannels)
    return nullptr;
  return make_for_test(attrs, act, weights);
}

std::unique_ptr<const WinogradConv> WinogradConv::make_for_test(const ConvAttrs& attrs,
                                                                const Activation& act,
                                                                const TensorData& weights) {
  const TensorDesc& wd = weights.desc;
  const std::optional<TileActivation> ta = native::tile_activation(act);
  const auto ones = [](const Dims& d) {
    return std::all_of(d.begin(), d.end(), [](int64_t v) { return v == 1; });
  };
  if (!cpu_has_avx2_fma() || attrs.transpose || attrs.group != 1 || !ta ||
      wd.dtype != DType::kFloat || wd.rank() != 4 || !weights.bytes() || !is_contiguous(wd) ||
      wd.shape[2] != 3 || wd.shape[3] != 3 || wd.shape[0] % 8 || wd.shape[1] % 8 ||
      element_count(wd) == 0 || !ones(attrs.strides) || !ones(attrs.dilations))
    return nullptr;
  const float* src = reinterpret_cast<const float*>(weights.bytes()) + wd.offset;
  // The transforms mix a tile's 36 inputs, so one NaN or infinity, or a value they overflow,
  // would turn outputs whose windows never read it into NaN: such weights, and runs of such
  // inputs (run()), take the direct kernels instead.
  const float w_max = native::max_abs_avx2(src, element_count(wd));
  if (!native::sums_stay_finite(9.0 * wd.shape[1], 1.0f, w_max)) return nullptr;
  auto p = std::make_unique<Impl>();
  p->w_max = w_max;
  p->k = wd.shape[0];
  p->c = wd.shape[1];
  p->act = *ta;
  p->alpha = act.alpha;
  p->beta = act.beta;
  const int64_t blocks = p->blocks();
  p->zero_bias.assign(static_cast<size_t>(blocks * kTileChannels), 0.0f);
  const int64_t point_floats = blocks * p->c * kTileChannels;
  p->packed = std::make_unique<Storage>(
      host_allocator(), sizeof(float) * static_cast<size_t>(kWinogradPoints * point_floats));
  float* out = reinterpret_cast<float*>(p->packed->data());
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t ci = 0; ci < p->c; ++ci)
      transform_kernels(src, p->k, p->c, b, ci, point_floats, out);
  return std::unique_ptr<const WinogradConv>(new WinogradConv(std::move(p)));
}

bool WinogradConv::takes_every_run(const ConvGeometry& geo) const {
  if (geo.spatial() != 2) return false;
  const int64_t per_image =
      (geo.dst_shape[2] + native::kWinogradTile - 1) / native::kWinogradTile *
      ((geo.dst_shape[3] + native::kWinogradTile - 1) / native::kWinogradTile);
  return per_image >= kMinTiles;
}

bool WinogradConv::run(const ConvGeometry& geo, const ConstOperand& x, const ConstOperand* bias,
                       const ConstOperand* z, const Operand& dst, int64_t min_tiles) const {
  const Impl& p = *impl_;
  const Dims& xs = x.desc.shape;
  if (geo.spatial() != 2 || xs.size() != 4 || xs[1] != p.c || geo.dst_shape[1] != p.k ||
      geo.kernel[0] != 3 || geo.kernel[1] != 3)
    return false;
  for (int i = 0; i < 2; ++i)
    if (geo.pad_begin[i] < 0 || geo.pad_end[i] < 0 || geo.strides[i] != 1 || geo.dilations[i] != 1)
      return false;
  if (!native::conv_views_ok(x, bias, z, dst)) return false;
  // A tile reads input past its own output pixels: never in place.
  if (shares_memory(x.data, x.desc, dst.data, dst.desc)) return false;

  native::WinogradJob job;
  job.x = static_cast<const float*>(x.data) + x.desc.offset;
  job.h = xs[2];
  job.w = xs[3];
  job.c = p.c;
  job.pad_top = geo.pad_begin[0];
  job.pad_left = geo.pad_begin[1];
  job.y = static_cast<float*>(dst.data) + dst.desc.offset;
  job.z = z ? static_cast<const float*>(z->data) + z->desc.offset : nullptr;
  job.out_h = geo.dst_shape[2];
  job.out_w = geo.dst_shape[3];
  job.k = p.k;
  job.activation = p.act;
  job.alpha = p.alpha;
  job.beta = p.beta;
  const int64_t tiles = xs[0] * job.tiles_h() * job.tiles_w();
  if (tiles == 0 || tiles < (min_tiles > 0 ? min_tiles : kMinTiles) ||
      !native::sums_stay_finite(9.0 * p.c, native::max_abs_avx2(job.x, element_count(x.desc)),
                                p.w_max))
    return false;

  float* full_bias = thread_floats(1, p.k);
  native::gather_bias(bias, p.k, p.k, full_bias);
  job.bias = full_bias;

  ThreadPool& pool = default_thread_pool();
  const int64_t threads = pool.size();
  const int64_t fit = kChunkFloats / (kWinogradPoints * (p.c + p.k));
  const int64_t chunk_max = std::max<int64_t>(kTilePixels, fit / kTilePixels * kTilePixels);
  int64_t units = (tiles + chunk_max - 1) / chunk_max;
  const int64_t whole = kWinogradPoints * tiles * (p.c + p.k);
  const bool by_points = units > threads && whole <= kWholeFloats &&
                         kWinogradPoints * p.c * p.k >= kStreamedWeightsFloats;
  if (by_points) {
    // Few tiles of wide layers: each chunk would stream every point's weights again, so the
    // transformed input and products are made whole (the calling thread's scratch, shared with
    // the parts) and the products split by points, each point's weights read once.
    float* v = thread_floats(4, kWinogradPoints * tiles * p.c);
    float* m = thread_floats(5, kWinogradPoints * tiles * p.k);
    const int tile_parts = static_cast<int>(std::min(threads, tiles));
    pool.run(tile_parts, [&](int part) {
      const int64_t first = tiles * part / tile_parts, last = tiles * (part + 1) / tile_parts;
      native::winograd_input_avx2(job, first, last - first, v + first * p.c, tiles * p.c);
    });
    const int point_parts = static_cast<int>(std::min<int64_t>(threads, kWinogradPoints));
    pool.run(point_parts, [&](int part) {
      for (int point = kWinogradPoints * part / point_parts;
           point < kWinogradPoints * (part + 1) / point_parts; ++point)
        p.multiply(point, v + point * tiles * p.c, m + point * tiles * p.k, tiles);
    });
    pool.run(tile_parts, [&](int part) {
      const int64_t first = tiles * part / tile_parts, last = tiles * (part + 1) / tile_parts;
      native::winograd_output_avx2(job, first, last - first, m + first * p.k, tiles * p.k);
    });
  } else {
    // Chunks of tiles as large as L2 allows, their count a multiple of the threads so that the
    // parts are even; each thread takes its chunks through all three steps.
    units = (units + threads - 1) / threads * threads;
    const int64_t chunk = (tiles + units - 1) / units;
    units = (tiles + chunk - 1) / chunk;
    const int parts = static_cast<int>(std::min(threads, units));
    pool.run(parts, [&](int part) {
      float* v = thread_floats(4, kWinogradPoints * chunk * p.c);
      float* m = thread_floats(5, kWinogradPoints * chunk * p.k);
      for (int64_t u = units * part / parts; u < units * (part + 1) / parts; ++u) {
        const int64_t first = u * chunk, count = std::min(chunk, tiles - first);
        native::winograd_input_avx2(job, first, count, v, count * p.c);
        for (int point = 0; point < kWinogradPoints; ++point)
          p.multiply(point, v + point * count * p.c, m + point * count * p.k, count);
        native::winograd_output_avx2(job, first, count, m, count * p.k);
      }
    });
  }
  g_runs.fetch_add(1, std::memory_order_relaxed);
  return true;
}

int64_t winograd_conv_runs() { return g_runs.load(); }

}  // namespace geon::cpu
