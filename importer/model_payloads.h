// The main graph's initializer payloads kept out of protobuf's parse. A model's weights are
// nearly all of its bytes, and parsing copies each raw_data field into a std::string that the
// importer then copies again into the tensor's storage. Instead the raw_data fields of the main
// graph's initializers are cut out of the ModelProto at the wire level: protobuf parses the small
// remainder, and each payload is later copied once, straight from the file (pread, so the file
// is never resident in the process) or from the caller's bytes into the tensor's storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace geon::importer {

// A cut raw_data field: where its bytes lie within the model's bytes.
struct Payload {
  int64_t offset = 0;
  int64_t size = 0;
};

struct SplitModel {
  std::string lean;  // the ModelProto's bytes without the cut fields
  // Per initializer of the main graph (GraphProto.initializer, in order): its cut raw_data, or
  // nullopt when it had none (its data stays in the lean message).
  std::vector<std::optional<Payload>> initializers;
};

// Cuts the raw_data fields of the main graph's initializers out of a serialized ModelProto.
// Nothing else changes: parsing `lean` gives the same message but for those fields. nullopt
// when the bytes are not well-formed at the levels walked (ModelProto, its graph, the graph's
// initializers): the caller parses them whole, and protobuf says what is wrong.
std::optional<SplitModel> split_initializer_payloads(std::span<const std::byte> model);

// Where cut payloads are read from: the caller's bytes, or a file descriptor (pread, so the
// model file is read once into the tensors and never mapped resident).
class PayloadReader {
 public:
  static PayloadReader of_bytes(std::span<const std::byte> model) { return {model, -1}; }
  static PayloadReader of_file(int fd) { return {{}, fd}; }
  // Copies p's bytes to dst; geon::Error naming `where` when the file cannot be read.
  void read(const Payload& p, std::byte* dst, const std::string& where) const;

 private:
  PayloadReader(std::span<const std::byte> bytes, int fd) : bytes_(bytes), fd_(fd) {}
  std::span<const std::byte> bytes_;
  int fd_ = -1;
};

// A cut payload as decode_tensor takes it in place of raw_data.
struct CutRawData {
  const PayloadReader* reader = nullptr;
  Payload payload;
};

}  // namespace geon::importer
