// Kernel set lookup. The CUDA set is linked only when the build has one (GEON_HAVE_CUDA).
#include "provider/src/devices.h"

#include "kernels/cpu/kernel_sets.h"
#ifdef GEON_HAVE_CUDA
#include "kernels/cuda/device.h"
#include "kernels/cuda/kernel_set.h"
#endif

namespace geon::provider {

DeviceList resolve_devices(const std::vector<std::string>& names) {
  DeviceList out;
  for (const std::string& name : names) {
    if (name == "cpu.dnnl") {
      out.sets.push_back(&cpu::dnnl_kernels());
    } else if (name == "cpu.generic") {
      out.sets.push_back(&cpu::generic_kernels());
    } else if (name == "cuda") {
#ifdef GEON_HAVE_CUDA
      // Skipped as a whole when no GPU is usable, so the report says why once, under
      // "unavailable", rather than once per node.
      const cuda::Availability& a = cuda::cached_availability();
      if (a.available)
        out.sets.push_back(&cuda::kernel_set());
      else
        out.unavailable.emplace_back(name, "CUDA is not usable: " + a.reason);
#else
      out.unavailable.emplace_back(name, "not built (this library has no CUDA kernels)");
#endif
    } else {
      out.unavailable.emplace_back(name, "unknown kernel set");
    }
  }
  return out;
}

const char* compiled_sets() {
#ifdef GEON_HAVE_CUDA
  return "cpu.dnnl, cpu.generic, cuda";
#else
  return "cpu.dnnl, cpu.generic";
#endif
}

std::string unavailable_text(const DeviceList& d) {
  std::string out;
  for (const auto& [name, reason] : d.unavailable)
    out += (out.empty() ? "" : "; ") + name + ": " + reason;
  return out;
}

}  // namespace geon::provider
