// The "cuda" device kernel set: model ops (elementwise, Identity/Cast, Clip, reductions,
// Transpose) on the CUDA strided-view engine. On machines where CUDA is unusable the set still
// exists and every entry refuses its node with the availability reason, which is what the
// placement report shows there.
#pragma once

#include "core/runtime/kernel.h"

namespace geon::cuda {

// The set, device cuda:0. The first call also registers the CUDA device copy with core
// (core/buffer/device_copy.h) and, when CUDA is usable, creates and registers device 0's
// caching pool, so the executor finds both before it allocates or transfers anything.
const KernelSet& kernel_set();

}  // namespace geon::cuda
