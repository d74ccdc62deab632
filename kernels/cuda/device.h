// Whether this process can use a CUDA device, and if not, why: no driver, a driver older than
// the runtime geon was built with, or no device. Never throws and never needs a GPU to answer.
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

}  // namespace geon::cuda
