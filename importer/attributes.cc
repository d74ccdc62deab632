// AttributeProto -> Attribute. Graph attributes become nested Graphs built with the current
// graph as their parent, so bodies can read outer values.
#include "importer/attributes.h"
#include "core/base/error.h"

namespace geon::importer {

Attribute read_attribute(const onnx::AttributeProto& a, Graph& g, BuildState& st,
                         const std::string& where) {
  Attribute out;
  const std::string at = where + ": attribute '" + a.name() + "'";
  using K = Attribute::Kind;
  using P = onnx::AttributeProto;
  if (!a.ref_attr_name().empty())
    fail(ErrorCode::kInvalidArgument,
         at + " refers to '" + a.ref_attr_name() + "' outside a function body");
  switch (a.type()) {
    case P::FLOAT:
      out.kind = K::kFloat;
      out.f = a.f();
      break;
    case P::INT:
      out.kind = K::kInt;
      out.i = a.i();
      break;
    case P::STRING:
      out.kind = K::kString;
      out.s = a.s();
      break;
    case P::TENSOR:
      out.kind = K::kTensor;
      out.t = decode_tensor(a.t(), st.opt->base_dir, at);
      break;
    case P::SPARSE_TENSOR:
      out.kind = K::kSparseTensor;
      out.t = decode_sparse_tensor(a.sparse_tensor(), st.opt->base_dir, at);
      break;
    case P::GRAPH:
      out.kind = K::kGraph;
      out.g = build_graph(a.g(), &g, st, g.axis_factory);
      break;
    case P::FLOATS:
      out.kind = K::kFloats;
      out.floats.assign(a.floats().begin(), a.floats().end());
      break;
    case P::INTS:
      out.kind = K::kInts;
      out.ints.assign(a.ints().begin(), a.ints().end());
      break;
    case P::STRINGS:
      out.kind = K::kStrings;
      out.strings.assign(a.strings().begin(), a.strings().end());
      break;
    case P::TENSORS:
      out.kind = K::kTensors;
      for (const auto& t : a.tensors())
        out.tensors.push_back(decode_tensor(t, st.opt->base_dir, at));
      break;
    case P::GRAPHS:
      out.kind = K::kGraphs;
      for (const auto& sub : a.graphs())
        out.graphs.push_back(build_graph(sub, &g, st, g.axis_factory));
      break;
    case P::TYPE_PROTO: {
      out.kind = K::kTypeProto;
      Value v;
      read_type(a.tp(), g, at, v);
      out.types.push_back(v.type);
      break;
    }
    case P::TYPE_PROTOS:
      out.kind = K::kTypeProtos;
      for (const auto& tp : a.type_protos()) {
        Value v;
        read_type(tp, g, at, v);
        out.types.push_back(v.type);
      }
      break;
    default:
      fail(ErrorCode::kInvalidArgument,
           at + ": unknown attribute type " + std::to_string(a.type()));
  }
  return out;
}

}  // namespace geon::importer
