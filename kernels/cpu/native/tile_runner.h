// What DirectConv, WinogradConv and PackedGemm share around the AVX2 tile loop (conv_tiles.h):
// which activations its epilogue takes, the views the convolutions take, their bias, and the
// split of a job's tiles (a product's rows) across the session's pool.
#pragma once

#include <optional>

#include "kernels/cpu/conv_params.h"
#include "kernels/cpu/native/conv_tiles.h"

namespace geon::cpu::native {

// The epilogue's form of `a`; nullopt when the tile loop cannot apply it.
std::optional<TileActivation> tile_activation(const Activation& a);

// Whether x and dst are dense channels-last float views, the bias (when present) float, and z
// (when present) float and either dst itself or a dense channels-last view clear of it.
bool conv_views_ok(const ConstOperand& x, const ConstOperand* bias, const ConstOperand* z,
                   const Operand& dst);
// out[0, k) = the bias vector's k values (zeros when null), out[k, n) = 0.
void gather_bias(const ConstOperand* bias, int64_t k, int64_t n, float* out);

// Runs every item of `job` on the pool this thread sees, in at most `parts_per_thread` parts a
// thread of at least 16 items each (more parts than threads let the pool balance a thread the
// OS runs late); one part runs inline, with no parallel region.
void run_tiles(const ConvTiles& job, int parts_per_thread);
// Runs `job`, a matrix product (one tap at offset 0, batch and out_h 1, a row per out_w, dense
// rows of `channels` in and `k` out), split by rows: each part computes every column block of its
// own rows, so the next product of a chain reads the rows its thread wrote from its own cache,
// where a split by column blocks has each thread read the other's half of its input (the
// committed MLP at batch 64, 2 threads: 17.6 -> 16.4-16.9 us a run, 35 -> 29 us in the slow
// phases of the machine it was measured on). A product of fewer rows than a tile a thread is
// split by column blocks, as run_tiles splits it.
void run_product_tiles(const ConvTiles& job);

}  // namespace geon::cpu::native
