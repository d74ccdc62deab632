// tile_activation and run_tiles: compiled for any x86-64, called only where AVX2 is present.
#include "kernels/cpu/native/tile_runner.h"

#include <algorithm>

#include "core/engine/thread_pool.h"

namespace geon::cpu::native {

namespace {
// Work items a part below which one more thread costs more than it saves.
constexpr int64_t kMinItemsPerPart = 16;
}  // namespace

std::optional<TileActivation> tile_activation(const Activation& a) {
  switch (a.kind) {
    case ActivationKind::kNone:
      return TileActivation::kNone;
    case ActivationKind::kRelu:
      return TileActivation::kRelu;
    case ActivationKind::kLeakyRelu:
      return TileActivation::kLeakyRelu;
    case ActivationKind::kClip:
      return TileActivation::kClip;
    default:
      return std::nullopt;
  }
}

bool conv_views_ok(const ConstOperand& x, const ConstOperand* bias, const ConstOperand* z,
                   const Operand& dst) {
  const bool dtypes_ok = x.desc.dtype == DType::kFloat && dst.desc.dtype == DType::kFloat &&
                         (!bias || bias->desc.dtype == DType::kFloat) &&
                         (!z || z->desc.dtype == DType::kFloat);
  if (!dtypes_ok || !is_channels_last(x.desc) || !is_channels_last(dst.desc)) return false;
  const bool z_in_place = z && z->data == dst.data && z->desc == dst.desc;
  return !z || z_in_place ||
         (is_channels_last(z->desc) && !shares_memory(z->data, z->desc, dst.data, dst.desc));
}

void gather_bias(const ConstOperand* bias, int64_t k, int64_t n, float* out) {
  std::fill(out, out + n, 0.0f);
  if (!bias) return;
  const float* b = static_cast<const float*>(bias->data) + bias->desc.offset;
  const int64_t step = bias->desc.rank() == 1 ? bias->desc.strides[0] : 1;
  for (int64_t i = 0; i < k; ++i) out[i] = b[i * step];
}

void run_tiles(const ConvTiles& job, int parts_per_thread) {
  const int64_t items = job.blocks() * job.tiles();
  ThreadPool& pool = default_thread_pool();
  const int parts = static_cast<int>(
      std::clamp<int64_t>(items / kMinItemsPerPart, 1, int64_t{parts_per_thread} * pool.size()));
  if (parts == 1) {  // no std::function, no parallel region: small jobs are all overhead
    run_conv_tiles_avx2(job, 0, items);
    return;
  }
  pool.run(parts, [&](int part) {
    run_conv_tiles_avx2(job, items * part / parts, items * (part + 1) / parts);
  });
}

void run_product_tiles(const ConvTiles& job) {
  const int64_t items = job.blocks() * job.tiles(), rows = job.out_w;
  ThreadPool& pool = default_thread_pool();
  // Fewer rows than a tile a thread (a matrix-vector product, say): by column blocks instead.
  if (rows < int64_t{kTilePixels} * pool.size()) return run_tiles(job, 1);
  const int parts = static_cast<int>(
      std::clamp<int64_t>(std::min(items / kMinItemsPerPart, rows / kTilePixels), 1, pool.size()));
  if (parts == 1) {
    run_conv_tiles_avx2(job, 0, items);
    return;
  }
  pool.run(parts, [&](int part) {
    const int64_t r0 = rows * part / parts, r1 = rows * (part + 1) / parts;
    ConvTiles rows_job = job;
    rows_job.x = job.x + r0 * job.channels;
    rows_job.y = job.y + r0 * job.k;
    rows_job.z = job.z ? job.z + r0 * job.k : nullptr;
    rows_job.out_w = r1 - r0;
    run_conv_tiles_avx2(rows_job, 0, rows_job.blocks() * rows_job.tiles());
  });
}

}  // namespace geon::cpu::native
