// Compiling a graph: placement (every node must be placed), kernel creation, control flow for
// If/Loop/Scan, value homes and transfer copies, constants copied to device initializer
// arenas, and the memory-plan template, planned at once when every size is static.
#include <algorithm>

#include "core/base/error.h"
#include "core/buffer/device_copy.h"
#include "core/runtime/executor_impl.h"
#include "core/runtime/graph_uses.h"
#include "core/runtime/run_state.h"
#include "core/strings/strings.h"

namespace geon {
namespace {

bool is_host(Device d) { return d.kind == DeviceKind::kHost; }

// The size of a value whose every length is static, if it has one.
std::optional<size_t> static_bytes(const Value& v) {
  // String elements are 16-byte handles (core/strings): planned like any other dtype.
  if (!v.rank_known || v.dtype() == DType::kUndefined) return std::nullopt;
  const auto lens = static_lengths(v.axes);
  if (!lens) return std::nullopt;
  return static_cast<size_t>(dtype_bytes_for(v.dtype(), element_count(*lens)));
}

// Nodes whose every output the importer computed already (a Constant node, a folded Shape):
// nothing to run, so no kernel is needed.
std::vector<bool> folded_nodes(const Graph& g) {
  std::vector<bool> folded(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    folded[i] = !is_control_flow(g.nodes[i]) && outputs_known(g, g.nodes[i]);
  return folded;
}

// The constants whose plain contents can go once their readers are made, every reader having
// packed them (Kernel::packed_inputs, ExecutorOptions::release_constant). Per value: readers
// still to be made, or -1 when its contents stay (a graph output, a reader that reads them).
class PackedConstants {
 public:
  PackedConstants(const Graph& g, const std::vector<bool>& folded) : pending_(g.values.size(), 0) {
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (!folded[i])
        for (int v : node_reads(g, g.nodes[i])) ++pending_[v];
    for (size_t v = 0; v < g.values.size(); ++v) {
      const Value& val = g.values[v];
      if (val.kind != ValueKind::kConstant || !val.data || !val.data->storage) pending_[v] = -1;
    }
    for (int o : g.outputs) pending_.at(o) = -1;
  }

  // After node `index` was made as `cn`: calls release(v) for each constant it read that no
  // reader needs any more.
  void made(const Graph& g, int index, const CompiledNode& cn,
            const std::function<void(int)>& release) {
    const Node& n = g.nodes[index];
    const std::span<const int> packed =
        cn.kernel && is_host(cn.device) ? cn.kernel->packed_inputs() : std::span<const int>();
    for (int v : cn.reads) {
      if (pending_[v] <= 0) continue;
      // Packed only when every input slot reading v is one the kernel packed.
      bool all_packed = true;
      for (size_t i = 0; i < n.inputs.size(); ++i)
        if (n.inputs[i] == v)
          all_packed = all_packed &&
                       std::find(packed.begin(), packed.end(), static_cast<int>(i)) != packed.end();
      const bool captured = std::find(n.inputs.begin(), n.inputs.end(), v) == n.inputs.end();
      if (!all_packed || captured) {
        pending_[v] = -1;
      } else if (--pending_[v] == 0) {
        pending_[v] = -1;
        release(v);
      }
    }
  }

 private:
  std::vector<int> pending_;
};

void check_placed(const Graph& g, const Placement& p, std::span<const KernelSet* const> sets,
                  const std::vector<bool>& folded) {
  std::string unplaced;
  int count = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (p.nodes[i].set >= 0 || is_control_flow(n) || folded[i]) continue;
    ++count;
    unplaced += "\n  node '" + node_label(n, static_cast<int>(i)) + "' (" +
                (n.domain.empty() ? "" : n.domain + ".") + n.op + "):";
    for (const Refusal& r : p.nodes[i].refusals)
      unplaced += " " + std::string(sets[r.set]->name) + ": " + r.reason + ";";
    if (p.nodes[i].refusals.empty()) unplaced += " no kernel sets were given";
  }
  if (count)
    fail(ErrorCode::kNotSupported,
         "no kernel set can run " + std::to_string(count) + " node(s):" + unplaced);
}

CompiledNode compile_node(const Graph& g, int index, const Placement& p,
                          std::span<const KernelSet* const> sets, const ExecutorOptions& options,
                          ExecClock::time_point origin, bool folded) {
  const Node& n = g.nodes[index];
  CompiledNode cn;
  cn.label = node_label(n, index);
  if (folded) {
    cn.set_name = "folded";
    return cn;
  }
  cn.reads = node_reads(g, n);
  const std::string where = "node '" + cn.label + "' (" + n.op + "): ";
  try {
    if (is_control_flow(n)) {
      cn.set_name = "control";
      ExecutorOptions body_options = options;
      body_options.release_constant = nullptr;  // it names values of this graph only
      cn.control = make_control_flow(g, n, sets, body_options, origin);
      return cn;
    }
    const KernelSet& set = *sets[p.nodes[index].set];
    cn.set_name = set.name;
    cn.device = set.device;
    const KernelEntry* e = find_kernel(set, n);
    if (!e || !e->create)
      fail(ErrorCode::kInternal, "set " + std::string(set.name) + " placed it but has no kernel");
    cn.kernel = e->create(g, n);
    if (!cn.kernel) fail(ErrorCode::kInternal, "set " + std::string(set.name) + " made no kernel");
  } catch (const Error& e) {
    throw Error(e.code(), where + e.what());
  } catch (const std::bad_alloc&) {
    fail(ErrorCode::kResourceExhausted, where + "out of memory while compiling its kernel");
  }
  return cn;
}

// Values read on a device other than their home get a planned copy there, live from their
// first to their last reader on that device.
void plan_transfers(Compiled& c) {
  const Graph& g = *c.graph;
  const int nv = static_cast<int>(g.values.size());
  c.copies_of.resize(nv);
  for (size_t s = 0; s < c.nodes.size(); ++s) {
    const Device d = c.nodes[s].device;
    for (int r : c.nodes[s].reads) {
      if (c.constant[r] || c.home[r] == d || is_list_type(g.values[r].type)) continue;
      int t = -1;
      for (const auto& [dev, index] : c.copies_of[r])
        if (dev == d) t = index;
      if (t < 0) {
        t = static_cast<int>(c.transfers.size());
        c.transfers.push_back({r, d});
        c.copies_of[r].emplace_back(d, t);
        PlanValue pv;
        pv.bytes = static_bytes(g.values[r]);
        pv.device = d;
        pv.first = static_cast<int>(s);
        c.plan_template.push_back(pv);
      }
      c.plan_template[nv + t].last = static_cast<int>(s);
    }
  }
}

// Whether two values may share one buffer as input and output of an elementwise step: same
// dtype (one the executor allocates whole bytes of: a packed output's padding byte is zeroed
// before the kernel runs) and the same rank, with equal lengths where both are static. The run
// checks the actual descriptions again.
bool same_layout(const Value& a, const Value& b) {
  const DType t = a.dtype();
  if (t != b.dtype() || t == DType::kUndefined || t == DType::kString || is_packed(t) ||
      !a.rank_known || !b.rank_known || a.axes.size() != b.axes.size())
    return false;
  const auto la = static_lengths(a.axes), lb = static_lengths(b.axes);
  return !la || !lb || *la == *lb;
}

// The plan entry a node on `d` reads for value v: v itself on its home device, else its
// planned copy there (-1 when none).
int entry_read(const Compiled& c, int v, Device d) {
  if (c.home[v] == d) return v;
  for (const auto& [dev, t] : c.copies_of[v])
    if (dev == d) return static_cast<int>(c.graph->values.size()) + t;
  return -1;
}

// The entry whose memory plan entry e really uses: e itself, or the root of its view chain.
int alias_root(const std::vector<PlanValue>& entries, int e) {
  while (entries[e].alias_of >= 0) e = entries[e].alias_of;
  return e;
}

// Output 0 of a view kernel aliases the entry its input 0 is read from on the node's device:
// no memory of its own, and the planner keeps the base alive as long as the view. Graph
// outputs are no views (they are delivered dense, so computing them copies once), nor are
// packed dtypes (a view could start inside a byte).
void plan_views(Compiled& c) {
  const Graph& g = *c.graph;
  for (size_t s = 0; s < c.nodes.size(); ++s) {
    const CompiledNode& cn = c.nodes[s];
    const Node& n = g.nodes[s];
    if (!cn.kernel || !cn.kernel->is_view() || n.outputs.empty() || n.outputs[0] < 0 ||
        n.inputs.empty() || n.inputs[0] < 0)
      continue;
    const int out = n.outputs[0], in = n.inputs[0];
    PlanValue& pv = c.plan_template[out];
    if (pv.external || c.is_output[out] || is_packed(g.values[out].dtype()) ||
        is_packed(g.values[in].dtype()))
      continue;
    const int e = entry_read(c, in, cn.device);
    if (e < 0 || e == out || !(c.plan_template[e].device == cn.device)) continue;
    pv.alias_of = e;
  }
}

// Whether the node reads e's memory through another entry too (a view of it, or its base):
// writing e in place would change what that other entry reads during the same step.
bool reads_through_other_view(const Compiled& c, const CompiledNode& cn, int e) {
  const int root = alias_root(c.plan_template, e);
  for (int v : cn.reads) {
    const int r = entry_read(c, v, cn.device);
    if (r >= 0 && r != e && alias_root(c.plan_template, r) == root) return true;
  }
  return false;
}

// In-place candidates for output 0 of each kernel node: the inputs its kernel allows that are
// arena intermediates (never user memory, constants or outputs). The planner pairs one only
// when it dies at that step (its views included); make_shape_plan drops those whose size
// differs.
void plan_in_place(Compiled& c) {
  const Graph& g = *c.graph;
  for (size_t s = 0; s < c.nodes.size(); ++s) {
    const CompiledNode& cn = c.nodes[s];
    const Node& n = g.nodes[s];
    if (!cn.kernel || n.outputs.empty() || n.outputs[0] < 0) continue;
    const int out = n.outputs[0];
    PlanValue& pv = c.plan_template[out];
    if (pv.external || c.is_output[out]) continue;
    for (int i : cn.kernel->in_place_inputs()) {
      if (i < 0 || i >= static_cast<int>(n.inputs.size()) || n.inputs[i] < 0) continue;
      const int v = n.inputs[i];
      if (c.constant[v] || c.is_output[v] || g.values[v].kind != ValueKind::kIntermediate ||
          !same_layout(g.values[v], g.values[out]))
        continue;
      const int e = entry_read(c, v, cn.device);
      if (e < 0 || e == out || c.plan_template[e].external) continue;
      if (reads_through_other_view(c, cn, e)) continue;
      if (std::find(pv.inplace.begin(), pv.inplace.end(), e) == pv.inplace.end())
        pv.inplace.push_back(e);
    }
  }
}

void plan_template(Compiled& c) {
  const Graph& g = *c.graph;
  const int steps = static_cast<int>(g.nodes.size());
  std::vector<int> order(steps);
  for (int i = 0; i < steps; ++i) order[i] = i;
  const std::vector<Lifetime> life = value_lifetimes(g, order);
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    PlanValue pv;
    pv.device = c.home[v];
    // Sequences and optionals live beside the plan (values.h).
    pv.external = val.kind != ValueKind::kIntermediate || c.producer[v] < 0 || c.constant[v] ||
                  (c.is_output[v] && is_host(c.home[v])) || is_list_type(val.type);
    pv.first = std::max(life[v].first, 0);
    pv.last = std::max(life[v].last, pv.first);
    if (!pv.external) pv.bytes = static_bytes(val);
    c.plan_template.push_back(pv);
  }
  plan_transfers(c);
  plan_views(c);
  plan_in_place(c);
  // An entry is released after its last reader or its views' last reader, whichever is later.
  const std::vector<PlanValue>& t = c.plan_template;
  std::vector<int> last(t.size());
  for (size_t p = 0; p < t.size(); ++p) last[p] = t[p].last;
  for (size_t p = 0; p < t.size(); ++p) {
    const int r = alias_root(t, static_cast<int>(p));
    last[r] = std::max(last[r], t[p].last);
  }
  c.dying.resize(steps);
  for (size_t p = 0; p < t.size(); ++p)
    if (!t[p].external && last[p] < steps) c.dying[last[p]].push_back(static_cast<int>(p));
}

// Constants read by nodes on other devices: one initializer arena per device, filled once.
void copy_constants(Compiled& c) {
  const Graph& g = *c.graph;
  std::vector<ConstantRequest> requests;
  std::vector<int> values;
  for (const CompiledNode& cn : c.nodes) {
    if (is_host(cn.device)) continue;
    for (int r : cn.reads) {
      const Value& val = g.values[r];
      if (!c.constant[r]) continue;
      bool seen = false;
      for (size_t i = 0; i < values.size(); ++i)
        seen = seen || (values[i] == r && requests[i].device == cn.device);
      if (seen) continue;
      if (!val.data->storage)
        fail(ErrorCode::kNotSupported,
             "constant '" + val.name + "' cannot be copied to " + to_string(cn.device));
      requests.push_back(
          {static_cast<size_t>(dtype_bytes_for(val.dtype(), val.data->elements())), cn.device});
      values.push_back(r);
    }
  }
  if (requests.empty()) return;
  const InitializerPlan plan = plan_initializers(requests);
  for (const Arena& a : plan.arenas) {
    Allocator* alloc = find_allocator(a.device);
    if (!alloc)
      fail(ErrorCode::kDeviceUnavailable,
           "no allocator is registered for " + to_string(a.device) + " (needed for constants)");
    c.constant_arenas.push_back(
        std::make_shared<Storage>(*alloc, std::max<size_t>(a.peak_bytes, 1)));
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    const Slot& s = plan.slots[i];
    const TensorData& data = *g.values[values[i]].data;
    std::byte* dst = c.constant_arenas[s.arena]->data() + s.offset;
    copy_bytes(dst, requests[i].device, data.bytes(), Device{}, requests[i].bytes);
    c.device_constants.push_back({values[i], {data.desc, dst, requests[i].device}});
  }
}

// The plan for a graph whose sizes are all static, keyed by its static input shapes.
std::optional<ShapeKey> static_key(const Compiled& c) {
  const Graph& g = *c.graph;
  for (const PlanValue& pv : c.plan_template)  // views need no size
    if (!pv.external && pv.alias_of < 0 && !pv.bytes) return std::nullopt;
  ShapeKey key;
  auto add = [&](const Value& v) {
    if (is_list_type(v.type)) return false;  // keyed by the run's element shapes
    const auto lens = v.rank_known ? static_lengths(v.axes) : std::nullopt;
    if (!lens) return false;
    key.push_back(static_cast<int64_t>(lens->size()));
    key.insert(key.end(), lens->begin(), lens->end());
    return true;
  };
  for (int v : g.inputs)
    if (!add(g.values[v])) return std::nullopt;
  for (const Value& v : g.values)
    if (v.kind == ValueKind::kOuter && !add(v)) return std::nullopt;
  return key;
}

}  // namespace

std::string node_label(const Node& n, int index) {
  return n.name.empty() ? n.op + "_" + std::to_string(index) : n.name;
}

std::shared_ptr<const ShapePlan> make_shape_plan(const Compiled& c,
                                                 std::vector<std::optional<size_t>> bytes) {
  auto sp = std::make_shared<ShapePlan>();
  sp->values = c.plan_template;
  for (size_t p = 0; p < sp->values.size(); ++p)
    if (!sp->values[p].external) sp->values[p].bytes = bytes[p];
  // In place only into an input of exactly the output's size (recorded sizes may differ).
  for (PlanValue& pv : sp->values)
    std::erase_if(pv.inplace, [&](int e) {
      return !pv.bytes || !sp->values[e].bytes || *sp->values[e].bytes != *pv.bytes;
    });
  sp->plan = plan_memory(sp->values);
  if (c.options.poison_freed) verify_plan(sp->values, sp->plan);
  return sp;
}

std::unique_ptr<ExecutableImpl> compile_executable(std::shared_ptr<const Graph> g,
                                                   std::span<const KernelSet* const> sets,
                                                   const ExecutorOptions& options,
                                                   ExecClock::time_point origin) {
  require(g != nullptr, "compile: the graph is null");
  for (const KernelSet* s : sets) require(s != nullptr, "compile: a kernel set is null");
  for (const Value& v : g->values)
    if (v.kind == ValueKind::kConstant && !v.data)
      fail(ErrorCode::kInvalidArgument, "constant '" + v.name + "' has no data");
  // A bound on threads this executable may start (the provider checks the same).
  constexpr int kMaxThreads = 4096;
  if (options.threads < 0 || options.threads > kMaxThreads)
    fail(ErrorCode::kInvalidArgument, "compile: threads must be in [0, " +
                                          std::to_string(kMaxThreads) + "], got " +
                                          std::to_string(options.threads));
  Compiled c;
  c.graph = g;
  c.sets.assign(sets.begin(), sets.end());
  c.options = options;
  c.origin = origin;
  if (options.pool)
    c.pool = options.pool;
  else if (options.threads > 0)
    c.pool = std::make_shared<ThreadPool>(options.threads);
  c.placement = partition(*g, sets);
  const std::vector<bool> folded = folded_nodes(*g);
  check_placed(*g, c.placement, sets, folded);
  // Constants packed by all their readers are released as soon as the last reader is made, so
  // the plain and the packed copies of all weights are never held at once.
  std::optional<PackedConstants> packed;
  if (options.release_constant) packed.emplace(*g, folded);
  // Kernels that prepare their work for the session's thread count (how a convolution splits)
  // see its pool while they are made, as they do while they run.
  ScopedPool scope(c.pool.get());
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    c.nodes.push_back(
        compile_node(*g, static_cast<int>(i), c.placement, sets, options, origin, folded[i]));
    if (packed) packed->made(*g, static_cast<int>(i), c.nodes.back(), options.release_constant);
  }
  c.options.release_constant = nullptr;  // compiling is over: nothing more is released

  c.producer = value_producers(*g);
  c.constant.assign(g->values.size(), false);
  for (size_t v = 0; v < g->values.size(); ++v) {
    const Value& val = g->values[v];
    const int p = c.producer[v];
    if (p >= 0 && folded[p]) c.producer[v] = -1;
    c.constant[v] = val.data && (val.kind == ValueKind::kConstant || (p >= 0 && folded[p]));
  }
  c.string_constants.resize(g->values.size());
  for (size_t v = 0; v < g->values.size(); ++v)
    if (const Value& val = g->values[v]; val.data && val.data->desc.dtype == DType::kString)
      c.string_constants[v] = string_handles(val.data->strings);
  c.home.assign(g->values.size(), Device{});
  for (size_t v = 0; v < g->values.size(); ++v)
    if (c.producer[v] >= 0) c.home[v] = c.nodes[c.producer[v]].device;
  c.is_output.assign(g->values.size(), false);
  for (int o : g->outputs) c.is_output.at(o) = true;
  plan_template(c);
  copy_constants(c);

  const std::optional<ShapeKey> key = static_key(c);
  std::vector<std::optional<size_t>> bytes;
  for (const PlanValue& pv : c.plan_template) bytes.push_back(pv.bytes);
  auto exe = std::make_unique<ExecutableImpl>(std::move(c));
  if (key) exe->store_plan(*key, make_shape_plan(exe->compiled(), std::move(bytes)));
  return exe;
}

std::unique_ptr<Executable> Executable::compile(std::shared_ptr<const Graph> g,
                                                std::span<const KernelSet* const> sets,
                                                const ExecutorOptions& options) {
  return compile_executable(std::move(g), sets, options, ExecClock::now());
}

ExecutableImpl::ExecutableImpl(Compiled c)
    : c_(std::move(c)), cache_(c_.options.shape_cache_entries) {
  std::vector<int> all(c_.graph->outputs.size());
  for (size_t k = 0; k < all.size(); ++k) all[k] = static_cast<int>(k);
  all_needed_ = needed_nodes(all);
}

ExecutableImpl::~ExecutableImpl() = default;

std::unique_ptr<RunState> ExecutableImpl::take_state() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_states_.empty()) {
      std::unique_ptr<RunState> st = std::move(idle_states_.back());
      idle_states_.pop_back();
      return st;
    }
  }
  return std::make_unique<RunState>(*this);
}

void ExecutableImpl::return_state(std::unique_ptr<RunState> st) const noexcept {
  // As many as the usual number of concurrent runs; more are freed.
  constexpr size_t kKept = 4;
  try {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_states_.size() < kKept) idle_states_.push_back(std::move(st));
  } catch (...) {
    // Not kept (no memory to keep it): freed below.
  }
}

std::shared_ptr<const ShapePlan> ExecutableImpl::find_plan(const ShapeKey& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto plan = cache_.find(key);
  if (plan) latest_ = plan;
  return plan;
}

void ExecutableImpl::store_plan(ShapeKey key, std::shared_ptr<const ShapePlan> plan) const {
  std::lock_guard<std::mutex> lock(mu_);
  latest_ = plan;
  cache_.insert(std::move(key), std::move(plan));
}

std::shared_ptr<Storage> ExecutableImpl::take_arena(Device d, size_t bytes) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto best = arena_pool_.end();
    for (auto it = arena_pool_.begin(); it != arena_pool_.end(); ++it)
      if ((*it)->device() == d && (*it)->size() >= bytes &&
          (best == arena_pool_.end() || (*it)->size() < (*best)->size()))
        best = it;
    if (best != arena_pool_.end()) {
      auto s = std::move(*best);
      arena_pool_.erase(best);
      return s;
    }
  }
  Allocator* a = is_host(d) ? &host_allocator() : find_allocator(d);
  if (!a) fail(ErrorCode::kDeviceUnavailable, "no allocator is registered for " + to_string(d));
  return std::make_shared<Storage>(*a, bytes);
}

void ExecutableImpl::return_arena(std::shared_ptr<Storage> s) const {
  // A few arenas per executable cover the usual number of concurrent runs; beyond that the
  // smallest go back to the allocator.
  constexpr size_t kKept = 4;
  std::lock_guard<std::mutex> lock(mu_);
  arena_pool_.push_back(std::move(s));
  if (arena_pool_.size() > kKept) {
    auto smallest =
        std::min_element(arena_pool_.begin(), arena_pool_.end(),
                         [](const auto& a, const auto& b) { return a->size() < b->size(); });
    arena_pool_.erase(smallest);
  }
}

std::vector<MemoryStats> ExecutableImpl::memory() const {
  std::shared_ptr<const ShapePlan> plan;
  {
    std::lock_guard<std::mutex> lock(mu_);
    plan = latest_;
  }
  std::vector<MemoryStats> out;
  if (!plan) return out;
  for (const Arena& a : plan->plan.arenas) out.push_back({a.device, a.peak_bytes, 0});
  for (size_t p = 0; p < plan->values.size(); ++p) {
    const Slot& s = plan->plan.slots[p];
    if (s.kind != SlotKind::kArena) continue;
    out[s.arena].intermediate_bytes += s.bytes;
  }
  return out;
}

void ExecutableImpl::add_events(const ProfileRecords& run) const {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t shift = profile_.dims.size();
  for (ProfileRecords::Record r : run.records) {
    r.dims_at += shift;
    profile_.records.push_back(r);
  }
  profile_.dims.insert(profile_.dims.end(), run.dims.begin(), run.dims.end());
}

std::vector<ProfileEvent> ExecutableImpl::take_profile() const {
  ProfileRecords taken;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::swap(taken, profile_);
  }
  std::vector<ProfileEvent> out;
  out.reserve(taken.records.size());
  for (const ProfileRecords::Record& r : taken.records) {
    ProfileEvent e;
    e.node = c_.nodes[r.step].label;
    e.op = c_.graph->nodes[r.step].op;
    e.set = c_.nodes[r.step].set_name;
    const int64_t* d = taken.dims.data() + r.dims_at;
    const int64_t inputs = *d++;
    for (int64_t i = 0; i < inputs; ++i) {
      const int64_t rank = *d++;
      e.input_shapes.emplace_back(d, d + rank);
      d += rank;
    }
    e.start_ns = r.start_ns;
    e.duration_ns = r.duration_ns;
    e.thread = r.thread;
    out.push_back(std::move(e));
  }
  for (const CompiledNode& cn : c_.nodes) {
    if (!cn.control) continue;
    for (const ExecutableImpl* body : cn.control->bodies()) {
      std::vector<ProfileEvent> inner = body->take_profile();
      for (auto& e : inner) out.push_back(std::move(e));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const ProfileEvent& a, const ProfileEvent& b) {
    return a.start_ns < b.start_ns;
  });
  return out;
}

}  // namespace geon
