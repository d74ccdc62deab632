// The fault tests' allocator: this binary replaces the global operator new and delete (every
// form) with versions over malloc that count live blocks and can fail the k-th allocation from
// a point on. The provider library, loaded by path, gets them too by symbol interposition (the
// executable's definitions come first), which allocator_test.cc checks before anything relies
// on it. Only operator new is counted: malloc calls (oneDNN's buffers, protobuf's C code) are not.
// Allocations made inside an OpenMP parallel region (oneDNN's threading) are counted but never
// failed: oneDNN 2.6 lets the std::bad_alloc escape its parallel region, which is std::terminate
// in oneDNN's own code, out of reach of any caller; a real out-of-memory there ends the process.
// By default oneDNN's other allocations (those with libdnnl among their callers) are spared too:
// oneDNN 2.6 leaks the objects it has half made when one fails (primitive descriptor
// iterators), which geon cannot free; geon's own allocations around oneDNN calls still fail.
#pragma once

#include <cstdint>

namespace geon::faults {

// Blocks allocated by operator new and not yet deleted, on every thread.
int64_t live_blocks();
// Allocations made so far, on every thread (failed ones included).
uint64_t allocations();

// Allocations made while armed that were spared (OpenMP regions, oneDNN's own).
uint64_t spared_allocations();
// Whether oneDNN's own allocations outside OpenMP regions are spared (default true).
void spare_dnnl_allocations(bool on);

// From now on, the k-th allocation (k >= 1, counted across threads) fails: std::bad_alloc, or
// nullptr from the nothrow forms. Only that one; the allocations after it succeed again.
void fail_kth_allocation(uint64_t k);
// Stops the countdown; true when the armed allocation was reached (and failed).
bool disarm();
// Whether the allocation that failed last was a nothrow form (it returned nullptr, and its
// caller may have had a fallback, as std::stable_sort's temporary buffer has).
bool failed_nothrow();

// A debugging aid for a leak the tests report: while tracing is on, every block allocated and
// not yet freed is recorded with its call stack (up to 4096); print_traced_blocks() writes the
// ones still live to stderr. Set GEON_FAULT_TRACE=1 to trace each attempt that leaks.
void trace_blocks(bool on);
void print_traced_blocks();

}  // namespace geon::faults
