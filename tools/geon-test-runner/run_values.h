// One data set of a test whose model takes or gives sequences or optionals: the inputs read as
// the values the model declares, run through run_values, and each output value compared with
// the expected one (kind, element count, then each tensor as compare.h does).
#pragma once

#include <string>
#include <vector>

#include "geon/geon.hpp"
#include "tools/common/compare.h"
#include "tools/geon-test-runner/discover.h"

namespace geon::tools {

// Whether any input or output of the model is a sequence or optional.
bool takes_values(const std::vector<geon::api::ValueInfo>& inputs,
                  const std::vector<geon::api::ValueInfo>& outputs);
// Runs `set`; empty when every output matches, else the first mismatch.
std::string run_value_set(const geon::api::Session& session, const DataSet& set,
                          const std::vector<geon::api::ValueInfo>& inputs,
                          const std::vector<geon::api::ValueInfo>& outputs, const Tolerance& tol);

}  // namespace geon::tools
