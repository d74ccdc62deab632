// Reading a model for a session or for the capability contract: import (with the importer's
// constant folding per optimization_level) and the graph passes the options ask for.
#pragma once

#include <cstddef>
#include <span>

#include "core/engine/thread_pool.h"
#include "core/runtime/kernel.h"
#include "importer/import.h"
#include "provider/src/options.h"

namespace geon::provider {

// A missing file is ApiError GEON_NOT_FOUND; the importer's errors pass through. A large
// model's weights are read on `readers` (the session's pool).
ImportedModel import_from_path(const char* path, const ProviderOptions& o, ThreadPool& readers);
// base_dir null: a model with external data is refused.
ImportedModel import_from_bytes(const void* bytes, size_t size, const char* base_dir,
                                const ProviderOptions& o, ThreadPool& readers);

// Passes run on the imported graph before partitioning (constant folding with the kernels of
// `sets`, when the pass is built and optimization_level >= 1).
void optimize(Graph& g, std::span<const KernelSet* const> sets, const ProviderOptions& o);

}  // namespace geon::provider
