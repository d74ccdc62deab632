// Model import for the provider: the importer with its options, then the graph passes of
// core/passes/pipeline.h at the session's optimization level.
#include "provider/src/model_import.h"

#include <filesystem>

#include "core/passes/pipeline.h"
#include "provider/src/status.h"

namespace geon::provider {
namespace {

ImportOptions import_options(const ProviderOptions& o, ThreadPool& readers) {
  ImportOptions opt;
  opt.fold_constants = o.optimization_level >= 1;
  opt.pool = &readers;
  return opt;
}

}  // namespace

ImportedModel import_from_path(const char* path, const ProviderOptions& o, ThreadPool& readers) {
  require_arg(path, "model_path");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    api_fail(GEON_NOT_FOUND,
             std::string("model file '") + path + "' does not exist or is not a file");
  return import_model_file(path, import_options(o, readers));
}

ImportedModel import_from_bytes(const void* bytes, size_t size, const char* base_dir,
                                const ProviderOptions& o, ThreadPool& readers) {
  require_arg(bytes, "bytes");
  if (size == 0) api_fail(GEON_INVALID_ARGUMENT, "the model bytes are empty (size 0)");
  ImportOptions opt = import_options(o, readers);
  if (base_dir) opt.base_dir = base_dir;
  return import_model_bytes(std::span(static_cast<const std::byte*>(bytes), size), opt);
}

void optimize(Graph& g, std::span<const KernelSet* const> sets, const ProviderOptions& o) {
  run_passes(g, sets, PassOptions{o.optimization_level});
}

}  // namespace geon::provider
