// geon_fuzz_model_bytes: raw bytes as a model, through the C ABI (create_session_from_bytes,
// then one run with seeded inputs). libFuzzer's byte mutations mostly exercise the protobuf
// parser and the importer's first checks; geon_fuzz_model_structure goes deeper.
#include <cstddef>
#include <cstdint>

#include "model_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  geon::fuzz::fuzz_model(data, size);
  return 0;
}
