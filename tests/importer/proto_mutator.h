// Field-aware mutations of a parsed ModelProto for the robustness test. Byte edits mostly stop
// at the protobuf parser; these keep the model parseable and change what the importer and
// its rules see: attribute values and types, node inputs and outputs, op types (to any op
// that has a rule), declared input types and dims, initializer dims, types and contents
// (shape-like values set to extremes), and the opset version.
#pragma once

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "importer/rule.h"

namespace geon::testing_protos {

class ProtoMutator {
 public:
  explicit ProtoMutator(std::mt19937_64& rng) : rng_(rng) {}

  // Applies 1-3 mutations to m.
  void mutate(onnx::ModelProto& m) {
    collect(m);
    const int n = pick(1, 3);
    for (int k = 0; k < n; ++k) once(m);
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  template <class T>
  T& any(std::vector<T>& v) {
    return v[static_cast<size_t>(pick(0, static_cast<int>(v.size()) - 1))];
  }

  int64_t extreme_int() {
    static const int64_t kValues[] = {0,
                                      1,
                                      -1,
                                      2,
                                      -2,
                                      3,
                                      7,
                                      64,
                                      int64_t{1} << 20,
                                      int64_t{1} << 31,
                                      -(int64_t{1} << 31),
                                      int64_t{1} << 40,
                                      std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<int64_t>::min()};
    return kValues[pick(0, std::size(kValues) - 1)];
  }
  float extreme_float() {
    static const float kValues[] = {0.f,    1.f, -1.f,     0.5f,      1e30f, -1e30f,
                                    1e-30f, NAN, INFINITY, -INFINITY, 3.f,   1e9f};
    return kValues[pick(0, std::size(kValues) - 1)];
  }

  // Every node and graph of the model, nested graphs and function bodies included.
  void collect_graph(onnx::GraphProto& g) {
    graphs_.push_back(&g);
    for (auto& n : *g.mutable_node()) {
      nodes_.push_back(&n);
      for (auto& a : *n.mutable_attribute()) {
        if (a.has_g()) collect_graph(*a.mutable_g());
        for (auto& sub : *a.mutable_graphs()) collect_graph(sub);
      }
    }
  }
  void collect(onnx::ModelProto& m) {
    nodes_.clear();
    graphs_.clear();
    if (m.has_graph()) collect_graph(*m.mutable_graph());
    for (auto& f : *m.mutable_functions())
      for (auto& n : *f.mutable_node()) nodes_.push_back(&n);
    names_.clear();
    for (auto* g : graphs_) {
      for (const auto& i : g->input()) names_.push_back(i.name());
      for (const auto& t : g->initializer()) names_.push_back(t.name());
    }
    for (auto* n : nodes_)
      for (const auto& o : n->output()) names_.push_back(o);
  }

  // Sets one element of an integer or float tensor to an extreme value, in whatever encoding
  // it uses.
  void mutate_tensor_values(onnx::TensorProto& t) {
    const int64_t v = extreme_int();
    if (t.has_raw_data() && !t.raw_data().empty()) {
      std::string& raw = *t.mutable_raw_data();
      const size_t width =
          t.data_type() == onnx::TensorProto::INT64 ? 8
          : t.data_type() == onnx::TensorProto::INT32 || t.data_type() == onnx::TensorProto::FLOAT
              ? 4
              : 1;
      const size_t count = raw.size() / width;
      if (count == 0) return;
      const size_t at = static_cast<size_t>(pick(0, static_cast<int>(count) - 1)) * width;
      if (t.data_type() == onnx::TensorProto::FLOAT) {
        const float f = extreme_float();
        std::memcpy(&raw[at], &f, 4);
      } else {
        std::memcpy(&raw[at], &v, width);
      }
    } else if (t.int64_data_size()) {
      t.set_int64_data(pick(0, t.int64_data_size() - 1), v);
    } else if (t.int32_data_size()) {
      t.set_int32_data(pick(0, t.int32_data_size() - 1), static_cast<int32_t>(v));
    } else if (t.float_data_size()) {
      t.set_float_data(pick(0, t.float_data_size() - 1), extreme_float());
    }
  }

  void mutate_dims(google::protobuf::RepeatedField<int64_t>& dims) {
    switch (pick(0, 2)) {
      case 0:
        if (!dims.empty()) {
          dims.Set(pick(0, dims.size() - 1), extreme_int());
          break;
        }
        [[fallthrough]];
      case 1:
        dims.Add(pick(0, 4));
        break;
      default:
        if (!dims.empty()) dims.RemoveLast();
    }
  }

  void mutate_attribute(onnx::AttributeProto& a) {
    switch (pick(0, 9)) {
      case 0:
        a.set_type(static_cast<onnx::AttributeProto::AttributeType>(pick(0, 14)));
        return;
      case 1:
        a.set_i(extreme_int());
        a.set_type(onnx::AttributeProto::INT);
        return;
      default:
        break;
    }
    switch (a.type()) {
      case onnx::AttributeProto::INT:
        a.set_i(extreme_int());
        break;
      case onnx::AttributeProto::FLOAT:
        a.set_f(extreme_float());
        break;
      case onnx::AttributeProto::INTS:
        if (a.ints_size() && pick(0, 3))
          a.set_ints(pick(0, a.ints_size() - 1), extreme_int());
        else if (pick(0, 1))
          a.add_ints(extreme_int());
        else
          a.clear_ints();
        break;
      case onnx::AttributeProto::FLOATS:
        if (a.floats_size() && pick(0, 3))
          a.set_floats(pick(0, a.floats_size() - 1), extreme_float());
        else
          a.add_floats(extreme_float());
        break;
      case onnx::AttributeProto::STRING:
        a.set_s(pick(0, 1) ? "" : "NOTAMODE");
        break;
      case onnx::AttributeProto::TENSOR:
        if (pick(0, 2))
          mutate_tensor_values(*a.mutable_t());
        else
          mutate_dims(*a.mutable_t()->mutable_dims());
        break;
      default:
        a.set_type(onnx::AttributeProto::INTS);
        a.add_ints(extreme_int());
    }
  }

  void mutate_value_info(onnx::ValueInfoProto& vi) {
    auto* tt = vi.mutable_type()->mutable_tensor_type();
    switch (pick(0, 4)) {
      case 0:
        tt->set_elem_type(pick(0, 30));
        break;
      case 1:
        tt->clear_shape();
        break;
      case 2:
        tt->mutable_shape()->add_dim()->set_dim_value(pick(0, 3));
        break;
      case 3:
        if (tt->shape().dim_size()) tt->mutable_shape()->mutable_dim()->RemoveLast();
        break;
      default:
        if (tt->shape().dim_size()) {
          auto* d = tt->mutable_shape()->mutable_dim(pick(0, tt->shape().dim_size() - 1));
          if (pick(0, 1))
            d->set_dim_param("S");
          else
            d->set_dim_value(pick(0, 1) ? extreme_int() : pick(0, 5));
        }
    }
  }

  void mutate_node(onnx::NodeProto& n) {
    switch (pick(0, 9)) {
      case 0: {  // op type: any op with a rule
        const auto rules = importer::all_rules();
        n.set_op_type(std::string(rules[static_cast<size_t>(pick(0, rules.size() - 1))].op));
        n.set_domain("");
        break;
      }
      case 1:
        if (n.input_size()) n.mutable_input()->RemoveLast();
        break;
      case 2:
        n.add_input(names_.empty() ? "" : any(names_));
        break;
      case 3:
        if (n.input_size()) n.set_input(pick(0, n.input_size() - 1), "");
        break;
      case 4:
        if (n.input_size() && !names_.empty())
          n.set_input(pick(0, n.input_size() - 1), any(names_));
        break;
      case 5:
        if (n.output_size() > 1 && pick(0, 1))
          n.set_output(pick(1, n.output_size() - 1), "");
        else
          n.add_output("extra_" + std::to_string(pick(0, 1000)));
        break;
      case 6:
        if (n.attribute_size()) n.mutable_attribute()->RemoveLast();
        break;
      default:
        if (n.attribute_size())
          mutate_attribute(*n.mutable_attribute(pick(0, n.attribute_size() - 1)));
    }
  }

  void once(onnx::ModelProto& m) {
    const int kind = pick(0, 9);
    if (kind <= 4 && !nodes_.empty()) return mutate_node(*any(nodes_));
    if (graphs_.empty()) return;
    onnx::GraphProto& g = *any(graphs_);
    if (kind <= 6 && g.input_size())
      return mutate_value_info(*g.mutable_input(pick(0, g.input_size() - 1)));
    if (kind == 7 && g.initializer_size()) {
      auto& t = *g.mutable_initializer(pick(0, g.initializer_size() - 1));
      switch (pick(0, 3)) {
        case 0:
          mutate_dims(*t.mutable_dims());
          break;
        case 1:
          t.set_data_type(pick(0, 30));
          break;
        default:
          mutate_tensor_values(t);
      }
      return;
    }
    if (kind == 8 && m.opset_import_size()) {
      m.mutable_opset_import(0)->set_version(pick(1, 27));
      return;
    }
    if (!nodes_.empty()) mutate_node(*any(nodes_));
  }

  std::mt19937_64& rng_;
  std::vector<onnx::NodeProto*> nodes_;
  std::vector<onnx::GraphProto*> graphs_;
  std::vector<std::string> names_;
};

}  // namespace geon::testing_protos
