// Bounded Loops and escaping external-data locations, over a parsed ModelProto.
#include "model_checks.h"

#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

namespace geon::fuzz {

namespace fs = std::filesystem;

namespace {

// The value of a scalar (or one-element) integer tensor stored in the proto itself.
std::optional<int64_t> small_int(const onnx::TensorProto& t) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
  if (t.data_type() == onnx::TensorProto::INT64) {
    if (t.int64_data_size() == 1) return t.int64_data(0);
    if (t.raw_data().size() == 8) {
      int64_t v;
      std::memcpy(&v, t.raw_data().data(), 8);
      return v;
    }
  }
  if (t.data_type() == onnx::TensorProto::INT32) {
    if (t.int32_data_size() == 1) return t.int32_data(0);
    if (t.raw_data().size() == 4) {
      int32_t v;
      std::memcpy(&v, t.raw_data().data(), 4);
      return v;
    }
  }
  return std::nullopt;
}

struct Scope {
  const Scope* outer = nullptr;
  std::map<std::string, std::optional<int64_t>> constants;  // nullopt: known, not small
  std::set<std::string> main_inputs;                        // main graph only
  std::optional<int64_t> find(const std::string& name) const {
    for (const Scope* s = this; s; s = s->outer)
      if (auto it = s->constants.find(name); it != s->constants.end()) return it->second;
    return std::nullopt;
  }
  bool is_main_input(const std::string& name) const {
    for (const Scope* s = this; s; s = s->outer)
      if (s->main_inputs.count(name)) return true;
    return false;
  }
};

void walk_loops(const onnx::GraphProto& g, const Scope* outer, bool main, LoopBounds& out) {
  Scope scope;
  scope.outer = outer;
  for (const auto& t : g.initializer()) scope.constants[t.name()] = small_int(t);
  if (main)
    for (const auto& i : g.input())
      if (!scope.constants.count(i.name())) scope.main_inputs.insert(i.name());
  for (const auto& n : g.node()) {
    if (n.op_type() == "Constant" && n.output_size() == 1) {
      std::optional<int64_t> v;
      for (const auto& a : n.attribute()) {
        if (a.name() == "value" && a.has_t()) v = small_int(a.t());
        if (a.name() == "value_int") v = a.i();
      }
      scope.constants[n.output(0)] = v;
    }
  }
  for (const auto& n : g.node()) {
    if (n.op_type() == "Loop") {
      const std::string m = n.input_size() > 0 ? n.input(0) : "";
      if (m.empty()) {
        out.bounded = false;
      } else if (scope.is_main_input(m) && !scope.find(m)) {
        out.trip_count_inputs.insert(m);
      } else {
        const auto v = scope.find(m);
        if (!v || *v < 0 || *v > kMaxTripCount) out.bounded = false;
      }
    }
    for (const auto& a : n.attribute()) {
      if (a.has_g()) walk_loops(a.g(), &scope, false, out);
      for (const auto& sub : a.graphs()) walk_loops(sub, &scope, false, out);
    }
  }
}

bool escapes(const onnx::TensorProto& t, const fs::path& base) {
  // Strings are never stored externally (ONNX has no byte layout for them): none is read.
  if (t.data_location() != onnx::TensorProto::EXTERNAL ||
      t.data_type() == onnx::TensorProto::STRING)
    return false;
  // The last "location" counts, as in onnx's own loader (a dict of the entries).
  std::string location;
  for (const auto& e : t.external_data())
    if (e.key() == "location") location = e.value();
  if (location.empty()) return false;
  std::error_code ec;
  const fs::path loc(location);
  const fs::path full = fs::weakly_canonical(loc.is_absolute() ? loc : base / loc, ec);
  if (ec) return false;
  const fs::path rel = full.lexically_relative(base);
  return rel.empty() || *rel.begin() == "..";
}

void walk_escapes(const onnx::GraphProto& g, const fs::path& base, std::vector<std::string>& out) {
  auto check = [&](const onnx::TensorProto& t, const std::string& what) {
    if (escapes(t, base)) out.push_back(what + " '" + t.name() + "'");
  };
  for (const auto& t : g.initializer()) check(t, "initializer");
  for (const auto& s : g.sparse_initializer()) {
    check(s.values(), "sparse initializer values");
    check(s.indices(), "sparse initializer indices");
  }
  for (const auto& n : g.node()) {
    for (const auto& a : n.attribute()) {
      switch (a.type()) {
        case onnx::AttributeProto::TENSOR:
          check(a.t(), "attribute");
          break;
        case onnx::AttributeProto::TENSORS:
          for (const auto& t : a.tensors()) check(t, "attribute");
          break;
        case onnx::AttributeProto::SPARSE_TENSOR:
          check(a.sparse_tensor().values(), "sparse attribute");
          check(a.sparse_tensor().indices(), "sparse attribute");
          break;
        case onnx::AttributeProto::GRAPH:
          walk_escapes(a.g(), base, out);
          break;
        case onnx::AttributeProto::GRAPHS:
          for (const auto& sub : a.graphs()) walk_escapes(sub, base, out);
          break;
        default:
          break;
      }
    }
  }
}

}  // namespace

LoopBounds loop_bounds(const onnx::ModelProto& m) {
  LoopBounds out;
  if (m.has_graph()) walk_loops(m.graph(), nullptr, true, out);
  // Model-local functions: a Loop inside one takes M from the call site; not traced, so such
  // a model is not run.
  for (const auto& f : m.functions())
    for (const auto& n : f.node())
      if (n.op_type() == "Loop") out.bounded = false;
  return out;
}

std::vector<std::string> escaping_locations(const onnx::ModelProto& m, const std::string& base) {
  std::vector<std::string> out;
  std::error_code ec;
  const fs::path b = fs::weakly_canonical(base, ec);
  if (m.has_graph()) walk_escapes(m.graph(), b, out);
  return out;
}

}  // namespace geon::fuzz
