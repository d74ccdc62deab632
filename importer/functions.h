// Function expansion: a call to a model-local function (FunctionProto), or to a standard op
// that ONNX defines as a function and geon has no direct rule for, is replaced by the
// function's body, with fresh value names and attribute references substituted.
#pragma once

#include <google/protobuf/arena.h>

#include <string>
#include <vector>

#include "importer/graph_builder.h"

namespace geon::importer {

// A graph's nodes after expansion: its own by address, the expanded ones copied onto an arena
// (protobuf's copies leak what they have half built when an allocation fails; the arena frees
// everything, whatever happened).
class ExpandedNodes {
 public:
  size_t size() const { return nodes_.size(); }
  const onnx::NodeProto& operator[](size_t i) const { return *nodes_[i]; }
  void add(const onnx::NodeProto& n) { nodes_.push_back(&n); }
  // A copy of n that lives as long as this list.
  onnx::NodeProto& copy(const onnx::NodeProto& n) {
    onnx::NodeProto* c = google::protobuf::Arena::CreateMessage<onnx::NodeProto>(&arena_);
    c->CopyFrom(n);
    return *c;
  }

 private:
  google::protobuf::Arena arena_;
  std::vector<const onnx::NodeProto*> nodes_;
};

// Fills `out` (empty) with `nodes`, function calls replaced by their bodies.
void expand_functions(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes,
                      BuildState& st, const std::string& where, ExpandedNodes& out);

}  // namespace geon::importer
