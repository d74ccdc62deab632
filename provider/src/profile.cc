// The profile as Chrome's trace format: one complete ("X") event per node run, times in
// microseconds since the executable was compiled, one track per calling thread.
#include <algorithm>
#include <cstdio>

#include "core/base/json.h"
#include "provider/src/report.h"
#include "provider/src/session.h"
#include "provider/src/status.h"

namespace geon::provider {
namespace {

std::string shapes_json(const std::vector<Dims>& shapes) {
  std::string out = "[";
  for (size_t i = 0; i < shapes.size(); ++i) {
    out += i ? ", [" : "[";
    for (size_t k = 0; k < shapes[i].size(); ++k)
      out += (k ? ", " : "") + std::to_string(shapes[i][k]);
    out += "]";
  }
  return out + "]";
}

// Microseconds with nanosecond precision, as Chrome's trace format expects.
std::string micros(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000),
                static_cast<long long>(ns % 1000));
  return buf;
}

}  // namespace

std::string chrome_trace(const std::vector<ProfileEvent>& events) {
  std::string out = "{\"traceEvents\": [";
  for (size_t i = 0; i < events.size(); ++i) {
    const ProfileEvent& e = events[i];
    out += std::string(i ? "," : "") + "\n  {\"name\": " + json_string(e.node) +
           ", \"cat\": " + json_string(e.op) +
           ", \"ph\": \"X\", \"ts\": " + micros(std::max<int64_t>(e.start_ns, 0)) +
           ", \"dur\": " + micros(std::max<int64_t>(e.duration_ns, 0)) +
           ", \"pid\": 0, \"tid\": " + std::to_string(e.thread) +
           ", \"args\": {\"op\": " + json_string(e.op) + ", \"set\": " + json_string(e.set) +
           ", \"input_shapes\": " + shapes_json(e.input_shapes) + "}}";
  }
  return out + (events.empty() ? "]}\n" : "\n]}\n");
}

GeonStatus* end_profiling(GeonSession* s, char** json) noexcept {
  return guard("end_profiling", [&] {
    require_arg(json, "json");
    *json = nullptr;
    const std::shared_ptr<const Session> session = session_table().require(s, "session");
    *json = copy_string(chrome_trace(session->exe->take_profile()));
  });
}

}  // namespace geon::provider
