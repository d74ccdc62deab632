// geon_fuzz_model_structure: models mutated as parsed ModelProtos (model_mutator.h) rather than
// as bytes, so that most inputs reach the importer's rules, shape inference and the kernels.
// The input is still a serialised model, so its corpus and crash files are .onnx files.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_session.h"
#include "model_mutator.h"
#include "model_target.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  geon::fuzz::fuzz_model(data, size);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  onnx::ModelProto m;
  // Inputs that do not parse, and one mutation in 16, get libFuzzer's byte mutations.
  if (seed % 16 == 0 || !m.ParseFromArray(data, static_cast<int>(size)))
    return LLVMFuzzerMutate(data, size, max_size);
  geon::fuzz::ModelMutator(seed, geon::fuzz::work_dir() + "/outside.bin").mutate(m);
  std::string out;
  if (!m.SerializeToString(&out) || out.size() > max_size)
    return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}
