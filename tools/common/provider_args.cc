#include "tools/common/provider_args.h"

namespace geon::tools {

const char* const kProviderArgsUsage =
    "  --devices LIST         kernel sets in priority order, e.g. cpu.dnnl,cpu.generic\n"
    "  --provider PATH        libgeon_provider.so to load (default: $GEON_PROVIDER, else\n"
    "                         ../provider/libgeon_provider.so from this program's folder in a\n"
    "                         build tree, else ../lib/libgeon_provider.so once installed)\n";

bool take_provider_arg(const std::string& arg, ArgCursor& args, ProviderArgs& p) {
  if (arg == "--devices") {
    p.devices = args.value(arg);
  } else if (arg == "--provider") {
    p.provider = args.value(arg);
  } else {
    return false;
  }
  return true;
}

geon::api::Options provider_options(const geon::api::Library& lib, const ProviderArgs& p) {
  geon::api::Options options(lib);
  if (!p.devices.empty()) options.set("devices", p.devices);
  return options;
}

}  // namespace geon::tools
