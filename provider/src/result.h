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
  // Per output: what result_value hands out (for sequences and optionals, the GeonTensors of
  // their elements), made once by finish_result so that concurrent readers share it.
  std::vector<std::vector<GeonTensor>> views;
  // Per output: the GeonValueKind of a present value (an optional's is its element's).
  std::vector<int32_t> kinds;
};

// The C ABI's view of an owned tensor (pointers into t, which must outlive it).
GeonTensor tensor_view(const OwnedTensor& t);
// Fills r.views from r.tensors.
void finish_result(Result& r);

using ResultTable = HandleTable<GeonResult, Result, HandleKind::kResult>;
// The live GeonResult handles.
ResultTable& result_table();

size_t result_count(const GeonResult* r) noexcept;
GeonStatus* result_tensor(const GeonResult* r, size_t i, GeonTensor* out) noexcept;
const char* result_name(const GeonResult* r, size_t i) noexcept;
void release_result(GeonResult* r) noexcept;
GeonStatus* result_value(const GeonResult* r, size_t i, GeonValue* out) noexcept;

}  // namespace geon::provider
