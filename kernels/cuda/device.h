// Whether this process can use a CUDA device, and if not, why: no driver, a driver older than
// the runtime geon was built with, or no device. Never throws and never needs a GPU to answer.
// require_device is the first call of every CUDA entry point, so without a usable device each
// of them throws geon::Error(kDeviceUnavailable) carrying this reason.
#pragma once

#include <string>

namespace geon::cuda {

struct Availability {
  bool available = false;
  int device_count = 0;
  int driver_version = 0;   // e.g. 13000 for CUDA 13.0; 0 when no driver is loaded
  int runtime_version = 0;  // the CUDA runtime geon was built with
  std::string reason;       // why not available, naming the library and versions
};

Availability availability();

// The probe's answer, computed once per process.
const Availability& cached_availability();

// Throws geon::Error(kDeviceUnavailable) with the reason unless CUDA is usable, and
// kInvalidArgument unless 0 <= device < device_count.
void require_device(int device = 0);

// Streaming multiprocessors of `device` (cached per device); the grids are sized from it.
int multiprocessor_count(int device);

}  // namespace geon::cuda
