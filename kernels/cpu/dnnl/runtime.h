// What every cpu.dnnl primitive runs on: one CPU engine for the process, and a stream and a
// scratchpad per thread. Primitives are made with the user-managed scratchpad mode, so one
// primitive may run on several threads at once as long as each brings its own scratch memory.
#pragma once

#include <cstddef>
#include <oneapi/dnnl/dnnl.hpp>
#include <span>
#include <string_view>

namespace geon::cpu {

// The process's CPU engine: a primitive made on it may run on any thread.
dnnl::engine& dnnl_engine();
// This thread's stream, created on first use and never shared.
dnnl::stream& dnnl_thread_stream();
// Caps the OpenMP threads oneDNN uses for calls from this thread at the engine pool this thread
// sees (the session's intra_op_threads inside a run, else the process default), so a session
// asked for N threads does not run oneDNN on every core. Cheap when nothing changes.
void dnnl_match_thread_count();
// This thread's scratch memory, at least `bytes` long and 64-byte aligned; valid until the
// thread's next call.
void* dnnl_thread_scratchpad(size_t bytes);

// Runs a primitive made with a user scratchpad on this thread's stream and waits for it: `args`
// (at most 7) plus, when scratch_bytes > 0, this thread's scratchpad as DNNL_ARG_SCRATCHPAD,
// with oneDNN's threads matched to the caller's first. Throws kInternal with `failure`.
void dnnl_run(const dnnl::primitive& prim, std::span<const dnnl_exec_arg_t> args,
              const dnnl::memory::desc& scratch, size_t scratch_bytes, std::string_view failure);

// Empties oneDNN's process-wide primitive cache (primitives in use stay alive): how a cache
// entry broken by an allocation failure is dropped (see __wrap_dnnl_primitive_create).
void dnnl_evict_primitive_cache() noexcept;

}  // namespace geon::cpu
