// Test harness for the CPU kernels: host tensors over std::vector storage, a hand-built Graph
// with one node, and a fake KernelContext that hands the kernel TensorRefs over those vectors
// and allocates dense outputs of the shape the kernel asks for.
#pragma once

#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/desc/views.h"
#include "core/dtype/scalar.h"
#include "core/graph/graph.h"
#include "core/runtime/kernel.h"

namespace geon::cpu::testing {

// A tensor in host memory; `desc` may be any view of `bytes` (transposed, sliced...).
struct Host {
  TensorDesc desc;
  std::shared_ptr<std::vector<std::byte>> bytes;

  static Host dense(DType t, const Dims& shape) {
    Host h{row_major(t, shape), std::make_shared<std::vector<std::byte>>(dtype_bytes_for(
                                    t, std::max<int64_t>(element_count(shape), 1)))};
    return h;
  }
  static Host of(DType t, const Dims& shape, const std::vector<double>& values) {
    Host h = dense(t, shape);
    for (size_t i = 0; i < values.size(); ++i) h.set(static_cast<int64_t>(i), values[i]);
    return h;
  }
  // Uniform values in [lo, hi), rounded for integer dtypes.
  static Host random(DType t, const Dims& shape, std::mt19937& rng, double lo = -2, double hi = 2) {
    std::uniform_real_distribution<double> u(lo, hi);
    Host h = dense(t, shape);
    for (int64_t i = 0; i < element_count(shape); ++i) h.set(i, u(rng));
    return h;
  }
  // The same elements seen through a permuted layout: storage is laid out in `perm` order and
  // the description permuted back, so the logical tensor is unchanged but strides are not dense.
  Host strided(const std::vector<int64_t>& perm) const;

  // Element at logical row-major index i of the view.
  double at(int64_t i) const;
  void set(int64_t i, double v);  // dense views only (row-major position = storage position)
  Dims shape() const { return desc.shape; }
};

// Position in storage of logical row-major index i of d.
int64_t storage_index(const TensorDesc& d, int64_t i);

class FakeContext : public KernelContext {
 public:
  explicit FakeContext(std::vector<Host> inputs, std::vector<DType> out_dtypes);
  int num_inputs() const override { return static_cast<int>(refs_.size()); }
  const TensorRef& input(int i) const override { return refs_.at(i); }
  int num_outputs() const override { return static_cast<int>(out_dtypes_.size()); }
  TensorRef& output(int i) override;
  TensorRef& output(int i, const Dims& shape) override;
  const Host& result(int i) const { return outs_.at(i); }
  void plan(int i, Dims shape) { planned_[i] = std::move(shape); }

 private:
  std::vector<Host> in_;
  std::vector<TensorRef> refs_;
  std::vector<DType> out_dtypes_;
  std::map<int, Host> outs_;
  std::map<int, TensorRef> out_refs_;
  std::map<int, Dims> planned_;
};

// One node in a graph built by hand: inputs with dtypes and static shapes (constant ones carry
// their data), attributes, and outputs with dtypes.
struct NodeGraph {
  Graph g;
  Node* node = nullptr;  // into g.nodes: a NodeGraph is not copied
  std::vector<Host> inputs;

  NodeGraph(std::string op, int opset);
  NodeGraph(const NodeGraph&) = delete;
  NodeGraph& operator=(const NodeGraph&) = delete;
  // Adds an input; `constant` makes it a Value with data (for shape/axes parameters).
  NodeGraph& in(const Host& h, bool constant = false);
  NodeGraph& omitted();  // an omitted optional input
  NodeGraph& out(DType t, const Dims& shape = {});
  NodeGraph& attr_i(const std::string& name, int64_t v);
  NodeGraph& attr_f(const std::string& name, float v);
  NodeGraph& attr_s(const std::string& name, std::string v);
  NodeGraph& attr_ints(const std::string& name, std::vector<int64_t> v);

  // supports() of the set's entry (nullopt = supported); "no entry" when it has none.
  std::optional<std::string> supports(const KernelSet& set) const;
  // Creates the kernel and runs it once on the inputs; returns the outputs.
  std::vector<Host> run(const KernelSet& set) const;
};

Host ints(const std::vector<int64_t>& v);  // a 1-D int64 tensor

}  // namespace geon::cpu::testing
