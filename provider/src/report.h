// What a session tells about itself: the placement report (with memory and devices), the
// profile as a Chrome trace, and the graph dump.
#pragma once

#include <string>
#include <vector>

#include "core/runtime/executor.h"
#include "geon/geon.h"

namespace geon::provider {

// The Chrome-trace JSON for these events ({"traceEvents": [...]}).
std::string chrome_trace(const std::vector<ProfileEvent>& events);

GeonStatus* placement_report(const GeonSession* s, char** json) noexcept;
GeonStatus* end_profiling(GeonSession* s, char** json) noexcept;
GeonStatus* session_graph_dump(const GeonSession* s, char** text) noexcept;
// The ModelProto's metadata as JSON (metadata.cc).
GeonStatus* session_model_metadata(const GeonSession* s, char** json) noexcept;

// A malloc'ed copy for the caller (release_string frees it).
char* copy_string(const std::string& s);
void release_string(char* s) noexcept;

}  // namespace geon::provider
