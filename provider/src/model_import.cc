// Model import for the provider. The folding pass (core/passes/fold_constants.h) is written
// alongside; it is used when its header is present in the tree.
#include "provider/src/model_import.h"

#include <filesystem>

#include "provider/src/status.h"
#if __has_include("core/passes/fold_constants.h")
#include "core/passes/fold_constants.h"
#define GEON_PROVIDER_HAS_FOLDING 1
#endif

namespace geon::provider {
namespace {

ImportOptions import_options(const ProviderOptions& o) {
  ImportOptions opt;
  opt.fold_constants = o.optimization_level >= 1;
  return opt;
}

}  // namespace

ImportedModel import_from_path(const char* path, const ProviderOptions& o) {
  require_arg(path, "model_path");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    api_fail(GEON_NOT_FOUND,
             std::string("model file '") + path + "' does not exist or is not a file");
  return import_model_file(path, import_options(o));
}

ImportedModel import_from_bytes(const void* bytes, size_t size, const char* base_dir,
                                const ProviderOptions& o) {
  require_arg(bytes, "bytes");
  if (size == 0) api_fail(GEON_INVALID_ARGUMENT, "the model bytes are empty (size 0)");
  ImportOptions opt = import_options(o);
  if (base_dir) opt.base_dir = base_dir;
  return import_model_bytes(std::span(static_cast<const std::byte*>(bytes), size), opt);
}

void optimize([[maybe_unused]] Graph& g, [[maybe_unused]] std::span<const KernelSet* const> sets,
              [[maybe_unused]] const ProviderOptions& o) {
#ifdef GEON_PROVIDER_HAS_FOLDING
  if (o.optimization_level >= 1) fold_constants(g, sets);
#endif
}

}  // namespace geon::provider
