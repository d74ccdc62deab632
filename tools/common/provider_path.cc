#include "tools/common/provider_path.h"

#include <cstdlib>
#include <filesystem>

namespace geon::tools {

std::string provider_path(const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  if (const char* env = std::getenv("GEON_PROVIDER"); env && *env) return env;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto dir = ec ? std::filesystem::current_path() : exe.parent_path();
  return (dir / ".." / "provider" / "libgeon_provider.so").lexically_normal().string();
}

}  // namespace geon::tools
