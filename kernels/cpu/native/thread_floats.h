// Per-thread scratch for the native kernels: a 64-byte aligned float buffer per slot, grown on
// demand and kept for the thread's life, so a run allocates nothing once warm.
#pragma once

#include <cstdint>

namespace geon::cpu::native {

// Slots: 0 DirectConv's padded input, 1 its padded bias (and WinogradConv's bias), 2
// PointwiseDepthwise's ring rows, 3 its depthwise row before the projection, 4 and 5
// WinogradConv's transformed input and products.
inline constexpr int kThreadFloatSlots = 6;

// At least n floats, valid until this thread's next call with the same slot.
float* thread_floats(int slot, int64_t n);

}  // namespace geon::cpu::native
