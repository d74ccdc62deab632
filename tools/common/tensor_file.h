// Tensors from files by extension (.npy, or .pb for a serialized TensorProto) and the bridge
// between the tools' HostTensor and the wrapper's feed and output types.
#pragma once

#include <string>

#include "geon/geon.hpp"
#include "tools/common/host_tensor.h"

namespace geon::tools {

HostTensor read_tensor_file(const std::string& path);

// A feed that reads `t` in place: `t` must outlive the run.
geon::api::Feed to_feed(const HostTensor& t);
// An owned copy of one output of a run.
HostTensor from_result(const geon::api::Result& r, size_t i);
// An owned copy of a tensor the provider returned (`name` names it in messages).
HostTensor from_view(const GeonTensor& v, const std::string& name);

}  // namespace geon::tools
