// Replacement global operator new / delete for the fault tests (see counting_allocator.h). Every
// form, aligned and nothrow included, so that no allocation of the library escapes the count.
#include "tests/faults/counting_allocator.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <omp.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>

namespace geon::faults {
namespace {

std::atomic<int64_t> g_live{0};
std::atomic<uint64_t> g_allocations{0};
// The allocations left before the failing one; 0 = disarmed.
std::atomic<uint64_t> g_countdown{0};
std::atomic<bool> g_fired{false};
std::atomic<bool> g_fired_nothrow{false};
std::atomic<uint64_t> g_spared{0};
std::atomic<bool> g_spare_dnnl{true};
std::atomic<bool> g_tracing{false};

// Whether oneDNN's code is among the callers of this allocation (a few frames up: its own
// code, or libstdc++ called from it).
bool called_from_dnnl() {
  void* frames[8];
  const int n = backtrace(frames, 8);
  for (int i = 2; i < n; ++i) {
    Dl_info info;
    if (dladdr(frames[i], &info) && info.dli_fname && std::strstr(info.dli_fname, "libdnnl"))
      return true;
  }
  return false;
}

// True when this allocation is the armed one. The countdown is claimed by compare-exchange so
// that exactly one thread sees it reach zero.
bool this_one_fails(bool nothrow) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  // oneDNN's own allocations inside its OpenMP regions are never failed: a throw there is
  // std::terminate inside oneDNN (2.6), which no caller can catch (see counting_allocator.h).
  if (g_countdown.load(std::memory_order_relaxed) == 0) return false;
  if (omp_get_level() > 0 || (g_spare_dnnl.load(std::memory_order_relaxed) && called_from_dnnl())) {
    g_spared.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  uint64_t left = g_countdown.load(std::memory_order_relaxed);
  while (left != 0) {
    if (g_countdown.compare_exchange_weak(left, left - 1, std::memory_order_acq_rel)) {
      if (left != 1) return false;
      g_fired_nothrow.store(nothrow, std::memory_order_relaxed);
      g_fired.store(true, std::memory_order_release);
      if (g_tracing.load(std::memory_order_relaxed)) {
        static const char kHeader[] = "--- the failed allocation:\n";
        void* frames[24];
        const int depth = backtrace(frames, 24);
        if (write(2, kHeader, sizeof(kHeader) - 1) >= 0) backtrace_symbols_fd(frames, depth, 2);
      }
      return true;
    }
  }
  return false;
}

// Tracing (a debugging aid; also prints the failed allocation's call stack): the blocks allocated
// while on and not freed since, with their call stacks, in a fixed table (nothing allocated).
struct Traced {
  std::atomic<void*> block{nullptr};
  void* frames[24];
  int depth = 0;
};
constexpr size_t kTraced = 4096;
Traced g_traced[kTraced];

void trace_allocation(void* p) {
  for (Traced& t : g_traced) {
    void* empty = nullptr;
    if (t.block.compare_exchange_strong(empty, p)) {
      t.depth = backtrace(t.frames, 24);
      return;
    }
  }
}

void trace_release(void* p) {
  for (Traced& t : g_traced) {
    void* mine = p;
    if (t.block.compare_exchange_strong(mine, nullptr)) return;
  }
}

// nullptr when the allocation fails (armed, or out of memory for real).
void* allocate(std::size_t size, std::size_t align, bool nothrow = true) {
  if (this_one_fails(nothrow)) return nullptr;
  if (size == 0) size = 1;
  void* p = nullptr;
  if (align <= alignof(std::max_align_t)) {
    p = std::malloc(size);
  } else {
    // aligned_alloc wants a size that is a multiple of the alignment.
    p = std::aligned_alloc(align, (size + align - 1) / align * align);
  }
  if (p) g_live.fetch_add(1, std::memory_order_relaxed);
  if (p && g_tracing.load(std::memory_order_relaxed)) trace_allocation(p);
  return p;
}

void* allocate_or_throw(std::size_t size, std::size_t align) {
  void* p = allocate(size, align, false);
  if (!p) throw std::bad_alloc();
  return p;
}

void release(void* p) noexcept {
  if (!p) return;
  g_live.fetch_sub(1, std::memory_order_relaxed);
  if (g_tracing.load(std::memory_order_relaxed)) trace_release(p);
  std::free(p);
}

constexpr std::size_t kPlain = alignof(std::max_align_t);

}  // namespace

int64_t live_blocks() { return g_live.load(std::memory_order_acquire); }

uint64_t allocations() { return g_allocations.load(std::memory_order_acquire); }

void trace_blocks(bool on) {
  if (on)
    for (Traced& t : g_traced) t.block.store(nullptr);
  g_tracing.store(on);
}

void print_traced_blocks() {
  for (Traced& t : g_traced) {
    if (!t.block.load()) continue;
    static const char kHeader[] = "--- a traced block still live, allocated at:\n";
    if (write(2, kHeader, sizeof(kHeader) - 1) < 0) return;
    backtrace_symbols_fd(t.frames, t.depth, 2);
  }
}

void spare_dnnl_allocations(bool on) { g_spare_dnnl.store(on); }

uint64_t spared_allocations() { return g_spared.load(std::memory_order_acquire); }

void fail_kth_allocation(uint64_t k) {
  g_fired.store(false, std::memory_order_release);
  g_countdown.store(k, std::memory_order_release);
}

bool failed_nothrow() { return g_fired_nothrow.load(std::memory_order_acquire); }

bool disarm() {
  g_countdown.store(0, std::memory_order_release);
  return g_fired.exchange(false, std::memory_order_acq_rel);
}

}  // namespace geon::faults

using geon::faults::allocate;
using geon::faults::allocate_or_throw;
using geon::faults::kPlain;
using geon::faults::release;

void* operator new(std::size_t n) { return allocate_or_throw(n, kPlain); }
void* operator new[](std::size_t n) { return allocate_or_throw(n, kPlain); }
void* operator new(std::size_t n, std::align_val_t a) {
  return allocate_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return allocate_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, kPlain); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, kPlain); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, static_cast<std::size_t>(a));
}

void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
