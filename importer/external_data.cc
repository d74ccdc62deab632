// External data: path checks first, then a bounded read.
#include "importer/external_data.h"

#include <filesystem>
#include <fstream>

#include "core/base/error.h"

namespace geon {

namespace fs = std::filesystem;

void read_external_data(const ExternalDataRef& ref, const std::string& base_dir,
                        int64_t expected_bytes, const std::string& where,
                        const std::function<std::byte*()>& destination) {
  const std::string what = where + ": external data '" + ref.location + "'";
  if (base_dir.empty())
    fail(ErrorCode::kInvalidArgument,
         what + ": the model was loaded from bytes without a base directory for external data");
  if (ref.location.empty()) fail(ErrorCode::kInvalidArgument, what + ": no location given");
  if (ref.location.find('\0') != std::string::npos)
    fail(ErrorCode::kInvalidArgument, what + ": the location contains a NUL character");
  const fs::path loc(ref.location);
  if (loc.is_absolute() || ref.location.front() == '/' || ref.location.front() == '\\')
    fail(ErrorCode::kInvalidArgument, what + ": absolute paths are not allowed");
  for (const auto& part : loc)
    if (part == "..")
      fail(ErrorCode::kInvalidArgument,
           what + ": '..' segments are not allowed (the path must stay in the model's directory)");
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(fs::path(base_dir), ec);
  const fs::path file = fs::path(base_dir) / loc;
  if (!fs::exists(file, ec))
    fail(ErrorCode::kInvalidArgument, what + ": file does not exist: " + file.string());
  const fs::path real = fs::canonical(file, ec);
  if (ec)
    fail(ErrorCode::kInvalidArgument,
         what + ": cannot resolve " + file.string() + ": " + ec.message());
  const auto rel = real.lexically_relative(base);
  if (rel.empty() || *rel.begin() == "..")
    fail(ErrorCode::kInvalidArgument, what + ": resolves to " + real.string() +
                                          ", outside the model's directory (through a symlink)");
  if (!fs::is_regular_file(real, ec))
    fail(ErrorCode::kInvalidArgument, what + ": not a regular file");
  const int64_t size = static_cast<int64_t>(fs::file_size(real, ec));
  if (ref.offset < 0 || ref.offset > size)
    fail(ErrorCode::kOutOfRange, what + ": offset " + std::to_string(ref.offset) +
                                     " is past the end of the file (" + std::to_string(size) +
                                     " bytes)");
  if (ref.length >= 0 && ref.length != expected_bytes)
    fail(ErrorCode::kInvalidArgument, what + ": length " + std::to_string(ref.length) +
                                          " does not match the " + std::to_string(expected_bytes) +
                                          " bytes the tensor's dtype and shape need");
  if (expected_bytes > size - ref.offset)
    fail(ErrorCode::kOutOfRange, what + ": range [" + std::to_string(ref.offset) + ", " +
                                     std::to_string(ref.offset + expected_bytes) +
                                     ") is past the end of the file (" + std::to_string(size) +
                                     " bytes)");
  std::byte* out = destination();
  if (expected_bytes == 0) return;
  std::ifstream in(real, std::ios::binary);
  in.seekg(ref.offset);
  in.read(reinterpret_cast<char*>(out), expected_bytes);
  if (!in) fail(ErrorCode::kInvalidArgument, what + ": read failed");
}

}  // namespace geon
