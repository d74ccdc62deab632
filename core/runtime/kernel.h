// The kernel plug point. A device kernel set (cpu.dnnl, cpu.generic, cuda) is a table of
// KernelEntry rows: per op, whether it can run a given node (and if not, why) and how to
// create the kernel that computes it. core defines the shapes of these; kernels/ fills them.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffer/buffer.h"
#include "core/desc/desc.h"
#include "core/graph/graph.h"
#include "core/runtime/values.h"

namespace geon {

// A tensor as a kernel sees it: a description over memory on one device. An omitted
// optional input has data == nullptr and an empty description.
struct TensorRef {
  TensorDesc desc;
  void* data = nullptr;
  Device device{};
  bool present() const { return data != nullptr || element_count(desc) == 0; }
};

// What compute() gets: the node's inputs, and outputs to fill. Output shapes are known before
// compute for most ops (the plan gives them); kernels of data-dependent ops (NonZero, Unique)
// ask for their outputs with the shape they computed.
class KernelContext {
 public:
  virtual ~KernelContext() = default;
  virtual int num_inputs() const = 0;
  virtual const TensorRef& input(int i) const = 0;
  virtual int num_outputs() const = 0;
  // The output with the planned shape, allocated if needed.
  virtual TensorRef& output(int i) = 0;
  // The output with a shape only known now.
  virtual TensorRef& output(int i, const Dims& shape) = 0;
  // Sequence and optional values (values.h): input i's value, and output i's. Contexts that
  // hold no lists (kernel tests' fakes) refuse them.
  virtual ListRef input_list(int i) const;
  virtual void set_output_list(int i, ListRef value);
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  // Must be safe to call from several threads at once (Run is thread-safe on a session).
  virtual void compute(KernelContext& ctx) const = 0;
  // Inputs whose memory output 0 may take when that input dies at this node (the executor
  // also checks that dtype and shape match). Elementwise kernels that read element i before
  // writing element i of the same layout allow it.
  virtual std::span<const int> in_place_inputs() const { return {}; }
  // View ops (Transpose, Reshape, Slice...): output 0 may be a view of input 0, same memory.
  // The executor then plans no memory for it and calls view() instead of compute(), with the
  // run's actual inputs (parameter inputs such as a shape tensor included). view() gives the
  // output's description over input 0's data (offset included), or nullopt when this run
  // cannot be a view (a reshape of strides that do not merge): compute() runs as usual then.
  // Consumers get the view as it is, so every kernel reads its inputs through their
  // descriptions (strides, offset); cpu.dnnl copies what oneDNN cannot read itself, and the
  // executor gives dense copies where it needs them (device copies, nested runs, outputs).
  virtual bool is_view() const { return false; }
  virtual std::optional<TensorDesc> view(const KernelContext&) const { return std::nullopt; }
  // Constant inputs (by index) that this kernel copied, when it was made, into a form of its
  // own (oneDNN's blocked weights) and never reads at run time. Once every reader of a constant
  // says so, the executor may have its plain contents released (ExecutorOptions::
  // release_constant): compute() then sees that input with its description and no data.
  virtual std::span<const int> packed_inputs() const { return {}; }
};

struct KernelEntry {
  std::string_view domain;  // "" = the default ONNX domain
  std::string_view op;
  int since;  // applies to opsets >= since (the latest entry <= the node's opset wins)
  // nullopt when the kernel can run the node; otherwise the reason it cannot (dtype,
  // attribute value, rank...), for the placement report.
  std::optional<std::string> (*supports)(const Graph& g, const Node& n);
  std::unique_ptr<Kernel> (*create)(const Graph& g, const Node& n);
};

struct KernelSet {
  std::string_view name;  // "cpu.dnnl", "cpu.generic", "cuda"
  Device device;
  std::span<const KernelEntry> entries;
};

// The entry for a node in a set (by domain, op and opset), or null.
const KernelEntry* find_kernel(const KernelSet& set, const Node& n);

}  // namespace geon
