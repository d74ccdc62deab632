// The pass order. Folding runs first so fusions see constant weights as constants; the
// recognisers run before the fusions so LayerNorm and Gelu are not split into elementwise
// groups; BatchNormalization folds into its Conv before the Conv takes its post-ops; the
// elementwise fusion runs last, on what the other fusions left.
#include "core/passes/pipeline.h"

#include "core/passes/fold_batchnorm.h"
#include "core/passes/fold_constants.h"
#include "core/passes/fuse_attention.h"
#include "core/passes/fuse_conv.h"
#include "core/passes/fuse_elementwise.h"
#include "core/passes/fuse_matmul.h"
#include "core/passes/recognise_layernorm_gelu.h"
#include "core/passes/select_layouts.h"

namespace geon {

void run_passes(Graph& g, std::span<const KernelSet* const> sets, const PassOptions& opt) {
  if (opt.optimization_level >= 1) fold_constants(g, sets);
  if (opt.optimization_level < 2) return;
  recognise_layernorm_gelu(g, sets);
  fold_batchnorm(g);
  fuse_conv(g, sets);
  fuse_attention(g, sets);  // before fuse_matmul and fuse_elementwise take its pieces
  fuse_matmul(g, sets);
  fuse_elementwise(g, sets);
  if (channels_last_preferred(sets)) select_layouts(g);  // on the fused graph
}

}  // namespace geon
