// Model bytes -> session -> one run; see model_target.h.
#include "model_target.h"

#include <cstdio>
#include <cstdlib>

#include "fuzz_session.h"
#include "model_checks.h"

namespace geon::fuzz {

void fuzz_model(const uint8_t* data, size_t size) {
  GeonSession* s = create_session(data, size);
  if (!s) return;
  onnx::ModelProto m;
  // The provider parsed these bytes, so the harness can too; if not, only the run is skipped.
  if (m.ParseFromArray(data, static_cast<int>(size))) {
    const auto escaped = escaping_locations(m, base_dir());
    if (!escaped.empty()) {
      std::fprintf(stderr,
                   "geon fuzz: a session was created although %s has external data "
                   "outside base_dir %s\n",
                   escaped.front().c_str(), base_dir().c_str());
      std::abort();
    }
    const LoopBounds loops = loop_bounds(m);
    if (loops.bounded)
      run_with_seeded_inputs(s, hash_bytes(data, size), loops.trip_count_inputs);
    else
      count(Event::kSkippedLoop);
  }
  api().release_session(s);
}

}  // namespace geon::fuzz
