// From the "devices" option to kernel sets: the sets compiled into this library, in the
// priority order asked for, and why any asked-for set is unavailable (for the report).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/runtime/kernel.h"

namespace geon::provider {

struct DeviceList {
  std::vector<const KernelSet*> sets;  // available, highest priority first
  std::vector<std::pair<std::string, std::string>> unavailable;  // (set name, reason)
};

DeviceList resolve_devices(const std::vector<std::string>& names);

// The kernel sets compiled in, e.g. "cpu.dnnl, cpu.generic".
const char* compiled_sets();

// "cuda: not built" style text for the unavailable sets, "" when none.
std::string unavailable_text(const DeviceList& d);

}  // namespace geon::provider
