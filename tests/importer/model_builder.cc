// GraphBuilder over the ONNX protobuf classes.
#include "tests/importer/model_builder.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>

#include "core/dtype/scalar.h"

namespace geon::testing_models {

struct GraphBuilder::Impl {
  onnx::GraphProto g;
};

std::shared_ptr<GraphBuilder::Impl> GraphBuilder::make_impl(const std::string& name) {
  auto i = std::make_shared<Impl>();
  i->g.set_name(name);
  return i;
}

namespace {

void fill_tensor(onnx::TensorProto& t, DType dtype, const std::vector<int64_t>& dims,
                 const std::vector<double>& values) {
  t.set_data_type(static_cast<int>(dtype));
  for (int64_t d : dims) t.add_dims(d);
  std::string raw(static_cast<size_t>(dtype_bytes_for(dtype, static_cast<int64_t>(values.size()))),
                  '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    Scalar s;
    s.kind = Scalar::Kind::kFloat;
    s.re = values[i];
    store_scalar(dtype, raw.data(), static_cast<int64_t>(i), s);
  }
  t.set_raw_data(raw);
}

void set_tensor_type(onnx::TypeProto& tp, DType t, const std::vector<Dim>& dims, bool has_shape) {
  auto* tt = tp.mutable_tensor_type();
  if (t != DType::kUndefined) tt->set_elem_type(static_cast<int>(t));
  if (!has_shape) return;
  auto* shape = tt->mutable_shape();
  for (const Dim& d : dims) {
    auto* dim = shape->add_dim();
    if (std::holds_alternative<int64_t>(d))
      dim->set_dim_value(std::get<int64_t>(d));
    else
      dim->set_dim_param(std::get<std::string>(d));
  }
}

void set_type(onnx::ValueInfoProto& vi, DType t, const std::vector<Dim>& dims, bool has_shape) {
  set_tensor_type(*vi.mutable_type(), t, dims, has_shape);
}

}  // namespace

Attr Attr::type(std::string name, TypeKind kind, DType t) {
  Attr a;
  a.name = std::move(name);
  a.type_value = ValueType{kind, t, TypeKind::kTensor};
  return a;
}

GraphBuilder& GraphBuilder::input_sequence(const std::string& name, DType t,
                                           std::vector<Dim> dims) {
  auto* vi = impl_->g.add_input();
  vi->set_name(name);
  set_tensor_type(*vi->mutable_type()->mutable_sequence_type()->mutable_elem_type(), t, dims, true);
  return *this;
}

GraphBuilder& GraphBuilder::input_optional(const std::string& name, DType t, std::vector<Dim> dims,
                                           bool of_sequence) {
  auto* vi = impl_->g.add_input();
  vi->set_name(name);
  onnx::TypeProto* elem = vi->mutable_type()->mutable_optional_type()->mutable_elem_type();
  if (of_sequence) elem = elem->mutable_sequence_type()->mutable_elem_type();
  set_tensor_type(*elem, t, dims, true);
  return *this;
}

namespace {
void set_map_type(onnx::TypeProto& tp, DType key, DType value) {
  auto* m = tp.mutable_map_type();
  m->set_key_type(static_cast<int>(key));
  m->mutable_value_type()->mutable_tensor_type()->set_elem_type(static_cast<int>(value));
}
}  // namespace

GraphBuilder& GraphBuilder::input_map(const std::string& name, DType key, DType value) {
  auto* vi = impl_->g.add_input();
  vi->set_name(name);
  set_map_type(*vi->mutable_type(), key, value);
  return *this;
}

GraphBuilder& GraphBuilder::input_map_sequence(const std::string& name, DType key, DType value) {
  auto* vi = impl_->g.add_input();
  vi->set_name(name);
  set_map_type(*vi->mutable_type()->mutable_sequence_type()->mutable_elem_type(), key, value);
  return *this;
}

Attr Attr::tensor(std::string name, DType t, std::vector<int64_t> dims,
                  std::vector<double> values) {
  Attr a;
  a.name = std::move(name);
  a.tensor_dtype = t;
  a.tensor_dims = std::move(dims);
  a.tensor_values = std::move(values);
  return a;
}

GraphBuilder& GraphBuilder::input(const std::string& name, DType t, std::vector<Dim> dims) {
  auto* vi = impl_->g.add_input();
  vi->set_name(name);
  set_type(*vi, t, dims, true);
  return *this;
}

GraphBuilder& GraphBuilder::input_unranked(const std::string& name, DType t) {
  auto* vi = impl_->g.add_input();
  vi->set_name(name);
  set_type(*vi, t, {}, false);
  return *this;
}

GraphBuilder& GraphBuilder::initializer(const std::string& name, DType t, std::vector<int64_t> dims,
                                        std::vector<double> values) {
  auto* init = impl_->g.add_initializer();
  init->set_name(name);
  fill_tensor(*init, t, dims, values);
  return *this;
}

GraphBuilder& GraphBuilder::node(const std::string& op, std::vector<std::string> inputs,
                                 std::vector<std::string> outputs, std::vector<Attr> attrs,
                                 const std::string& domain) {
  auto* n = impl_->g.add_node();
  n->set_op_type(op);
  n->set_domain(domain);
  n->set_name(op + "_" + std::to_string(impl_->g.node_size()));
  for (auto& i : inputs) n->add_input(i);
  for (auto& o : outputs) n->add_output(o);
  for (const Attr& a : attrs) {
    auto* p = n->add_attribute();
    p->set_name(a.name);
    if (a.type_value) {
      p->set_type(onnx::AttributeProto::TYPE_PROTO);
      onnx::TypeProto* tp = p->mutable_tp();
      if (a.type_value->kind == TypeKind::kSequence)
        tp = tp->mutable_sequence_type()->mutable_elem_type();
      tp->mutable_tensor_type()->set_elem_type(static_cast<int>(a.type_value->dtype));
      continue;
    }
    if (a.tensor_dtype != DType::kUndefined) {
      p->set_type(onnx::AttributeProto::TENSOR);
      fill_tensor(*p->mutable_t(), a.tensor_dtype, a.tensor_dims, a.tensor_values);
      continue;
    }
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, int64_t>) {
            p->set_type(onnx::AttributeProto::INT);
            p->set_i(v);
          } else if constexpr (std::is_same_v<V, float>) {
            p->set_type(onnx::AttributeProto::FLOAT);
            p->set_f(v);
          } else if constexpr (std::is_same_v<V, std::string>) {
            p->set_type(onnx::AttributeProto::STRING);
            p->set_s(v);
          } else if constexpr (std::is_same_v<V, std::vector<int64_t>>) {
            p->set_type(onnx::AttributeProto::INTS);
            for (auto x : v) p->add_ints(x);
          } else if constexpr (std::is_same_v<V, std::vector<float>>) {
            p->set_type(onnx::AttributeProto::FLOATS);
            for (auto x : v) p->add_floats(x);
          } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
            p->set_type(onnx::AttributeProto::STRINGS);
            for (auto& x : v) p->add_strings(x);
          } else {
            p->set_type(onnx::AttributeProto::GRAPH);
            *p->mutable_g() = v->impl()->g;
          }
        },
        a.value);
  }
  return *this;
}

GraphBuilder& GraphBuilder::output(const std::string& name, DType t, std::vector<Dim> dims,
                                   bool has_shape) {
  auto* vi = impl_->g.add_output();
  vi->set_name(name);
  set_type(*vi, t, dims, has_shape);
  return *this;
}

std::string model_bytes(const GraphBuilder& g, int opset,
                        std::vector<std::pair<std::string, int>> extra_opsets) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("geon-tests");
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(opset);
  for (auto& [d, v] : extra_opsets) {
    auto* e = m.add_opset_import();
    e->set_domain(d);
    e->set_version(v);
  }
  *m.mutable_graph() = g.impl()->g;
  std::string out;
  m.SerializeToString(&out);
  return out;
}

ImportedModel import(const GraphBuilder& g, int opset, ImportOptions opt) {
  const std::string bytes = model_bytes(g, opset);
  opt.trust_value_info = false;
  return import_model_bytes(std::as_bytes(std::span(bytes.data(), bytes.size())), opt);
}

const Value& output_value(const ImportedModel& m, const std::string& name) {
  const int i = m.graph->find(name);
  if (i < 0) throw std::runtime_error("no value named " + name);
  return m.graph->value(i);
}

Value output_value(ImportedModel&& m, const std::string& name) {
  return output_value(static_cast<const ImportedModel&>(m), name);
}

std::vector<int64_t> static_dims(const Value& v) {
  EXPECT_TRUE(v.rank_known) << v.name << " has unknown rank";
  auto s = static_lengths(v.axes);
  EXPECT_TRUE(s.has_value()) << v.name << " has non-static lengths "
                             << to_string_with_lengths(v.axes);
  return s.value_or(std::vector<int64_t>{});
}

}  // namespace geon::testing_models
