// Import rules of the shape family, part 1: Constant, Identity, Shape, Size and the view ops
// (Reshape, Flatten, Squeeze, Unsqueeze, Transpose): shapes, dtypes, axis identity, each
// opset difference and the error message of each malformed node.
#include <onnx/onnx_pb.h>

#include "tests/importer/shape_test_util.h"

namespace geon {
namespace {

using namespace shape_tests;

// ---- Constant ----------------------------------------------------------------------------------

TEST(ImportShapeConstant, TensorValueGivesItsDtypeShapeAndData) {
  GraphBuilder g;
  g.node("Constant", {}, {"y"}, {Attr::tensor("value", DType::kInt32, {2, 2}, {1, 2, 3, 4})})
      .output("y");
  const ImportedModel m_y = import(g, 13);
  const Value& y = output_value(m_y, "y");
  EXPECT_EQ(y.dtype(), DType::kInt32);
  EXPECT_EQ(shape_of(y), "2,2");
  EXPECT_EQ(ints_of(y), (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(ImportShapeConstant, ScalarAndListAttributeForms) {
  GraphBuilder g;
  g.node("Constant", {}, {"f"}, {attr("value_float", 2.5f)})
      .node("Constant", {}, {"fs"}, {attr("value_floats", std::vector<float>{1, 2, 3})})
      .node("Constant", {}, {"i"}, {i64("value_int", 7)})
      .node("Constant", {}, {"is"}, {ints("value_ints", {4, 5})})
      .node("Constant", {}, {"s"}, {str("value_string", "hi")})
      .node("Constant", {}, {"ss"},
            {attr("value_strings", std::vector<std::string>{"a", "b", "c"})})
      .output("f")
      .output("fs")
      .output("i")
      .output("is")
      .output("s")
      .output("ss");
  const ImportedModel m = import(g, 13);
  const Value& f = output_value(m, "f");
  EXPECT_EQ(f.dtype(), DType::kFloat);
  EXPECT_EQ(f.rank(), 0);
  EXPECT_EQ(doubles_of(f), (std::vector<double>{2.5}));
  EXPECT_EQ(shape_of(output_value(m, "fs")), "3");
  EXPECT_EQ(output_value(m, "i").dtype(), DType::kInt64);
  EXPECT_EQ(ints_of(output_value(m, "i")), (std::vector<int64_t>{7}));
  EXPECT_EQ(ints_of(output_value(m, "is")), (std::vector<int64_t>{4, 5}));
  const Value& s = output_value(m, "s");
  EXPECT_EQ(s.dtype(), DType::kString);
  EXPECT_EQ(s.rank(), 0);
  ASSERT_TRUE(s.data);
  EXPECT_EQ(s.data->strings, (std::vector<std::string>{"hi"}));
  const Value& ss = output_value(m, "ss");
  EXPECT_EQ(shape_of(ss), "3");
  ASSERT_TRUE(ss.data);
  EXPECT_EQ(ss.data->strings[2], "c");
}

TEST(ImportShapeConstant, SparseValueIsDense) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* n = g->add_node();
  n->set_op_type("Constant");
  n->add_output("y");
  auto* a = n->add_attribute();
  a->set_name("sparse_value");
  a->set_type(onnx::AttributeProto::SPARSE_TENSOR);
  auto* sp = a->mutable_sparse_tensor();
  sp->add_dims(2);
  sp->add_dims(3);
  sp->mutable_values()->set_data_type(onnx::TensorProto::INT64);
  sp->mutable_values()->add_dims(2);
  sp->mutable_values()->add_int64_data(5);
  sp->mutable_values()->add_int64_data(9);
  sp->mutable_indices()->set_data_type(onnx::TensorProto::INT64);
  sp->mutable_indices()->add_dims(2);
  sp->mutable_indices()->add_int64_data(1);
  sp->mutable_indices()->add_int64_data(5);
  g->add_output()->set_name("y");
  std::string bytes;
  m.SerializeToString(&bytes);
  ImportOptions opt;
  opt.trust_value_info = false;
  const ImportedModel im =
      import_model_bytes(std::as_bytes(std::span(bytes.data(), bytes.size())), opt);
  const Value& y = output_value(im, "y");
  EXPECT_EQ(shape_of(y), "2,3");
  EXPECT_EQ(ints_of(y), (std::vector<int64_t>{0, 5, 0, 0, 0, 9}));
}

TEST(ImportShapeConstant, ListFormsNeedOpset12AndExactlyOneForm) {
  GraphBuilder g;
  g.node("Constant", {}, {"y"}, {ints("value_ints", {1})}).output("y");
  EXPECT_IMPORT_ERROR(g, 11, "attribute 'value_ints' needs opset 12 or later");
  GraphBuilder two;
  two.node("Constant", {}, {"y"}, {i64("value_int", 1), attr("value_float", 1.0f)}).output("y");
  EXPECT_IMPORT_ERROR(two, 13, "exactly one of the attributes value, sparse_value");
  GraphBuilder none;
  none.node("Constant", {}, {"y"}).output("y");
  EXPECT_IMPORT_ERROR(none, 13, "got 0");
}

// ---- Identity ----------------------------------------------------------------------------------

TEST(ImportShapeIdentity, KeepsTheVeryAxesAndPassesConstants) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {sym("N"), len(3)})
      .initializer("c", DType::kInt64, {2}, {4, 5})
      .node("Identity", {"x"}, {"y"})
      .node("Identity", {"c"}, {"d"})
      .output("y")
      .output("d");
  const ImportedModel m = import(g, 13);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
  EXPECT_EQ(ints_of(output_value(m, "d")), (std::vector<int64_t>{4, 5}));
}

TEST(ImportShapeIdentity, SequencesFromOpset14OptionalsFrom16) {
  GraphBuilder g;
  g.input_sequence("s", DType::kFloat, {len(2)}).node("Identity", {"s"}, {"t"}).output("t");
  EXPECT_IMPORT_ERROR(g, 13, "Identity takes sequences from opset 14");
  const ImportedModel m = import(g, 14);
  const Value& t = output_value(m, "t");
  EXPECT_EQ(t.type.kind, TypeKind::kSequence);
  EXPECT_EQ(t.dtype(), DType::kFloat);
  GraphBuilder o;
  o.input_optional("p", DType::kInt64, {len(3)}).node("Identity", {"p"}, {"q"}).output("q");
  EXPECT_IMPORT_ERROR(o, 15, "Identity takes optionals from opset 16");
  const ImportedModel mo = import(o, 16);
  EXPECT_EQ(output_value(mo, "q").type.kind, TypeKind::kOptional);
  EXPECT_EQ(output_value(mo, "q").dtype(), DType::kInt64);
}

// ---- Shape, Size -------------------------------------------------------------------------------

TEST(ImportShapeShape, GivesTheLengthsStaticOrSymbolic) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {sym("N"), len(3), len(4)})
      .input("z", DType::kFloat, {len(2), len(5)})
      .node("Shape", {"x"}, {"s"})
      .node("Shape", {"z"}, {"t"})
      .output("s")
      .output("t");
  const ImportedModel m = import(g, 13);
  const Value& s = output_value(m, "s");
  EXPECT_EQ(s.dtype(), DType::kInt64);
  EXPECT_EQ(shape_of(s), "3");
  EXPECT_EQ(contents_of(s), "N,3,4");
  EXPECT_FALSE(s.data);  // a symbol: not a constant
  EXPECT_EQ(ints_of(output_value(m, "t")), (std::vector<int64_t>{2, 5}));
}

TEST(ImportShapeShape, StartAndEndFromOpset15) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(2), len(3), len(4), len(5)})
      .node("Shape", {"x"}, {"s"}, {i64("start", 1), i64("end", -1)})
      .node("Shape", {"x"}, {"t"}, {i64("start", -10), i64("end", 100)})
      .node("Shape", {"x"}, {"u"}, {i64("start", 3), i64("end", 1)})
      .output("s")
      .output("t")
      .output("u");
  const ImportedModel m15 = import(g, 15);
  EXPECT_EQ(ints_of(output_value(m15, "s")), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(ints_of(output_value(m15, "t")), (std::vector<int64_t>{2, 3, 4, 5}));  // clamped
  EXPECT_EQ(shape_of(output_value(m15, "u")), "0");
  // Before 15 the attributes do not exist: the whole shape.
  EXPECT_EQ(ints_of(output_value(import(g, 13), "s")), (std::vector<int64_t>{2, 3, 4, 5}));
}

TEST(ImportShapeShape, UnknownRankGivesOneUnknownLength) {
  GraphBuilder g;
  g.input_unranked("x", DType::kFloat).node("Shape", {"x"}, {"s"}).output("s");
  EXPECT_EQ(shape_of(output_value(import(g, 13), "s")), "?");
}

TEST(ImportShapeSize, FoldsStaticAndKeepsASingleSymbol) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(2), len(3)})
      .input("v", DType::kFloat, {sym("N"), len(1)})
      .node("Size", {"x"}, {"n"})
      .node("Size", {"v"}, {"m"})
      .output("n")
      .output("m");
  const ImportedModel m = import(g, 13);
  const Value& n = output_value(m, "n");
  EXPECT_EQ(n.dtype(), DType::kInt64);
  EXPECT_EQ(n.rank(), 0);
  EXPECT_EQ(ints_of(n), (std::vector<int64_t>{6}));
  EXPECT_EQ(contents_of(output_value(m, "m")), "N");
}

// ---- Reshape -----------------------------------------------------------------------------------

TEST(ImportShapeReshape, ZeroCopiesAndMinusOneIsInferred) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(2), len(3), len(4)})
      .initializer("s", DType::kInt64, {3}, {0, -1, 2})
      .node("Reshape", {"x", "s"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{2, 6, 2}));
  // The copied dim is a new axis of the same class.
  EXPECT_FALSE(same_axis(y.axes[0], output_value(m, "x").axes[0]));
  EXPECT_EQ(y.axes[0].cls, output_value(m, "x").axes[0].cls);
}

TEST(ImportShapeReshape, AllowzeroFromOpset14MakesZeroLiteral) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(0), len(3)})
      .initializer("s", DType::kInt64, {2}, {3, 0})
      .node("Reshape", {"x", "s"}, {"y"}, {i64("allowzero", 1)})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 14), "y")), (std::vector<int64_t>{3, 0}));
  // At 13 allowzero does not exist: 0 copies dim 1 (3), and 3*3 != 0 elements.
  EXPECT_IMPORT_ERROR(g, 13, "cannot reshape input");
}

TEST(ImportShapeReshape, ShapeAttributeAtOpset1) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(2), len(6)})
      .node("Reshape", {"x"}, {"y"}, {ints("shape", {3, 4})})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 4), "y")), (std::vector<int64_t>{3, 4}));
  GraphBuilder none;
  none.input("x", DType::kFloat, {len(2)}).node("Reshape", {"x"}, {"y"}).output("y");
  EXPECT_IMPORT_ERROR(none, 4, "attribute 'shape' is required but missing");
}

TEST(ImportShapeReshape, SymbolsCancelWhenInferringMinusOne) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {sym("N"), len(3), len(4)})
      .input("s", DType::kInt64, {len(2)})
      .node("Shape", {"x"}, {"sx"})
      .initializer("b", DType::kInt64, {1}, {0})
      .initializer("e", DType::kInt64, {1}, {1})
      .node("Slice", {"sx", "b", "e"}, {"n"})
      .initializer("m1", DType::kInt64, {1}, {-1})
      .node("Concat", {"n", "m1"}, {"shape"}, {i64("axis", 0)})
      .node("Reshape", {"x", "shape"}, {"y"})
      .node("Reshape", {"x", "s"}, {"z"})
      .output("y")
      .output("z");
  const ImportedModel m = import(g, 13);
  EXPECT_EQ(shape_of(output_value(m, "y")), "N,12");
  // Shape values unknown: the rank is the shape input's length.
  EXPECT_EQ(shape_of(output_value(m, "z")), "?,?");
}

TEST(ImportShapeReshape, AnUnknownOneEntryShapeIsTheElementCount) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(2), len(3)})
      .input("v", DType::kFloat, {sym("N"), len(1)})
      .input("s", DType::kInt64, {len(1)})
      .node("Reshape", {"x", "s"}, {"y"})
      .node("Reshape", {"v", "s"}, {"w"})
      .output("y")
      .output("w");
  const ImportedModel m = import(g, 13);
  EXPECT_EQ(shape_of(output_value(m, "y")), "6");
  EXPECT_EQ(shape_of(output_value(m, "w")), "N");
}

TEST(ImportShapeReshape, MalformedShapes) {
  auto with_shape = [](std::vector<double> s) {
    GraphBuilder g;
    g.input("x", DType::kFloat, {len(2), len(3)})
        .initializer("s", DType::kInt64, {static_cast<int64_t>(s.size())}, s)
        .node("Reshape", {"x", "s"}, {"y"})
        .output("y");
    return g;
  };
  EXPECT_IMPORT_ERROR(with_shape({-1, -1}), 13, "shape has more than one -1 (entries 0 and 1)");
  EXPECT_IMPORT_ERROR(with_shape({4, 2}), 13, "(6 elements) to shape with 8 elements");
  EXPECT_IMPORT_ERROR(with_shape({-2, 3}), 13, "shape entry 0 is -2; entries must be >= -1");
  EXPECT_IMPORT_ERROR(with_shape({4, -1}), 13, "not a multiple of the other entries' product 4");
  EXPECT_IMPORT_ERROR(with_shape({1, 1, 0}), 13, "shape entry 2 is 0 (copy the input's dim)");
  GraphBuilder both = with_shape({0, -1});
  EXPECT_EQ(import_error(both, 14), "<no error>");
  GraphBuilder az;
  az.input("x", DType::kFloat, {len(2), len(3)})
      .initializer("s", DType::kInt64, {2}, {0, -1})
      .node("Reshape", {"x", "s"}, {"y"}, {i64("allowzero", 1)})
      .output("y");
  EXPECT_IMPORT_ERROR(az, 14, "shape has both a 0 and a -1");
  GraphBuilder f;
  f.input("x", DType::kFloat, {len(2), len(3)})
      .input("s", DType::kInt32, {len(2)})
      .node("Reshape", {"x", "s"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(f, 13, "input 1 has dtype int32");
}

TEST(ImportShapeReshape, ConstantsFoldWithoutCopying) {
  GraphBuilder g;
  g.initializer("x", DType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6})
      .initializer("s", DType::kInt64, {1}, {-1})
      .node("Reshape", {"x", "s"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{6}));
  ASSERT_TRUE(y.data);
  EXPECT_EQ(y.data->storage, output_value(m, "x").data->storage);
}

// ---- Flatten -----------------------------------------------------------------------------------

TEST(ImportShapeFlatten, ShapesAndNegativeAxes) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(2), len(3), len(4), len(5)})
      .node("Flatten", {"x"}, {"a"})
      .node("Flatten", {"x"}, {"b"}, {i64("axis", 0)})
      .node("Flatten", {"x"}, {"c"}, {i64("axis", 4)})
      .output("a")
      .output("b")
      .output("c");
  const ImportedModel m = import(g, 9);
  EXPECT_EQ(static_dims(output_value(m, "a")), (std::vector<int64_t>{2, 60}));
  EXPECT_EQ(static_dims(output_value(m, "b")), (std::vector<int64_t>{1, 120}));
  EXPECT_EQ(static_dims(output_value(m, "c")), (std::vector<int64_t>{120, 1}));
  GraphBuilder neg;
  neg.input("x", DType::kFloat, {sym("N"), len(3), len(4)})
      .node("Flatten", {"x"}, {"y"}, {i64("axis", -2)})
      .output("y");
  EXPECT_EQ(shape_of(output_value(import(neg, 11), "y")), "N,12");
  EXPECT_EQ(shape_of(output_value(import(neg, 9), "y")), "N,12");  // accepted before 11 too
  GraphBuilder bad;
  bad.input("x", DType::kFloat, {len(2)})
      .node("Flatten", {"x"}, {"y"}, {i64("axis", 3)})
      .output("y");
  EXPECT_IMPORT_ERROR(bad, 13, "axis 3 is out of range [-1, 1]");
}

// ---- Squeeze, Unsqueeze ------------------------------------------------------------------------

TEST(ImportShapeSqueeze, AxesAttributeBefore13InputFrom13KeepsAxes) {
  GraphBuilder attr_form;
  attr_form.input("x", DType::kFloat, {len(1), sym("N"), len(1)})
      .node("Squeeze", {"x"}, {"y"}, {ints("axes", {0, -1})})
      .output("y");
  const ImportedModel m = import(attr_form, 11);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(shape_of(y), "N");
  EXPECT_TRUE(same_axis(y.axes[0], output_value(m, "x").axes[1]));
  GraphBuilder input_form;
  input_form.input("x", DType::kFloat, {len(1), sym("N"), len(1)})
      .initializer("a", DType::kInt64, {1}, {2})
      .node("Squeeze", {"x", "a"}, {"y"})
      .output("y");
  EXPECT_EQ(shape_of(output_value(import(input_form, 13), "y")), "1,N");
}

TEST(ImportShapeSqueeze, NoAxesRemovesEveryOne) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(1), len(3), len(1)})
      .input("v", DType::kFloat, {len(1), sym("N")})
      .node("Squeeze", {"x"}, {"y"})
      .node("Squeeze", {"v"}, {"w"})
      .output("y")
      .output("w");
  const ImportedModel m = import(g, 13);
  EXPECT_EQ(shape_of(output_value(m, "y")), "3");
  // N might be 1 at run time: the rank is not known.
  EXPECT_EQ(shape_of(output_value(m, "w")), "<unknown rank>");
}

TEST(ImportShapeSqueeze, MalformedAxes) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(1), len(3)})
      .node("Squeeze", {"x"}, {"y"}, {ints("axes", {1})})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 11, "cannot squeeze axis 1 of length 3");
  GraphBuilder range;
  range.input("x", DType::kFloat, {len(1), len(3)})
      .node("Squeeze", {"x"}, {"y"}, {ints("axes", {2})})
      .output("y");
  EXPECT_IMPORT_ERROR(range, 11, "axes [2]: 2 is out of range for rank 2");
  GraphBuilder twice;
  twice.input("x", DType::kFloat, {len(1), len(3)})
      .node("Squeeze", {"x"}, {"y"}, {ints("axes", {0, -2})})
      .output("y");
  EXPECT_IMPORT_ERROR(twice, 11, "axes [0, -2] names axis 0 twice");
}

TEST(ImportShapeUnsqueeze, InsertsNewAxesAroundTheInputs) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(3), sym("N")})
      .initializer("a", DType::kInt64, {2}, {-1, 0})
      .node("Unsqueeze", {"x", "a"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(shape_of(y), "1,3,N,1");
  EXPECT_TRUE(same_axis(y.axes[1], output_value(m, "x").axes[0]));
  EXPECT_TRUE(same_axis(y.axes[2], output_value(m, "x").axes[1]));
  GraphBuilder a11;
  a11.input("x", DType::kFloat, {len(3)})
      .node("Unsqueeze", {"x"}, {"y"}, {ints("axes", {1})})
      .output("y");
  EXPECT_EQ(shape_of(output_value(import(a11, 11), "y")), "3,1");
  // From 13 the attribute is gone and the input is required.
  EXPECT_IMPORT_ERROR(a11, 13, "input 1 (axes) is required but missing");
  GraphBuilder none;
  none.input("x", DType::kFloat, {len(3)}).node("Unsqueeze", {"x"}, {"y"}).output("y");
  EXPECT_IMPORT_ERROR(none, 11, "attribute 'axes' is required but missing");
  GraphBuilder bad;
  bad.input("x", DType::kFloat, {len(3)})
      .node("Unsqueeze", {"x"}, {"y"}, {ints("axes", {2})})
      .output("y");
  EXPECT_IMPORT_ERROR(bad, 11, "2 is out of range for rank 2");
}

TEST(ImportShapeUnsqueeze, ScalarContentsBecomeAOneEntryVector) {
  GraphBuilder g;
  g.initializer("k", DType::kInt64, {}, {7})
      .initializer("a", DType::kInt64, {1}, {0})
      .node("Unsqueeze", {"k", "a"}, {"y"})
      .output("y");
  const ImportedModel m_y = import(g, 13);
  const Value& y = output_value(m_y, "y");
  EXPECT_EQ(shape_of(y), "1");
  EXPECT_EQ(ints_of(y), (std::vector<int64_t>{7}));
}

// ---- Transpose ---------------------------------------------------------------------------------

TEST(ImportShapeTranspose, PermutesTheSameAxesDefaultReverses) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(2), sym("N"), len(4)})
      .node("Transpose", {"x"}, {"d"})
      .node("Transpose", {"x"}, {"p"}, {ints("perm", {1, 0, 2})})
      .output("d")
      .output("p");
  const ImportedModel m = import(g, 13);
  const Axes& x = output_value(m, "x").axes;
  EXPECT_EQ(output_value(m, "d").axes, Axes({x[2], x[1], x[0]}));
  EXPECT_EQ(output_value(m, "p").axes, Axes({x[1], x[0], x[2]}));
}

TEST(ImportShapeTranspose, FoldsConstants) {
  GraphBuilder g;
  g.initializer("x", DType::kInt32, {2, 3}, {1, 2, 3, 4, 5, 6})
      .node("Transpose", {"x"}, {"y"})
      .output("y");
  const ImportedModel m_y = import(g, 13);
  const Value& y = output_value(m_y, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(ints_of(y), (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));
}

TEST(ImportShapeTranspose, BadPerm) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(2), len(3)})
      .node("Transpose", {"x"}, {"y"}, {ints("perm", {0, 0})})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 13, "perm [0, 0] is not a permutation of 0..1");
  GraphBuilder n;
  n.input("x", DType::kFloat, {len(2), len(3)})
      .node("Transpose", {"x"}, {"y"}, {ints("perm", {1, 0, 2})})
      .output("y");
  EXPECT_IMPORT_ERROR(n, 13, "perm [1, 0, 2] has 3 entries for an input of rank 2");
}

}  // namespace
}  // namespace geon
