// Run inputs for geon_fuzz_run_inputs, built from fuzz bytes for a session of a valid model:
// shapes with zero-length dims, changed ranks and very large lengths (beside a zero, so the
// tensor stays small), values biased towards NaN, infinities, denormals, -0, INT64_MIN/MAX,
// negative and out-of-range indices and huge sizes for shape-like inputs.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>
#include <geon/geon.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace geon::fuzz {

struct HostileInputs {
  std::vector<const char*> names;
  std::vector<GeonTensor> tensors;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::vector<unsigned char>> buffers;
  // String inputs: the text their buffers' GeonString handles point into.
  std::vector<std::vector<std::string>> texts;
};

// Builds inputs for every input of s without a default (and, when the bytes say so, for some
// with one). Inputs named in trip_counts get values 0 to 16 (see model_checks.h). Returns
// false when an input would exceed kMaxInputElements (the run is skipped).
bool build_hostile_inputs(FuzzedDataProvider& fdp, GeonSession* s,
                          const std::set<std::string>& trip_counts, HostileInputs& out);

}  // namespace geon::fuzz
