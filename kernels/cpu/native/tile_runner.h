// What DirectConv, WinogradConv and PackedGemm share around the AVX2 tile loop (conv_tiles.h):
// which activations its epilogue takes, the views the convolutions take, their bias, and the
// split of a job's tiles across the session's pool.
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

}  // namespace geon::cpu::native
