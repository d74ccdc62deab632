// The ORT-style provider contract: a loaded model, the nodes the provider claims of it
// (grouped into subgraphs, each on one kernel set), and compiling one claimed subgraph into a
// session over its boundary values.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/runtime/partition.h"
#include "geon/geon.h"
#include "provider/src/devices.h"
#include "provider/src/handles.h"

namespace geon::provider {

// What a GeonModel handle stands for.
struct Model {
  std::shared_ptr<const Graph> graph;
  std::vector<std::string> ops;  // per node: "op", or "domain.op" outside the default domain
};

// What a GeonCapability handle stands for.
struct Capability {
  std::shared_ptr<const Graph> graph;  // the model's, to check compile's arguments
  std::vector<const KernelSet*> sets;
  Placement placement;
  std::vector<std::string> reasons;  // per node, "" when claimed
};

using ModelTable = HandleTable<GeonModel, Model, HandleKind::kModel>;
using CapabilityTable = HandleTable<GeonCapability, Capability, HandleKind::kCapability>;
// The live GeonModel and GeonCapability handles.
ModelTable& model_table();
CapabilityTable& capability_table();

GeonStatus* load_model(const char* model_path, GeonModel** out) noexcept;
GeonStatus* load_model_from_bytes(const void* bytes, size_t size, const char* base_dir,
                                  GeonModel** out) noexcept;
void release_model(GeonModel* m) noexcept;
size_t model_node_count(const GeonModel* m) noexcept;
const char* model_node_name(const GeonModel* m, size_t node) noexcept;
const char* model_node_op(const GeonModel* m, size_t node) noexcept;

GeonStatus* get_capability(const GeonModel* m, const GeonOptions* options,
                           GeonCapability** out) noexcept;
void release_capability(GeonCapability* c) noexcept;
size_t capability_subgraph_count(const GeonCapability* c) noexcept;
const char* capability_subgraph_set(const GeonCapability* c, size_t subgraph) noexcept;
size_t capability_subgraph_node_count(const GeonCapability* c, size_t subgraph) noexcept;
size_t capability_subgraph_node(const GeonCapability* c, size_t subgraph, size_t k) noexcept;
int64_t capability_node_subgraph(const GeonCapability* c, size_t node) noexcept;
const char* capability_node_reason(const GeonCapability* c, size_t node) noexcept;

GeonStatus* compile(const GeonModel* m, const GeonCapability* c, size_t subgraph,
                    const GeonOptions* options, GeonSession** out) noexcept;

}  // namespace geon::provider
