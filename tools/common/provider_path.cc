#include "tools/common/provider_path.h"

#include <cstdlib>
#include <filesystem>

// The provider relative to an installed tool (set by tools/CMakeLists.txt from the install
// directories: <prefix>/bin -> <prefix>/lib).
#ifndef GEON_INSTALLED_PROVIDER
#define GEON_INSTALLED_PROVIDER "../lib/libgeon_provider.so"
#endif

namespace geon::tools {

std::string provider_path(const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  if (const char* env = std::getenv("GEON_PROVIDER"); env && *env) return env;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto dir = ec ? std::filesystem::current_path() : exe.parent_path();
  const auto build_tree = (dir / ".." / "provider" / "libgeon_provider.so").lexically_normal();
  const auto installed = (dir / GEON_INSTALLED_PROVIDER).lexically_normal();
  // The build tree's path when neither exists, so that the error names the usual place.
  if (!std::filesystem::exists(build_tree, ec) && std::filesystem::exists(installed, ec))
    return installed.string();
  return build_tree.string();
}

}  // namespace geon::tools
