// Output comparison as the ONNX backend test harness does it: dtype and shape exactly, values
// with |got - expected| <= atol + rtol * |expected| for floating types (NaN equals NaN,
// infinities must match), integers and bools exactly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tools/common/host_tensor.h"

namespace geon::tools {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
};

struct Mismatch {
  std::string what;    // "dtype", "shape" or "value"
  int64_t index = -1;  // flat, row-major, for value mismatches
  std::string got;
  std::string expected;
  int64_t mismatches = 0;  // how many elements differ (value mismatches)
};

// nullopt when `got` matches `expected`.
std::optional<Mismatch> compare_tensors(const HostTensor& got, const HostTensor& expected,
                                        const Tolerance& tol);

// One line: "output 'y': value at index 5 (of 3 mismatches): got 1.5, expected 1.25".
std::string describe(const Mismatch& m, const std::string& output_name);

}  // namespace geon::tools
