// Large host storages (weights, packed weights, activation arenas) mapped on their own rather
// than taken from the heap: backed by transparent huge pages where the system allows them and
// faulted in with one call. Used by the host allocator (buffer.cc) only.
#pragma once

#include <cstddef>

namespace geon {

// Whether a host storage of this many bytes is mapped (false for every size in sanitizer
// builds, whose heap red zones catch overruns of these too).
bool host_mapped(size_t bytes);
// A writable mapping of `bytes`, or geon::Error (kResourceExhausted). Reuses a mapping of the
// same size that was released recently, so a run's per-call inputs and outputs do not fault
// their pages in again on every call.
void* map_host(size_t bytes);
void unmap_host(void* p, size_t bytes);

}  // namespace geon
