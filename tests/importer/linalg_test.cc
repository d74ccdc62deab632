// Import rules of the linalg family: MatMul, Gemm, Einsum, Det.
#include <gtest/gtest.h>

#include "core/base/error.h"
#include "tests/importer/model_builder.h"

namespace geon {
namespace {

using namespace testing_models;

constexpr int64_t N(int64_t n) { return n; }

std::string import_error(const GraphBuilder& g, int opset) {
  try {
    import(g, opset);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_IMPORT_ERROR(g, opset, text)                               \
  do {                                                                    \
    const std::string msg_ = import_error(g, opset);                      \
    EXPECT_NE(msg_.find(text), std::string::npos) << "message: " << msg_; \
  } while (0)

GraphBuilder matmul(std::vector<Dim> a, std::vector<Dim> b, DType t = DType::kFloat) {
  GraphBuilder g;
  g.input("a", t, std::move(a))
      .input("b", t, std::move(b))
      .node("MatMul", {"a", "b"}, {"y"})
      .output("y");
  return g;
}

// ---- MatMul -------------------------------------------------------------------------------

TEST(ImportLinalg, MatMulKeepsRowsOfAAndColumnsOfB) {
  const ImportedModel m = import(matmul({std::string("M"), N(3)}, {N(3), N(5)}), 13);
  const Value& y = output_value(m, "y");
  ASSERT_EQ(y.rank(), 2);
  EXPECT_TRUE(same_axis(y.axes[0], output_value(m, "a").axes[0]));
  EXPECT_TRUE(same_axis(y.axes[1], output_value(m, "b").axes[1]));
  EXPECT_EQ(y.axes[0].length, Length::symbolic("M"));
}

TEST(ImportLinalg, MatMulPromotesOneDimensionalOperands) {
  EXPECT_EQ(static_dims(output_value(import(matmul({N(3)}, {N(3), N(5)}), 13), "y")),
            (std::vector<int64_t>{5}));
  EXPECT_EQ(static_dims(output_value(import(matmul({N(2), N(4), N(3)}, {N(3)}), 13), "y")),
            (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(output_value(import(matmul({N(3)}, {N(3)}), 13), "y").rank(), 0);
}

TEST(ImportLinalg, MatMulBroadcastsBatchDims) {
  const ImportedModel m = import(matmul({N(2), N(1), N(3), N(4)}, {N(5), N(4), N(6)}), 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{2, 5, 3, 6}));
  EXPECT_TRUE(same_axis(y.axes[0], output_value(m, "a").axes[0]));
  EXPECT_TRUE(same_axis(y.axes[1], output_value(m, "b").axes[0]));
}

TEST(ImportLinalg, MatMulRejectsMismatchedContractedDims) {
  EXPECT_IMPORT_ERROR(matmul({N(2), N(3)}, {N(4), N(5)}), 13,
                      "has length 3 but the contracted dim (second to last) of input 1 (B)");
  EXPECT_IMPORT_ERROR(matmul({N(2), N(3), N(4)}, {N(3), N(4), N(5)}), 13,
                      "numpy broadcasting needs equal lengths or 1");
  EXPECT_IMPORT_ERROR(matmul({}, {N(3)}), 13, "input 0 (A) must have rank >= 1");
}

TEST(ImportLinalg, MatMulTakesIntegersFromOpset9) {
  const GraphBuilder g = matmul({N(2), N(3)}, {N(3), N(2)}, DType::kInt32);
  EXPECT_IMPORT_ERROR(g, 8, "input 0 has dtype int32, which MatMul-8 does not accept");
  EXPECT_EQ(output_value(import(g, 9), "y").dtype(), DType::kInt32);
}

// ---- Gemm ---------------------------------------------------------------------------------

TEST(ImportLinalg, GemmTransposesAndKeepsMAndN) {
  GraphBuilder g;
  g.input("a", DType::kFloat, {N(4), N(3)})
      .input("b", DType::kFloat, {N(5), N(4)})
      .input("c", DType::kFloat, {N(5)})
      .node("Gemm", {"a", "b", "c"}, {"y"}, {{"transA", N(1)}, {"transB", N(1)}})
      .output("y");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{3, 5}));
  EXPECT_TRUE(same_axis(y.axes[0], output_value(m, "a").axes[1]));
  EXPECT_TRUE(same_axis(y.axes[1], output_value(m, "b").axes[0]));
}

TEST(ImportLinalg, GemmOfAMatrixWithItselfGetsDistinctOutputAxes) {
  // A * A^T: M and N are both A's row axis, which an output cannot hold twice.
  GraphBuilder g;
  g.input("a", DType::kFloat, {N(3), N(2)})
      .node("Gemm", {"a", "a"}, {"y"}, {{"transB", N(1)}})
      .output("y");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  const Value& a = output_value(m, "a");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{3, 3}));
  EXPECT_TRUE(same_axis(y.axes[0], a.axes[0]));
  EXPECT_FALSE(same_axis(y.axes[1], a.axes[0]));
  EXPECT_EQ(y.axes[1].cls, a.axes[0].cls);
}

TEST(ImportLinalg, GemmCBroadcastFollowsTheOpset) {
  auto model = [](std::vector<Dim> c, bool broadcast_attr) {
    GraphBuilder g;
    g.input("a", DType::kFloat, {N(2), N(3)})
        .input("b", DType::kFloat, {N(3), N(4)})
        .input("c", DType::kFloat, std::move(c));
    std::vector<Attr> attrs;
    if (broadcast_attr) attrs.push_back({"broadcast", N(1)});
    g.node("Gemm", {"a", "b", "c"}, {"y"}, attrs).output("y");
    return g;
  };
  EXPECT_IMPORT_ERROR(model({N(4)}, false), 6, "input 2 (C) must be [M, N] without attribute");
  EXPECT_EQ(import_error(model({N(4)}, true), 6), "");
  EXPECT_EQ(import_error(model({N(1), N(4)}, false), 7), "");
  EXPECT_IMPORT_ERROR(model({N(4)}, true), 7, "attribute 'broadcast' was removed in opset 7");
  EXPECT_IMPORT_ERROR(model({N(3)}, false), 7,
                      "dim 0 of input 2 (C) has length 3 but the output's N has length 4");
}

TEST(ImportLinalg, GemmCIsOptionalFromOpset11) {
  GraphBuilder g;
  g.input("a", DType::kFloat, {N(2), N(3)})
      .input("b", DType::kFloat, {N(3), N(4)})
      .node("Gemm", {"a", "b"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 9, "input 2 is required but missing");
  EXPECT_EQ(static_dims(output_value(import(g, 11), "y")), (std::vector<int64_t>{2, 4}));
}

TEST(ImportLinalg, GemmRejectsNonMatrices) {
  GraphBuilder g;
  g.input("a", DType::kFloat, {N(2), N(3), N(1)})
      .input("b", DType::kFloat, {N(3), N(4)})
      .node("Gemm", {"a", "b"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 13, "input 0 (A) must be 2-D");
}

// ---- Einsum -------------------------------------------------------------------------------

GraphBuilder einsum(const std::string& eq, std::vector<std::vector<Dim>> shapes) {
  GraphBuilder g;
  std::vector<std::string> names;
  for (size_t i = 0; i < shapes.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    g.input(names.back(), DType::kFloat, shapes[i]);
  }
  g.node("Einsum", names, {"y"}, {{"equation", eq}}).output("y");
  return g;
}

TEST(ImportLinalg, EinsumExplicitOutputKeepsTheLabelledAxes) {
  const ImportedModel m =
      import(einsum("bij, bjk -> bik", {{N(5), N(2), N(3)}, {N(5), N(3), N(4)}}), 12);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{5, 2, 4}));
  EXPECT_TRUE(same_axis(y.axes[1], output_value(m, "x0").axes[1]));
  EXPECT_TRUE(same_axis(y.axes[2], output_value(m, "x1").axes[2]));
}

TEST(ImportLinalg, EinsumImplicitOutputIsTheSingleLabelsInOrder) {
  EXPECT_EQ(
      static_dims(output_value(import(einsum("kj,ji", {{N(2), N(3)}, {N(3), N(4)}}), 12), "y")),
      (std::vector<int64_t>{4, 2}));  // i then k
  EXPECT_EQ(output_value(import(einsum("i,i", {{N(5)}, {N(5)}}), 12), "y").rank(), 0);
  EXPECT_EQ(
      static_dims(output_value(import(einsum("ba,...", {{N(2), N(3)}, {N(4), N(5)}}), 12), "y")),
      (std::vector<int64_t>{4, 5, 3, 2}));
}

TEST(ImportLinalg, EinsumEllipsisAndDiagonal) {
  EXPECT_EQ(
      static_dims(output_value(import(einsum("...ii ->...i", {{N(3), N(5), N(5)}}), 12), "y")),
      (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(
      static_dims(output_value(
          import(einsum("...ij,...jk->...ik", {{N(2), N(1), N(3), N(4)}, {N(6), N(4), N(2)}}), 12),
          "y")),
      (std::vector<int64_t>{2, 6, 3, 2}));
  EXPECT_EQ(output_value(import(einsum("->", {{}}), 12), "y").rank(), 0);
}

TEST(ImportLinalg, EinsumRejectsMalformedEquations) {
  EXPECT_IMPORT_ERROR(einsum("ij,jk->ik", {{N(2), N(3)}}), 12,
                      "has 2 input terms but the node has 1 inputs");
  EXPECT_IMPORT_ERROR(einsum("ijk->k", {{N(2), N(3)}}), 12, "term 0 names 3 dims but input 0");
  EXPECT_IMPORT_ERROR(einsum("ij->iz", {{N(2), N(3)}}), 12, "output label 'z' is in no input term");
  EXPECT_IMPORT_ERROR(einsum("ij->ii", {{N(2), N(3)}}), 12, "output label 'i' appears twice");
  EXPECT_IMPORT_ERROR(einsum("i1->i", {{N(2), N(3)}}), 12, "unexpected character '1' in term 0");
  EXPECT_IMPORT_ERROR(einsum("ij,jk", {{N(2), N(3)}, {N(4), N(5)}}), 12,
                      "label 'j' marks dims of lengths 3 and 4");
  EXPECT_IMPORT_ERROR(einsum("...ij->ij", {{N(2), N(3), N(4)}}), 12,
                      "must appear in the output term, which has no ellipsis");
  EXPECT_IMPORT_ERROR(einsum("i..j->ij", {{N(2), N(3)}}), 12, "is not part of an ellipsis");
}

// ---- Det ----------------------------------------------------------------------------------

TEST(ImportLinalg, DetKeepsTheBatchAxes) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(2), N(3), N(3)}).node("Det", {"x"}, {"y"}).output("y");
  const ImportedModel m = import(g, 11);
  EXPECT_EQ(output_value(m, "y").axes, Axes({output_value(m, "x").axes[0]}));
  GraphBuilder bad;
  bad.input("x", DType::kFloat, {N(3), N(4)}).node("Det", {"x"}, {"y"}).output("y");
  EXPECT_IMPORT_ERROR(bad, 11, "has length 3 but its columns has length 4");
}

}  // namespace
}  // namespace geon
