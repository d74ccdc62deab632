// The __global__ wrappers: each kernel only computes its thread's work items with the
// grid-stride mapping of tiling.h and calls the GEON_HD bodies (typed.h, interpret.h,
// reduce.h), which the CPU tests replay. Included by the .cu files that instantiate them.
#pragma once

#include "kernels/cuda/interpret.h"
#include "kernels/cuda/launch.h"
#include "kernels/cuda/pass.h"
#include "kernels/cuda/reduce.h"
#include "kernels/cuda/tiling.h"
#include "kernels/cuda/typed.h"

namespace geon::cuda {

__device__ inline int64_t thread_first() { return grid_first(blockIdx.x, threadIdx.x, blockDim.x); }
__device__ inline int64_t grid_step() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

template <class F, class T, int Arity, bool BoolOut, bool CondFirst>
__global__ void __launch_bounds__(kBlockThreads) typed_kernel(const __grid_constant__ EwPass p) {
  for (int64_t k = thread_first(); k < p.tiles.count; k += grid_step())
    typed_tile<F, T, Arity, BoolOut, CondFirst>(p, k);
}

// Combines one value per thread of the block with a fixed tree in shared memory (the same
// pairing on every run) and returns the total to thread 0. Every thread must call it.
template <Reduce R, class A>
__device__ A block_combine(A* lane, A value) {
  lane[threadIdx.x] = value;
  __syncthreads();
  for (unsigned w = blockDim.x / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) lane[threadIdx.x] = combine<R>(lane[threadIdx.x], lane[threadIdx.x + w]);
    __syncthreads();
  }
  const A total = lane[0];
  __syncthreads();  // lane[0] is read before a next call overwrites it
  return total;
}

// First pass, one block per (output, segment): the block's threads fold interleaved tiles of
// the segment, then a fixed tree in shared memory combines them, so the partial is the same
// on every run.
template <Reduce R, class A, class Source>
__global__ void __launch_bounds__(kBlockThreads)
    reduce_block_kernel(const __grid_constant__ ReducePass p, A* partials) {
  __shared__ A lane[kBlockThreads];
  const int64_t pairs = p.n_out * p.segments;
  for (int64_t pair = blockIdx.x; pair < pairs; pair += gridDim.x) {
    const int64_t o = pair / p.segments, s = pair - o * p.segments;
    int64_t out_off[kMaxLoopOperands];
    output_offsets(p, o, out_off);
    const int64_t lo = segment_begin(p.red_tiles.count, p.segments, s);
    const int64_t hi = segment_begin(p.red_tiles.count, p.segments, s + 1);
    A acc = identity<R, A>();
    for (int64_t k = lo + threadIdx.x; k < hi; k += blockDim.x)
      acc = Source::template fold<R, A>(p, out_off, k, acc);
    const A total = block_combine<R>(lane, acc);
    if (threadIdx.x == 0) partials[o * p.segments + s] = total;
  }
}

// First pass, one thread per (output, segment); outputs vary fastest across threads so that
// a warp reads neighbouring outputs when the kept dims are the dense ones.
template <Reduce R, class A, class Source>
__global__ void __launch_bounds__(kBlockThreads)
    reduce_thread_kernel(const __grid_constant__ ReducePass p, A* partials) {
  const int64_t pairs = p.n_out * p.segments;
  for (int64_t pair = thread_first(); pair < pairs; pair += grid_step()) {
    const int64_t s = pair / p.n_out, o = pair - s * p.n_out;
    int64_t out_off[kMaxLoopOperands];
    output_offsets(p, o, out_off);
    const int64_t lo = segment_begin(p.red_tiles.count, p.segments, s);
    const int64_t hi = segment_begin(p.red_tiles.count, p.segments, s + 1);
    A acc = identity<R, A>();
    for (int64_t k = lo; k < hi; ++k) acc = Source::template fold<R, A>(p, out_off, k, acc);
    partials[o * p.segments + s] = acc;
  }
}

template <Reduce R, class A, class Source>
void launch_first_pass(const ReducePass& p, ReduceShape shape, unsigned blocks, unsigned threads,
                       void* partials, cudaStream_t s) {
  A* out = static_cast<A*>(partials);
  if (shape == ReduceShape::kBlockPerSegment)
    reduce_block_kernel<R, A, Source><<<blocks, threads, 0, s>>>(p, out);
  else
    reduce_thread_kernel<R, A, Source><<<blocks, threads, 0, s>>>(p, out);
}

template <class F, class T, int Arity, bool BoolOut, bool CondFirst>
void launch_typed(const EwPass& p, Grid g, cudaStream_t s) {
  typed_kernel<F, T, Arity, BoolOut, CondFirst><<<g.blocks, g.threads, 0, s>>>(p);
}

template <class F, int Arity, unsigned Mask, bool BoolOut, bool CondFirst, class T>
EwLauncher typed_or_null() {
  if constexpr ((Mask & type_class<T>()) != 0)
    return &launch_typed<F, T, Arity, BoolOut, CondFirst>;
  else
    return nullptr;
}

// The typed kernel of F for compute index ci, or null where F does not exist for it.
template <class F, int Arity, unsigned Mask, bool BoolOut, bool CondFirst>
EwLauncher pick_typed(int ci) {
  switch (ci) {
    case kCiFloat:
      return typed_or_null<F, Arity, Mask, BoolOut, CondFirst, float>();
    case kCiDouble:
      return typed_or_null<F, Arity, Mask, BoolOut, CondFirst, double>();
    case kCiInt8:
      return typed_or_null<F, Arity, Mask, BoolOut, CondFirst, int8_t>();
    case kCiInt16:
      return typed_or_null<F, Arity, Mask, BoolOut, CondFirst, int16_t>();
    case kCiInt32:
      return typed_or_null<F, Arity, Mask, BoolOut, CondFirst, int32_t>();
    case kCiInt64:
      return typed_or_null<F, Arity, Mask, BoolOut, CondFirst, int64_t>();
    case kCiUInt8:
      return typed_or_null<F, Arity, Mask, BoolOut, CondFirst, uint8_t>();
    case kCiUInt16:
      return typed_or_null<F, Arity, Mask, BoolOut, CondFirst, uint16_t>();
    case kCiUInt32:
      return typed_or_null<F, Arity, Mask, BoolOut, CondFirst, uint32_t>();
    case kCiUInt64:
      return typed_or_null<F, Arity, Mask, BoolOut, CondFirst, uint64_t>();
    case kCiBool:
      return typed_or_null<F, Arity, Mask, BoolOut, CondFirst, bool>();
    default:
      return nullptr;
  }
}

// Calls f(integral_constant<Reduce, R>) for the combine rule r (sum, max, min or prod).
template <class F>
void with_rule(Reduce r, F&& f) {
  switch (r) {
    case Reduce::kMax:
      f(std::integral_constant<Reduce, Reduce::kMax>{});
      return;
    case Reduce::kMin:
      f(std::integral_constant<Reduce, Reduce::kMin>{});
      return;
    case Reduce::kProd:
      f(std::integral_constant<Reduce, Reduce::kProd>{});
      return;
    default:
      f(std::integral_constant<Reduce, Reduce::kSum>{});
      return;
  }
}

// Calls f(A{}) for the accumulator dtype (double, int64 or uint64).
template <class F>
void with_acc(DType acc, F&& f) {
  if (acc == DType::kDouble)
    f(double{});
  else if (acc == DType::kInt64)
    f(int64_t{});
  else
    f(uint64_t{});
}

}  // namespace geon::cuda
