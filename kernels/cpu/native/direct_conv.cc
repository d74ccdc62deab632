// DirectConv: packing, the padded input and the split of the tiles across the pool.
#include "kernels/cpu/native/direct_conv.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/native/cpu_isa.h"
#include "kernels/cpu/native/thread_floats.h"
#include "kernels/cpu/native/tile_runner.h"

namespace geon::cpu {
namespace {

using native::kTileChannels;
using native::thread_floats;
using native::tile_activation;
using native::TileActivation;

}  // namespace

struct DirectConv::Impl {
  int64_t k = 0, c = 0, kh = 0, kw = 0;
  TileActivation act = TileActivation::kNone;
  float alpha = 0, beta = 0;
  // [block][r][s][c][16], every element written at construction (Storage is 64-byte aligned).
  std::unique_ptr<Storage> packed;

  const float* weights() const { return reinterpret_cast<const float*>(packed->data()); }
};

DirectConv::DirectConv(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DirectConv::~DirectConv() = default;

std::unique_ptr<const DirectConv> DirectConv::make(const ConvAttrs& attrs, const Activation& act,
                                                   const TensorData& weights) {
  if (!native_kernels_preferred()) return nullptr;
  const Dims& w = weights.desc.shape;
  // oneDNN's unstrided 1x1 is as fast; its strided one (ResNet's downsampling convolutions)
  // ran at a third of the machine's peak.
  const bool strided =
      std::any_of(attrs.strides.begin(), attrs.strides.end(), [](int64_t s) { return s > 1; });
  if (w.size() == 4 && w[2] == 1 && w[3] == 1 && !strided) return nullptr;
  return make_for_test(attrs, act, weights);
}

std::unique_ptr<const DirectConv> DirectConv::make_for_test(const ConvAttrs& attrs,
                                                            const Activation& act,
                                                            const TensorData& weights) {
  const TensorDesc& wd = weights.desc;
  const std::optional<TileActivation> ta = tile_activation(act);
  if (!cpu_has_avx2_fma() || attrs.transpose || attrs.group != 1 || !ta ||
      wd.dtype != DType::kFloat || wd.rank() != 4 || !weights.bytes() || !is_contiguous(wd) ||
      element_count(wd) == 0)
    return nullptr;
  auto p = std::make_unique<Impl>();
  p->k = wd.shape[0];
  p->c = wd.shape[1];
  p->kh = wd.shape[2];
  p->kw = wd.shape[3];
  p->act = *ta;
  p->alpha = act.alpha;
  p->beta = act.beta;
  const int64_t blocks = (p->k + kTileChannels - 1) / kTileChannels;
  const int64_t taps = p->kh * p->kw;
  p->packed = std::make_unique<Storage>(
      host_allocator(), sizeof(float) * static_cast<size_t>(blocks * taps * p->c * kTileChannels));
  float* out = reinterpret_cast<float*>(p->packed->data());
  const float* src = reinterpret_cast<const float*>(weights.bytes()) + wd.offset;
  // W (K, C, R, S) -> [block][r][s][c][16]
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t t = 0; t < taps; ++t)
      for (int64_t ci = 0; ci < p->c; ++ci)
        for (int64_t j = 0; j < kTileChannels; ++j) {
          const int64_t ko = b * kTileChannels + j;
          *out++ = ko < p->k ? src[(ko * p->c + ci) * taps + t] : 0.0f;
        }
  return std::unique_ptr<const DirectConv>(new DirectConv(std::move(p)));
}

bool DirectConv::run(const ConvGeometry& geo, const ConstOperand& x, const ConstOperand* bias,
                     const ConstOperand* z, const Operand& dst) const {
  const Impl& p = *impl_;
  const Dims& xs = x.desc.shape;
  if (geo.spatial() != 2 || xs.size() != 4 || xs[1] != p.c || geo.dst_shape[1] != p.k ||
      geo.kernel[0] != p.kh || geo.kernel[1] != p.kw)
    return false;
  for (int i = 0; i < 2; ++i)
    if (geo.pad_begin[i] < 0 || geo.pad_end[i] < 0) return false;
  if (!native::conv_views_ok(x, bias, z, dst)) return false;
  const bool padded = geo.pad_begin[0] || geo.pad_begin[1] || geo.pad_end[0] || geo.pad_end[1];
  if (!padded && shares_memory(x.data, x.desc, dst.data, dst.desc)) return false;

  ThreadPool& pool = default_thread_pool();
  const int64_t n = xs[0], c = p.c, h = xs[2], w = xs[3];
  const int64_t hp = h + geo.pad_begin[0] + geo.pad_end[0];
  const int64_t wp = w + geo.pad_begin[1] + geo.pad_end[1];
  const float* xin = static_cast<const float*>(x.data) + x.desc.offset;
  const float* xpad = xin;
  if (padded) {
    // Zeros around a copy of x, rows spread over the pool.
    float* buf = thread_floats(0, n * hp * wp * c);
    const int64_t rows = n * hp;
    const int parts = static_cast<int>(std::clamp<int64_t>(rows / 8, 1, pool.size()));
    pool.run(parts, [&](int part) {
      for (int64_t r = rows * part / parts; r < rows * (part + 1) / parts; ++r) {
        const int64_t img = r / hp, y = r % hp - geo.pad_begin[0];
        float* row = buf + r * wp * c;
        if (y < 0 || y >= h) {
          std::memset(row, 0, sizeof(float) * wp * c);
          continue;
        }
        std::memset(row, 0, sizeof(float) * geo.pad_begin[1] * c);
        std::memcpy(row + geo.pad_begin[1] * c, xin + (img * h + y) * w * c, sizeof(float) * w * c);
        std::memset(row + (geo.pad_begin[1] + w) * c, 0, sizeof(float) * geo.pad_end[1] * c);
      }
    });
    xpad = buf;
  }
  const int64_t blocks = (p.k + kTileChannels - 1) / kTileChannels;
  float* padded_bias = thread_floats(1, blocks * kTileChannels);
  native::gather_bias(bias, p.k, blocks * kTileChannels, padded_bias);

  std::vector<int64_t> taps;
  taps.reserve(static_cast<size_t>(p.kh * p.kw));
  for (int64_t r = 0; r < p.kh; ++r)
    for (int64_t s = 0; s < p.kw; ++s)
      taps.push_back((r * geo.dilations[0] * wp + s * geo.dilations[1]) * c);
  native::ConvTiles job;
  job.x = xpad;
  job.x_image = hp * wp * c;
  job.x_row = wp * c;
  job.channels = c;
  job.stride_h = geo.strides[0];
  job.stride_w = geo.strides[1];
  job.taps = taps.data();
  job.taps_count = static_cast<int>(taps.size());
  job.weights = p.weights();
  job.bias = padded_bias;
  job.y = static_cast<float*>(dst.data) + dst.desc.offset;
  job.z = z ? static_cast<const float*>(z->data) + z->desc.offset : nullptr;
  job.batch = n;
  job.out_h = geo.dst_shape[2];
  job.out_w = geo.dst_shape[3];
  job.k = p.k;
  job.activation = p.act;
  job.alpha = p.alpha;
  job.beta = p.beta;
  native::run_tiles(job, 4);
  return true;
}

}  // namespace geon::cpu
