// One run's state: the bound inputs and symbols, where each value lives now (its home buffer
// and copies on other devices), the arenas and run-time allocations with the working-memory
// count, and the outputs to hand back. Used by one thread at a time; an executable keeps idle
// ones for its next runs (begin/end), so the run path's bookkeeping allocates nothing.
#pragma once

#include <deque>
#include <list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/runtime/executor_impl.h"

namespace geon {

// A plan entry's memory in this run.
struct Held {
  TensorRef ref;
  bool bound = false;
  std::shared_ptr<Storage> owned;  // a run-time allocation, when not in an arena
  size_t owned_bytes = 0;          // counted against the working-memory limit
  bool in_arena = false;
};

class RunState {
 public:
  // Sized for exe's graph, constants bound; begin() before each run.
  explicit RunState(const ExecutableImpl& exe);
  ~RunState();
  RunState(const RunState&) = delete;
  RunState& operator=(const RunState&) = delete;

  // Starts a run that asks for `outputs` (written into `caller_outputs` where given), inside
  // `parent`'s run (null: none). The spans must outlive end().
  void begin(RunState* parent, std::span<const int> outputs,
             std::span<const TensorRef> caller_outputs);
  // Drops everything the run holds (its memory, lists, arenas, the caller's pointers) and keeps
  // the capacity of every vector, ready for the next begin().
  void end() noexcept;

  // Binds the graph inputs (checked) and the values captured from enclosing runs; builds the
  // shape key.
  void bind_inputs(std::span<const TensorRef> inputs, std::span<const ListRef> lists = {});
  void bind_outer();
  const ShapeKey& key() const { return key_; }

  // Places planned values in arenas from now on (null: everything at run time, recorded).
  void use_plan(std::shared_ptr<const ShapePlan> plan);
  bool recording() const { return !plan_; }

  // The buffer for `value` (produced on `device`) with this shape.
  TensorRef& produce(int value, const Dims& shape, Device device);
  // A buffer not tracked by the plan (an output the graph does not use).
  TensorRef& scratch(DType dtype, const Dims& shape, Device device, std::list<Held>& keep);
  // Binds `value` as a view of plan entry `base` (bound already): `desc` over the base's data.
  // The view shares the base's run-time allocation, if any, so it never outlives it.
  void bind_view(int value, int base, const TensorDesc& desc);
  // A dense row-major copy of a strided host tensor, kept alive by `keep`.
  const TensorRef& dense_copy(const TensorRef& t, std::list<Held>& keep);
  // The value as readable on `device`, copying it there on first use.
  const TensorRef& on_device(int value, Device device);
  // A value visible by name from this run (or an enclosing one), on the host; null if none.
  const TensorRef* lookup_outer(const std::string& name);
  // A sequence or optional value (values.h): bound by its producer or the run's inputs.
  const ListRef& list(int value) const;
  void bind_list(int value, ListRef v);
  // A list visible by name from this run (or an enclosing one); null if none.
  const ListRef* lookup_outer_list(const std::string& name) const;

  // The shape a value has from its axes and the bound symbols, if known now (null if not);
  // valid until the next call.
  const Dims* planned_shape(int value);

  // Releases (and poisons) the plan entries last needed at this step.
  void release_step(int step);
  // One result per requested output, copying those not produced in place.
  std::vector<OwnedTensor> take_outputs();
  // The plan for this run's recorded sizes.
  std::shared_ptr<const ShapePlan> recorded_plan() const;

  // Memory a control flow keeps between its nested runs (Loop's carried values, scan outputs
  // awaiting their stacking, Scan's dense slices), counted against arena_limit_bytes with the
  // rest of this run's working memory; hold fails (kResourceExhausted) past the limit.
  void hold(size_t bytes, Device device);
  void unhold(size_t bytes);
  // This run's working memory and that of every run enclosing it: a body's arena and
  // allocations add to its If / Loop / Scan node's run, all counted against one limit.
  size_t working_in_use() const;

  const Compiled& c;

 private:
  TensorRef& place(int value, const Dims& shape, Device device);
  // Whether `value` may use its arena slot now: false when the plan put it in place of an
  // input that the kernel reads with another description (then it is allocated instead).
  bool may_take_slot(int value, const TensorDesc& desc);
  std::shared_ptr<Storage> allocate(Device d, size_t bytes);
  void count(size_t bytes, Device device);
  void release(Held& h, const Slot* slot);
  void poison(void* p, Device d, size_t bytes) const;
  void copy_into(const TensorRef& src, const TensorRef& dst) const;
  std::byte* arena_address(const Slot& slot) const;
  bool has_caller(int k) const;
  const TensorRef& device_constant(int value, Device device) const;
  void bind_symbols(const Value& v, const Dims& shape);
  // Binds h to memory, assigning the description in place (its vectors' memory is reused).
  static void set(Held& h, const TensorDesc& desc, void* data, Device device,
                  std::shared_ptr<Storage> owned = nullptr, size_t owned_bytes = 0,
                  bool in_arena = false);
  // The dense description of `shape` in value's layout, in desc_ (valid until the next call).
  const TensorDesc& lay_out(const Value& val, const Dims& shape);
  // A bound symbol's length and the input that bound it; symbols name Length::symbol strings of
  // the graph, which outlives the run.
  struct Symbol {
    const std::string* name;
    int64_t length;
    const std::string* bound_by;
  };
  const Symbol* find_symbol(const std::string& name) const;

  const ExecutableImpl& exe_;
  RunState* parent_ = nullptr;
  std::span<const int> outputs_;
  std::span<const TensorRef> caller_;
  std::vector<int> first_request_;  // per value: first requested position holding it, or -1
  std::vector<Held> held_;          // per plan entry
  std::vector<ListRef> lists_;      // per value: sequence and optional values
  std::deque<std::pair<TransferCopy, Held>> extra_copies_;  // copies the plan did not foresee
  std::vector<OwnedTensor> results_;
  std::vector<bool> delivered_;  // per requested position: written in place already
  std::vector<Symbol> symbols_;
  ShapeKey key_;
  TensorDesc desc_;  // lay_out's result
  Dims physical_;    // lay_out's scratch
  Dims planned_;     // planned_shape's result
  std::shared_ptr<const ShapePlan> plan_;
  std::vector<std::shared_ptr<Storage>> arenas_;  // per plan arena
  std::vector<std::optional<size_t>> recorded_;   // per plan entry, while recording
  // Per plan entry: an in-place output took its memory, so its release must not poison it.
  std::vector<bool> donated_;
  size_t working_ = 0;
};

// What a kernel (or a control flow) sees of one node's run.
class NodeContext final : public KernelContext {
 public:
  NodeContext(RunState& st, int node);
  int num_inputs() const override { return static_cast<int>(node_.inputs.size()); }
  const TensorRef& input(int i) const override;
  int num_outputs() const override { return static_cast<int>(node_.outputs.size()); }
  TensorRef& output(int i) override;
  TensorRef& output(int i, const Dims& shape) override;
  ListRef input_list(int i) const override;
  void set_output_list(int i, ListRef value) override;

  RunState& state() { return st_; }
  const Node& node() const { return node_; }
  const CompiledNode& compiled() const { return cn_; }

 private:
  void check_output(int i) const;

  RunState& st_;
  const Node& node_;
  const CompiledNode& cn_;
  // The inputs where the run state holds them (no copies: a TensorRef owns vectors). Most nodes
  // have few inputs; those fit inline, so a node's context allocates nothing.
  static constexpr int kInlineInputs = 8;
  const TensorRef* inline_inputs_[kInlineInputs];
  std::vector<const TensorRef*> more_inputs_;
  const TensorRef** inputs_ = inline_inputs_;
  // Scratch outputs and dense copies of this node; a list, so that an empty one allocates
  // nothing and references to its elements stay valid.
  std::list<Held> scratch_;
};

}  // namespace geon
