#include "tools/common/command_line.h"

#include <iostream>

namespace geon::tools {

bool walk_command_line(int argc, char** argv, const std::string& usage, ProviderArgs& p,
                       const ArgHandler& take) {
  ArgCursor args(argc, argv);
  while (args.more()) {
    const std::string arg = args.next();
    if (arg == "--help" || arg == "-h") {
      std::cout << usage;
      return false;
    }
    if (!take_provider_arg(arg, args, p)) take(arg, args);
  }
  return true;
}

}  // namespace geon::tools
