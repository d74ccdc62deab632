// Which of geon's own vector kernels (kernels/cpu/native) this machine runs. They are written
// for AVX2 + FMA and used where they beat oneDNN 2.6's: convolutions on CPUs without AVX-512
// (whose AVX-512 ones oneDNN already runs near the machine's peak), small products on all.
#pragma once

namespace geon::cpu {

// The CPU executes AVX2 and FMA instructions (what the kernels themselves need; tests ask this).
bool cpu_has_avx2_fma();
// The kernel sets use the native convolution and pooling kernels where they apply: AVX2 + FMA
// without AVX-512, unless GEON_NATIVE_KERNELS=0 in the environment; =1 uses them on AVX-512
// machines too (diagnostic switches, to compare with oneDNN).
bool native_kernels_preferred();
// The native small product (PackedGemm) is used wherever the CPU has AVX2 + FMA, AVX-512 or
// not: what it saves is oneDNN's fixed cost per call, which AVX-512 does not shrink.
// GEON_NATIVE_KERNELS=0 turns it off too.
bool native_small_gemm_preferred();

}  // namespace geon::cpu
