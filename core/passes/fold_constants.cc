// Constant folding by running each foldable node's own kernel on host TensorData: the kernels
// are the one definition of every op's semantics, so folding cannot disagree with a run.
#include "core/passes/fold_constants.h"

#include <algorithm>
#include <array>
#include <exception>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/base/error.h"
#include "core/graph/tensor_data.h"

namespace geon {
namespace {

// Ops whose result is not a function of their inputs: folding would freeze one draw.
bool is_random(const Node& n) {
  static constexpr std::array<std::string_view, 6> kRandom = {"RandomNormal",  "RandomNormalLike",
                                                              "RandomUniform", "RandomUniformLike",
                                                              "Bernoulli",     "Multinomial"};
  return std::find(kRandom.begin(), kRandom.end(), n.op) != kRandom.end();
}

bool has_nested_graph(const Node& n) {
  for (const auto& [name, a] : n.attrs)
    if (a.kind == Attribute::Kind::kGraph || a.kind == Attribute::Kind::kGraphs) return true;
  return false;
}

// A dense numeric tensor the kernels can read or write (strings have no storage to hand over).
bool is_plain_tensor(const Value& v) {
  return v.type.kind == TypeKind::kTensor && v.dtype() != DType::kUndefined &&
         v.dtype() != DType::kString;
}

bool is_foldable_input(const Value& v) {
  return v.kind == ValueKind::kConstant && !v.overridable && v.data && is_plain_tensor(v) &&
         (v.data->storage || v.data->elements() == 0);
}

bool is_foldable(const Graph& g, const Node& n) {
  if (!(n.domain.empty() || n.domain == "ai.onnx") || is_random(n) || has_nested_graph(n))
    return false;
  if (n.outputs.empty()) return false;
  for (int o : n.outputs)
    if (o < 0 || !is_plain_tensor(g.value(o))) return false;
  for (int i : n.inputs)
    if (i >= 0 && !is_foldable_input(g.value(i))) return false;
  return true;
}

// The kernel entry of the first host set that supports n, or null.
const KernelEntry* host_kernel(const Graph& g, const Node& n,
                               std::span<const KernelSet* const> sets) {
  for (const KernelSet* set : sets) {
    if (!set || set->device.kind != DeviceKind::kHost) continue;
    const KernelEntry* e = find_kernel(*set, n);
    if (e && !e->supports(g, n)) return e;
  }
  return nullptr;
}

// A KernelContext over the node's constant inputs and fresh host outputs, each allocation
// bounded: above `max_bytes` per output or `budget` for all outputs together it throws, and the
// node is left unfolded.
class FoldContext : public KernelContext {
 public:
  FoldContext(const Graph& g, const Node& n, int64_t max_bytes, int64_t budget)
      : max_bytes_(max_bytes), budget_(budget) {
    for (int i : n.inputs) {
      TensorRef r;
      if (i >= 0) {
        const TensorData& d = *g.value(i).data;
        r.desc = d.desc;
        // Kernels take const inputs through TensorRef's non-const pointer; none writes them.
        r.data = const_cast<std::byte*>(d.bytes());
      }
      inputs_.push_back(r);
    }
    for (int o : n.outputs) {
      const Value& v = g.value(o);
      dtypes_.push_back(v.dtype());
      planned_.push_back(v.rank_known ? static_lengths(v.axes) : std::nullopt);
    }
    results_.resize(n.outputs.size());
    refs_.resize(n.outputs.size());
  }

  int num_inputs() const override { return static_cast<int>(inputs_.size()); }
  const TensorRef& input(int i) const override { return inputs_.at(i); }
  int num_outputs() const override { return static_cast<int>(results_.size()); }
  TensorRef& output(int i) override {
    if (!planned_.at(i)) fail(ErrorCode::kNotSupported, "output shape not known before the run");
    return output(i, *planned_[i]);
  }
  TensorRef& output(int i, const Dims& shape) override {
    const DType t = dtypes_.at(i);
    if (results_[i]) spent_ -= dtype_bytes_for(t, results_[i]->elements());
    const int64_t bytes = dtype_bytes_for(t, element_count(shape));
    if (bytes > max_bytes_ || spent_ + bytes > budget_)
      fail(ErrorCode::kResourceExhausted, "folded output above the size bound");
    spent_ += bytes;
    results_[i] = make_tensor_data(t, shape, max_bytes_);
    refs_[i] = TensorRef{results_[i]->desc, results_[i]->storage->data(), Device{}};
    return refs_[i];
  }

  // The outputs, all of them written; else nullopt.
  std::optional<std::vector<std::shared_ptr<TensorData>>> results() const {
    for (const auto& r : results_)
      if (!r) return std::nullopt;
    return results_;
  }
  int64_t spent() const { return spent_; }

 private:
  std::vector<TensorRef> inputs_;
  std::vector<DType> dtypes_;
  std::vector<std::optional<Dims>> planned_;
  std::vector<std::shared_ptr<TensorData>> results_;
  std::vector<TensorRef> refs_;
  int64_t max_bytes_, budget_, spent_ = 0;
};

// Runs n on its constants; the outputs, or nullopt when the kernel refuses or fails.
std::optional<std::vector<std::shared_ptr<TensorData>>> run_node(const Graph& g, const Node& n,
                                                                 const KernelEntry& e,
                                                                 int64_t max_bytes, int64_t budget,
                                                                 int64_t& spent) {
  FoldContext ctx(g, n, max_bytes, budget);
  try {
    e.create(g, n)->compute(ctx);
  } catch (const std::bad_alloc&) {
    throw;  // out of memory fails the session (named by the pass) rather than going unseen
  } catch (const std::exception&) {
    // Bad constants, a size bound, an unplanned shape: the node stays and the run reports it.
    return std::nullopt;
  }
  auto out = ctx.results();
  if (out) spent = ctx.spent();
  return out;
}

// v's axes for the folded shape: axes whose static length already matches are kept (their
// identity links v to its readers); others become axes of the same class with the length known.
Axes folded_axes(Graph& g, const Value& v, const Dims& shape) {
  if (!g.axis_factory) g.axis_factory = std::make_shared<AxisFactory>();
  const bool same_rank = v.rank_known && v.rank() == static_cast<int>(shape.size());
  std::vector<Axis> axes;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (same_rank) {
      const Axis& old = v.axes[d];
      if (old.length.is_static() && old.length.value == shape[d])
        axes.push_back(old);
      else
        axes.push_back(make_axis_like(g.factory(), old, Length::known(shape[d])));
    } else {
      axes.push_back(make_axis(g.factory(), "", Length::known(shape[d])));
    }
  }
  return Axes(std::move(axes));
}

// The same bound as the importer's shape contents: small integer vectors only.
constexpr int64_t kMaxContents = 64;

// Small non-negative integer vectors are also shape contents, as the importer records them.
std::optional<std::vector<Length>> shape_contents(const TensorData& d) {
  if (!is_integer(d.desc.dtype) || d.desc.rank() > 1 || d.elements() > kMaxContents)
    return std::nullopt;
  std::vector<Length> contents;
  for (int64_t k = 0; k < d.elements(); ++k) {
    const int64_t x = element_as_int(d, k);
    if (x < 0) return std::nullopt;  // Reshape's -1 and the like are not lengths
    contents.push_back(Length::known(x));
  }
  return contents;
}

void make_constant(Graph& g, int value, std::shared_ptr<const TensorData> data) {
  Value& v = g.value(value);
  v.axes = folded_axes(g, v, data->desc.shape);
  v.rank_known = true;
  v.kind = ValueKind::kConstant;
  v.producer = -1;
  if (auto contents = shape_contents(*data)) {
    v.contents = std::move(*contents);
    v.contents_known = true;
  }
  v.data = std::move(data);
}

}  // namespace

int fold_constants(Graph& g, std::span<const KernelSet* const> sets, int64_t max_bytes,
                   int64_t total_bytes) {
  std::vector<bool> folded(g.nodes.size(), false);
  int count = 0;
  int64_t spent = 0;
  for (size_t k = 0; k < g.nodes.size() && spent < total_bytes; ++k) {
    const Node& n = g.nodes[k];
    if (outputs_known(g, n)) {
      // The importer already computed it (Constant nodes, folded shape chains): no kernel runs.
      for (int o : n.outputs)
        if (o >= 0) make_constant(g, o, g.value(o).data);
      folded[k] = true;
      ++count;
      continue;
    }
    if (!is_foldable(g, n)) continue;
    const KernelEntry* e = host_kernel(g, n, sets);
    if (!e) continue;
    int64_t node_bytes = 0;
    auto outputs = run_node(g, n, *e, max_bytes, total_bytes - spent, node_bytes);
    if (!outputs) continue;
    spent += node_bytes;
    for (size_t o = 0; o < outputs->size(); ++o) make_constant(g, n.outputs[o], (*outputs)[o]);
    folded[k] = true;
    ++count;
  }
  if (count == 0) return 0;
  // One rebuild keeps the survivors in order; producers follow their nodes' new indices.
  std::vector<int> new_index(g.nodes.size(), -1);
  std::vector<Node> kept;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    if (folded[k]) continue;
    new_index[k] = static_cast<int>(kept.size());
    kept.push_back(std::move(g.nodes[k]));
  }
  g.nodes = std::move(kept);
  for (Value& v : g.values)
    if (v.producer >= 0) v.producer = new_index.at(v.producer);
  return count;
}

}  // namespace geon
