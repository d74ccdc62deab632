// The CPU checks of cpu_isa.h, read once per process.
#include "kernels/cpu/native/cpu_isa.h"

#include <cstdlib>
#include <cstring>

namespace geon::cpu {

bool cpu_has_avx2_fma() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
}

bool native_kernels_preferred() {
  static const bool yes = [] {
    const char* env = std::getenv("GEON_NATIVE_KERNELS");
    if (env && std::strcmp(env, "0") == 0) return false;
    return cpu_has_avx2_fma() && !__builtin_cpu_supports("avx512f");
  }();
  return yes;
}

}  // namespace geon::cpu
