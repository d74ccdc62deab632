// thread_floats: one growing vector per slot and thread.
#include "kernels/cpu/native/thread_floats.h"

#include <cstdint>
#include <vector>

namespace geon::cpu::native {

float* thread_floats(int slot, int64_t n) {
  thread_local std::vector<float> buffers[kThreadFloatSlots];
  std::vector<float>& b = buffers[slot];
  if (static_cast<int64_t>(b.size()) < n + 16) b.resize(n + 16);
  const auto addr = reinterpret_cast<uintptr_t>(b.data());
  return b.data() + ((64 - addr % 64) % 64) / sizeof(float);
}

}  // namespace geon::cpu::native
