// The body shared by geon_fuzz_model_bytes and geon_fuzz_model_structure: model bytes ->
// session creation -> one run with seeded inputs, with the harness's own checks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace geon::fuzz {

// Creates a session from the bytes (base_dir: the harness's private directory); when that
// succeeds, aborts if the model's external data points outside base_dir, and runs it once
// unless one of its Loops is unbounded (see model_checks.h). Failure statuses are fine.
void fuzz_model(const uint8_t* data, size_t size);

}  // namespace geon::fuzz
