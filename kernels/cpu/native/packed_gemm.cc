// PackedGemm: B into 16-column blocks, runs as 1-tap ConvTiles over the rows of A.
#include "kernels/cpu/native/packed_gemm.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/cpu/native/cpu_isa.h"
#include "kernels/cpu/native/tile_runner.h"

namespace geon::cpu {
namespace {

using native::kTileChannels;
using native::tile_activation;

// Products up to this many multiply-adds run here (about 20-40 us of work: oneDNN's fixed
// cost per call is a few us and its activation pass another); larger ones go to oneDNN, whose
// blocking keeps big A and B in cache better.
constexpr int64_t kMaxMacs = int64_t{1} << 22;
// A packed B above this many floats is not worth keeping beside oneDNN's.
constexpr int64_t kMaxPackedFloats = int64_t{1} << 20;

}  // namespace

struct PackedGemm::Impl {
  int64_t k = 0, n = 0;
  // [block][K][16], every element written by pack_for_test (Storage is 64-byte aligned).
  std::unique_ptr<Storage> packed;

  const float* weights() const { return reinterpret_cast<const float*>(packed->data()); }
};

PackedGemm::PackedGemm(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PackedGemm::~PackedGemm() = default;

std::unique_ptr<const PackedGemm> PackedGemm::pack(const TensorData& b, bool transposed,
                                                   float alpha, int64_t min_rows) {
  if (!native_small_gemm_preferred() || b.elements() > kMaxPackedFloats) return nullptr;
  // A copy no run would use (every A the graph allows is too tall for it) is not made.
  if (min_rows > kMaxMacs / std::max<int64_t>(b.elements(), 1)) return nullptr;
  return pack_for_test(b, transposed, alpha);
}

std::unique_ptr<const PackedGemm> PackedGemm::pack_for_test(const TensorData& b, bool transposed,
                                                            float alpha) {
  const TensorDesc& d = b.desc;
  if (!cpu_has_avx2_fma() || d.dtype != DType::kFloat || d.rank() != 2 || !b.bytes() ||
      !is_contiguous(d) || b.elements() == 0)
    return nullptr;
  auto p = std::make_unique<Impl>();
  p->k = d.shape[transposed ? 1 : 0];
  p->n = d.shape[transposed ? 0 : 1];
  const int64_t blocks = (p->n + kTileChannels - 1) / kTileChannels;
  p->packed = std::make_unique<Storage>(
      host_allocator(), sizeof(float) * static_cast<size_t>(blocks * p->k * kTileChannels));
  const float* src = reinterpret_cast<const float*>(b.bytes()) + d.offset;
  float* out = reinterpret_cast<float*>(p->packed->data());
  for (int64_t blk = 0; blk < blocks; ++blk)
    for (int64_t kk = 0; kk < p->k; ++kk)
      for (int64_t j = 0; j < kTileChannels; ++j) {
        const int64_t col = blk * kTileChannels + j;
        // Columns past N are the last block's zero padding: nothing of B is read for them.
        *out++ =
            col >= p->n ? 0.0f : alpha * (transposed ? src[col * p->k + kk] : src[kk * p->n + col]);
      }
  return std::unique_ptr<const PackedGemm>(new PackedGemm(std::move(p)));
}

bool PackedGemm::worth_it(int64_t rows) const { return rows * impl_->k * impl_->n <= kMaxMacs; }

bool PackedGemm::fuses(const Activation& act) { return tile_activation(act).has_value(); }

bool PackedGemm::run(const ConstOperand& a, const Operand& dst, const ConstOperand* bias,
                     const ConstOperand* z, const Activation& act) const {
  const Impl& p = *impl_;
  const std::optional<native::TileActivation> ta = tile_activation(act);
  const int r = a.desc.rank();
  if (!ta || r < 1 || dst.desc.rank() != r || a.desc.shape[r - 1] != p.k ||
      dst.desc.shape[r - 1] != p.n || a.desc.dtype != DType::kFloat ||
      dst.desc.dtype != DType::kFloat || !is_contiguous(a.desc) || !is_contiguous(dst.desc))
    return false;
  for (int i = 0; i + 1 < r; ++i)
    if (a.desc.shape[i] != dst.desc.shape[i]) return false;
  if (bias && (bias->desc.dtype != DType::kFloat || element_count(bias->desc) != p.n ||
               !is_contiguous(bias->desc)))
    return false;
  const int64_t rows = element_count(dst.desc) / p.n;
  // Every operand here is dense floats: each covers [first, first + count) and overlap is two
  // comparisons (the general shares_memory works out strided spans with checked arithmetic, a
  // measurable part of a small product's call).
  const float* a0 = static_cast<const float*>(a.data) + a.desc.offset;
  float* y0 = static_cast<float*>(dst.data) + dst.desc.offset;
  const float* z0 = z ? static_cast<const float*>(z->data) + z->desc.offset : nullptr;
  const auto overlaps = [&](const float* x, int64_t x_count) {
    const auto xb = reinterpret_cast<uintptr_t>(x), yb = reinterpret_cast<uintptr_t>(y0);
    return xb < yb + sizeof(float) * rows * p.n && yb < xb + sizeof(float) * x_count;
  };
  const bool z_in_place = z && z->data == dst.data && z->desc == dst.desc;
  if (z && !z_in_place &&
      (z->desc.dtype != DType::kFloat || z->desc.shape != dst.desc.shape ||
       !is_contiguous(z->desc) || overlaps(z0, rows * p.n)))
    return false;
  if (rows == 0) return true;
  if (overlaps(a0, rows * p.k)) return false;

  const int64_t blocks = (p.n + kTileChannels - 1) / kTileChannels;
  thread_local std::vector<float> padded_bias;
  padded_bias.assign(static_cast<size_t>(blocks * kTileChannels), 0.0f);
  if (bias) {
    const float* b = static_cast<const float*>(bias->data) + bias->desc.offset;
    std::copy(b, b + p.n, padded_bias.begin());
  }
  const int64_t tap = 0;
  native::ConvTiles job;
  job.x = a0;
  job.channels = p.k;
  job.taps = &tap;
  job.taps_count = 1;
  job.weights = p.weights();
  job.bias = padded_bias.data();
  job.y = y0;
  job.z = z0;
  job.batch = 1;
  job.out_h = 1;
  job.out_w = rows;
  job.k = p.n;
  job.activation = *ta;
  job.alpha = act.alpha;
  job.beta = act.beta;
  native::run_product_tiles(job);
  return true;
}

}  // namespace geon::cpu
