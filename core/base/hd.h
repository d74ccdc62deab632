// GEON_HD marks small functions that both the host compiler and nvcc compile, so the index
// arithmetic the CUDA kernels use is the same code the CPU tests exercise.
#pragma once

#if defined(__CUDACC__)
#define GEON_HD __host__ __device__ inline
#else
#define GEON_HD inline
#endif
