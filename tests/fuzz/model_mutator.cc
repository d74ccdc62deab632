// The structure-aware ModelProto mutations; see model_mutator.h.
#include "model_mutator.h"

#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>

namespace geon::fuzz {

namespace {

// Ops a node may become (besides those already in the model): the common ONNX ops, the
// shape-computing ones and the control flow that the importer treats specially.
const char* const kOps[] = {"Abs",
                            "Add",
                            "And",
                            "ArgMax",
                            "AveragePool",
                            "BatchNormalization",
                            "Cast",
                            "CastLike",
                            "Ceil",
                            "Clip",
                            "Concat",
                            "Constant",
                            "ConstantOfShape",
                            "Conv",
                            "ConvTranspose",
                            "CumSum",
                            "DepthToSpace",
                            "DequantizeLinear",
                            "Div",
                            "Dropout",
                            "Einsum",
                            "Equal",
                            "Expand",
                            "EyeLike",
                            "Flatten",
                            "Gather",
                            "GatherElements",
                            "GatherND",
                            "Gemm",
                            "GlobalAveragePool",
                            "GRU",
                            "Identity",
                            "If",
                            "InstanceNormalization",
                            "LayerNormalization",
                            "LRN",
                            "LSTM",
                            "Loop",
                            "MatMul",
                            "MaxPool",
                            "MaxUnpool",
                            "Mod",
                            "Mul",
                            "NonZero",
                            "OneHot",
                            "Pad",
                            "Pow",
                            "QuantizeLinear",
                            "Range",
                            "ReduceMax",
                            "ReduceMean",
                            "ReduceSum",
                            "Relu",
                            "Reshape",
                            "Resize",
                            "RNN",
                            "Scan",
                            "ScatterElements",
                            "ScatterND",
                            "Shape",
                            "Size",
                            "Slice",
                            "Softmax",
                            "SpaceToDepth",
                            "Split",
                            "Squeeze",
                            "Tile",
                            "TopK",
                            "Transpose",
                            "Trilu",
                            "Unique",
                            "Unsqueeze",
                            "Where",
                            "CenterCropPad",
                            "Col2Im",
                            "GridSample",
                            "RoiAlign",
                            "SequenceConstruct",
                            "SequenceAt",
                            "SplitToSequence",
                            "ConcatFromSequence",
                            "Optional",
                            "OptionalGetElement",
                            "DFT",
                            "STFT",
                            "MatMulInteger",
                            "QLinearConv",
                            "ReverseSequence",
                            "Compress",
                            "Det",
                            "NonMaxSuppression",
                            "Upsample",
                            "BitShift",
                            "Hardmax",
                            "Bernoulli"};

const char* const kAttributeNames[] = {"axis",
                                       "axes",
                                       "perm",
                                       "pads",
                                       "strides",
                                       "kernel_shape",
                                       "dilations",
                                       "group",
                                       "to",
                                       "keepdims",
                                       "mode",
                                       "value",
                                       "then_branch",
                                       "else_branch",
                                       "body",
                                       "split",
                                       "starts",
                                       "ends",
                                       "auto_pad",
                                       "ceil_mode",
                                       "output_padding",
                                       "output_shape",
                                       "blocksize",
                                       "k",
                                       "largest",
                                       "sorted",
                                       "direction",
                                       "hidden_size",
                                       "exclusive",
                                       "reverse",
                                       "alpha",
                                       "beta",
                                       "epsilon",
                                       "transA",
                                       "transB",
                                       "batch_dims",
                                       "num_scan_inputs",
                                       "scan_input_axes"};

const char* const kDomains[] = {
    "", "ai.onnx", "ai.onnx.ml", "com.microsoft", "local", "ai.onnx.preview.training"};

const char* const kOffsets[] = {"0",
                                "1",
                                "4",
                                "65535",
                                "65536",
                                "65537",
                                "-1",
                                "1099511627776",
                                "9223372036854775807",
                                "-9223372036854775808",
                                "abc",
                                "",
                                "12x",
                                "99999999999999999999"};

}  // namespace

int64_t ModelMutator::extreme_int() {
  static const int64_t kValues[] = {0,
                                    1,
                                    -1,
                                    2,
                                    -2,
                                    3,
                                    5,
                                    64,
                                    255,
                                    int64_t{1} << 16,
                                    int64_t{1} << 20,
                                    int64_t{1} << 31,
                                    -(int64_t{1} << 31),
                                    int64_t{1} << 32,
                                    int64_t{1} << 40,
                                    int64_t{1} << 62,
                                    std::numeric_limits<int64_t>::max(),
                                    std::numeric_limits<int64_t>::min(),
                                    std::numeric_limits<int64_t>::min() + 1};
  if (one_in(3)) return pick(-4, 8);
  return kValues[pick(0, static_cast<int>(std::size(kValues)) - 1)];
}

float ModelMutator::extreme_float() {
  static const float kValues[] = {0.f,    -0.f,   1.f,    -1.f,    0.5f,     1e30f,
                                  -1e30f, 1e-30f, NAN,    -NAN,    INFINITY, -INFINITY,
                                  3.f,    1e9f,   1e-45f, 3.4e38f, -3.4e38f, 2.f};
  return kValues[pick(0, static_cast<int>(std::size(kValues)) - 1)];
}

std::string ModelMutator::any_name() {
  if (names_.empty() || one_in(8)) return one_in(2) ? "" : "fresh_" + std::to_string(pick(0, 9));
  return names_[static_cast<size_t>(pick(0, static_cast<int>(names_.size()) - 1))];
}

void ModelMutator::collect_graph(onnx::GraphProto& g) {
  graphs_.push_back(&g);
  for (auto& t : *g.mutable_initializer()) tensors_.push_back(&t);
  for (auto& s : *g.mutable_sparse_initializer()) {
    tensors_.push_back(s.mutable_values());
    tensors_.push_back(s.mutable_indices());
  }
  for (const auto& i : g.input()) names_.push_back(i.name());
  for (const auto& t : g.initializer()) names_.push_back(t.name());
  for (auto& n : *g.mutable_node()) {
    nodes_.push_back(&n);
    ops_.push_back(n.op_type());
    for (const auto& o : n.output()) names_.push_back(o);
    for (auto& a : *n.mutable_attribute()) {
      attributes_.push_back(&a);
      if (a.has_t()) tensors_.push_back(a.mutable_t());
      for (auto& t : *a.mutable_tensors()) tensors_.push_back(&t);
      if (a.has_g()) collect_graph(*a.mutable_g());
      for (auto& sub : *a.mutable_graphs()) collect_graph(sub);
    }
  }
}

void ModelMutator::collect(onnx::ModelProto& m) {
  nodes_.clear();
  graphs_.clear();
  tensors_.clear();
  attributes_.clear();
  names_.clear();
  ops_.clear();
  if (m.has_graph()) collect_graph(*m.mutable_graph());
  for (auto& f : *m.mutable_functions()) {
    for (const auto& i : f.input()) names_.push_back(i);
    for (auto& n : *f.mutable_node()) {
      nodes_.push_back(&n);
      for (auto& a : *n.mutable_attribute()) attributes_.push_back(&a);
    }
  }
}

void ModelMutator::mutate(onnx::ModelProto& m) {
  const int n = pick(1, 4);
  for (int k = 0; k < n; ++k) {
    collect(m);  // again: a mutation may have moved or removed what the lists point at
    once(m);
  }
}

void ModelMutator::mutate_tensor_values(onnx::TensorProto& t) {
  const int64_t v = extreme_int();
  if (!t.raw_data().empty()) {
    std::string& raw = *t.mutable_raw_data();
    const int dt = t.data_type();
    const size_t width = dt == onnx::TensorProto::INT64 || dt == onnx::TensorProto::DOUBLE  ? 8
                         : dt == onnx::TensorProto::INT32 || dt == onnx::TensorProto::FLOAT ? 4
                         : dt == onnx::TensorProto::FLOAT16                                 ? 2
                                                                                            : 1;
    const size_t count = raw.size() / width;
    if (count == 0) return;
    const size_t at = static_cast<size_t>(pick(0, static_cast<int>(count) - 1)) * width;
    if (dt == onnx::TensorProto::FLOAT) {
      const float f = extreme_float();
      std::memcpy(&raw[at], &f, 4);
    } else if (dt == onnx::TensorProto::DOUBLE) {
      const double d = extreme_float();
      std::memcpy(&raw[at], &d, 8);
    } else {
      std::memcpy(&raw[at], &v, width);
    }
  } else if (t.int64_data_size()) {
    t.set_int64_data(pick(0, t.int64_data_size() - 1), v);
  } else if (t.int32_data_size()) {
    t.set_int32_data(pick(0, t.int32_data_size() - 1), static_cast<int32_t>(v));
  } else if (t.float_data_size()) {
    t.set_float_data(pick(0, t.float_data_size() - 1), extreme_float());
  } else if (t.double_data_size()) {
    t.set_double_data(pick(0, t.double_data_size() - 1), extreme_float());
  } else if (t.uint64_data_size()) {
    t.set_uint64_data(pick(0, t.uint64_data_size() - 1), static_cast<uint64_t>(v));
  } else if (t.string_data_size()) {
    t.set_string_data(pick(0, t.string_data_size() - 1), one_in(2) ? "" : std::string(3, '\0'));
  } else {
    t.add_int64_data(v);
  }
}

// The stored data against the dims and dtype: shorter, longer, moved between encodings.
void ModelMutator::mutate_tensor_size(onnx::TensorProto& t) {
  switch (pick(0, 6)) {
    case 0:
      if (!t.raw_data().empty())
        t.mutable_raw_data()->resize(
            static_cast<size_t>(pick(0, static_cast<int>(t.raw_data().size()) - 1)));
      break;
    case 1:
      t.mutable_raw_data()->append(static_cast<size_t>(pick(1, 9)), '\x01');
      break;
    case 2:
      t.clear_raw_data();
      break;
    case 3:  // both encodings at once
      t.add_float_data(1.f);
      t.add_int64_data(1);
      break;
    case 4:
      t.clear_int64_data();
      t.clear_float_data();
      t.clear_int32_data();
      break;
    case 5:
      t.mutable_raw_data()->assign(static_cast<size_t>(pick(0, 64)), '\x7f');
      break;
    default:
      if (t.int64_data_size())
        t.mutable_int64_data()->RemoveLast();
      else if (t.float_data_size())
        t.mutable_float_data()->RemoveLast();
      else if (t.int32_data_size())
        t.mutable_int32_data()->RemoveLast();
      else
        t.add_int32_data(pick(-3, 3));
  }
}

void ModelMutator::mutate_external(onnx::TensorProto& t) {
  const std::string locations[] = {"data.bin",
                                   "sub/data.bin",
                                   "external_weights.bin",
                                   "../outside.bin",
                                   "sub/../../outside.bin",
                                   "escape.bin",
                                   outside_,
                                   "/etc/passwd",
                                   "/proc/self/mem",
                                   "sub",
                                   ".",
                                   "",
                                   "missing.bin",
                                   "./data.bin",
                                   "sub/../data.bin",
                                   std::string("data.bin\0x", 10),
                                   "\\..\\outside.bin",
                                   "//outside.bin",
                                   "data.bin/"};
  if (one_in(4) || t.data_location() != onnx::TensorProto::EXTERNAL) {
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    t.clear_raw_data();
    t.clear_external_data();
    auto* loc = t.add_external_data();
    loc->set_key("location");
    loc->set_value(locations[pick(0, static_cast<int>(std::size(locations)) - 1)]);
    return;
  }
  switch (pick(0, 4)) {
    case 0:
    case 1: {
      auto* kv = t.add_external_data();
      kv->set_key(one_in(2) ? "offset" : "length");
      kv->set_value(kOffsets[pick(0, static_cast<int>(std::size(kOffsets)) - 1)]);
      break;
    }
    case 2: {
      auto* kv = t.add_external_data();  // a second location, or an unknown key
      kv->set_key(one_in(2) ? "location" : "checksum");
      kv->set_value(locations[pick(0, static_cast<int>(std::size(locations)) - 1)]);
      break;
    }
    case 3:
      t.set_data_location(onnx::TensorProto::DEFAULT);
      break;
    default:
      t.add_float_data(1.f);  // data stored inline as well
  }
}

void ModelMutator::mutate_tensor(onnx::TensorProto& t) {
  switch (pick(0, 9)) {
    case 0:
    case 1:
      mutate_dims(*t.mutable_dims());
      break;
    case 2:
      t.set_data_type(pick(0, 27));
      break;
    case 3:
    case 4:
      mutate_tensor_size(t);
      break;
    case 5:
      mutate_external(t);
      break;
    default:
      mutate_tensor_values(t);
  }
}

void ModelMutator::mutate_dims(google::protobuf::RepeatedField<int64_t>& dims) {
  switch (pick(0, 4)) {
    case 0:
    case 1:
      if (!dims.empty()) {
        dims.Set(pick(0, dims.size() - 1), extreme_int());
        break;
      }
      [[fallthrough]];
    case 2:
      dims.Add(pick(0, 4));
      break;
    case 3:
      if (!dims.empty()) dims.RemoveLast();
      break;
    default:
      if (!dims.empty()) dims.Set(pick(0, dims.size() - 1), 0);
  }
}

void ModelMutator::mutate_attribute(onnx::AttributeProto& a) {
  switch (pick(0, 11)) {
    case 0:
      a.set_type(static_cast<onnx::AttributeProto::AttributeType>(pick(0, 14)));
      return;
    case 1:
      a.set_i(extreme_int());
      a.set_type(onnx::AttributeProto::INT);
      return;
    case 2:
      a.set_name(kAttributeNames[pick(0, static_cast<int>(std::size(kAttributeNames)) - 1)]);
      return;
    case 3:  // a graph attribute whose body is another graph of the model
      if (!graphs_.empty() && a.type() == onnx::AttributeProto::GRAPH) {
        onnx::GraphProto copy =
            *graphs_[static_cast<size_t>(pick(0, static_cast<int>(graphs_.size()) - 1))];
        *a.mutable_g() = std::move(copy);
        return;
      }
      break;
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
      else if (pick(0, 2))
        a.add_ints(extreme_int());
      else
        a.clear_ints();
      break;
    case onnx::AttributeProto::FLOATS:
      if (a.floats_size() && pick(0, 3))
        a.set_floats(pick(0, a.floats_size() - 1), extreme_float());
      else if (pick(0, 2))
        a.add_floats(extreme_float());
      else
        a.clear_floats();
      break;
    case onnx::AttributeProto::STRING: {
      static const char* const kStrings[] = {
          "",         "NOTAMODE", "SAME_UPPER",    "VALID",     "linear",      "nearest",
          "cubic",    "reverse",  "bidirectional", "ij,jk->ik", "...ii->...i", "a,b->",
          "constant", "reflect",  "edge",          "wrap",      "half_pixel"};
      a.set_s(kStrings[pick(0, static_cast<int>(std::size(kStrings)) - 1)]);
      break;
    }
    case onnx::AttributeProto::TENSOR:
      mutate_tensor(*a.mutable_t());
      break;
    case onnx::AttributeProto::GRAPH: {
      auto& g = *a.mutable_g();
      if (g.node_size() && one_in(3))
        g.mutable_node()->RemoveLast();
      else if (g.output_size() && one_in(2))
        g.mutable_output()->RemoveLast();
      else if (g.input_size())
        g.mutable_input()->RemoveLast();
      break;
    }
    case onnx::AttributeProto::GRAPHS:
      if (a.graphs_size()) a.mutable_graphs()->RemoveLast();
      break;
    case onnx::AttributeProto::TENSORS:
      if (a.tensors_size()) mutate_tensor(*a.mutable_tensors(pick(0, a.tensors_size() - 1)));
      break;
    default:
      a.set_type(onnx::AttributeProto::INTS);
      a.add_ints(extreme_int());
  }
}

void ModelMutator::add_attribute(onnx::NodeProto& n) {
  auto* a = n.add_attribute();
  a->set_name(kAttributeNames[pick(0, static_cast<int>(std::size(kAttributeNames)) - 1)]);
  switch (pick(0, 3)) {
    case 0:
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(extreme_int());
      break;
    case 1:
      a->set_type(onnx::AttributeProto::INTS);
      for (int k = pick(0, 4); k > 0; --k) a->add_ints(extreme_int());
      break;
    case 2:
      a->set_type(onnx::AttributeProto::FLOAT);
      a->set_f(extreme_float());
      break;
    default:  // a subgraph: a copy of the main graph, so an If or Loop nests itself
      a->set_type(onnx::AttributeProto::GRAPH);
      if (!graphs_.empty()) {
        onnx::GraphProto copy = *graphs_.front();  // first: the main graph holds `a` itself
        *a->mutable_g() = std::move(copy);
      }
  }
}

void ModelMutator::mutate_value_info(onnx::ValueInfoProto& vi) {
  auto* tt = vi.mutable_type()->mutable_tensor_type();
  switch (pick(0, 6)) {
    case 0:
      tt->set_elem_type(pick(0, 27));
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
    case 4:  // a sequence or optional type in place of the tensor
      if (one_in(2)) {
        onnx::TypeProto elem = vi.type();
        *vi.mutable_type()->mutable_sequence_type()->mutable_elem_type() = elem;
      } else {
        vi.mutable_type()->mutable_optional_type();
      }
      break;
    default:
      if (tt->shape().dim_size()) {
        auto* d = tt->mutable_shape()->mutable_dim(pick(0, tt->shape().dim_size() - 1));
        if (one_in(3))
          d->set_dim_param(one_in(2) ? "N" : "");
        else
          d->set_dim_value(extreme_int());
      }
  }
}

void ModelMutator::mutate_node(onnx::NodeProto& n) {
  switch (pick(0, 13)) {
    case 0:
    case 1:
      if (!ops_.empty() && one_in(2))
        n.set_op_type(ops_[static_cast<size_t>(pick(0, static_cast<int>(ops_.size()) - 1))]);
      else
        n.set_op_type(kOps[pick(0, static_cast<int>(std::size(kOps)) - 1)]);
      break;
    case 2:
      n.set_domain(kDomains[pick(0, static_cast<int>(std::size(kDomains)) - 1)]);
      break;
    case 3:  // drop an input
      if (n.input_size()) {
        const int at = pick(0, n.input_size() - 1);
        n.mutable_input()->erase(n.mutable_input()->begin() + at);
      }
      break;
    case 4:  // duplicate an input
      if (n.input_size()) n.add_input(n.input(pick(0, n.input_size() - 1)));
      break;
    case 5:  // swap two inputs
      if (n.input_size() > 1)
        n.mutable_input()->SwapElements(pick(0, n.input_size() - 1), pick(0, n.input_size() - 1));
      break;
    case 6:
      if (n.input_size())
        n.set_input(pick(0, n.input_size() - 1), any_name());
      else
        n.add_input(any_name());
      break;
    case 7:  // drop or rename an output (to an existing name: a value defined twice)
      if (n.output_size() && one_in(2))
        n.mutable_output()->RemoveLast();
      else if (n.output_size())
        n.set_output(pick(0, n.output_size() - 1), any_name());
      else
        n.add_output(any_name());
      break;
    case 8:
      n.add_output(one_in(2) ? "" : any_name());
      break;
    case 9:
      if (n.attribute_size()) n.mutable_attribute()->RemoveLast();
      break;
    case 10:
      add_attribute(n);
      break;
    case 11:  // a duplicated attribute
      if (n.attribute_size()) *n.add_attribute() = n.attribute(pick(0, n.attribute_size() - 1));
      break;
    default:
      if (n.attribute_size())
        mutate_attribute(*n.mutable_attribute(pick(0, n.attribute_size() - 1)));
      else
        add_attribute(n);
  }
}

// Node order and node copies: a graph out of topological order, a cycle, a duplicate producer.
void ModelMutator::mutate_wiring(onnx::GraphProto& g) {
  if (g.node_size() == 0) return;
  switch (pick(0, 3)) {
    case 0:
      g.mutable_node()->SwapElements(pick(0, g.node_size() - 1), pick(0, g.node_size() - 1));
      break;
    case 1:
      *g.add_node() = g.node(pick(0, g.node_size() - 1));
      break;
    case 2: {  // a node consumes its own output
      auto& n = *g.mutable_node(pick(0, g.node_size() - 1));
      if (n.output_size()) n.add_input(n.output(0));
      break;
    }
    default:
      g.mutable_node()->DeleteSubrange(pick(0, g.node_size() - 1), 1);
  }
}

void ModelMutator::mutate_graph_io(onnx::GraphProto& g) {
  switch (pick(0, 5)) {
    case 0:
      if (g.output_size()) g.mutable_output()->RemoveLast();
      break;
    case 1:  // an intermediate value (or any name) becomes an output
      g.add_output()->set_name(any_name());
      break;
    case 2:
      if (g.input_size()) g.mutable_input()->RemoveLast();
      break;
    case 3:  // an input that is also an initializer, or a duplicated input
      if (g.input_size()) *g.add_input() = g.input(pick(0, g.input_size() - 1));
      break;
    case 4:
      if (g.initializer_size() > 0) {
        const int at = pick(0, g.initializer_size() - 1);
        if (one_in(2))
          g.mutable_initializer(at)->set_name(any_name());
        else
          g.mutable_initializer()->DeleteSubrange(at, 1);
      }
      break;
    default:
      if (g.input_size())
        mutate_value_info(*g.mutable_input(pick(0, g.input_size() - 1)));
      else if (g.output_size())
        mutate_value_info(*g.mutable_output(pick(0, g.output_size() - 1)));
  }
}

void ModelMutator::mutate_opsets(onnx::ModelProto& m) {
  static const int64_t kVersions[] = {0,  1,  6,  7,  9,  10,
                                      11, 12, 13, 17, 18, 21,
                                      22, 23, 24, 99, -1, std::numeric_limits<int64_t>::max()};
  switch (pick(0, 4)) {
    case 0:
    case 1:
      if (m.opset_import_size()) {
        m.mutable_opset_import(pick(0, m.opset_import_size() - 1))
            ->set_version(kVersions[pick(0, static_cast<int>(std::size(kVersions)) - 1)]);
        break;
      }
      [[fallthrough]];
    case 2: {
      auto* o = m.add_opset_import();
      o->set_domain(kDomains[pick(0, static_cast<int>(std::size(kDomains)) - 1)]);
      o->set_version(kVersions[pick(0, static_cast<int>(std::size(kVersions)) - 1)]);
      break;
    }
    case 3:
      if (m.opset_import_size()) m.mutable_opset_import()->RemoveLast();
      break;
    default:
      m.set_ir_version(pick(0, 12));
  }
}

void ModelMutator::once(onnx::ModelProto& m) {
  const int kind = pick(0, 15);
  if (kind <= 4 && !nodes_.empty())
    return mutate_node(*nodes_[static_cast<size_t>(pick(0, static_cast<int>(nodes_.size()) - 1))]);
  if (kind <= 6 && !attributes_.empty())
    return mutate_attribute(
        *attributes_[static_cast<size_t>(pick(0, static_cast<int>(attributes_.size()) - 1))]);
  if (kind <= 9 && !tensors_.empty())
    return mutate_tensor(
        *tensors_[static_cast<size_t>(pick(0, static_cast<int>(tensors_.size()) - 1))]);
  if (kind == 10 && !tensors_.empty())
    return mutate_external(
        *tensors_[static_cast<size_t>(pick(0, static_cast<int>(tensors_.size()) - 1))]);
  if (kind == 11) return mutate_opsets(m);
  if (graphs_.empty()) return mutate_opsets(m);
  onnx::GraphProto& g =
      *graphs_[static_cast<size_t>(pick(0, static_cast<int>(graphs_.size()) - 1))];
  if (kind <= 13) return mutate_graph_io(g);
  mutate_wiring(g);
}

}  // namespace geon::fuzz
