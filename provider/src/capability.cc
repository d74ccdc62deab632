// Capability and compile. Strict mode here means "claim only what the first kernel set can
// run", so a host sees exactly the nodes it must run itself.
#include "provider/src/capability.h"

#include "core/runtime/executor.h"
#include "provider/src/model_import.h"
#include "provider/src/session.h"
#include "provider/src/status.h"

namespace geon::provider {
namespace {

GeonModel* make_model(ImportedModel m) {
  auto out = std::make_shared<Model>();
  for (const Node& n : m.graph->nodes)
    out->ops.push_back(n.domain.empty() ? n.op : n.domain + "." + n.op);
  out->graph = std::move(m.graph);
  return model_table().add(std::move(out));
}

const Subgraph* subgraph_at(const Capability* c, size_t k) {
  return c && k < c->placement.subgraphs.size() ? &c->placement.subgraphs[k] : nullptr;
}

}  // namespace

ModelTable& model_table() {
  // Never destroyed, like the other handle tables.
  static auto* table = new ModelTable("model", "release_model");
  return *table;
}

CapabilityTable& capability_table() {
  static auto* table = new CapabilityTable("capability", "release_capability");
  return *table;
}

GeonStatus* load_model(const char* model_path, GeonModel** out) noexcept {
  return guard("load_model", Stage::kModel, [&] {
    require_arg(out, "out");
    *out = nullptr;
    *out = make_model(
        import_from_path(model_path, *options_or_default(nullptr), default_thread_pool()));
  });
}

GeonStatus* load_model_from_bytes(const void* bytes, size_t size, const char* base_dir,
                                  GeonModel** out) noexcept {
  return guard("load_model_from_bytes", Stage::kModel, [&] {
    require_arg(out, "out");
    *out = nullptr;
    *out = make_model(import_from_bytes(bytes, size, base_dir, *options_or_default(nullptr),
                                        default_thread_pool()));
  });
}

void release_model(GeonModel* m) noexcept { model_table().remove(m); }

size_t model_node_count(const GeonModel* h) noexcept {
  const std::shared_ptr<Model> m = model_table().find(h);
  return m ? m->ops.size() : 0;
}

const char* model_node_name(const GeonModel* h, size_t node) noexcept {
  const std::shared_ptr<Model> m = model_table().find(h);
  return m && node < m->ops.size() ? m->graph->nodes[node].name.c_str() : "";
}

const char* model_node_op(const GeonModel* h, size_t node) noexcept {
  const std::shared_ptr<Model> m = model_table().find(h);
  return m && node < m->ops.size() ? m->ops[node].c_str() : "";
}

GeonStatus* get_capability(const GeonModel* model, const GeonOptions* options,
                           GeonCapability** out) noexcept {
  return guard("get_capability", [&] {
    require_arg(out, "out");
    *out = nullptr;
    const std::shared_ptr<Model> m = model_table().require(model, "model");
    const std::shared_ptr<const ProviderOptions> o = options_or_default(options);
    DeviceList devices = resolve_devices(o->devices);
    if (o->strict && devices.sets.size() > 1) devices.sets.resize(1);
    auto c = std::make_shared<Capability>();
    c->graph = m->graph;
    c->sets = devices.sets;
    c->placement = partition(*m->graph, c->sets);
    const std::string unavailable = unavailable_text(devices);
    for (const NodePlacement& np : c->placement.nodes) {
      std::string reason;
      if (np.set < 0) {
        for (const Refusal& r : np.refusals)
          reason +=
              (reason.empty() ? "" : "; ") + std::string(c->sets.at(r.set)->name) + ": " + r.reason;
        if (!unavailable.empty()) reason += (reason.empty() ? "" : "; ") + unavailable;
        if (reason.empty()) reason = "no kernel set available";
      }
      c->reasons.push_back(std::move(reason));
    }
    *out = capability_table().add(std::move(c));
  });
}

void release_capability(GeonCapability* c) noexcept { capability_table().remove(c); }

size_t capability_subgraph_count(const GeonCapability* h) noexcept {
  const std::shared_ptr<Capability> c = capability_table().find(h);
  return c ? c->placement.subgraphs.size() : 0;
}

const char* capability_subgraph_set(const GeonCapability* h, size_t subgraph) noexcept {
  const std::shared_ptr<Capability> c = capability_table().find(h);
  const Subgraph* s = subgraph_at(c.get(), subgraph);
  // Set names are string literals of the kernel tables, so they are NUL-terminated.
  return s ? c->sets.at(s->set)->name.data() : "";
}

size_t capability_subgraph_node_count(const GeonCapability* h, size_t subgraph) noexcept {
  const std::shared_ptr<Capability> c = capability_table().find(h);
  const Subgraph* s = subgraph_at(c.get(), subgraph);
  return s ? s->nodes.size() : 0;
}

size_t capability_subgraph_node(const GeonCapability* h, size_t subgraph, size_t k) noexcept {
  const std::shared_ptr<Capability> c = capability_table().find(h);
  const Subgraph* s = subgraph_at(c.get(), subgraph);
  return s && k < s->nodes.size() ? static_cast<size_t>(s->nodes[k]) : SIZE_MAX;
}

int64_t capability_node_subgraph(const GeonCapability* h, size_t node) noexcept {
  const std::shared_ptr<Capability> c = capability_table().find(h);
  return c && node < c->placement.nodes.size() ? c->placement.nodes[node].subgraph : -1;
}

const char* capability_node_reason(const GeonCapability* h, size_t node) noexcept {
  const std::shared_ptr<Capability> c = capability_table().find(h);
  return c && node < c->reasons.size() ? c->reasons[node].c_str() : "";
}

GeonStatus* compile(const GeonModel* model, const GeonCapability* capability, size_t subgraph,
                    const GeonOptions* options, GeonSession** out) noexcept {
  return guard("compile", [&] {
    require_arg(out, "out");
    *out = nullptr;
    const std::shared_ptr<Model> m = model_table().require(model, "model");
    const std::shared_ptr<Capability> c = capability_table().require(capability, "capability");
    if (c->graph != m->graph)
      api_fail(GEON_INVALID_ARGUMENT, "the capability was computed for another model");
    const Subgraph* s = subgraph_at(c.get(), subgraph);
    if (!s)
      api_fail(GEON_INVALID_ARGUMENT, "subgraph " + std::to_string(subgraph) +
                                          " is out of range (the capability has " +
                                          std::to_string(c->placement.subgraphs.size()) + ")");
    DeviceList devices;
    devices.sets.push_back(c->sets.at(s->set));
    *out = session_table().add(make_session(extract_subgraph(*m->graph, *s),
                                            *options_or_default(options), std::move(devices)));
  });
}

}  // namespace geon::provider
