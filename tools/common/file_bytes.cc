#include "tools/common/file_bytes.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "tools/common/host_tensor.h"

namespace geon::tools {

std::vector<std::byte> read_file_bytes(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ToolError(path + ": cannot open (" + std::strerror(errno) + ")");
  std::vector<std::byte> bytes;
  constexpr size_t kChunk = size_t{1} << 20;
  // Read in chunks rather than trusting a size from seekg: FIFOs and /proc files report none.
  while (in) {
    const size_t old = bytes.size();
    if (old >= max_bytes)
      throw ToolError(path + ": larger than " + std::to_string(max_bytes) + " bytes");
    bytes.resize(old + std::min(kChunk, max_bytes - old + 1));
    in.read(reinterpret_cast<char*>(bytes.data() + old),
            static_cast<std::streamsize>(bytes.size() - old));
    bytes.resize(old + static_cast<size_t>(in.gcount()));
  }
  if (bytes.size() > max_bytes)
    throw ToolError(path + ": larger than " + std::to_string(max_bytes) + " bytes");
  if (in.bad()) throw ToolError(path + ": read error");
  return bytes;
}

std::string read_file_text(const std::string& path, size_t max_bytes) {
  const auto bytes = read_file_bytes(path, max_bytes);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

void write_file_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw ToolError(path + ": cannot open for writing (" + std::strerror(errno) + ")");
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) throw ToolError(path + ": write failed");
}

}  // namespace geon::tools
