// The runner's check that a run leaves the caller's inputs alone: a copy of every input's
// bytes taken before the run, compared with the buffers the provider was given after it. A
// kernel that writes into a graph input (an in-place plan aliasing a caller buffer) fails the
// test with the input's name.
#pragma once

#include <string>
#include <vector>

#include "tools/common/host_tensor.h"

namespace geon::tools {

// What the inputs held before the run (names and bytes, copied).
struct InputSnapshot {
  std::vector<HostTensor> tensors;
};

InputSnapshot snapshot_inputs(const std::vector<HostTensor>& inputs);

// Empty when every input's bytes equal the snapshot's; else a message naming the first input
// that changed, its first changed byte and how many bytes changed.
std::string modified_input(const InputSnapshot& before, const std::vector<HostTensor>& after);

}  // namespace geon::tools
