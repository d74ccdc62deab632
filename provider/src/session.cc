// Session creation: import, optional passes, strict-mode check, compile, value infos.
#include "provider/src/session.h"

#include "core/base/error.h"
#include "core/engine/thread_pool.h"
#include "core/runtime/partition.h"
#include "provider/src/log.h"
#include "provider/src/model_import.h"
#include "provider/src/report.h"
#include "provider/src/status.h"

namespace geon::provider {
namespace {

// A value's type as ONNX writes it (and onnxruntime's NodeArg.type): "tensor(float)",
// "seq(tensor(int64))", "optional(seq(tensor(float)))", "seq(map(string,tensor(float)))".
std::string onnx_type_text(const ValueType& t) {
  const std::string tensor = "tensor(" + std::string(dtype_name(t.dtype)) + ")";
  const std::string map = "map(" + std::string(dtype_name(t.key)) + "," + tensor + ")";
  switch (t.kind) {
    case TypeKind::kMap:
      return map;
    case TypeKind::kSequence:
      return "seq(" + (t.element == TypeKind::kMap ? map : tensor) + ")";
    case TypeKind::kOptional:
      return "optional(" + (t.element == TypeKind::kSequence ? "seq(" + tensor + ")" : tensor) +
             ")";
    default:
      return tensor;
  }
}

void fill_info(const Value& v, ValueInfoStore& out) {
  out.name = v.name;
  out.type = onnx_type_text(v.type);
  out.info.dtype = static_cast<GeonDType>(v.dtype());
  out.info.rank = v.rank_known ? v.rank() : -1;
  for (const Axis& a : v.axes) {
    out.dims.push_back(a.length.is_static() ? a.length.value : -1);
    out.dim_names.push_back(a.length.is_symbol() ? a.length.symbol : "");
  }
}

// Pointers are taken once every store is in place (moving a store moves its strings).
void finish_infos(std::vector<ValueInfoStore>& stores) {
  for (ValueInfoStore& s : stores) {
    s.dim_name_ptrs.clear();
    for (const std::string& n : s.dim_names) s.dim_name_ptrs.push_back(n.c_str());
    s.info.name = s.name.c_str();
    s.info.dims = s.dims.data();
    s.info.dim_names = s.dim_name_ptrs.data();
  }
}

std::string node_label(const Node& n) {
  return "node '" + n.name + "' (" + (n.domain.empty() ? "" : n.domain + ".") + n.op + ")";
}

// Tensors, sequences, optionals and maps cross the C ABI (run_values for the latter): a model
// whose inputs or outputs are sparse tensors is refused here rather than at its first run.
void check_tensor_boundary(const Graph& g) {
  auto check = [&](int v, const char* what) {
    const Value& val = g.value(v);
    if (val.type.kind != TypeKind::kTensor && !is_list_type(val.type))
      api_fail(GEON_UNSUPPORTED, std::string(what) + " '" + val.name + "' is " +
                                     to_string(val.type) +
                                     ": only tensors, sequences, optionals and maps can be "
                                     "passed through the C API");
  };
  for (int v : g.inputs) check(v, "input");
  for (int v : g.outputs) check(v, "output");
}

// Strict mode: every node must run on the first set; otherwise say which nodes and why.
void check_strict(const Graph& g, std::span<const KernelSet* const> sets) {
  const Placement p = partition(g, sets);
  std::string refused;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (p.nodes[i].set == 0) continue;
    std::string why = "refused";
    for (const Refusal& r : p.nodes[i].refusals)
      if (r.set == 0) why = r.reason;
    refused += "\n  " + node_label(g.nodes[i]) + ": " + why;
  }
  if (!refused.empty())
    fail(ErrorCode::kNotSupported,
         "strict mode: these nodes cannot run on " + std::string(sets[0]->name) + ":" + refused);
}

// The part of make_session that compiles: its running out of memory is named so.
std::unique_ptr<Session> compile_session(std::shared_ptr<Graph> g, const ProviderOptions& o,
                                         DeviceList devices, std::shared_ptr<ThreadPool> pool) {
  auto s = std::make_unique<Session>();
  s->options = o;
  s->devices = std::move(devices);
  ExecutorOptions eo;
  eo.poison_freed = o.poison_freed;
  eo.profile = o.profiling;
  eo.arena_limit_bytes = o.arena_limit_bytes;
  eo.threads = o.intra_op_threads;
  eo.pool = std::move(pool);
  // A weight every reader packed is dropped from the graph as soon as it is packed: the packed
  // copy replaces it rather than doubling the session's memory.
  Graph* graph_in = g.get();
  eo.release_constant = [graph_in](int v) {
    Value& val = graph_in->values[v];
    val.data = without_contents(*val.data);
  };
  s->exe = Executable::compile(g, s->devices.sets, eo);
  s->graph = std::move(g);

  const Graph& graph = *s->graph;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < graph.inputs.size(); ++i)
      if (graph.value(graph.inputs[i]).overridable == (pass == 1))
        s->input_order.push_back(static_cast<int>(i));
  for (int i : s->input_order) fill_info(graph.value(graph.inputs[i]), s->inputs.emplace_back());
  for (int v : graph.outputs) fill_info(graph.value(v), s->outputs.emplace_back());
  finish_infos(s->inputs);
  finish_infos(s->outputs);
  log(o, LogLevel::kInfo,
      "session: " + std::to_string(graph.nodes.size()) + " nodes, " +
          std::to_string(s->exe->placement().subgraphs.size()) + " subgraphs");
  if (o.log_level >= LogLevel::kVerbose)
    log(o, LogLevel::kVerbose,
        "placement:\n" + placement_json(graph, s->exe->placement(), s->exe->sets()));
  return s;
}

}  // namespace

SessionTable& session_table() {
  // Never destroyed: sessions the host leaks are not torn down during static destruction,
  // when the engine pools they use may already be gone.
  static auto* table = new SessionTable("session", "release_session");
  return *table;
}

std::unique_ptr<Session> make_session(std::shared_ptr<Graph> g, const ProviderOptions& o,
                                      DeviceList devices, std::shared_ptr<ThreadPool> pool) {
  if (devices.sets.empty())
    api_fail(GEON_UNSUPPORTED, "no kernel set is available: " + unavailable_text(devices));
  if (!devices.unavailable.empty())
    log(o, LogLevel::kWarning, "skipped kernel sets: " + unavailable_text(devices));
  check_tensor_boundary(*g);
  optimize(*g, devices.sets, o);
  if (o.strict) check_strict(*g, devices.sets);
  // Running out of memory below is reported with the phase: compiling, or the rest.
  return out_of_memory_context(
      [] { return std::string("compiling the session"); },
      [&] { return compile_session(std::move(g), o, std::move(devices), std::move(pool)); });
}

namespace {

// The steps of create_session*, each naming itself when memory runs out.
// import(readers) reads the model, its weights on `readers`: the session's own pool, made
// first for that (intra_op_threads > 0), or the process-wide pool the session will run on.
GeonSession* import_and_compile(const ProviderOptions& o, const auto& import) {
  std::shared_ptr<ThreadPool> pool;
  if (o.intra_op_threads > 0)
    pool = out_of_memory_context([] { return std::string("creating the session's thread pool"); },
                                 [&] { return std::make_shared<ThreadPool>(o.intra_op_threads); });
  ThreadPool& readers = pool ? *pool : default_thread_pool();
  ImportedModel m = out_of_memory_context([] { return std::string("importing the model"); },
                                          [&] { return import(readers); });
  auto s = out_of_memory_context([] { return std::string("creating the session"); },
                                 [&] {
                                   return make_session(std::move(m.graph), o,
                                                       resolve_devices(o.devices), std::move(pool));
                                 });
  s->metadata = std::move(m.metadata);
  return out_of_memory_context([] { return std::string("registering the session's handle"); },
                               [&] { return session_table().add(std::move(s)); });
}

}  // namespace

GeonStatus* create_session(const char* model_path, const GeonOptions* options,
                           GeonSession** out) noexcept {
  return guard("create_session", Stage::kModel, [&] {
    require_arg(out, "out");
    *out = nullptr;
    const std::shared_ptr<const ProviderOptions> held = options_or_default(options);
    const ProviderOptions& o = *held;
    *out = import_and_compile(
        o, [&](ThreadPool& readers) { return import_from_path(model_path, o, readers); });
  });
}

GeonStatus* create_session_from_bytes(const void* bytes, size_t size, const char* base_dir,
                                      const GeonOptions* options, GeonSession** out) noexcept {
  return guard("create_session_from_bytes", Stage::kModel, [&] {
    require_arg(out, "out");
    *out = nullptr;
    const std::shared_ptr<const ProviderOptions> held = options_or_default(options);
    const ProviderOptions& o = *held;
    *out = import_and_compile(o, [&](ThreadPool& readers) {
      return import_from_bytes(bytes, size, base_dir, o, readers);
    });
  });
}

void release_session(GeonSession* s) noexcept { session_table().remove(s); }

size_t session_input_count(const GeonSession* s) noexcept {
  const std::shared_ptr<Session> session = session_table().find(s);
  return session ? session->inputs.size() : 0;
}

size_t session_output_count(const GeonSession* s) noexcept {
  const std::shared_ptr<Session> session = session_table().find(s);
  return session ? session->outputs.size() : 0;
}

namespace {

// Calls take(store) on input or output i of the session, after checking the handle, the out
// argument (`arg` names it) and the index.
template <typename Out, typename Take>
GeonStatus* with_value(const char* fn, const GeonSession* s, size_t i, Out* out, const char* arg,
                       bool input, Take take) noexcept {
  return guard(fn, [&] {
    const std::shared_ptr<Session> session = session_table().require(s, "session");
    require_arg(out, arg);
    const auto& list = input ? session->inputs : session->outputs;
    if (i >= list.size())
      api_fail(GEON_INVALID_ARGUMENT, std::string(input ? "input" : "output") + " index " +
                                          std::to_string(i) + " is out of range (the session has " +
                                          std::to_string(list.size()) + ")");
    *out = take(list[i]);
  });
}

GeonValueInfo info_of(const ValueInfoStore& v) { return v.info; }
char* type_of(const ValueInfoStore& v) { return copy_string(v.type); }

}  // namespace

GeonStatus* session_input_info(const GeonSession* s, size_t i, GeonValueInfo* out) noexcept {
  return with_value("session_input_info", s, i, out, "out", true, info_of);
}

GeonStatus* session_output_info(const GeonSession* s, size_t i, GeonValueInfo* out) noexcept {
  return with_value("session_output_info", s, i, out, "out", false, info_of);
}

GeonStatus* session_input_type(const GeonSession* s, size_t i, char** type) noexcept {
  return with_value("session_input_type", s, i, type, "type", true, type_of);
}

GeonStatus* session_output_type(const GeonSession* s, size_t i, char** type) noexcept {
  return with_value("session_output_type", s, i, type, "type", false, type_of);
}

int session_input_has_default(const GeonSession* s, size_t i) noexcept {
  const std::shared_ptr<Session> session = session_table().find(s);
  if (!session || i >= session->input_order.size()) return 0;
  const Graph& g = *session->graph;
  return g.value(g.inputs[session->input_order[i]]).overridable ? 1 : 0;
}

}  // namespace geon::provider
