// Whole-file reading and writing for the tools, with a size cap so that a huge or endless file
// (a FIFO, /dev/zero) fails cleanly instead of exhausting memory.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace geon::tools {

// The file's bytes; ToolError when it cannot be opened or exceeds max_bytes.
std::vector<std::byte> read_file_bytes(const std::string& path, size_t max_bytes = size_t{1} << 33);
std::string read_file_text(const std::string& path, size_t max_bytes = size_t{1} << 30);
void write_file_text(const std::string& path, const std::string& text);

}  // namespace geon::tools
