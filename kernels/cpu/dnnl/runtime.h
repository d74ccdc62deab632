// What every cpu.dnnl primitive runs on: one CPU engine for the process, and a stream, a
// scratchpad and reusable memory objects per thread. Primitives are made with the user-managed
// scratchpad mode, so one primitive may run on several threads at once as long as each brings
// its own scratch memory.
// oneDNN itself runs single-threaded (Debian's is built on OpenMP, whose teams would fight the
// session's pool for the cores): kernels split their work across the pool with
// dnnl_parallel, each part one primitive call on its thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <oneapi/dnnl/dnnl.hpp>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "core/base/error.h"

namespace geon::cpu {

// The process's CPU engine: a primitive made on it may run on any thread. Calls
// dnnl_match_thread_count() first, so that a primitive made for it is made single-threaded.
dnnl::engine& dnnl_engine();
// This thread's stream, created on first use and never shared.
dnnl::stream& dnnl_thread_stream();
// Makes oneDNN's calls from this thread single-threaded (OpenMP's thread count is a per-thread
// setting). Cheap when nothing changes.
void dnnl_match_thread_count();
// Runs body(first, last) over [0, n) in `parts` contiguous parts of equal size (+-1, part 0
// the largest) across the pool this thread sees (the session's); one part runs on this thread
// alone.
void dnnl_parallel(int64_t n, int parts, const std::function<void(int64_t, int64_t)>& body);
// Where part p of dnnl_parallel(n, parts, ...) begins (p == parts: n), for callers that prepare
// each part's work before the job.
int64_t dnnl_part_first(int64_t n, int parts, int p);
// The part count of the dnnl_parallel job whose part this thread is running (1 outside one):
// how many threads at most hold per-thread buffers for it at once.
int dnnl_parts_in_flight();
// How many parts `work` units of work are worth on the pool this thread sees, `grain` units a
// part at least, one per item and one per thread at most.
int dnnl_parts(int64_t items, double work, double grain);
// This thread's scratch memory, at least `bytes` long and 64-byte aligned; valid until the
// thread's next call.
void* dnnl_thread_scratchpad(size_t bytes);

// The execution argument `arg` (DNNL_ARG_SRC, ...) for memory of layout `md` at `data`: this
// thread's memory object for that argument and layout, made on first use and pointed at `data`
// on each call, since making one per call (an aligned allocation and a free) costs more than a
// small primitive's run. Valid until this thread asks for the same argument and layout again,
// or for about a thousand other ones. `md` must have no padding (pointing it at data would
// write zeros there).
dnnl_exec_arg_t dnnl_thread_arg(int arg, const dnnl::memory::desc& md, const void* data);

// Runs a primitive made with a user scratchpad on this thread's stream and waits for it: `args`
// (at most 7) plus, when scratch_bytes > 0, this thread's scratchpad as DNNL_ARG_SCRATCHPAD,
// with oneDNN's threads matched to the caller's first. False when oneDNN reports a failure.
bool dnnl_execute(const dnnl::primitive& prim, std::span<const dnnl_exec_arg_t> args,
                  const dnnl::memory::desc& scratch, size_t scratch_bytes);
// dnnl_execute, throwing kInternal with `failure`: a literal, or (for a message built from
// names) a maker called only when the run fails, as require takes it.
inline void dnnl_run(const dnnl::primitive& prim, std::span<const dnnl_exec_arg_t> args,
                     const dnnl::memory::desc& scratch, size_t scratch_bytes, const char* failure) {
  if (!dnnl_execute(prim, args, scratch, scratch_bytes)) fail(ErrorCode::kInternal, failure);
}
template <typename What>
requires std::is_invocable_r_v<std::string, What>
void dnnl_run(const dnnl::primitive& prim, std::span<const dnnl_exec_arg_t> args,
              const dnnl::memory::desc& scratch, size_t scratch_bytes, What&& failure) {
  if (!dnnl_execute(prim, args, scratch, scratch_bytes))
    fail(ErrorCode::kInternal, std::forward<What>(failure)());
}

// Empties oneDNN's process-wide primitive cache (primitives in use stay alive): how a cache
// entry broken by an allocation failure is dropped (see __wrap_dnnl_primitive_create).
void dnnl_evict_primitive_cache() noexcept;

}  // namespace geon::cpu
