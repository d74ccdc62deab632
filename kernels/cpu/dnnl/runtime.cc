// The engine, per-thread streams, scratchpads and memory objects of dnnl/runtime.h: created
// once per thread instead of once per call.
#include "kernels/cpu/dnnl/runtime.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <future>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/base/error.h"
#include "core/engine/thread_pool.h"

namespace geon::cpu {

dnnl::engine& dnnl_engine() {
  // Every primitive is made on this engine, and oneDNN fixes a primitive's thread count when it
  // is made (OpenMP's count on the making thread): one made on a thread still at OpenMP's
  // default opened a team of every core at each run, beside the engine's own pool.
  dnnl_match_thread_count();
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& dnnl_thread_stream() {
  thread_local dnnl::stream stream(dnnl_engine());
  return stream;
}

void dnnl_match_thread_count() {
  if (omp_get_max_threads() != 1) omp_set_num_threads(1);
}

namespace {
thread_local int t_parts_in_flight = 1;
}  // namespace

int dnnl_parts_in_flight() { return t_parts_in_flight; }

void dnnl_parallel(int64_t n, int parts, const std::function<void(int64_t, int64_t)>& body) {
  if (n <= 0) return;
  parts = static_cast<int>(std::clamp<int64_t>(parts, 1, n));
  if (parts == 1) {
    body(0, n);
    return;
  }
  const auto first = [&](int p) { return dnnl_part_first(n, parts, p); };
  default_thread_pool().run(parts, [&](int p) {
    // Restored on the way out, exception or not: this thread may run an outer job's parts.
    struct InFlight {
      int outer = t_parts_in_flight;
      ~InFlight() { t_parts_in_flight = outer; }
    } in_flight;
    t_parts_in_flight = parts;
    body(first(p), first(p + 1));
  });
}

int64_t dnnl_part_first(int64_t n, int parts, int p) {
  // Part 0, the one the calling thread claims first while the workers wake, is the largest of
  // uneven parts: 49 pixels halve into 25 here and 24 on the worker.
  return n - n * (parts - p) / parts;
}

int dnnl_parts(int64_t items, double work, double grain) {
  const double by_work = std::floor(work / std::max(grain, 1.0));
  // One part a thread: each part is a primitive call with its own fixed cost and its own pass
  // over the weights (a split by rows reads all of them per part). Two a thread, which let the
  // others take over part of the share of a thread the OS ran late, measured slower on every
  // model (MobileNetV2, ResNet-50 and BERT-base whole runs 5-9% at two threads).
  const int64_t most = std::min<int64_t>(items, default_thread_pool().size());
  return static_cast<int>(
      std::clamp<double>(by_work, 1.0, static_cast<double>(std::max<int64_t>(most, 1))));
}

void* dnnl_thread_scratchpad(size_t bytes) {
  constexpr size_t kAlign = 64;
  thread_local std::unique_ptr<std::byte[]> buffer;
  thread_local size_t size = 0;
  if (bytes + kAlign > size) {
    // The size only once the buffer exists: a failed allocation keeps the old pair intact.
    buffer.reset(new std::byte[bytes + kAlign]);
    size = bytes + kAlign;
  }
  const auto at = reinterpret_cast<uintptr_t>(buffer.get());
  return buffer.get() + ((kAlign - at % kAlign) % kAlign);
}

namespace {

// A hash of what tells two descriptors apart (dims, type, offset, blocking), for the map below.
uint64_t desc_hash(int arg, const dnnl_memory_desc_t& d) {
  uint64_t h = 1469598103934665603ull ^ static_cast<uint64_t>(arg);
  const auto mix = [&h](int64_t v) { h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull; };
  mix(d.ndims);
  mix(d.data_type);
  mix(d.format_kind);
  mix(d.offset0);
  const dnnl_blocking_desc_t& b = d.format_desc.blocking;
  for (int i = 0; i < d.ndims; ++i) {
    mix(d.dims[i]);
    mix(b.strides[i]);
  }
  mix(b.inner_nblks);
  for (int i = 0; i < b.inner_nblks; ++i) mix(b.inner_blks[i] * 16 + b.inner_idxs[i]);
  return h;
}

}  // namespace

dnnl_exec_arg_t dnnl_thread_arg(int arg, const dnnl::memory::desc& md, const void* data) {
  struct Held {
    dnnl::memory::desc md;
    dnnl::memory mem;
  };
  // Two generations: when the current one is full it becomes the previous one (and the one
  // before is dropped), so the handles of the call in progress outlive the turnover.
  constexpr size_t kGeneration = 1024;
  thread_local std::unordered_map<uint64_t, Held> current, previous;
  const uint64_t key = desc_hash(arg, md.data);
  auto it = current.find(key);
  if (it == current.end() || it->second.md != md) {
    Held h;
    if (auto old = previous.find(key); old != previous.end() && old->second.md == md)
      h = old->second;
    else
      h = Held{md, dnnl::memory(md, dnnl_engine(), DNNL_MEMORY_NONE)};
    if (current.size() >= kGeneration) {
      previous = std::move(current);
      current.clear();
    }
    it = current.insert_or_assign(key, std::move(h)).first;
  }
  it->second.mem.set_data_handle(const_cast<void*>(data));
  return {arg, it->second.mem.get()};
}

bool dnnl_execute(const dnnl::primitive& prim, std::span<const dnnl_exec_arg_t> args,
                  const dnnl::memory::desc& scratch, size_t scratch_bytes) {
  dnnl_exec_arg_t all[8];
  require(args.size() < 8, "dnnl_run: too many arguments");
  std::copy(args.begin(), args.end(), all);
  int n = static_cast<int>(args.size());
  if (scratch_bytes)
    all[n++] = dnnl_thread_arg(DNNL_ARG_SCRATCHPAD, scratch, dnnl_thread_scratchpad(scratch_bytes));
  dnnl_match_thread_count();
  dnnl::stream& stream = dnnl_thread_stream();
  if (dnnl_primitive_execute(prim.get(), stream.get(), n, all) != dnnl_success) return false;
  stream.wait();
  return true;
}

void dnnl_evict_primitive_cache() noexcept {
  int capacity = 0;
  if (dnnl_get_primitive_cache_capacity(&capacity) != dnnl_success || capacity <= 0) return;
  dnnl_set_primitive_cache_capacity(0);
  dnnl_set_primitive_cache_capacity(capacity);
}

}  // namespace geon::cpu

// Every dnnl_primitive_create of geon's objects comes here (the link's
// --wrap=dnnl_primitive_create, kernels/cpu/CMakeLists.txt). oneDNN 2.6 puts a promise in its
// primitive cache before it makes the primitive; when that throws std::bad_alloc, the promise
// is destroyed unset and the cache keeps it, so every later creation of the same primitive in
// the process throws std::future_error ("Broken promise"). Emptying the cache drops the broken
// entry. A broken entry met here (left by a creation outside geon) is dropped and retried once.
extern "C" dnnl_status_t __real_dnnl_primitive_create(dnnl_primitive_t* primitive,
                                                      const_dnnl_primitive_desc_t pd);
extern "C" dnnl_status_t __wrap_dnnl_primitive_create(dnnl_primitive_t* primitive,
                                                      const_dnnl_primitive_desc_t pd) {
  try {
    return __real_dnnl_primitive_create(primitive, pd);
  } catch (const std::bad_alloc&) {
    geon::cpu::dnnl_evict_primitive_cache();
    throw;
  } catch (const std::future_error&) {
    geon::cpu::dnnl_evict_primitive_cache();
  }
  return __real_dnnl_primitive_create(primitive, pd);
}
