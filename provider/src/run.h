// Running a session through the C ABI: caller tensors checked against the model and turned
// into the executor's host tensor references.
#pragma once

#include "geon/geon.h"

namespace geon::provider {

GeonStatus* run(GeonSession* s, const char* const* input_names, const GeonTensor* inputs,
                size_t n_inputs, const char* const* output_names, size_t n_outputs,
                GeonTensor* outputs, GeonResult** result) noexcept;
GeonStatus* run_values(GeonSession* s, const char* const* input_names, const GeonValue* inputs,
                       size_t n_inputs, const char* const* output_names, size_t n_outputs,
                       GeonResult** result) noexcept;

}  // namespace geon::provider
