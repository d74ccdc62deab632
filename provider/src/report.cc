// The placement report: the partitioner's JSON, extended with the kernel sets asked for (and
// why any was unavailable), the memory plan's peak per device, and the options in force.
#include "provider/src/report.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "core/base/json.h"
#include "core/runtime/partition.h"
#include "provider/src/session.h"
#include "provider/src/status.h"

namespace geon::provider {
namespace {

std::string devices_json(const Session& s) {
  std::string out = "{\"requested\": [";
  for (size_t i = 0; i < s.options.devices.size(); ++i)
    out += (i ? ", " : "") + json_string(s.options.devices[i]);
  out += "], \"used\": [";
  for (size_t i = 0; i < s.devices.sets.size(); ++i)
    out += (i ? ", " : "") + json_string(s.devices.sets[i]->name);
  out += "], \"unavailable\": [";
  for (size_t i = 0; i < s.devices.unavailable.size(); ++i)
    out += std::string(i ? ", " : "") + "{\"set\": " + json_string(s.devices.unavailable[i].first) +
           ", \"reason\": " + json_string(s.devices.unavailable[i].second) + "}";
  return out + "]}";
}

std::string memory_json(const Session& s) {
  std::string out = "{";
  const std::vector<MemoryStats> stats = s.exe->memory();
  for (size_t i = 0; i < stats.size(); ++i)
    out += std::string(i ? ", " : "") + json_string(to_string(stats[i].device)) +
           ": {\"peak_bytes\": " + std::to_string(stats[i].peak_bytes) +
           ", \"intermediate_bytes\": " + std::to_string(stats[i].intermediate_bytes) + "}";
  return out + "}";
}

std::string options_json(const ProviderOptions& o) {
  return "{\"intra_op_threads\": " + std::to_string(o.intra_op_threads) +
         ", \"optimization_level\": " + std::to_string(o.optimization_level) +
         ", \"strict\": " + (o.strict ? "true" : "false") +
         ", \"profiling\": " + (o.profiling ? "true" : "false") +
         ", \"poison_freed\": " + (o.poison_freed ? "true" : "false") +
         ", \"arena_limit_bytes\": " + std::to_string(o.arena_limit_bytes) + "}";
}

}  // namespace

char* copy_string(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (!out) throw std::bad_alloc();
  std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

void release_string(char* s) noexcept { std::free(s); }

GeonStatus* placement_report(const GeonSession* handle, char** json) noexcept {
  return guard("placement_report", [&] {
    require_arg(json, "json");
    *json = nullptr;
    const std::shared_ptr<const Session> s = session_table().require(handle, "session");
    std::string out = placement_json(*s->graph, s->exe->placement(), s->exe->sets());
    // The partitioner's object ends with "}\n": reopen it to add the provider's fields.
    const size_t close = out.rfind('}');
    if (close == std::string::npos) api_fail(GEON_INTERNAL, "the placement JSON has no object");
    out.resize(close);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    out += ",\n  \"devices\": " + devices_json(*s) + ",\n  \"memory\": " + memory_json(*s) +
           ",\n  \"options\": " + options_json(s->options) + "\n}\n";
    *json = copy_string(out);
  });
}

GeonStatus* session_graph_dump(const GeonSession* handle, char** text) noexcept {
  return guard("session_graph_dump", [&] {
    require_arg(text, "text");
    *text = nullptr;
    const std::shared_ptr<const Session> s = session_table().require(handle, "session");
    *text = copy_string(dump(*s->graph));
  });
}

}  // namespace geon::provider
