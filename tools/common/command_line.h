// The command-line walk every tool does: --help prints the tool's usage, --devices and
// --provider go to ProviderArgs, and every other argument (flag or positional) to the tool's
// own handler, which reads flag values from the cursor.
#pragma once

#include <functional>
#include <string>

#include "tools/common/args.h"
#include "tools/common/provider_args.h"

namespace geon::tools {

using ArgHandler = std::function<void(const std::string& arg, ArgCursor& args)>;

// false when --help (or -h) was given: `usage` is then on stdout and nothing after it is read.
bool walk_command_line(int argc, char** argv, const std::string& usage, ProviderArgs& p,
                       const ArgHandler& take);

}  // namespace geon::tools
