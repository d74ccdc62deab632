// Seeded random inputs for geon-run: the same seed, dtype and shape give the same bytes on
// every machine (a fixed generator and no std:: distributions, whose output is unspecified).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/common/host_tensor.h"

namespace geon::tools {

// Floats uniform in [-1, 1); integers uniform in [0, 10) (small, so that index-like inputs
// stay mostly in range); bools fair coin flips. ToolError for dtypes without a generator.
HostTensor random_tensor(const std::string& name, int32_t dtype, const std::vector<int64_t>& shape,
                         uint64_t seed);

}  // namespace geon::tools
