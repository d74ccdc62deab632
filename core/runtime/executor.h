// The executor: compiles a graph for a list of kernel sets (partition, kernel creation, memory
// plan) and runs it on caller tensors. User memory is bound in place (seed 001); symbolic
// lengths are bound per run from the input shapes, and the memory plan for each distinct set
// of input shapes is cached (bounded). If, Loop and Scan bodies run as nested executables.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/buffer/buffer.h"
#include "core/desc/desc.h"
#include "core/graph/graph.h"
#include "core/runtime/kernel.h"
#include "core/runtime/partition.h"
#include "core/runtime/values.h"
#include "core/strings/strings.h"

namespace geon {

class ThreadPool;

struct ExecutorOptions {
  // Fill each arena region with 0xFF bytes when its value dies (after its last reader), so
  // that two live values sharing memory corrupt results visibly. A debug mode.
  bool poison_freed = false;
  // Record one ProfileEvent per node run.
  bool profile = false;
  // Refuse (kResourceExhausted, with the bytes needed and allowed) a run whose working memory
  // would exceed this many bytes; 0 = no limit. Counted: the plan's arenas on every device,
  // run-time allocations (outputs, transfers, dense copies), If / Loop / Scan bodies together
  // with the runs enclosing them, and what Loop and Scan keep between iterations. Not counted:
  // temporaries a kernel or the engine takes for itself (oneDNN scratchpads, CUDA reduction
  // buffers) and constants.
  size_t arena_limit_bytes = 0;
  // Memory plans kept for distinct input shapes (least recently used dropped first).
  size_t shape_cache_entries = 8;
  // Engine threads for this executable's runs, counting the calling thread: > 0 gives it a
  // pool of its own (workers sleep between runs), used by every engine call its kernels make
  // without naming a pool, If/Loop/Scan bodies included; 0 = the engine's process-wide pool.
  int threads = 0;
  // A pool of its own that the caller made already (the provider makes it before importing the
  // model, whose weights are read on it); set, it stands in for one of `threads` threads.
  std::shared_ptr<ThreadPool> pool;
  // Called while compiling, with a value of the graph compiled, for each constant (not a graph
  // output) whose readers all run on the host and packed it (Kernel::packed_inputs), as soon as
  // the last of them is made. Nothing reads its contents any more: the graph's owner may
  // release them, keeping the value's TensorData description with no storage, so that packed
  // weights replace the plain copy instead of doubling a session's memory. Null: nothing is
  // released. Not passed on to If / Loop / Scan bodies.
  std::function<void(int value)> release_constant;
};

// A tensor a run allocated: row-major, owned.
struct OwnedTensor {
  OwnedTensor() = default;
  OwnedTensor(TensorDesc d, std::shared_ptr<Storage> s)
      : desc(std::move(d)), storage(std::move(s)) {}

  TensorDesc desc;
  std::shared_ptr<Storage> storage;  // null for empty tensors
  // String tensors: the bytes their handles point at (core/strings/strings.h).
  std::shared_ptr<StringArena> strings;
  // A graph output of sequence or optional type: the value (desc and storage empty).
  ListRef list;
  void* data() const { return storage ? storage->data() : nullptr; }
};

// The tensor as a kernel reads it (host memory).
inline TensorRef ref_of(const OwnedTensor& t) { return {t.desc, t.data(), Device{}}; }

struct ProfileEvent {
  std::string node;  // the node's name, or "<op>_<index>" when unnamed
  std::string op;
  std::string set;  // the kernel set's name ("control" for If/Loop/Scan)
  std::vector<Dims> input_shapes;
  int64_t start_ns = 0;  // since the executable was compiled
  int64_t duration_ns = 0;
  uint64_t thread = 0;  // a small id per calling thread
};

struct MemoryStats {
  Device device{};
  size_t peak_bytes = 0;          // the arena's size under the plan
  size_t intermediate_bytes = 0;  // the sum of all planned intermediates (no reuse)
};

class Executable {
 public:
  // Partitions g over `sets` (highest priority first), creates every kernel and, when all
  // shapes are static, plans memory. Every node must be placed: otherwise geon::Error
  // (kNotSupported) naming each unplaced node, its op and every set's reason.
  static std::unique_ptr<Executable> compile(std::shared_ptr<const Graph> g,
                                             std::span<const KernelSet* const> sets,
                                             const ExecutorOptions& options = {});
  virtual ~Executable() = default;

  virtual const Graph& graph() const = 0;
  virtual const Placement& placement() const = 0;
  // The sets this executable was compiled for, in priority order.
  virtual std::span<const KernelSet* const> sets() const = 0;

  // Runs the graph. `inputs` has one entry per g.inputs (same order): a host tensor, or
  // data == nullptr with an empty desc for an overridable input left at its default. dtypes
  // and shapes are checked against the graph (kInvalidArgument naming the input). `outputs`
  // lists indices into g.outputs; caller_outputs is empty or one per requested output: a
  // present TensorRef is written in place (its desc must equal the output's, row-major),
  // others are allocated and returned. Returns one OwnedTensor per requested output
  // (empty storage and desc for those written to caller memory). Inputs of sequence or
  // optional type come in `lists` (empty, or one per g.inputs: null for tensor inputs, whose
  // `inputs` entry is used), and such outputs come back in OwnedTensor::list.
  // Thread-safe: several threads may run one executable at once.
  virtual std::vector<OwnedTensor> run(std::span<const TensorRef> inputs,
                                       std::span<const int> outputs,
                                       std::span<const TensorRef> caller_outputs = {},
                                       std::span<const ListRef> lists = {}) const = 0;

  // Per device: the peak of the static plan (or of the latest cached plan when shapes are
  // symbolic; zero before the first run), and the sum of the planned intermediates.
  virtual std::vector<MemoryStats> memory() const = 0;

  // The events recorded since compile or the previous call (profile option), in start order.
  virtual std::vector<ProfileEvent> take_profile() const = 0;
};

// The nodes of one partition subgraph as a graph of their own: its inputs are the subgraph's
// non-constant boundary inputs (by their names in g), its outputs the subgraph's outputs;
// constants it reads are copied in as constants. Nested graphs keep their parent link.
std::shared_ptr<Graph> extract_subgraph(const Graph& g, const Subgraph& s);

}  // namespace geon
