// NumPy's .npy format (versions 1-3), little-endian C-order arrays of the numeric dtypes and
// bool: what `np.save` writes. Reading is bounds-checked; a malformed or unsupported file is a
// ToolError naming the file and the reason, never a crash.
#pragma once

#include <span>
#include <string>

#include "tools/common/host_tensor.h"

namespace geon::tools {

// Parses .npy bytes; `what` names the source in messages. The tensor's name is left empty.
HostTensor parse_npy(std::span<const std::byte> bytes, const std::string& what);
HostTensor read_npy(const std::string& path);

std::string format_npy(const HostTensor& t);
void write_npy(const std::string& path, const HostTensor& t);

}  // namespace geon::tools
