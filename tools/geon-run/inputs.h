// geon-run's inputs: the files the user named, random tensors for the rest, shaped from the
// model's declared dims with symbolic lengths taken from --dim (default 1).
#pragma once

#include <vector>

#include "geon/geon.hpp"
#include "tools/common/host_tensor.h"
#include "tools/geon-run/run_args.h"

namespace geon::tools {

// One tensor per model input, in the session's input order. Notes about defaults taken
// (symbols without --dim) are appended to `notes`.
std::vector<HostTensor> prepare_inputs(const std::vector<geon::api::ValueInfo>& inputs,
                                       const RunArgs& args, std::vector<std::string>& notes);

}  // namespace geon::tools
