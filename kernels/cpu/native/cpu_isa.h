// Which of geon's own vector kernels (kernels/cpu/native) this machine runs. They are written
// for AVX2 + FMA and used where they beat oneDNN 2.6's: convolutions on CPUs without AVX-512
// (whose AVX-512 ones oneDNN already runs near the machine's peak), small products and the
// fused inverted-residual block on all.
#pragma once

namespace geon::cpu {

// The CPU executes AVX2 and FMA instructions (what the kernels themselves need; tests ask this).
bool cpu_has_avx2_fma();
// The CPU executes AVX-512F instructions (besides AVX2 + FMA).
bool cpu_has_avx512f();
// The kernel sets use the native convolution and pooling kernels where they apply: AVX2 + FMA
// without AVX-512, unless GEON_NATIVE_KERNELS=0 in the environment; =1 uses them on AVX-512
// machines too (diagnostic switches, to compare with oneDNN).
bool native_kernels_preferred();
// The native small product (PackedGemm) is used wherever the CPU has AVX2 + FMA, AVX-512 or
// not: what it saves is oneDNN's fixed cost per call, which AVX-512 does not shrink.
// GEON_NATIVE_KERNELS=0 turns it off too.
bool native_small_gemm_preferred();
// The fused inverted-residual block (FusedPointwiseDepthwise) is used wherever the CPU has
// AVX2 + FMA too: what it saves is the expansion's trip to memory and back, which AVX-512 does
// not shrink (MobileNetV2 on a Zen 4 with AVX-512, 2 threads: p50 about 8% below oneDNN's
// separate layers). GEON_NATIVE_KERNELS=0 turns it off.
bool native_fused_block_preferred();

}  // namespace geon::cpu
