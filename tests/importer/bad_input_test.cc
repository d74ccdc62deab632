// One hand-made malformed model per bad-input case of the importer: each import fails with a
// geon::Error whose message says what is wrong and where (file, graph, node, op, input or
// attribute). External data has its own file (external_data_test.cc).
#include <gtest/gtest.h>
#include <sys/mman.h>

#include "tests/importer/proto_helpers.h"

namespace geon {
namespace {

using namespace testing_protos;
using E = ErrorCode;

// ---- not a model ----

TEST(ImportBadInput, BytesThatAreNotAModelAreRefused) {
  const std::string text = "this is not an ONNX model";
  EXPECT_TRUE(fails_with([&] { import_model_bytes(as_bytes(text)); }, E::kInvalidArgument,
                         {"<bytes>", "not an ONNX model"}));
  EXPECT_TRUE(
      fails_with([&] { import_model_bytes({}); }, E::kInvalidArgument, {"not an ONNX model"}));
}

TEST(ImportBadInput, TruncatedModelIsRefused) {
  auto m = model();
  add_input(*m.mutable_graph(), "x");
  add_node(*m.mutable_graph(), "Relu", {"x"}, {"y"});
  add_output(*m.mutable_graph(), "y");
  const std::string bytes = serialize(m);
  // The last field (opset_import) is length-delimited: cutting it short cannot parse.
  const std::string cut = bytes.substr(0, bytes.size() - 1);
  EXPECT_TRUE(fails_with([&] { import_model_bytes(as_bytes(cut)); }, E::kInvalidArgument,
                         {"not an ONNX model", "truncated"}));
}

TEST(ImportBadInput, MissingFileAndModelWithoutGraphAreNamed) {
  TempDir dir;
  const std::string path = (dir.path() / "absent.onnx").string();
  EXPECT_TRUE(fails_with([&] { import_model_file(path); }, E::kInvalidArgument,
                         {path, "cannot open the model file"}));
  onnx::ModelProto m = model();
  m.clear_graph();
  const auto file = dir.write("nograph.onnx", serialize(m));
  EXPECT_TRUE(fails_with([&] { import_model_file(file.string()); }, E::kInvalidArgument,
                         {file.string(), "the model has no graph"}));
}

TEST(ImportBadInput, ModelFileOver2GiBGetsAClearMessageWithoutBeingRead) {
  TempDir dir;
  const auto path = dir.path() / "huge.onnx";
  { std::ofstream(path, std::ios::binary) << "x"; }
  // A sparse file: no disk space used, and the importer must refuse it by its size.
  std::filesystem::resize_file(path, (uintmax_t{2} << 30) + 16);
  EXPECT_TRUE(fails_with([&] { import_model_file(path.string()); }, E::kInvalidArgument,
                         {path.string(), "over protobuf's 2 GiB limit", "external data"}));
}

TEST(ImportBadInput, ModelBytesOver2GiBGetAClearMessage) {
  // Address space only (never touched): the size alone must decide.
  const size_t size = (size_t{2} << 30) + 16;
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  const std::span<const std::byte> bytes(static_cast<const std::byte*>(p), size);
  EXPECT_TRUE(fails_with([&] { import_model_bytes(bytes); }, E::kInvalidArgument,
                         {"<bytes>", "over protobuf's 2 GiB limit"}));
  munmap(p, size);
}

// ---- graph structure ----

TEST(ImportBadInput, DanglingInputNamesNodeAndValue) {
  auto m = model();
  add_input(*m.mutable_graph(), "x");
  add_node(*m.mutable_graph(), "Add", {"x", "nowhere"}, {"y"}, "add1");
  add_output(*m.mutable_graph(), "y");
  EXPECT_TRUE(import_fails_with(
      m, E::kInvalidArgument,
      {"graph 'g'", "node 'add1' (Add)", "reads 'nowhere'", "no node, initializer or input"}));
}

TEST(ImportBadInput, MissingRequiredInputNamesItsPosition) {
  auto m = model();
  add_input(*m.mutable_graph(), "x");
  add_node(*m.mutable_graph(), "Add", {"x"}, {"y"}, "add1");
  add_output(*m.mutable_graph(), "y");
  EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument, {"node 'add1' (Add", "2 inputs, got 1"}));
  // An empty name is an omitted input, which Add cannot have either.
  auto m2 = model();
  add_input(*m2.mutable_graph(), "x");
  add_node(*m2.mutable_graph(), "Add", {"", "x"}, {"y"}, "add2");
  add_output(*m2.mutable_graph(), "y");
  EXPECT_TRUE(import_fails_with(m2, E::kInvalidArgument,
                                {"node 'add2'", "input 0 is required but missing"}));
}

TEST(ImportBadInput, GraphOutputThatNothingProducesIsNamed) {
  auto m = model();
  add_input(*m.mutable_graph(), "x");
  add_node(*m.mutable_graph(), "Relu", {"x"}, {"y"});
  add_output(*m.mutable_graph(), "z");
  EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument,
                                {"graph 'g'", "output 'z' is not produced by any node"}));
}

TEST(ImportBadInput, ValueProducedTwiceNamesTheSecondProducer) {
  auto m = model();
  add_input(*m.mutable_graph(), "x");
  add_node(*m.mutable_graph(), "Relu", {"x"}, {"y"}, "first");
  add_node(*m.mutable_graph(), "Neg", {"x"}, {"y"}, "second");
  add_output(*m.mutable_graph(), "y");
  EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument,
                                {"value 'y' is produced twice", "node 'second' (Neg)"}));
}

TEST(ImportBadInput, NodeOutputShadowingAGraphInputIsADuplicate) {
  auto m = model();
  add_input(*m.mutable_graph(), "x");
  add_node(*m.mutable_graph(), "Relu", {"x"}, {"x"}, "r");
  add_output(*m.mutable_graph(), "x");
  EXPECT_TRUE(
      import_fails_with(m, E::kInvalidArgument, {"value 'x' is produced twice", "node 'r'"}));
}

TEST(ImportBadInput, DuplicateInitializersAndInputsAreNamed) {
  auto m = model();
  add_float_initializer(*m.mutable_graph(), "w", {2});
  add_float_initializer(*m.mutable_graph(), "w", {2});
  add_output(*m.mutable_graph(), "w");
  EXPECT_TRUE(
      import_fails_with(m, E::kInvalidArgument, {"value 'w' is defined twice in graph 'g'"}));
  auto m2 = model();
  add_input(*m2.mutable_graph(), "x");
  add_input(*m2.mutable_graph(), "x");
  add_output(*m2.mutable_graph(), "x");
  EXPECT_TRUE(import_fails_with(m2, E::kInvalidArgument, {"graph 'g': input 'x' is listed twice"}));
}

TEST(ImportBadInput, CycleIsReportedWithItsNodesInOrder) {
  auto m = model();
  add_input(*m.mutable_graph(), "x");
  add_node(*m.mutable_graph(), "Add", {"x", "c"}, {"a"}, "A");
  add_node(*m.mutable_graph(), "Relu", {"a"}, {"b"}, "B");
  add_node(*m.mutable_graph(), "Neg", {"b"}, {"c"}, "C");
  add_node(*m.mutable_graph(), "Relu", {"c"}, {"y"}, "after");
  add_output(*m.mutable_graph(), "y");
  EXPECT_TRUE(import_fails_with(
      m, E::kInvalidArgument,
      {"graph 'g': the nodes form a cycle: node 'A' (Add) -> node 'B' (Relu) -> node 'C' (Neg) "
       "-> node 'A' (Add)"}));
}

TEST(ImportBadInput, NodeReadingItsOwnOutputIsACycle) {
  auto m = model();
  add_input(*m.mutable_graph(), "x");
  add_node(*m.mutable_graph(), "Add", {"x", "y"}, {"y"}, "self");
  add_output(*m.mutable_graph(), "y");
  EXPECT_TRUE(
      import_fails_with(m, E::kInvalidArgument, {"node 'self' (Add)", "reads its own output"}));
}

// ---- ops and opsets ----

TEST(ImportBadInput, UnknownOpIsNotSupportedByName) {
  auto m = model();
  add_input(*m.mutable_graph(), "x");
  add_node(*m.mutable_graph(), "Frobnicate", {"x"}, {"y"}, "f1");
  add_output(*m.mutable_graph(), "y");
  EXPECT_TRUE(import_fails_with(m, E::kNotSupported,
                                {"node 'f1' (Frobnicate)", "unsupported op 'Frobnicate'"}));
}

TEST(ImportBadInput, OpOfAnUndeclaredOrUnknownDomainIsNamed) {
  auto m = model();
  add_input(*m.mutable_graph(), "x");
  add_node(*m.mutable_graph(), "Foo", {"x"}, {"y"}, "f1")->set_domain("com.example");
  add_output(*m.mutable_graph(), "y");
  EXPECT_TRUE(import_fails_with(
      m, E::kInvalidArgument,
      {"node 'f1' (Foo)", "domain 'com.example' is not in the model's opset_import"}));
  auto* os = m.add_opset_import();
  os->set_domain("com.example");
  os->set_version(1);
  EXPECT_TRUE(import_fails_with(m, E::kNotSupported, {"unsupported op 'com.example.Foo'"}));
}

TEST(ImportBadInput, OpsetNewerThanGeonKnowsIsNotSupported) {
  auto m = model(kMaxDefaultOpset + 1);
  add_input(*m.mutable_graph(), "x");
  add_output(*m.mutable_graph(), "x");
  EXPECT_TRUE(import_fails_with(
      m, E::kNotSupported,
      {"default-domain opset " + std::to_string(kMaxDefaultOpset + 1),
       "newer than the newest geon knows (" + std::to_string(kMaxDefaultOpset) + ")"}));
}

TEST(ImportBadInput, OpsetVersionZeroOrNegativeIsInvalid) {
  for (int64_t v : {int64_t{0}, int64_t{-3}, int64_t{1} << 40}) {
    auto m = model();
    m.mutable_opset_import(0)->set_version(v);
    add_input(*m.mutable_graph(), "x");
    add_output(*m.mutable_graph(), "x");
    EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument,
                                  {"opset_import for domain ''", "version " + std::to_string(v)}));
  }
  // A model-local function's imports are checked the same way.
  auto m = model();
  auto* f = m.add_functions();
  f->set_name("F");
  f->set_domain("local");
  auto* os = f->add_opset_import();
  os->set_domain("");
  os->set_version(0);
  add_input(*m.mutable_graph(), "x");
  add_output(*m.mutable_graph(), "x");
  EXPECT_TRUE(
      import_fails_with(m, E::kInvalidArgument, {"opset_import of function 'F'", "version 0"}));
}

TEST(ImportBadInput, WrongAttributeTypeNamesAttributeAndBothKinds) {
  auto m = model();
  add_input(*m.mutable_graph(), "x");
  auto* n = add_node(*m.mutable_graph(), "LeakyRelu", {"x"}, {"y"}, "lr");
  auto* a = n->add_attribute();
  a->set_name("alpha");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(2);
  add_output(*m.mutable_graph(), "y");
  EXPECT_TRUE(
      import_fails_with(m, E::kInvalidArgument,
                        {"node 'lr' (LeakyRelu", "attribute 'alpha' must be float, got int"}));
}

TEST(ImportBadInput, AttributeWithoutTypeOrGivenTwiceIsNamed) {
  auto m = model();
  add_input(*m.mutable_graph(), "x");
  auto* n = add_node(*m.mutable_graph(), "LeakyRelu", {"x"}, {"y"}, "lr");
  n->add_attribute()->set_name("alpha");  // type UNDEFINED
  add_output(*m.mutable_graph(), "y");
  EXPECT_TRUE(import_fails_with(
      m, E::kInvalidArgument,
      {"node 'lr' (LeakyRelu)", "attribute 'alpha'", "unknown attribute type 0"}));
  auto m2 = model();
  add_input(*m2.mutable_graph(), "x");
  auto* n2 = add_node(*m2.mutable_graph(), "LeakyRelu", {"x"}, {"y"}, "lr");
  for (int k = 0; k < 2; ++k) {
    auto* a = n2->add_attribute();
    a->set_name("alpha");
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(0.5f);
  }
  add_output(*m2.mutable_graph(), "y");
  EXPECT_TRUE(import_fails_with(m2, E::kInvalidArgument,
                                {"node 'lr' (LeakyRelu)", "attribute 'alpha' is given twice"}));
}

TEST(ImportBadInput, AttributeReferenceOutsideAFunctionIsRefused) {
  auto m = model();
  add_input(*m.mutable_graph(), "x");
  auto* a = add_node(*m.mutable_graph(), "LeakyRelu", {"x"}, {"y"}, "lr")->add_attribute();
  a->set_name("alpha");
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_ref_attr_name("slope");
  add_output(*m.mutable_graph(), "y");
  EXPECT_TRUE(import_fails_with(
      m, E::kInvalidArgument, {"attribute 'alpha'", "refers to 'slope' outside a function body"}));
}

TEST(ImportBadInput, TypeMismatchBetweenInputsNamesBoth) {
  auto m = model();
  add_input(*m.mutable_graph(), "a", onnx::TensorProto::FLOAT);
  add_input(*m.mutable_graph(), "b", onnx::TensorProto::INT32);
  add_node(*m.mutable_graph(), "Add", {"a", "b"}, {"y"}, "add1");
  add_output(*m.mutable_graph(), "y");
  EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument,
                                {"node 'add1' (Add", "input 1 is int32 but input 0 is float"}));
}

TEST(ImportBadInput, ShapesThatDoNotBroadcastAreNamed) {
  auto m = model();
  add_input(*m.mutable_graph(), "a", onnx::TensorProto::FLOAT, {2, 3});
  add_input(*m.mutable_graph(), "b", onnx::TensorProto::FLOAT, {4});
  add_node(*m.mutable_graph(), "Add", {"a", "b"}, {"y"}, "add1");
  add_output(*m.mutable_graph(), "y");
  EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument, {"node 'add1' (Add"}));
}

TEST(ImportBadInput, AxisOutOfRangeForTheInputRankIsNamed) {
  auto m = model();
  add_input(*m.mutable_graph(), "x", onnx::TensorProto::FLOAT, {2, 3});
  auto* a = add_node(*m.mutable_graph(), "Flatten", {"x"}, {"y"}, "fl")->add_attribute();
  a->set_name("axis");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(5);
  add_output(*m.mutable_graph(), "y");
  EXPECT_TRUE(
      import_fails_with(m, E::kInvalidArgument, {"node 'fl' (Flatten", "axis 5 is out of range"}));
}

TEST(ImportBadInput, RankMismatchesNameTheInputAndBothRanks) {
  auto m = model();
  add_input(*m.mutable_graph(), "x", onnx::TensorProto::FLOAT, {2, 3});
  auto* a = add_node(*m.mutable_graph(), "Transpose", {"x"}, {"y"}, "tr")->add_attribute();
  a->set_name("perm");
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t p : {2, 0, 1}) a->add_ints(p);
  add_output(*m.mutable_graph(), "y");
  EXPECT_TRUE(import_fails_with(
      m, E::kInvalidArgument,
      {"node 'tr' (Transpose", "perm [2, 0, 1] has 3 entries for an input of rank 2"}));
  auto m2 = model();
  add_input(*m2.mutable_graph(), "x", onnx::TensorProto::FLOAT, {2, 3});
  add_input(*m2.mutable_graph(), "w", onnx::TensorProto::FLOAT, {4, 3, 1, 1});
  add_node(*m2.mutable_graph(), "Conv", {"x", "w"}, {"y"}, "conv");
  add_output(*m2.mutable_graph(), "y");
  EXPECT_TRUE(import_fails_with(m2, E::kInvalidArgument,
                                {"node 'conv' (Conv", "input 0 (X) has rank 2", "rank 3 or more"}));
}

TEST(ImportBadInput, InputDeclaredWithAnotherTypeThanItsInitializer) {
  auto m = model();
  add_float_initializer(*m.mutable_graph(), "w", {2, 3});
  add_input(*m.mutable_graph(), "w", onnx::TensorProto::INT64);
  add_output(*m.mutable_graph(), "w");
  EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument,
                                {"input 'w' is declared int64 but its initializer is float"}));
}

// ---- tensors ----

TEST(ImportBadInput, UnknownDataTypeIsNamedForInitializersAndInputs) {
  auto m = model();
  auto* t = add_float_initializer(*m.mutable_graph(), "w", {2});
  t->set_data_type(99);
  add_output(*m.mutable_graph(), "w");
  EXPECT_TRUE(
      import_fails_with(m, E::kInvalidArgument, {"initializer 'w'", "unknown data type 99"}));
  auto m2 = model();
  add_input(*m2.mutable_graph(), "x", 42);
  add_output(*m2.mutable_graph(), "x");
  EXPECT_TRUE(import_fails_with(m2, E::kInvalidArgument, {"input 'x'", "unknown data type 42"}));
  auto m3 = model();
  add_float_initializer(*m3.mutable_graph(), "w", {2})->clear_data_type();
  add_output(*m3.mutable_graph(), "w");
  EXPECT_TRUE(import_fails_with(m3, E::kInvalidArgument, {"initializer 'w'", "no data type"}));
}

TEST(ImportBadInput, RawDataSizeDisagreeingWithTheShapeIsNamed) {
  auto m = model();
  auto* t = add_float_initializer(*m.mutable_graph(), "w", {2, 3});
  t->mutable_raw_data()->resize(20);
  add_output(*m.mutable_graph(), "w");
  EXPECT_TRUE(import_fails_with(
      m, E::kInvalidArgument,
      {"graph 'g': initializer 'w'", "raw_data has 20 bytes but dtype float and shape need 24"}));
}

TEST(ImportBadInput, TypedFieldCountDisagreeingWithTheShapeIsNamed) {
  auto m = model();
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name("w");
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(3);
  t->add_int64_data(1);
  t->add_int64_data(2);
  add_output(*m.mutable_graph(), "w");
  EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument,
                                {"initializer 'w'", "int64_data holds 2 values", "need 3"}));
  t->clear_int64_data();
  EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument,
                                {"initializer 'w'", "no data (int64_data is empty)"}));
}

TEST(ImportBadInput, NegativeDimsAreNamed) {
  auto m = model();
  auto* t = add_float_initializer(*m.mutable_graph(), "w", {2});
  t->add_dims(-1);
  add_output(*m.mutable_graph(), "w");
  EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument, {"initializer 'w'", "negative dim -1"}));
  auto m2 = model();
  add_input(*m2.mutable_graph(), "x", onnx::TensorProto::FLOAT, {2, -2});
  add_output(*m2.mutable_graph(), "x");
  EXPECT_TRUE(import_fails_with(m2, E::kInvalidArgument, {"input 'x'", "negative dim -2"}));
}

TEST(ImportBadInput, DimsWhoseElementCountOverflowsAreRefusedBeforeAllocating) {
  auto m = model();
  auto* t = add_float_initializer(*m.mutable_graph(), "w", {1});
  for (int k = 0; k < 3; ++k) t->add_dims(int64_t{1} << 32);
  add_output(*m.mutable_graph(), "w");
  EXPECT_TRUE(import_fails_with(
      m, E::kInvalidArgument, {"initializer 'w'", "element count of the dims overflows 64 bits"}));
  // 2^62 elements fit an int64, their bytes do not.
  t->clear_dims();
  t->add_dims(int64_t{1} << 31);
  t->add_dims(int64_t{1} << 31);
  EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument, {"initializer 'w'", "overflows 64 bits"}));
  // 2^40 floats (4 TiB) with one value: refused for the data's size, not by an allocator.
  t->clear_dims();
  t->clear_raw_data();
  t->add_dims(int64_t{1} << 20);
  t->add_dims(int64_t{1} << 20);
  t->add_float_data(1.0f);
  EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument,
                                {"initializer 'w'", "float_data holds 1 values", "1099511627776"}));
}

TEST(ImportBadInput, ConstantNodeWithAMalformedTensorNamesNodeAndAttribute) {
  auto m = model();
  auto* a = add_node(*m.mutable_graph(), "Constant", {}, {"c"}, "k")->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(4);
  a->mutable_t()->set_raw_data(std::string(3, '\0'));
  add_output(*m.mutable_graph(), "c");
  EXPECT_TRUE(
      import_fails_with(m, E::kInvalidArgument,
                        {"node 'k' (Constant)", "attribute 'value'", "raw_data has 3 bytes"}));
}

TEST(ImportBadInput, SparseInitializerIndicesAreChecked) {
  auto make = [](std::vector<int64_t> indices, std::vector<int64_t> index_dims) {
    auto m = model();
    auto* s = m.mutable_graph()->add_sparse_initializer();
    s->add_dims(2);
    s->add_dims(3);
    auto* v = s->mutable_values();
    v->set_name("sp");
    v->set_data_type(onnx::TensorProto::FLOAT);
    v->add_dims(2);
    v->add_float_data(1);
    v->add_float_data(2);
    auto* i = s->mutable_indices();
    i->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : index_dims) i->add_dims(d);
    for (int64_t x : indices) i->add_int64_data(x);
    add_output(*m.mutable_graph(), "sp");
    return m;
  };
  EXPECT_TRUE(import_fails_with(make({1, 6}, {2}), E::kOutOfRange,
                                {"sparse initializer 'sp'", "index 6 of entry 1 is out of range"}));
  EXPECT_TRUE(
      import_fails_with(make({0, 0, 2, 1}, {2, 2}), E::kOutOfRange,
                        {"sparse initializer 'sp'", "index 2 of entry 1", "dim 0 of length 2"}));
  EXPECT_TRUE(
      import_fails_with(make({0, 1, 2}, {3}), E::kInvalidArgument,
                        {"sparse initializer 'sp'", "indices hold 3 positions", "values hold 2"}));
  auto big = make({0, 1}, {2});
  big.mutable_graph()->mutable_sparse_initializer(0)->set_dims(0, int64_t{1} << 40);
  EXPECT_TRUE(import_fails_with(big, E::kResourceExhausted,
                                {"sparse initializer 'sp'", "dense form needs"}));
}

}  // namespace
}  // namespace geon
