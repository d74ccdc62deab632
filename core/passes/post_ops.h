// The chain matcher fuse_conv and fuse_matmul share: from a producer's output, walk down its
// single readers taking (in this order) a constant bias Add, a residual Add of the output's
// own shape, and an activation; each step only where the value walked has no other reader and
// is not a graph output.
#pragma once

#include <functional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "core/passes/activation.h"
#include "core/passes/graph_edit.h"
#include "core/runtime/kernel.h"

namespace geon::passes {

struct PostOps {
  int bias = -1;           // the constant added (a value), -1 when none
  int residual = -1;       // Z, -1 when none
  Activation act;          // op "" when none
  std::vector<int> nodes;  // the matched nodes (indices), in chain order
  int out = -1;            // the value the chain ends in
};

// `bias_ok(v)` says whether constant v can be the bias of this producer's output.
PostOps match_post_ops(const Graph& g, const Uses& uses, int out,
                       const std::function<bool(int)>& bias_ok, bool allow_bias);

// Gives the matched activation back (the chain then ends before it), for a fused node whose
// kernels refuse that activation; false when there was none.
bool drop_activation(const Graph& g, PostOps& p);

// The rows of `sets` for the fused node geon.<op> (opset 1); empty when no set can run it.
std::vector<const KernelEntry*> fused_rows(std::span<const KernelSet* const> sets,
                                           std::string_view op);
// Whether one of `rows` accepts f.
bool any_supports(const Graph& g, std::span<const KernelEntry* const> rows, const Node& f);
// Names f after `anchor` and the post-op nodes of p (fused_name) and records them in its
// `members` attribute.
void name_after_members(const Graph& g, Node& f, const Node& anchor, const PostOps& p);
// Each (position, node) of `fused` takes the place of the last node of its chain (so the order
// stays topological); the nodes marked dead go. Returns the number of fused nodes.
int place_fused(Graph& g, std::vector<bool>& dead, std::vector<std::pair<int, Node>>& fused);

// Whether two values have the same dtype and the same known lengths, dim by dim.
bool same_shape(const Graph& g, int a, int b);

}  // namespace geon::passes
