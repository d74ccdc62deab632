// The assign kernels: casts between any two numeric dtypes and raw copies of equal dtypes.
#include "kernels/cuda/cast.h"
#include "kernels/cuda/kernels.cuh"

namespace geon::cuda {
namespace {

__global__ void __launch_bounds__(kBlockThreads) cast_kernel(const __grid_constant__ CastPass p) {
  for (int64_t k = thread_first(); k < p.tiles.count; k += grid_step()) cast_tile(p, k);
}

template <int Bytes>
__global__ void __launch_bounds__(kBlockThreads) copy_kernel(const __grid_constant__ CastPass p) {
  for (int64_t k = thread_first(); k < p.tiles.count; k += grid_step()) copy_tile<Bytes>(p, k);
}

}  // namespace

void launch_cast(const CastPass& p, Grid g, cudaStream_t s) {
  cast_kernel<<<g.blocks, g.threads, 0, s>>>(p);
}

void launch_copy(const CastPass& p, int bytes, Grid g, cudaStream_t s) {
  switch (bytes) {
    case 1:
      return copy_kernel<1><<<g.blocks, g.threads, 0, s>>>(p);
    case 2:
      return copy_kernel<2><<<g.blocks, g.threads, 0, s>>>(p);
    case 4:
      return copy_kernel<4><<<g.blocks, g.threads, 0, s>>>(p);
    case 8:
      return copy_kernel<8><<<g.blocks, g.threads, 0, s>>>(p);
    default:
      return copy_kernel<16><<<g.blocks, g.threads, 0, s>>>(p);
  }
}

}  // namespace geon::cuda
