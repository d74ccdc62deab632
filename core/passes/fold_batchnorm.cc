// BatchNormalization folded into the weights of the Conv / ConvTranspose before it.
#include "core/passes/fold_batchnorm.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "core/onnx/node.h"
#include "core/passes/graph_edit.h"

namespace geon {
namespace {

using passes::Uses;

bool inference_bn(const Graph& g, const Node& bn) {
  if (!passes::onnx_domain(bn) || bn.op != "BatchNormalization" || bn.inputs.size() != 5)
    return false;
  if (onnx::attr_int(bn, "training_mode", 0) != 0) return false;
  // Only Y: the running mean/var outputs exist in training mode only.
  for (size_t i = 1; i < bn.outputs.size(); ++i)
    if (bn.outputs[i] >= 0) return false;
  for (int i = 1; i < 5; ++i)
    if (!passes::fixed_constant(g, bn.inputs[i])) return false;
  return !bn.outputs.empty() && bn.outputs[0] >= 0;
}

std::shared_ptr<TensorData> float_tensor(const Dims& shape, const std::vector<float>& v) {
  auto d = make_tensor_data(DType::kFloat, shape);
  if (!v.empty()) std::memcpy(d->storage->data(), v.data(), v.size() * sizeof(float));
  return d;
}

// Folds bn into conv (index c); false (nothing changed) when the shapes do not fit.
bool fold(Graph& g, int c, const Node& bn) {
  Node& conv = g.nodes[c];
  const bool transposed = conv.op == "ConvTranspose";
  if (conv.inputs.size() < 2 || !passes::fixed_constant(g, conv.inputs[1])) return false;
  const bool has_b = conv.inputs.size() > 2 && conv.inputs[2] >= 0;
  if (has_b && !passes::fixed_constant(g, conv.inputs[2])) return false;
  const TensorData& wd = *g.value(conv.inputs[1]).data;
  if (wd.desc.dtype != DType::kFloat || wd.desc.rank() < 3) return false;
  const int64_t group = onnx::attr_int(conv, "group", 1);
  if (group < 1) return false;
  const Dims& ws = wd.desc.shape;
  const int64_t channels = transposed ? ws[1] * group : ws[0];
  if (transposed && ws[0] % group != 0) return false;
  std::vector<float> scale = passes::float_values(g, bn.inputs[1]);
  const std::vector<float> bias = passes::float_values(g, bn.inputs[2]);
  const std::vector<float> mean = passes::float_values(g, bn.inputs[3]);
  const std::vector<float> var = passes::float_values(g, bn.inputs[4]);
  const size_t n = static_cast<size_t>(channels);
  if (scale.size() != n || bias.size() != n || mean.size() != n || var.size() != n) return false;
  std::vector<float> b(n, 0.0f);
  if (has_b) {
    b = passes::float_values(g, conv.inputs[2]);
    if (b.size() != n) return false;
  }
  const float eps = onnx::attr_float(bn, "epsilon", 1e-5f);
  std::vector<float> s(n), new_b(n);
  for (size_t k = 0; k < n; ++k) {
    s[k] = static_cast<float>(scale[k] / std::sqrt(static_cast<double>(var[k]) + eps));
    new_b[k] = (b[k] - mean[k]) * s[k] + bias[k];
  }
  std::vector<float> w = passes::float_values(g, conv.inputs[1]);
  int64_t inner = 1;  // elements per (dim 0, dim 1) pair
  for (int d = 2; d < wd.desc.rank(); ++d) inner *= ws[d];
  const int64_t in_per_group = transposed ? ws[0] / group : 0;
  for (int64_t i = 0; i < ws[0]; ++i)
    for (int64_t j = 0; j < ws[1]; ++j) {
      // Conv: W (Cout, Cin/group, k...); ConvTranspose: W (Cin, Cout/group, k...).
      const int64_t oc = transposed ? (i / in_per_group) * ws[1] + j : i;
      float* p = w.data() + (i * ws[1] + j) * inner;
      for (int64_t e = 0; e < inner; ++e) p[e] *= s[oc];
    }
  const std::string base = conv.name.empty() ? bn.name : conv.name;
  const int w_new = passes::add_constant(g, base + "/W_bn", float_tensor(ws, w));
  const int b_new = passes::add_constant(g, base + "/B_bn", float_tensor(Dims{channels}, new_b));
  Node& cv = g.nodes[c];  // add_constant does not touch nodes, but keep the reference fresh
  cv.inputs.resize(3, -1);
  cv.inputs[1] = w_new;
  cv.inputs[2] = b_new;
  const int old_out = cv.outputs[0];
  std::vector<const Node*> both = {&cv, &bn};
  cv.attrs["members"] = passes::strings_attr(passes::members_of(both));
  cv.name = passes::fused_name(both);
  cv.outputs[0] = bn.outputs[0];
  g.value(bn.outputs[0]).producer = c;
  g.value(old_out).producer = -1;
  return true;
}

}  // namespace

int fold_batchnorm(Graph& g) {
  const Uses uses = passes::count_uses(g);
  std::vector<bool> dead(g.nodes.size(), false);
  int count = 0;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& bn = g.nodes[k];
    if (!inference_bn(g, bn)) continue;
    const int x = bn.inputs[0];
    if (!uses.internal_single(x)) continue;
    const int c = g.value(x).producer;
    if (c < 0 || dead[c]) continue;
    const Node& conv = g.nodes[c];
    if (!passes::onnx_domain(conv) || (conv.op != "Conv" && conv.op != "ConvTranspose") ||
        conv.outputs.size() != 1 || conv.outputs[0] != x)
      continue;
    if (g.value(x).dtype() != DType::kFloat || g.value(bn.outputs[0]).dtype() != DType::kFloat)
      continue;
    if (!fold(g, c, bn)) continue;
    dead[k] = true;
    ++count;
  }
  if (count) passes::erase_nodes(g, dead);
  return count;
}

}  // namespace geon
