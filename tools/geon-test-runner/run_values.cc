#include "tools/geon-test-runner/run_values.h"

#include <filesystem>
#include <map>

#include "tools/common/value_proto.h"

namespace geon::tools {
namespace {

const char* kind_name(GeonValueKind k) {
  switch (k) {
    case GEON_VALUE_TENSOR:
      return "a tensor";
    case GEON_VALUE_SEQUENCE:
      return "a sequence";
    case GEON_VALUE_MAP:
      return "a map";
    case GEON_VALUE_MAP_SEQUENCE:
      return "a sequence of maps";
    default:
      return "none";
  }
}

// How a mismatch names tensor k of a value: "name' element 3 '", "name' map 1 values '".
std::string part_name(const HostValue& v, const std::string& name, size_t k) {
  const char* half = k % 2 == 0 ? " keys" : " values";
  switch (v.kind) {
    case GEON_VALUE_SEQUENCE:
      return name + "' element " + std::to_string(k) + " '";
    case GEON_VALUE_MAP:
      return name + "'" + half + " '";
    case GEON_VALUE_MAP_SEQUENCE:
      return name + "' map " + std::to_string(k / 2) + half + " '";
    default:
      return name;
  }
}

// Empty when `got` matches `want`.
std::string compare_values(const HostValue& got, const HostValue& want, const std::string& name,
                           const Tolerance& tol) {
  if (got.kind != want.kind)
    return "output '" + name + "': got " + kind_name(got.kind) + ", expected " +
           kind_name(want.kind);
  if (got.tensors.size() != want.tensors.size())
    return "output '" + name + "': got " + std::to_string(got.tensors.size()) +
           " elements, expected " + std::to_string(want.tensors.size());
  for (size_t k = 0; k < want.tensors.size(); ++k)
    if (auto m = compare_tensors(got.tensors[k], want.tensors[k], tol))
      return describe(*m, part_name(want, name, k));
  return "";
}

}  // namespace

bool takes_values(const std::vector<geon::api::ValueInfo>& inputs,
                  const std::vector<geon::api::ValueInfo>& outputs) {
  for (const auto& v : inputs)
    if (is_value_type(v.type)) return true;
  for (const auto& v : outputs)
    if (is_value_type(v.type)) return true;
  return false;
}

std::string run_value_set(const geon::api::Session& session, const DataSet& set,
                          const std::vector<geon::api::ValueInfo>& inputs,
                          const std::vector<geon::api::ValueInfo>& outputs, const Tolerance& tol) {
  // Inputs by position (the harness feeds input_N to the N-th input), renamed by the name a
  // file stores when that names a model input.
  std::vector<HostValue> values;
  for (size_t i = 0; i < set.inputs.size(); ++i) {
    if (i >= inputs.size())
      throw ToolError(set.inputs[i] + ": the model has only " + std::to_string(inputs.size()) +
                      " inputs");
    HostValue v = read_value_file(set.inputs[i], inputs[i].type);
    bool named = false;
    for (const auto& in : inputs) named = named || (!v.name.empty() && in.name == v.name);
    if (!named) v.name = inputs[i].name;
    values.push_back(std::move(v));
  }
  std::vector<geon::api::ValueFeed> feeds;
  for (const HostValue& v : values) feeds.push_back(to_value_feed(v));
  const geon::api::Result result = session.run_values(feeds);
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < result.size(); ++i) by_name[result.name(i)] = i;
  const std::string set_name = std::filesystem::path(set.dir).filename().string();
  for (size_t k = 0; k < set.outputs.size() && k < outputs.size(); ++k) {
    const HostValue want = read_value_file(set.outputs[k], outputs[k].type);
    const std::string& name = outputs[k].name;
    auto it = by_name.find(name);
    if (it == by_name.end()) return "output '" + name + "' was not produced";
    const std::string why = compare_values(value_from_result(result, it->second), want, name, tol);
    if (!why.empty()) return set_name + ": " + why;
  }
  return "";
}

}  // namespace geon::tools
