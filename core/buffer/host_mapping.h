// Large host storages (weights, packed weights, activation arenas) mapped on their own rather
// than taken from the heap, faulted in with one call, and backed by transparent huge pages where
// the system allows them and the caller asks. Used by the host allocators (buffer.cc) only.
#pragma once

#include <cstddef>
#include <cstdint>

namespace geon {

// Whether a host storage of this many bytes is mapped (false for every size in sanitizer
// builds, whose heap red zones catch overruns of these too).
bool host_mapped(size_t bytes);
// Which pages a new mapping is advised to have. Huge pages cost fewer TLB misses in the runs
// that read a storage again and again; small ones are the cheaper to fault in where memory is
// fresh (see host_constants_allocator() in buffer.h).
enum class HostPages : uint8_t { kHuge, kSmall };

// A writable mapping of `bytes`, or geon::Error (kResourceExhausted). Reuses a mapping of the
// same size that was released recently, whichever pages it has (one already faulted in costs
// nothing), so a run's per-call inputs and outputs do not fault their pages in again on every
// call; otherwise maps new pages of the kind asked.
void* map_host(size_t bytes, HostPages pages);
void unmap_host(void* p, size_t bytes);

}  // namespace geon
