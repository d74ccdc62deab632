// Large host mappings: populated in one call, transparent huge pages where asked, and a small
// cache of released mappings reused by size.
#include "core/buffer/host_mapping.h"

#include <sys/mman.h>

#include <cerrno>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/base/error.h"

namespace geon {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
constexpr bool kSanitized = __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||
                            __has_feature(memory_sanitizer);
#else
constexpr bool kSanitized = false;
#endif

// Faulted in page by page as they were first written, a 400 MB model's weights took longer
// than reading them; populating a mapping in one call (and a huge page standing for 512 small
// ones, where asked for) takes the per-fault cost away.
constexpr size_t kThreshold = size_t{2} << 20;
// Released mappings kept for reuse: a bounded amount, so that what a released session held
// goes back to the system.
constexpr size_t kCacheBytes = size_t{64} << 20;
constexpr size_t kCacheEntries = 8;

struct Cache {
  std::mutex mu;
  std::vector<std::pair<void*, size_t>> free;  // oldest first
  size_t bytes = 0;
};

Cache& cache() {
  static auto* c = new Cache;  // never destroyed: storages may be released at exit
  return *c;
}

[[noreturn]] void failed(size_t bytes) {
  fail(ErrorCode::kResourceExhausted,
       "host allocation of " + std::to_string(bytes) + " bytes failed");
}

}  // namespace

bool host_mapped(size_t bytes) { return !kSanitized && bytes >= kThreshold; }

void* map_host(size_t bytes, HostPages pages) {
  {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    for (auto it = c.free.rbegin(); it != c.free.rend(); ++it)
      if (it->second == bytes) {
        void* p = it->first;
        c.bytes -= bytes;
        c.free.erase(std::next(it).base());
        return p;
      }
  }
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) failed(bytes);
  if (pages == HostPages::kHuge)
    ::madvise(p, bytes, MADV_HUGEPAGE);  // advice only: refused where THP is off
#ifdef MADV_POPULATE_WRITE
  // Kernels before 5.14 do not know it: their pages fault in on first use. Running out of
  // memory here is a clean failure rather than a kill at first touch.
  if (::madvise(p, bytes, MADV_POPULATE_WRITE) != 0 && errno == ENOMEM) {
    ::munmap(p, bytes);
    failed(bytes);
  }
#endif
  return p;
}

void unmap_host(void* p, size_t bytes) {
  if (bytes <= kCacheBytes / 2) {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    // Oldest first out, until this one fits.
    while (!c.free.empty() && (c.free.size() >= kCacheEntries || c.bytes + bytes > kCacheBytes)) {
      ::munmap(c.free.front().first, c.free.front().second);
      c.bytes -= c.free.front().second;
      c.free.erase(c.free.begin());
    }
    c.free.emplace_back(p, bytes);
    c.bytes += bytes;
    return;
  }
  ::munmap(p, bytes);
}

}  // namespace geon
