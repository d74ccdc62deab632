// The engine, per-thread streams and scratchpads of dnnl/runtime.h: created once per thread
// instead of once per call, so the per-call cost of a primitive is its memory objects.
#include "kernels/cpu/dnnl/runtime.h"

#include <omp.h>

#include <cstdint>
#include <memory>

#include "core/engine/thread_pool.h"

namespace geon::cpu {

dnnl::engine& dnnl_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& dnnl_thread_stream() {
  thread_local dnnl::stream stream(dnnl_engine());
  return stream;
}

void dnnl_match_thread_count() {
  // Debian's oneDNN runs on OpenMP, whose thread count is a per-thread setting.
  const int want = default_thread_pool().size();
  if (omp_get_max_threads() != want) omp_set_num_threads(want);
}

void* dnnl_thread_scratchpad(size_t bytes) {
  constexpr size_t kAlign = 64;
  thread_local std::unique_ptr<std::byte[]> buffer;
  thread_local size_t size = 0;
  if (bytes + kAlign > size) {
    size = bytes + kAlign;
    buffer.reset(new std::byte[size]);
  }
  const auto at = reinterpret_cast<uintptr_t>(buffer.get());
  return buffer.get() + ((kAlign - at % kAlign) % kAlign);
}

}  // namespace geon::cpu
