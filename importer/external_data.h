// Reading tensor bytes stored outside the model file. Locations are untrusted input: only
// relative paths inside the model's directory are read, and every refusal has its own message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace geon {

struct ExternalDataRef {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;  // -1: to the end of what the tensor needs
};

// Reads `expected_bytes` bytes for the tensor named by `where` ("initializer 'W'") from ref
// relative to base_dir into the memory `destination()` gives (called once, after every check
// passed, so nothing is allocated for a refused reference), after
// checking: base_dir given; location relative, without '..' segments, and (after resolving
// symlinks) inside base_dir; the file exists; offset and length fit inside the file; length,
// when given, equals expected_bytes. Throws geon::Error otherwise.
void read_external_data(const ExternalDataRef& ref, const std::string& base_dir,
                        int64_t expected_bytes, const std::string& where,
                        const std::function<std::byte*()>& destination);

}  // namespace geon
