// Inline expansion of function calls, recursively, with a bound on depth and on the number of
// nodes produced so that a self-referencing model cannot expand forever.
#include "importer/functions.h"

#include <onnx/defs/schema.h>

#include <unordered_map>

#include "core/base/error.h"
#include "importer/rule.h"

namespace geon::importer {

namespace {

constexpr int kMaxExpansionDepth = 32;
constexpr size_t kMaxExpandedNodes = 1 << 20;

// The function body to use for this node, or null when the node stays as it is.
const onnx::FunctionProto* body_for(const onnx::NodeProto& n, BuildState& st) {
  const std::string domain = normal_domain(n.domain());
  auto local = st.functions.find({domain, n.op_type()});
  if (local != st.functions.end()) return local->second;
  auto os = st.opsets.find(domain);
  if (os == st.opsets.end()) return nullptr;
  bool known = false;
  if (find_rule(domain, n.op_type(), os->second, &known)) return nullptr;
  // A standard op without a direct rule: use ONNX's own function definition, if any.
  const auto* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), os->second, domain);
  if (!schema) return nullptr;
  if (schema->HasFunction()) return schema->GetFunction();
  return nullptr;
}

void expand_into(const onnx::NodeProto& call, const onnx::FunctionProto& fn, int call_id,
                 ExpandedNodes& out, BuildState& st, int depth, const std::string& where);

void emit(const onnx::NodeProto& n, ExpandedNodes& out, BuildState& st, int depth, int& counter,
          const std::string& where) {
  const onnx::FunctionProto* fn = body_for(n, st);
  if (!fn) {
    if (out.size() >= kMaxExpandedNodes)
      fail(ErrorCode::kResourceExhausted, where + ": function expansion produced too many nodes");
    out.add(n);
    return;
  }
  if (depth >= kMaxExpansionDepth)
    fail(ErrorCode::kInvalidArgument,
         where + ": function '" + n.op_type() + "' expands deeper than " +
             std::to_string(kMaxExpansionDepth) + " levels (recursive functions?)");
  expand_into(n, *fn, counter++, out, st, depth + 1, where);
}

void expand_into(const onnx::NodeProto& call, const onnx::FunctionProto& fn, int call_id,
                 ExpandedNodes& out, BuildState& st, int depth, const std::string& where) {
  const std::string prefix =
      (call.name().empty() ? call.op_type() : call.name()) + "/" + std::to_string(call_id) + "/";
  std::unordered_map<std::string, std::string> rename;
  for (int i = 0; i < fn.input_size(); ++i)
    rename[fn.input(i)] = i < call.input_size() ? call.input(i) : std::string();
  for (int i = 0; i < fn.output_size(); ++i)
    rename[fn.output(i)] = i < call.output_size() ? call.output(i) : std::string();
  std::unordered_map<std::string, const onnx::AttributeProto*> given;
  for (const auto& a : call.attribute()) given[a.name()] = &a;
  // Defaults declared by the function (FunctionProto.attribute_proto, ONNX >= 1.13) are not in
  // the 1.12 classes; a missing reference simply drops the attribute, as ONNX specifies.
  auto name_of = [&](const std::string& s) {
    if (s.empty()) return s;
    auto it = rename.find(s);
    if (it != rename.end()) return it->second;
    return rename[s] = prefix + s;
  };
  int counter = 0;
  for (const auto& body_node : fn.node()) {
    onnx::NodeProto& n = out.copy(body_node);
    n.set_name(prefix + body_node.name());
    for (auto& in : *n.mutable_input()) in = name_of(in);
    for (auto& o : *n.mutable_output()) o = name_of(o);
    auto* attrs = n.mutable_attribute();
    for (int k = 0; k < attrs->size();) {
      auto& a = (*attrs)[k];
      if (a.ref_attr_name().empty()) {
        ++k;
        continue;
      }
      auto it = given.find(a.ref_attr_name());
      if (it == given.end()) {
        attrs->DeleteSubrange(k, 1);
        continue;
      }
      const std::string keep = a.name();
      a = *it->second;
      a.set_name(keep);
      ++k;
    }
    emit(n, out, st, depth, counter, where);
  }
}

}  // namespace

void expand_functions(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes,
                      BuildState& st, const std::string& where, ExpandedNodes& out) {
  int counter = 0;
  for (const auto& n : nodes) emit(n, out, st, 0, counter, where);
}

}  // namespace geon::importer
