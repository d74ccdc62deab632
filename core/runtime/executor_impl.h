// The executor's compiled form, shared by its source files: per node its kernel (or its
// control flow) and device, per value its home device, the memory-plan template (lifetimes
// over the node order: graph values, then transfer copies) and the state runs share.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/engine/thread_pool.h"
#include "core/runtime/executor.h"
#include "core/runtime/memory_plan.h"
#include "core/runtime/plan_cache.h"

namespace geon {

class ExecutableImpl;
class NodeContext;
class RunState;

using ExecClock = std::chrono::steady_clock;

// If, Loop and Scan: the executor runs them itself, each body a nested executable that binds
// the values it captures from the enclosing run.
class ControlFlow {
 public:
  virtual ~ControlFlow() = default;
  virtual void run(NodeContext& ctx) const = 0;
  // The nested executables, for profile collection.
  virtual std::vector<const ExecutableImpl*> bodies() const = 0;
};

// Compiles n's bodies with the same sets; geon::Error for a form the executor cannot run.
std::unique_ptr<ControlFlow> make_control_flow(const Graph& g, const Node& n,
                                               std::span<const KernelSet* const> sets,
                                               const ExecutorOptions& options,
                                               ExecClock::time_point origin);

struct CompiledNode {
  std::string label;     // the node's name, or "<op>_<index>"
  std::string set_name;  // "control" for If/Loop/Scan
  Device device{};
  std::unique_ptr<Kernel> kernel;
  std::unique_ptr<ControlFlow> control;
  std::vector<int> reads;  // node_reads(): inputs, then captured outer values
};

// A value copied to a device other than its home, for the nodes running there.
struct TransferCopy {
  int value = -1;
  Device device{};
};

// A constant's copy in a device's initializer arena.
struct DeviceConstant {
  int value = -1;
  TensorRef ref;
};

struct Compiled {
  std::shared_ptr<const Graph> graph;
  std::vector<const KernelSet*> sets;
  ExecutorOptions options;
  Placement placement;
  std::vector<CompiledNode> nodes;  // per graph node, run in graph order
  // Per value: its node, or -1 (inputs, constants, and outputs of folded nodes).
  std::vector<int> producer;
  // Per value: contents fixed before any run, used in place: constants, and the outputs of
  // nodes the importer already computed (every output has data; such nodes never run).
  std::vector<bool> constant;
  std::vector<Device> home;     // per value: where its producer leaves it (host otherwise)
  std::vector<bool> is_output;  // per value: listed in graph outputs
  std::vector<TransferCopy> transfers;
  // Per value: (device, index into transfers) of its planned copies.
  std::vector<std::vector<std::pair<Device, int>>> copies_of;
  std::vector<PlanValue> plan_template;  // per value, then per transfer; bytes where static
  std::vector<std::vector<int>> dying;   // per step: plan entries last needed at that step
  std::vector<DeviceConstant> device_constants;
  std::vector<std::shared_ptr<Storage>> constant_arenas;
  // Per value: for string constants, their handles (core/strings) over the TensorData's
  // strings; null otherwise.
  std::vector<std::shared_ptr<Storage>> string_constants;
  ExecClock::time_point origin;
  std::shared_ptr<ThreadPool> pool;  // options.threads > 0: the engine pool of every run
};

class ExecutableImpl final : public Executable {
 public:
  explicit ExecutableImpl(Compiled c);
  ~ExecutableImpl() override;

  const Graph& graph() const override { return *c_.graph; }
  const Placement& placement() const override { return c_.placement; }
  std::span<const KernelSet* const> sets() const override { return c_.sets; }
  std::vector<OwnedTensor> run(std::span<const TensorRef> inputs, std::span<const int> outputs,
                               std::span<const TensorRef> caller_outputs,
                               std::span<const ListRef> lists) const override;
  std::vector<MemoryStats> memory() const override;
  std::vector<ProfileEvent> take_profile() const override;

  // A run whose graph may capture values from an enclosing run (`parent`, may be null).
  std::vector<OwnedTensor> run_in(std::span<const TensorRef> inputs, RunState* parent,
                                  std::span<const int> outputs,
                                  std::span<const TensorRef> caller_outputs,
                                  std::span<const ListRef> lists = {}) const;
  const Compiled& compiled() const { return c_; }

  // Shared by concurrent runs, under the mutex.
  std::shared_ptr<const ShapePlan> find_plan(const ShapeKey& key) const;
  void store_plan(ShapeKey key, std::shared_ptr<const ShapePlan> plan) const;
  std::shared_ptr<Storage> take_arena(Device d, size_t bytes) const;
  void return_arena(std::shared_ptr<Storage> s) const;
  // A run's profile: one record per node run, and each record's input shapes in `dims` (its
  // input count, then per input the rank and the lengths). Plain numbers, so a profiled run
  // makes no heap allocation per node: strings and shape vectors kept from every run, between
  // a run's large outputs, fragmented the heap until each run's outputs took fresh pages (a
  // 0.4 MB output: 80 page faults a run, +12% on a 1.3 ms MatMul, +30-50% on an Attention).
  struct ProfileRecords {
    struct Record {
      int step = 0;
      int64_t start_ns = 0, duration_ns = 0;
      uint64_t thread = 0;
      size_t dims_at = 0;  // where its shapes begin in `dims`
    };
    std::vector<Record> records;
    std::vector<int64_t> dims;
  };
  void add_events(const ProfileRecords& run) const;
  // A run's state: an idle one kept from an earlier run (emptied by its end()), else a new one;
  // given back when the run ends.
  std::unique_ptr<RunState> take_state() const;
  void return_state(std::unique_ptr<RunState> st) const noexcept;

 private:
  void run_node(RunState& st, int step, ProfileRecords* profile) const;
  // A view node whose output the plan aliases: binds the output as the kernel's view of its
  // input 0 and returns true; false when this run cannot be a view (compute() runs then).
  bool bind_view(RunState& st, int step, const NodeContext& ctx) const;
  std::vector<bool> needed_nodes(std::span<const int> outputs) const;

  Compiled c_;
  mutable std::mutex mu_;
  mutable PlanCache cache_;
  mutable std::shared_ptr<const ShapePlan> latest_;
  mutable std::vector<std::shared_ptr<Storage>> arena_pool_;
  mutable ProfileRecords profile_;  // every profiled run's, until take_profile
  std::vector<bool> all_needed_;    // needed_nodes of every output, the usual request
  // Last, so destroyed first: an idle state's destructor may hand memory back to the above.
  mutable std::vector<std::unique_ptr<RunState>> idle_states_;
};

// Host bytes of a constant (or an input's default) as kernels read them: string constants as
// their handles.
inline std::byte* constant_bytes(const Compiled& c, int v) {
  if (v < static_cast<int>(c.string_constants.size()) && c.string_constants[v])
    return c.string_constants[v]->data();
  return const_cast<std::byte*>(c.graph->values[v].data->bytes());
}

std::unique_ptr<ExecutableImpl> compile_executable(std::shared_ptr<const Graph> g,
                                                   std::span<const KernelSet* const> sets,
                                                   const ExecutorOptions& options,
                                                   ExecClock::time_point origin);

// "<name>" or "<op>_<index>" for unnamed nodes.
std::string node_label(const Node& n, int index);

// A plan from the template with these byte sizes (nullopt: run-time), verified in poison mode.
std::shared_ptr<const ShapePlan> make_shape_plan(const Compiled& c,
                                                 std::vector<std::optional<size_t>> bytes);

}  // namespace geon
