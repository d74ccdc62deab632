// The CPU checks of cpu_isa.h, read once per process.
#include "kernels/cpu/native/cpu_isa.h"

#include <cstdlib>
#include <cstring>

namespace geon::cpu {

bool cpu_has_avx2_fma() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
}

bool cpu_has_avx512f() {
  static const bool yes = cpu_has_avx2_fma() && __builtin_cpu_supports("avx512f");
  return yes;
}

namespace {

const char* native_switch() { return std::getenv("GEON_NATIVE_KERNELS"); }

bool native_allowed() {
  static const bool yes = [] {
    const char* env = native_switch();
    return !(env && std::strcmp(env, "0") == 0) && cpu_has_avx2_fma();
  }();
  return yes;
}

bool native_forced() {
  static const bool yes = [] {
    const char* env = native_switch();
    return env && std::strcmp(env, "1") == 0;
  }();
  return yes;
}

}  // namespace

bool native_kernels_preferred() {
  static const bool yes = native_allowed() && (native_forced() || !cpu_has_avx512f());
  return yes;
}

bool native_small_gemm_preferred() { return native_allowed(); }

bool native_fused_block_preferred() { return native_allowed(); }

}  // namespace geon::cpu
