// One run: bind, pick the shape's cached plan (or record sizes for a new one), run the nodes
// the requested outputs need in graph order with their errors named, release values after
// their last reader, hand back the outputs, and profile when asked.
#include <atomic>
#include <cstring>
#include <new>

#include "core/base/error.h"
#include "core/runtime/run_state.h"

namespace geon {
namespace {

uint64_t thread_small_id() {
  static std::atomic<uint64_t> next{0};
  thread_local const uint64_t id = next++;
  return id;
}

// A sequence or optional output whose string tensors get storage and text of their own, as
// plain string outputs do. Lists are shared and immutable: one holding strings is copied.
ListRef detach_list(const ListRef& l) {
  if (!l) return l;
  bool strings = false;
  for (const OwnedTensor& t : l->items) strings = strings || t.desc.dtype == DType::kString;
  if (!strings) return l;
  auto copy = std::make_shared<ListValue>(*l);
  for (OwnedTensor& t : copy->items) {
    if (t.desc.dtype != DType::kString || !t.storage) continue;
    auto s = std::make_shared<Storage>(host_allocator(), t.storage->size());
    std::memcpy(s->data(), t.storage->data(), t.storage->size());
    t.storage = std::move(s);
    t.strings = detach_strings(reinterpret_cast<StringElem*>(t.data()) + t.desc.offset,
                               element_count(t.desc));
  }
  return copy;
}

// A run's state, taken from the executable for one run and given back emptied when the run
// returns or throws.
class StateLease {
 public:
  explicit StateLease(const ExecutableImpl& exe) : exe_(exe), st_(exe.take_state()) {}
  ~StateLease() {
    st_->end();
    exe_.return_state(std::move(st_));
  }
  StateLease(const StateLease&) = delete;
  StateLease& operator=(const StateLease&) = delete;
  RunState& operator*() const { return *st_; }

 private:
  const ExecutableImpl& exe_;
  std::unique_ptr<RunState> st_;
};

bool every_output_in_order(std::span<const int> outputs, size_t count) {
  if (outputs.size() != count) return false;
  for (size_t k = 0; k < count; ++k)
    if (outputs[k] != static_cast<int>(k)) return false;
  return true;
}

int64_t since(ExecClock::time_point origin, ExecClock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t - origin).count();
}

}  // namespace

std::vector<bool> ExecutableImpl::needed_nodes(std::span<const int> outputs) const {
  const Graph& g = *c_.graph;
  std::vector<bool> needed(g.nodes.size(), false);
  std::vector<bool> seen(g.values.size(), false);
  std::vector<int> stack;
  for (int o : outputs) stack.push_back(g.outputs[o]);
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    if (seen[v]) continue;
    seen[v] = true;
    const int p = c_.producer[v];
    if (p < 0 || needed[p]) continue;
    needed[p] = true;
    for (int r : c_.nodes[p].reads) stack.push_back(r);
  }
  return needed;
}

bool ExecutableImpl::bind_view(RunState& st, int step, const NodeContext& ctx) const {
  const int out = ctx.node().outputs.empty() ? -1 : ctx.node().outputs[0];
  if (out < 0 || c_.plan_template[out].alias_of < 0) return false;
  const std::optional<TensorDesc> desc = c_.nodes[step].kernel->view(ctx);
  if (!desc) return false;
  st.bind_view(out, c_.plan_template[out].alias_of, *desc);
  return true;
}

void ExecutableImpl::run_node(RunState& st, int step, ProfileRecords* profile) const {
  const Node& n = c_.graph->nodes[step];
  const CompiledNode& cn = c_.nodes[step];
  const auto start = ExecClock::now();
  try {
    NodeContext ctx(st, step);
    if (cn.control)
      cn.control->run(ctx);
    else if (!bind_view(st, step, ctx))
      cn.kernel->compute(ctx);
    if (profile) {
      ProfileRecords::Record r;
      r.step = step;
      r.start_ns = since(c_.origin, start);
      r.duration_ns = since(start, ExecClock::now());
      r.thread = thread_small_id();
      r.dims_at = profile->dims.size();
      profile->records.push_back(r);
      profile->dims.push_back(ctx.num_inputs());
      for (int i = 0; i < ctx.num_inputs(); ++i) {
        const Dims& d = ctx.input(i).desc.shape;
        profile->dims.push_back(static_cast<int64_t>(d.size()));
        profile->dims.insert(profile->dims.end(), d.begin(), d.end());
      }
    }
  } catch (const Error& e) {
    throw Error(e.code(), "node '" + cn.label + "' (" + n.op + "): " + e.what());
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::kResourceExhausted,
                "node '" + cn.label + "' (" + n.op + "): out of memory");
  } catch (const std::exception& e) {
    throw Error(ErrorCode::kInternal, "node '" + cn.label + "' (" + n.op + "): " + e.what());
  }
}

std::vector<OwnedTensor> ExecutableImpl::run_in(std::span<const TensorRef> inputs, RunState* parent,
                                                std::span<const int> outputs,
                                                std::span<const TensorRef> caller_outputs,
                                                std::span<const ListRef> lists) const {
  const Graph& g = *c_.graph;
  for (int o : outputs)
    if (o < 0 || o >= static_cast<int>(g.outputs.size()))
      fail(ErrorCode::kInvalidArgument, "run: output index " + std::to_string(o) +
                                            " is out of range (the graph has " +
                                            std::to_string(g.outputs.size()) + " outputs)");
  if (!caller_outputs.empty() && caller_outputs.size() != outputs.size())
    fail(ErrorCode::kInvalidArgument, "run: " + std::to_string(caller_outputs.size()) +
                                          " caller outputs for " + std::to_string(outputs.size()) +
                                          " requested outputs");

  const StateLease lease(*this);
  RunState& st = *lease;
  st.begin(parent, outputs, caller_outputs);
  st.bind_inputs(inputs, lists);
  st.bind_outer();
  std::shared_ptr<const ShapePlan> plan = find_plan(st.key());
  st.use_plan(plan);

  std::vector<bool> some;
  if (!every_output_in_order(outputs, g.outputs.size())) some = needed_nodes(outputs);
  const std::vector<bool>& needed = some.empty() ? all_needed_ : some;
  ProfileRecords profile;
  ProfileRecords* record = c_.options.profile ? &profile : nullptr;
  if (record) {
    profile.records.reserve(g.nodes.size());
    profile.dims.reserve(g.nodes.size() * 16);
  }
  for (size_t s = 0; s < g.nodes.size(); ++s) {
    if (needed[s]) run_node(st, static_cast<int>(s), record);
    st.release_step(static_cast<int>(s));
  }
  std::vector<OwnedTensor> results = st.take_outputs();
  if (!plan) store_plan(st.key(), st.recorded_plan());
  if (record) add_events(profile);
  return results;
}

std::vector<OwnedTensor> ExecutableImpl::run(std::span<const TensorRef> inputs,
                                             std::span<const int> outputs,
                                             std::span<const TensorRef> caller_outputs,
                                             std::span<const ListRef> lists) const {
  // Nested bodies run on this thread, so they use this pool too.
  ScopedPool scope(c_.pool.get());
  // Strings made during the run live in its arena; outputs get bytes of their own, so they
  // outlive the run and the caller's input strings.
  StringScope strings;
  for (size_t k = 0; k < caller_outputs.size(); ++k)
    if (caller_outputs[k].data && caller_outputs[k].desc.dtype == DType::kString)
      fail(ErrorCode::kInvalidArgument,
           "run: output " + std::to_string(outputs[k]) +
               " is a string tensor: strings are returned, not written to caller memory");
  std::vector<OwnedTensor> results = run_in(inputs, nullptr, outputs, caller_outputs, lists);
  for (OwnedTensor& t : results) {
    if (t.desc.dtype == DType::kString && t.storage)
      t.strings = detach_strings(reinterpret_cast<StringElem*>(t.data()) + t.desc.offset,
                                 element_count(t.desc));
    t.list = detach_list(t.list);
  }
  return results;
}

}  // namespace geon
