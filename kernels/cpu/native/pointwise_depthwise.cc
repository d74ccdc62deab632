// PointwiseDepthwise: packing, and each thread's walk over its output rows with the ring of
// expanded rows (pointwise_depthwise_rows.h holds the row kernels; a projection runs the 6x16
// tiles of conv_tiles.h over each depthwise row).
#include "kernels/cpu/native/pointwise_depthwise.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/native/cpu_isa.h"
#include "kernels/cpu/native/pointwise_depthwise_rows.h"
#include "kernels/cpu/native/thread_floats.h"
#include "kernels/cpu/native/tile_runner.h"

namespace geon::cpu {
namespace {

using native::kRingBlock;
using native::PointwiseDepthwiseRows;

constexpr int64_t kExpandBlock = 16;  // channels per block of the packed 1x1 weights
static_assert(kExpandBlock == native::kTileChannels, "W3 is packed for conv_tiles.h");
constexpr int kRingRows = 3;  // a window's three rows are consecutive: never one slot (row mod 3)
// Output rows a part below which one more thread costs more than it saves.
constexpr int64_t kMinRowsPerPart = 2;

bool dense_float(const TensorData* t, const Dims& shape) {
  return t && t->desc.dtype == DType::kFloat && t->desc.shape == shape && t->bytes() &&
         is_contiguous(t->desc);
}

const float* floats(const TensorData& t) {
  return reinterpret_cast<const float*>(t.bytes()) + t.desc.offset;
}

}  // namespace

struct PointwiseDepthwise::Impl {
  PointwiseDepthwiseRows job;  // its weight pointers point into `packed`
  // The expansion's row kernel: the register-stationary one where it applies (same results).
  void (*expand_row)(const PointwiseDepthwiseRows&, const float*, float*) = native::expand_row_avx2;
  // The projection (k == 0: none): W3 as conv_tiles.h's [block][tap][c][16] with one tap.
  int64_t k = 0;
  const float* w3 = nullptr;
  const float* b3 = nullptr;  // blocks * 16, zero past K
  native::TileActivation act3 = native::TileActivation::kNone;
  float alpha3 = 0, beta3 = 0;
  std::unique_ptr<Storage> packed;
};

PointwiseDepthwise::PointwiseDepthwise(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PointwiseDepthwise::~PointwiseDepthwise() = default;

std::unique_ptr<const PointwiseDepthwise> PointwiseDepthwise::make(
    const PointwiseDepthwiseWeights& w) {
  if (!cpu_has_avx2_fma() || !w.w1 || !w.w2 || w.w1->desc.rank() != 4) return nullptr;
  const int64_t m = w.w1->desc.shape[0], c = w.w1->desc.shape[1];
  const auto a1 = native::tile_activation(w.act1), a2 = native::tile_activation(w.act2);
  if (!a1 || !a2 || m <= 0 || c <= 0 || m % kRingBlock != 0 || (w.stride != 1 && w.stride != 2))
    return nullptr;
  if (!dense_float(w.w1, {m, c, 1, 1}) || !dense_float(w.w2, {m, 1, 3, 3}) ||
      (w.b1 && !dense_float(w.b1, {m})) || (w.b2 && !dense_float(w.b2, {m})))
    return nullptr;
  const int64_t k = w.w3 && w.w3->desc.rank() == 4 ? w.w3->desc.shape[0] : 0;
  const auto a3 = native::tile_activation(w.act3);
  if (w.w3 &&
      (k <= 0 || !a3 || !dense_float(w.w3, {k, m, 1, 1}) || (w.b3 && !dense_float(w.b3, {k}))))
    return nullptr;

  auto p = std::make_unique<Impl>();
  const int64_t blocks = (m + kExpandBlock - 1) / kExpandBlock;
  const int64_t w1_floats = blocks * c * kExpandBlock, b1_floats = blocks * kExpandBlock;
  const int64_t w2_floats = m * 9, b2_floats = m;
  const int64_t k_blocks = (k + kExpandBlock - 1) / kExpandBlock;
  const int64_t w3_floats = k_blocks * m * kExpandBlock, b3_floats = k_blocks * kExpandBlock;
  // Each part starts on a 64-byte boundary (Storage is 64-byte aligned).
  const auto up = [](int64_t n) { return (n + 15) / 16 * 16; };
  const int64_t total =
      up(w1_floats) + up(b1_floats) + up(w2_floats) + up(b2_floats) + up(w3_floats) + up(b3_floats);
  p->packed =
      std::make_unique<Storage>(host_allocator(), sizeof(float) * static_cast<size_t>(total));
  float* base = reinterpret_cast<float*>(p->packed->data());
  std::memset(base, 0, sizeof(float) * static_cast<size_t>(total));
  float* pw1 = base;
  float* pb1 = pw1 + up(w1_floats);
  float* pw2 = pb1 + up(b1_floats);
  float* pb2 = pw2 + up(w2_floats);
  float* pw3 = pb2 + up(b2_floats);
  float* pb3 = pw3 + up(w3_floats);
  // (rows, cols) -> [block][col][16], rows past the last zero: W1 (M, C) and W3 (K, M).
  const auto pack_blocks = [](const float* from, int64_t rows, int64_t cols, float* to) {
    for (int64_t b = 0; b < (rows + kExpandBlock - 1) / kExpandBlock; ++b)
      for (int64_t ci = 0; ci < cols; ++ci)
        for (int64_t j = 0; j < kExpandBlock; ++j) {
          const int64_t r = b * kExpandBlock + j;
          if (r < rows) to[(b * cols + ci) * kExpandBlock + j] = from[r * cols + ci];
        }
  };
  pack_blocks(floats(*w.w1), m, c, pw1);
  // W2 (M, 3, 3) -> [M / 8][3][3][8].
  const float* s2 = floats(*w.w2);
  for (int64_t mo = 0; mo < m; ++mo)
    for (int64_t t = 0; t < 9; ++t)
      pw2[(mo / kRingBlock * 9 + t) * kRingBlock + mo % kRingBlock] = s2[mo * 9 + t];
  if (w.b1) std::memcpy(pb1, floats(*w.b1), sizeof(float) * static_cast<size_t>(m));
  if (w.b2) std::memcpy(pb2, floats(*w.b2), sizeof(float) * static_cast<size_t>(m));
  if (k) {
    pack_blocks(floats(*w.w3), k, m, pw3);
    if (w.b3) std::memcpy(pb3, floats(*w.b3), sizeof(float) * static_cast<size_t>(k));
    p->k = k;
    p->w3 = pw3;
    p->b3 = pb3;
    p->act3 = *a3;
    p->alpha3 = w.act3.alpha;
    p->beta3 = w.act3.beta;
  }

  PointwiseDepthwiseRows& j = p->job;
  j.c = c;
  j.m = m;
  j.stride = w.stride;
  j.w1 = pw1;
  j.b1 = pb1;
  j.w2 = pw2;
  j.b2 = pb2;
  j.act1 = *a1;
  j.alpha1 = w.act1.alpha;
  j.beta1 = w.act1.beta;
  j.act2 = *a2;
  j.alpha2 = w.act2.alpha;
  j.beta2 = w.act2.beta;
  if (cpu_has_avx512f() && c <= native::kStationaryMaxChannels)
    p->expand_row = native::expand_row_avx512;
  return std::unique_ptr<const PointwiseDepthwise>(new PointwiseDepthwise(std::move(p)));
}

int64_t PointwiseDepthwise::in_channels() const { return impl_->job.c; }
int64_t PointwiseDepthwise::out_channels() const { return projects() ? impl_->k : impl_->job.m; }
bool PointwiseDepthwise::projects() const { return impl_->k > 0; }

Dims PointwiseDepthwise::output_shape(const Dims& x) const {
  // Kernel 3, pads 1 on both sides: floor((len + 2 - 3) / stride) + 1, 0 for an empty dim.
  const int64_t s = impl_->job.stride;
  const auto out = [s](int64_t len) { return len < 1 ? int64_t{0} : (len - 1) / s + 1; };
  return {x[0], out_channels(), out(x[2]), out(x[3])};
}

bool PointwiseDepthwise::run(const ConstOperand& x, const ConstOperand* z,
                             const Operand& dst) const {
  const Impl& p = *impl_;
  const Dims& xs = x.desc.shape;
  if (xs.size() != 4 || xs[1] != p.job.c || xs[2] < 1 || xs[3] < 1 ||
      x.desc.dtype != DType::kFloat || dst.desc.dtype != DType::kFloat ||
      dst.desc.shape != output_shape(xs) || !is_channels_last(x.desc) ||
      !is_channels_last(dst.desc) || shares_memory(x.data, x.desc, dst.data, dst.desc))
    return false;
  if (z && (!projects() || z->desc.dtype != DType::kFloat || z->desc.shape != dst.desc.shape ||
            !is_channels_last(z->desc) || shares_memory(z->data, z->desc, dst.data, dst.desc)))
    return false;
  PointwiseDepthwiseRows job = p.job;
  const int64_t h = xs[2], oh = dst.desc.shape[2];
  job.width = xs[3];
  job.out_width = dst.desc.shape[3];
  const float* xin = static_cast<const float*>(x.data) + x.desc.offset;
  float* yout = static_cast<float*>(dst.data) + dst.desc.offset;
  const float* zin = z ? static_cast<const float*>(z->data) + z->desc.offset : nullptr;
  const int64_t x_row = job.width * job.c, y_row = job.out_width * out_channels();
  const int64_t ring_row = job.ring_row_floats();
  // The projection of one depthwise row: a one-row image of out_width pixels.
  native::ConvTiles project;
  const int64_t tap = 0;
  if (projects()) {
    project.x_image = project.x_row = job.out_width * job.m;
    project.channels = job.m;
    project.taps = &tap;
    project.taps_count = 1;
    project.weights = p.w3;
    project.bias = p.b3;
    project.batch = project.out_h = 1;
    project.out_w = job.out_width;
    project.k = p.k;
    project.activation = p.act3;
    project.alpha = p.alpha3;
    project.beta = p.beta3;
  }

  // Output rows [first, last) of the images seen as one stack of N * OH rows, each input row
  // expanded once per part (a part's first window may repeat its neighbour's last row).
  const auto rows = [&](int64_t first, int64_t last) {
    float* ring = native::thread_floats(2, kRingRows * ring_row);
    for (int slot = 0; slot < kRingRows; ++slot)
      for (int64_t cb = 0; cb < job.m / kRingBlock; ++cb) {
        float* block = ring + slot * ring_row + cb * (job.width + 2) * kRingBlock;
        std::fill(block, block + kRingBlock, 0.0f);
        std::fill(block + (job.width + 1) * kRingBlock, block + (job.width + 2) * kRingBlock, 0.0f);
      }
    std::array<int64_t, kRingRows> held;  // the stacked input row each slot holds
    held.fill(-1);
    for (int64_t r = first; r < last; ++r) {
      const int64_t n = r / oh, oy = r % oh;
      const float* window[3];
      for (int k = 0; k < 3; ++k) {
        const int64_t iy = oy * job.stride - 1 + k;
        window[k] = nullptr;
        if (iy < 0 || iy >= h) continue;
        const int64_t stacked = n * h + iy;
        const int slot = static_cast<int>(iy % kRingRows);
        float* ring_at = ring + slot * ring_row;
        if (held[slot] != stacked) {
          p.expand_row(job, xin + stacked * x_row, ring_at);
          held[slot] = stacked;
        }
        window[k] = ring_at;
      }
      if (!projects()) {
        native::depthwise_row_avx2(job, window, yout + r * y_row);
        continue;
      }
      native::ConvTiles row = project;
      float* dw_row = native::thread_floats(3, project.x_row);
      native::depthwise_row_avx2(job, window, dw_row);
      row.x = dw_row;
      row.y = yout + r * y_row;
      row.z = zin ? zin + r * y_row : nullptr;
      native::run_conv_tiles_avx2(row, 0, row.blocks() * row.tiles());
    }
  };
  const int64_t total = xs[0] * oh;
  ThreadPool& pool = default_thread_pool();
  const int parts = static_cast<int>(
      std::clamp<int64_t>(total / kMinRowsPerPart, 1, static_cast<int64_t>(pool.size())));
  if (parts == 1) {
    rows(0, total);
    return true;
  }
  pool.run(parts, [&](int part) { rows(total * part / parts, total * (part + 1) / parts); });
  return true;
}

}  // namespace geon::cpu
