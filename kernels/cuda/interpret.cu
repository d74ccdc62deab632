// The interpreted kernels: elementwise passes and reductions over any expression and any
// storage dtypes, and the reductions' second pass. They share one copy of the interpreter's
// op dispatch and of the dtype conversions (noinline device functions), so this is the only
// translation unit that compiles them.
#include "kernels/cuda/kernels.cuh"

namespace geon::cuda {
namespace {

__global__ void __launch_bounds__(kBlockThreads)
    interpret_kernel(const __grid_constant__ EwPass p) {
  for (int64_t k = thread_first(); k < p.tiles.count; k += grid_step()) interpret_tile(p, k);
}

template <Reduce R, class A>
__global__ void __launch_bounds__(kBlockThreads)
    finish_kernel(const __grid_constant__ ReducePass p, const A* partials) {
  for (int64_t o = thread_first(); o < p.n_out; o += grid_step())
    finish_output<R, A>(p, partials, o);
}

template <Reduce R, class A>
__global__ void __launch_bounds__(kBlockThreads)
    finish_block_kernel(const __grid_constant__ ReducePass p, const A* partials) {
  __shared__ A lane[kBlockThreads];
  for (int64_t o = blockIdx.x; o < p.n_out; o += gridDim.x) {
    const A total = block_combine<R>(
        lane, fold_partials_strided<R, A>(p, partials, o, threadIdx.x, blockDim.x));
    if (threadIdx.x == 0) store_output(p, o, total);
  }
}

}  // namespace

void launch_interpret(const EwPass& p, Grid g, cudaStream_t s) {
  interpret_kernel<<<g.blocks, g.threads, 0, s>>>(p);
}

void launch_reduce_interpreted(const ReducePass& p, Reduce rule, DType acc, ReduceShape shape,
                               Grid g, void* partials, cudaStream_t s) {
  with_rule(rule, [&](auto r) {
    with_acc(acc, [&](auto a) {
      launch_first_pass<decltype(r)::value, decltype(a), InterpretedFold>(p, shape, g.blocks,
                                                                          g.threads, partials, s);
    });
  });
}

void launch_reduce_finish(const ReducePass& p, Reduce rule, DType acc, bool by_block, Grid g,
                          const void* partials, cudaStream_t s) {
  with_rule(rule, [&](auto r) {
    with_acc(acc, [&](auto a) {
      using A = decltype(a);
      const A* in = static_cast<const A*>(partials);
      if (by_block)
        finish_block_kernel<decltype(r)::value, A><<<g.blocks, g.threads, 0, s>>>(p, in);
      else
        finish_kernel<decltype(r)::value, A><<<g.blocks, g.threads, 0, s>>>(p, in);
    });
  });
}

}  // namespace geon::cuda
