// Checks the model-level fuzz targets make on the parsed ModelProto of an input:
// - which Loops are bounded (a Loop that legitimately runs 10^12 times is not a geon bug, so the
//   targets only run models whose every Loop has a known small trip count), and
// - whether an external-data location resolves outside base_dir (if such a model still
//   imports, the importer read a file it must not: the harness aborts).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace geon::fuzz {

// The largest trip count a Loop may have for the model to be run.
inline constexpr int64_t kMaxTripCount = 16;

struct LoopBounds {
  // Every Loop's trip count M is given, and is either a constant in [0, kMaxTripCount] (an
  // initializer or Constant output of its graph or an enclosing one) or a main-graph input.
  bool bounded = true;
  // The main-graph inputs used as some Loop's M: the harness feeds them values in
  // [0, kMaxTripCount].
  std::set<std::string> trip_count_inputs;
};

LoopBounds loop_bounds(const onnx::ModelProto& m);

// External-data locations of tensors the importer decodes (initializers, sparse initializers,
// tensor-typed attributes, in the main graph and every subgraph) that resolve, symlinks
// followed, outside `base`.
std::vector<std::string> escaping_locations(const onnx::ModelProto& m, const std::string& base);

}  // namespace geon::fuzz
