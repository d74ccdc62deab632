// The pass order. The QDQ fusion runs before folding, which would turn the weights'
// DequantizeLinear into float constants; folding runs next so the other fusions see constant
// weights as constants; the recognisers run before the fusions so LayerNorm and Gelu are not
// split into elementwise groups; BatchNormalization folds into its Conv before the Conv takes
// its post-ops; the elementwise fusion runs last, on what the other fusions left.
#include "core/passes/pipeline.h"

#include <string>

#include "core/base/error.h"

#include "core/passes/absorb_attention_heads.h"
#include "core/passes/fold_batchnorm.h"
#include "core/passes/fold_constants.h"
#include "core/passes/fuse_attention.h"
#include "core/passes/fuse_conv.h"
#include "core/passes/fuse_elementwise.h"
#include "core/passes/fuse_matmul.h"
#include "core/passes/fuse_pointwise_depthwise.h"
#include "core/passes/fuse_qdq.h"
#include "core/passes/recognise_layernorm_gelu.h"
#include "core/passes/select_layouts.h"

namespace geon {

void run_passes(Graph& g, std::span<const KernelSet* const> sets, const PassOptions& opt) {
  // Out of memory in a pass is reported with the pass's name.
  auto pass = [](const char* name, auto&& run) {
    out_of_memory_context([name] { return std::string("running the graph pass ") + name; }, run);
  };
  if (opt.optimization_level >= 2) pass("fuse_qdq", [&] { fuse_qdq(g, sets); });
  if (opt.optimization_level >= 1) pass("fold_constants", [&] { fold_constants(g, sets); });
  if (opt.optimization_level < 2) return;
  pass("recognise_layernorm_gelu", [&] { recognise_layernorm_gelu(g, sets); });
  pass("fold_batchnorm", [&] { fold_batchnorm(g); });
  pass("fuse_conv", [&] { fuse_conv(g, sets); });
  // on fuse_conv's nodes, which carry each side's bias and activation
  pass("fuse_pointwise_depthwise", [&] { fuse_pointwise_depthwise(g, sets); });
  // before fuse_matmul and fuse_elementwise take its pieces
  pass("fuse_attention", [&] { fuse_attention(g, sets); });
  pass("absorb_attention_heads", [&] { absorb_attention_heads(g, sets); });
  pass("fuse_matmul", [&] { fuse_matmul(g, sets); });
  pass("fuse_elementwise", [&] { fuse_elementwise(g, sets); });
  if (channels_last_preferred(sets))  // on the fused graph
    pass("select_layouts", [&] { select_layouts(g); });
}

}  // namespace geon
