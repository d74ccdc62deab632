// Where the tools find libgeon_provider.so: --provider PATH, else $GEON_PROVIDER, else next to
// the build tree's tools: <directory of this executable>/../provider/libgeon_provider.so, else
// next to installed tools: <directory of this executable>/../lib/libgeon_provider.so.
#pragma once

#include <string>

namespace geon::tools {

// `flag_value` is --provider's value ("" when not given).
std::string provider_path(const std::string& flag_value);

}  // namespace geon::tools
