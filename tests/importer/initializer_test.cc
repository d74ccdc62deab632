// Reading models: initializers in every TensorProto encoding, sparse initializers in both index
// layouts, graph inputs that are also initializers, and model-local functions expanded inline.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/importer/proto_helpers.h"

namespace geon {
namespace {

using namespace testing_protos;

// Imports a model whose graph outputs initializer 'w' and returns its data.
std::shared_ptr<const TensorData> read_initializer(const onnx::TensorProto& t) {
  auto m = model();
  *m.mutable_graph()->add_initializer() = t;
  add_output(*m.mutable_graph(), t.name());
  const ImportedModel im = import_proto(m);
  const Value& v = im.graph->value(im.graph->find(t.name()));
  EXPECT_EQ(v.kind, ValueKind::kConstant);
  return v.data;
}

onnx::TensorProto tensor(int dtype, std::vector<int64_t> dims) {
  onnx::TensorProto t;
  t.set_name("w");
  t.set_data_type(dtype);
  for (int64_t d : dims) t.add_dims(d);
  return t;
}

std::vector<double> doubles(const TensorData& d) {
  std::vector<double> out;
  for (int64_t i = 0; i < d.elements(); ++i) out.push_back(element_as_double(d, i));
  return out;
}

TEST(ImportInitializers, RawDataIsLittleEndian) {
  auto t = tensor(onnx::TensorProto::INT32, {2});
  const int32_t v[2] = {-7, 0x01020304};
  t.set_raw_data(std::string(reinterpret_cast<const char*>(v), 8));
  auto d = read_initializer(t);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->desc.dtype, DType::kInt32);
  EXPECT_EQ(d->desc.shape, (Dims{2}));
  EXPECT_EQ(element_as_int(*d, 0), -7);
  EXPECT_EQ(element_as_int(*d, 1), 0x01020304);
}

TEST(ImportInitializers, FloatDataHoldsFloatsAndComplexPairs) {
  auto t = tensor(onnx::TensorProto::FLOAT, {3});
  for (float f : {1.5f, -2.0f, 3.25f}) t.add_float_data(f);
  EXPECT_EQ(doubles(*read_initializer(t)), (std::vector<double>{1.5, -2.0, 3.25}));
  auto c = tensor(onnx::TensorProto::COMPLEX64, {2});
  for (float f : {1.f, 2.f, 3.f, 4.f}) c.add_float_data(f);
  auto d = read_initializer(c);
  ASSERT_TRUE(d);
  float re_im[4];
  std::memcpy(re_im, d->bytes(), 16);
  EXPECT_EQ(re_im[2], 3.f);
  EXPECT_EQ(re_im[3], 4.f);
}

TEST(ImportInitializers, Int32DataHoldsNarrowTypesOnePerEntry) {
  auto f16 = tensor(onnx::TensorProto::FLOAT16, {2});
  f16.add_int32_data(0x3E00);  // 1.5
  f16.add_int32_data(0xC000);  // -2
  EXPECT_EQ(doubles(*read_initializer(f16)), (std::vector<double>{1.5, -2.0}));
  auto bf16 = tensor(onnx::TensorProto::BFLOAT16, {2});
  bf16.add_int32_data(0x3FC0);  // 1.5
  bf16.add_int32_data(0xC040);  // -3
  EXPECT_EQ(doubles(*read_initializer(bf16)), (std::vector<double>{1.5, -3.0}));
  auto b = tensor(onnx::TensorProto::BOOL, {3});
  for (int x : {1, 0, 1}) b.add_int32_data(x);
  EXPECT_EQ(doubles(*read_initializer(b)), (std::vector<double>{1, 0, 1}));
  auto i8 = tensor(onnx::TensorProto::INT8, {3});
  for (int x : {-128, -3, 127}) i8.add_int32_data(x);
  EXPECT_EQ(doubles(*read_initializer(i8)), (std::vector<double>{-128, -3, 127}));
  auto u16 = tensor(onnx::TensorProto::UINT16, {2});
  for (int x : {65535, 7}) u16.add_int32_data(x);
  EXPECT_EQ(doubles(*read_initializer(u16)), (std::vector<double>{65535, 7}));
  auto i32 = tensor(onnx::TensorProto::INT32, {2});
  for (int x : {-100000, 5}) i32.add_int32_data(x);
  EXPECT_EQ(doubles(*read_initializer(i32)), (std::vector<double>{-100000, 5}));
}

TEST(ImportInitializers, Int32DataHoldsPackedInt4TwoPerEntryLowNibbleFirst) {
  // INT4/UINT4 are newer than the 1.12 protobuf classes: their enum values as plain ints.
  auto t = tensor(static_cast<int>(DType::kInt4), {3});
  t.add_int32_data(0xE1);  // 1, -2
  t.add_int32_data(0x07);  // 7, (padding)
  EXPECT_EQ(doubles(*read_initializer(t)), (std::vector<double>{1, -2, 7}));
  auto u = tensor(static_cast<int>(DType::kUInt4), {2});
  u.add_int32_data(0xF3);  // 3, 15
  EXPECT_EQ(doubles(*read_initializer(u)), (std::vector<double>{3, 15}));
}

TEST(ImportInitializers, Int64DoubleAndUint64Data) {
  auto i64 = tensor(onnx::TensorProto::INT64, {2});
  i64.add_int64_data(int64_t{1} << 40);
  i64.add_int64_data(-1);
  auto d = read_initializer(i64);
  EXPECT_EQ(element_as_int(*d, 0), int64_t{1} << 40);
  EXPECT_EQ(element_as_int(*d, 1), -1);
  auto f64 = tensor(onnx::TensorProto::DOUBLE, {2});
  f64.add_double_data(0.1);
  f64.add_double_data(-1e300);
  EXPECT_EQ(doubles(*read_initializer(f64)), (std::vector<double>{0.1, -1e300}));
  auto u64 = tensor(onnx::TensorProto::UINT64, {1});
  u64.add_uint64_data(uint64_t{1} << 63);
  auto du = read_initializer(u64);
  uint64_t got = 0;
  std::memcpy(&got, du->bytes(), 8);
  EXPECT_EQ(got, uint64_t{1} << 63);
  auto u32 = tensor(onnx::TensorProto::UINT32, {2});
  u32.add_uint64_data(4000000000u);
  u32.add_uint64_data(3);
  EXPECT_EQ(doubles(*read_initializer(u32)), (std::vector<double>{4000000000.0, 3}));
}

TEST(ImportInitializers, StringData) {
  auto t = tensor(onnx::TensorProto::STRING, {2});
  t.add_string_data("hello");
  t.add_string_data(std::string("a\0b", 3));
  auto d = read_initializer(t);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->desc.dtype, DType::kString);
  EXPECT_EQ(d->strings, (std::vector<std::string>{"hello", std::string("a\0b", 3)}));
}

TEST(ImportInitializers, EmptyTensorNeedsNoData) {
  auto t = tensor(onnx::TensorProto::FLOAT, {0, 3});
  auto d = read_initializer(t);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->elements(), 0);
  EXPECT_EQ(d->desc.shape, (Dims{0, 3}));
}

// A [2, 3] float sparse initializer with 5 at (0, 1) and 7 at (1, 2).
onnx::ModelProto sparse_model(bool coordinate_layout) {
  auto m = model();
  auto* s = m.mutable_graph()->add_sparse_initializer();
  s->add_dims(2);
  s->add_dims(3);
  auto* v = s->mutable_values();
  v->set_name("sp");
  v->set_data_type(onnx::TensorProto::FLOAT);
  v->add_dims(2);
  v->add_float_data(5);
  v->add_float_data(7);
  auto* i = s->mutable_indices();
  i->set_data_type(onnx::TensorProto::INT64);
  i->add_dims(2);
  if (coordinate_layout) {
    i->add_dims(2);
    for (int64_t x : {0, 1, 1, 2}) i->add_int64_data(x);
  } else {
    for (int64_t x : {1, 5}) i->add_int64_data(x);
  }
  add_output(*m.mutable_graph(), "sp");
  return m;
}

TEST(ImportInitializers, SparseInitializersDensifyInBothIndexLayouts) {
  for (bool coords : {false, true}) {
    const ImportedModel im = import_proto(sparse_model(coords));
    const Value& v = im.graph->value(im.graph->find("sp"));
    EXPECT_EQ(v.kind, ValueKind::kConstant);
    ASSERT_TRUE(v.data);
    EXPECT_EQ(v.data->desc.shape, (Dims{2, 3}));
    EXPECT_EQ(doubles(*v.data), (std::vector<double>{0, 5, 0, 0, 0, 7})) << "coords " << coords;
  }
}

TEST(ImportInitializers, GraphInputWithAnInitializerIsAnOverridableConstant) {
  auto m = model();
  add_float_initializer(*m.mutable_graph(), "w", {2, 3});
  add_float_initializer(*m.mutable_graph(), "k", {2, 3});
  add_input(*m.mutable_graph(), "w", onnx::TensorProto::FLOAT, {2, 3});
  add_input(*m.mutable_graph(), "x", onnx::TensorProto::FLOAT, {2, 3});
  add_node(*m.mutable_graph(), "Add", {"k", "w"}, {"y"});
  add_node(*m.mutable_graph(), "Add", {"k", "k"}, {"z"});
  add_output(*m.mutable_graph(), "y");
  add_output(*m.mutable_graph(), "z");
  const ImportedModel im = import_proto(m);
  ASSERT_EQ(im.graph->inputs.size(), 2u);
  const Value& w = im.graph->value(im.graph->inputs[0]);
  EXPECT_EQ(w.name, "w");
  EXPECT_TRUE(w.overridable);
  EXPECT_EQ(w.kind, ValueKind::kConstant);
  ASSERT_TRUE(w.data);  // the default
  EXPECT_EQ(element_as_double(*w.data, 5), 5.0);
  // Its value may change per run, so nothing is folded from it; plain initializers fold.
  const Value& y = im.graph->value(im.graph->find("y"));
  EXPECT_EQ(y.dtype(), DType::kFloat);
  EXPECT_FALSE(y.data);
  EXPECT_TRUE(im.graph->value(im.graph->find("z")).data);
}

TEST(ImportInitializers, ModelLocalFunctionIsExpandedInline) {
  auto m = model();
  auto* os = m.add_opset_import();
  os->set_domain("local");
  os->set_version(1);
  auto* f = m.add_functions();
  f->set_name("AddRelu");
  f->set_domain("local");
  f->add_input("a");
  f->add_input("b");
  f->add_output("out");
  auto* fo = f->add_opset_import();
  fo->set_domain("");
  fo->set_version(17);
  auto* n1 = f->add_node();
  n1->set_op_type("Add");
  n1->add_input("a");
  n1->add_input("b");
  n1->add_output("sum");
  auto* n2 = f->add_node();
  n2->set_op_type("Relu");
  n2->add_input("sum");
  n2->add_output("out");
  add_input(*m.mutable_graph(), "x");
  add_input(*m.mutable_graph(), "z");
  add_node(*m.mutable_graph(), "AddRelu", {"x", "z"}, {"y"}, "call")->set_domain("local");
  add_output(*m.mutable_graph(), "y");
  const ImportedModel im = import_proto(m);
  ASSERT_EQ(im.graph->nodes.size(), 2u);
  EXPECT_EQ(im.graph->nodes[0].op, "Add");
  EXPECT_EQ(im.graph->nodes[1].op, "Relu");
  // The body's inner value is renamed under the call; the call's output keeps its name.
  const Value& sum = im.graph->value(im.graph->nodes[0].outputs[0]);
  EXPECT_NE(sum.name.find("call/"), std::string::npos) << sum.name;
  const Value& y = im.graph->value(im.graph->find("y"));
  EXPECT_EQ(y.dtype(), DType::kFloat);
  ASSERT_TRUE(y.rank_known);
  EXPECT_EQ(static_lengths(y.axes), (std::optional<Dims>(Dims{2, 3})));
}

TEST(ImportInitializers, RecursiveFunctionIsRefusedWithADepthMessage) {
  auto m = model();
  auto* os = m.add_opset_import();
  os->set_domain("local");
  os->set_version(1);
  auto* f = m.add_functions();
  f->set_name("Loop1");
  f->set_domain("local");
  f->add_input("a");
  f->add_output("b");
  auto* n = f->add_node();
  n->set_op_type("Loop1");
  n->set_domain("local");
  n->add_input("a");
  n->add_output("b");
  add_input(*m.mutable_graph(), "x");
  add_node(*m.mutable_graph(), "Loop1", {"x"}, {"y"}, "call")->set_domain("local");
  add_output(*m.mutable_graph(), "y");
  EXPECT_TRUE(
      import_fails_with(m, ErrorCode::kInvalidArgument, {"function 'Loop1' expands deeper than"}));
}

}  // namespace
}  // namespace geon
