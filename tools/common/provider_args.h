// The options every tool takes to reach the provider: which library to load (--provider, else
// as provider_path() finds it) and which kernel sets to use (--devices), parsed, documented and
// turned into session options in one place.
#pragma once

#include <string>

#include "geon/geon.hpp"
#include "tools/common/args.h"

namespace geon::tools {

struct ProviderArgs {
  std::string provider;  // --provider PATH; "" = $GEON_PROVIDER, else next to the tool
  std::string devices;   // --devices LIST; "" = the provider's default
};

// The --help lines of --devices and --provider.
extern const char* const kProviderArgsUsage;

// When `arg` is --devices or --provider, takes its value from `args` into p and returns true.
bool take_provider_arg(const std::string& arg, ArgCursor& args, ProviderArgs& p);

// Session options holding p's devices (when given); a tool adds its own to them.
geon::api::Options provider_options(const geon::api::Library& lib, const ProviderArgs& p);

}  // namespace geon::tools
