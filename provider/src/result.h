// The outputs a run allocated, handed to the caller as one GeonResult.
#pragma once

#include <string>
#include <vector>

#include "core/runtime/executor.h"
#include "geon/geon.h"
#include "provider/src/handles.h"

namespace geon::provider {

// What a GeonResult handle stands for. Independent of its session once made.
struct Result {
  std::vector<std::string> names;
  std::vector<OwnedTensor> tensors;
};

using ResultTable = HandleTable<GeonResult, Result, HandleKind::kResult>;
// The live GeonResult handles.
ResultTable& result_table();

size_t result_count(const GeonResult* r) noexcept;
GeonStatus* result_tensor(const GeonResult* r, size_t i, GeonTensor* out) noexcept;
const char* result_name(const GeonResult* r, size_t i) noexcept;
void release_result(GeonResult* r) noexcept;

}  // namespace geon::provider
