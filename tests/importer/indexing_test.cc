// Import rules of the indexing family: Gather*, Scatter*, TensorScatter, NonZero, Unique,
// OneHot, Compress, ReverseSequence.
#include <gtest/gtest.h>

#include "core/base/error.h"
#include "tests/importer/model_builder.h"

namespace geon {
namespace {

using namespace testing_models;

constexpr int64_t N(int64_t n) { return n; }

// The import's error message, or "" when the model imports.
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

// ---- Gather -------------------------------------------------------------------------------

TEST(ImportIndexing, GatherKeepsDataAxesAndTakesTheIndicesAxesInPlaceOfTheGatheredOne) {
  GraphBuilder g;
  g.input("table", DType::kFloat, {N(10), N(4)})
      .input("ids", DType::kInt64, {N(2), std::string("S")})
      .node("Gather", {"table", "ids"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  const Value& ids = output_value(m, "ids");
  EXPECT_EQ(y.dtype(), DType::kFloat);
  ASSERT_EQ(y.rank(), 3);
  EXPECT_TRUE(same_axis(y.axes[0], ids.axes[0]));
  EXPECT_TRUE(same_axis(y.axes[1], ids.axes[1]));
  EXPECT_EQ(y.axes[1].length, Length::symbolic("S"));
  EXPECT_TRUE(same_axis(y.axes[2], output_value(m, "table").axes[1]));
}

TEST(ImportIndexing, GatherWithAScalarIndexDropsTheAxis) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(3), N(5)})
      .initializer("i", DType::kInt64, {}, {-1})
      .node("Gather", {"x", "i"}, {"y"}, {{"axis", N(1)}})
      .output("y");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{3}));
  EXPECT_TRUE(same_axis(y.axes[0], output_value(m, "x").axes[0]));
}

TEST(ImportIndexing, GatherSharingAnAxisWithItsIndicesGetsADistinctOutputAxis) {
  // Gather(x, x) along axis 1: the indices' axes are x's own; each axis appears once.
  GraphBuilder g;
  g.input("x", DType::kInt64, {N(2), N(2)})
      .node("Gather", {"x", "x"}, {"y"}, {{"axis", N(1)}})
      .output("y");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_FALSE(same_axis(y.axes[0], y.axes[1]));
}

TEST(ImportIndexing, GatherFoldsConstantData) {
  GraphBuilder g;
  g.initializer("d", DType::kInt64, {4}, {10, 20, 30, 40})
      .initializer("i", DType::kInt64, {2}, {3, -4})
      .node("Gather", {"d", "i"}, {"y"})
      .output("y");
  const ImportedModel m_y = import(g, 13);
  const Value& y = output_value(m_y, "y");
  ASSERT_TRUE(y.data);
  EXPECT_EQ(element_as_int(*y.data, 0), 40);
  EXPECT_EQ(element_as_int(*y.data, 1), 10);
}

TEST(ImportIndexing, GatherDoesNotFoldAnInputThatRunsMayOverride) {
  // A graph input with an initializer: the initializer is only its default.
  GraphBuilder g;
  g.input("d", DType::kInt64, {N(4)})
      .initializer("d", DType::kInt64, {4}, {10, 20, 30, 40})
      .initializer("i", DType::kInt64, {1}, {2})
      .node("Gather", {"d", "i"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{1}));
  EXPECT_FALSE(y.data);
  EXPECT_FALSE(y.contents_known);
}

TEST(ImportIndexing, GatherFoldsAlongAnInnerAxis) {
  GraphBuilder g;
  g.initializer("d", DType::kFloat, {2, 3}, {0, 1, 2, 3, 4, 5})
      .initializer("i", DType::kInt32, {2}, {2, 0})
      .node("Gather", {"d", "i"}, {"y"}, {{"axis", N(1)}})
      .output("y");
  const ImportedModel m_y = import(g, 13);
  const Value& y = output_value(m_y, "y");
  ASSERT_TRUE(y.data);
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{2, 2}));
  const std::vector<double> want = {2, 0, 5, 3};
  for (int k = 0; k < 4; ++k) EXPECT_EQ(element_as_double(*y.data, k), want[k]);
}

TEST(ImportIndexing, GatherOfShapeContentsKeepsTheSymbols) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {std::string("B"), N(3), std::string("T")})
      .node("Shape", {"x"}, {"s"})
      .initializer("i", DType::kInt64, {2}, {2, 0})
      .node("Gather", {"s", "i"}, {"y"})
      .output("y");
  ImportedModel m;
  try {
    m = import(g, 13);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kNotSupported) GTEST_SKIP() << "no Shape rule yet: " << e.what();
    throw;
  }
  const Value& y = output_value(m, "y");
  ASSERT_TRUE(y.contents_known);
  EXPECT_EQ(y.contents, (std::vector<Length>{Length::symbolic("T"), Length::symbolic("B")}));
}

TEST(ImportIndexing, GatherRejectsAConstantIndexOutOfRange) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(3)})
      .initializer("i", DType::kInt64, {1}, {3})
      .node("Gather", {"x", "i"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 13, "indices holds 3, out of range for axis 0 of length 3");
}

TEST(ImportIndexing, GatherRejectsAnAxisOutOfRangeAndFloatIndices) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(3), N(4)})
      .input("i", DType::kInt64, {N(2)})
      .node("Gather", {"x", "i"}, {"y"}, {{"axis", N(2)}})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 13, "attribute 'axis' 2 is out of range for rank 2");
  GraphBuilder f;
  f.input("x", DType::kFloat, {N(3)})
      .input("i", DType::kFloat, {N(2)})
      .node("Gather", {"x", "i"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(f, 13, "input 1 (indices) has dtype float, must be int32 or int64");
}

TEST(ImportIndexing, GatherOfAnUnknownRankInputHasUnknownRank) {
  GraphBuilder g;
  g.input_unranked("x", DType::kFloat)
      .input("i", DType::kInt64, {N(2)})
      .node("Gather", {"x", "i"}, {"y"})
      .output("y");
  const ImportedModel m_y = import(g, 13);
  const Value& y = output_value(m_y, "y");
  EXPECT_FALSE(y.rank_known);
  EXPECT_EQ(y.dtype(), DType::kFloat);
}

// ---- GatherElements / GatherND ----------------------------------------------------------

TEST(ImportIndexing, GatherElementsHasTheIndicesShape) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(3), N(4)})
      .input("i", DType::kInt32, {N(3), N(2)})
      .node("GatherElements", {"x", "i"}, {"y"}, {{"axis", N(1)}})
      .output("y");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(y.dtype(), DType::kFloat);
  EXPECT_EQ(y.axes, output_value(m, "i").axes);
}

TEST(ImportIndexing, GatherElementsRejectsARankMismatch) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(3), N(4)})
      .input("i", DType::kInt64, {N(3)})
      .node("GatherElements", {"x", "i"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 13, "input 1 (indices) has rank 1 but input 0 (data) has rank 2");
}

TEST(ImportIndexing, GatherNDShapesWithAndWithoutBatchDims) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(2), N(3), N(4)})
      .input("i", DType::kInt64, {N(5), N(2)})
      .node("GatherND", {"x", "i"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 11);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{5, 4}));
  EXPECT_TRUE(same_axis(y.axes[1], output_value(m, "x").axes[2]));

  GraphBuilder b;  // batch_dims = 1: one index tuple per batch entry
  b.input("x", DType::kFloat, {N(2), N(3), N(4)})
      .input("i", DType::kInt64, {N(2), N(1)})
      .node("GatherND", {"x", "i"}, {"y"}, {{"batch_dims", N(1)}})
      .output("y");
  const ImportedModel mb = import(b, 12);
  const Value& yb = output_value(mb, "y");
  EXPECT_EQ(static_dims(yb), (std::vector<int64_t>{2, 4}));
  EXPECT_TRUE(same_axis(yb.axes[0], output_value(mb, "x").axes[0]));
}

TEST(ImportIndexing, GatherNDRejectsBadBatchDimsAndTooLongIndexTuples) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(2), N(3)})
      .input("i", DType::kInt64, {N(2), N(1)})
      .node("GatherND", {"x", "i"}, {"y"}, {{"batch_dims", N(2)}})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 13, "attribute 'batch_dims' 2 must be less than both ranks");
  GraphBuilder t;
  t.input("x", DType::kFloat, {N(2), N(3)})
      .input("i", DType::kInt64, {N(4), N(3)})
      .node("GatherND", {"x", "i"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(t, 13, "the last dim of input 1 (indices) is 3, must be in [1, 2]");
  GraphBuilder d;
  d.input("x", DType::kFloat, {N(2), N(3)})
      .input("i", DType::kInt64, {N(3), N(1)})
      .node("GatherND", {"x", "i"}, {"y"}, {{"batch_dims", N(1)}})
      .output("y");
  EXPECT_IMPORT_ERROR(d, 13, "batch dim 0 of input 1 (indices) has length 3");
}

// ---- Scatter* -------------------------------------------------------------------------------

TEST(ImportIndexing, ScatterElementsOutputIsTheDataItself) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(3), N(4)})
      .input("i", DType::kInt64, {N(2), N(4)})
      .input("u", DType::kFloat, {N(2), N(4)})
      .node("ScatterElements", {"x", "i", "u"}, {"y"}, {{"reduction", std::string("add")}})
      .output("y");
  const ImportedModel m = import(g, 16);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
}

TEST(ImportIndexing, ScatterElementsReductionsFollowTheOpset) {
  auto model = [](const std::string& reduction) {
    GraphBuilder g;
    g.input("x", DType::kFloat, {N(3)})
        .input("i", DType::kInt64, {N(2)})
        .input("u", DType::kFloat, {N(2)})
        .node("ScatterElements", {"x", "i", "u"}, {"y"}, {{"reduction", reduction}})
        .output("y");
    return g;
  };
  EXPECT_IMPORT_ERROR(model("add"), 13, "attribute 'reduction' needs opset 16 or later");
  EXPECT_IMPORT_ERROR(model("max"), 16, "attribute 'reduction' is 'max', must be one of none");
  EXPECT_EQ(import_error(model("max"), 18), "");
  EXPECT_IMPORT_ERROR(model("sum"), 18, "attribute 'reduction' is 'sum'");
}

TEST(ImportIndexing, ScatterElementsRejectsUpdatesOfAnotherShapeThanIndices) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(3), N(4)})
      .input("i", DType::kInt64, {N(2), N(4)})
      .input("u", DType::kFloat, {N(2), N(3)})
      .node("ScatterElements", {"x", "i", "u"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 13,
                      "dim 1 of input 2 (updates) has length 3 but that of input 1 "
                      "(indices) has length 4");
}

TEST(ImportIndexing, ScatterIsDeprecatedFromOpset11) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(3)})
      .input("i", DType::kInt64, {N(2)})
      .input("u", DType::kFloat, {N(2)})
      .node("Scatter", {"x", "i", "u"}, {"y"})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 10), "y")), (std::vector<int64_t>{3}));
  EXPECT_IMPORT_ERROR(g, 11, "Scatter is deprecated since opset 11");
}

TEST(ImportIndexing, ScatterNDChecksTheUpdatesShape) {
  auto model = [](std::vector<Dim> updates) {
    GraphBuilder g;
    g.input("x", DType::kFloat, {N(4), N(5), N(6)})
        .input("i", DType::kInt64, {N(2), N(1)})
        .input("u", DType::kFloat, std::move(updates))
        .node("ScatterND", {"x", "i", "u"}, {"y"})
        .output("y");
    return g;
  };
  const ImportedModel m = import(model({N(2), N(5), N(6)}), 13);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
  EXPECT_IMPORT_ERROR(model({N(2), N(5)}), 13, "input 2 (updates) has rank 2, must be 3");
  EXPECT_IMPORT_ERROR(model({N(2), N(5), N(7)}), 13,
                      "dim 2 of input 2 (updates) has length 7 but dim 2 of input 0 (data)");
}

TEST(ImportIndexing, TensorScatterKeepsThePastCacheAxes) {
  auto model = [](int64_t seq) {
    GraphBuilder g;
    g.input("past", DType::kFloat, {N(2), N(8), N(4)})
        .input("update", DType::kFloat, {N(2), seq, N(4)})
        .input("w", DType::kInt64, {N(2)})
        .node("TensorScatter", {"past", "update", "w"}, {"y"}, {{"axis", N(1)}})
        .output("y");
    return g;
  };
  const ImportedModel m = import(model(3), 24);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "past").axes);
  EXPECT_IMPORT_ERROR(model(9), 24, "input 1 (update) has 9 entries along axis 1, more than the 8");
}

// ---- NonZero, Unique -------------------------------------------------------------------------

TEST(ImportIndexing, NonZeroHasTheRankByAnUnknownCount) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(2), N(3)}).node("NonZero", {"x"}, {"y"}).output("y");
  const ImportedModel m_y = import(g, 13);
  const Value& y = output_value(m_y, "y");
  EXPECT_EQ(y.dtype(), DType::kInt64);
  ASSERT_EQ(y.rank(), 2);
  EXPECT_EQ(y.axes[0].length, Length::known(2));
  EXPECT_TRUE(y.axes[1].length.is_unknown());
}

TEST(ImportIndexing, NonZeroOfAConstantFolds) {
  GraphBuilder g;
  g.initializer("x", DType::kInt32, {2, 2}, {0, 5, 7, 0}).node("NonZero", {"x"}, {"y"}).output("y");
  const ImportedModel m_y = import(g, 13);
  const Value& y = output_value(m_y, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{2, 2}));
  ASSERT_TRUE(y.data);
  const std::vector<int64_t> want = {0, 1, 1, 0};  // rows then columns of (0,1) and (1,0)
  for (int k = 0; k < 4; ++k) EXPECT_EQ(element_as_int(*y.data, k), want[k]);
}

TEST(ImportIndexing, UniqueOutputsShareTheUniqueCountAxis) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(2), N(3)})
      .node("Unique", {"x"}, {"y", "idx", "inv", "counts"})
      .output("y");
  const ImportedModel m = import(g, 11);
  const Value& y = output_value(m, "y");
  ASSERT_EQ(y.rank(), 1);
  EXPECT_TRUE(y.axes[0].length.is_unknown());
  EXPECT_EQ(output_value(m, "idx").axes, y.axes);
  EXPECT_EQ(output_value(m, "counts").axes, y.axes);
  EXPECT_EQ(output_value(m, "counts").dtype(), DType::kInt64);
  EXPECT_EQ(static_dims(output_value(m, "inv")), (std::vector<int64_t>{6}));
}

TEST(ImportIndexing, UniqueAlongAnAxisKeepsTheOtherAxes) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(2), N(4), N(3)})
      .node("Unique", {"x"}, {"y", "idx", "inv"}, {{"axis", N(1)}})
      .output("y");
  const ImportedModel m = import(g, 11);
  const Value& x = output_value(m, "x");
  const Value& y = output_value(m, "y");
  ASSERT_EQ(y.rank(), 3);
  EXPECT_TRUE(same_axis(y.axes[0], x.axes[0]));
  EXPECT_TRUE(y.axes[1].length.is_unknown());
  EXPECT_TRUE(same_axis(y.axes[1], output_value(m, "idx").axes[0]));
  EXPECT_TRUE(same_axis(output_value(m, "inv").axes[0], x.axes[1]));
}

// ---- OneHot, Compress, ReverseSequence --------------------------------------------------

TEST(ImportIndexing, OneHotInsertsTheDepthAxis) {
  GraphBuilder g;
  g.input("i", DType::kInt64, {N(2), N(3)})
      .initializer("depth", DType::kFloat, {}, {10})
      .initializer("values", DType::kDouble, {2}, {0, 1})
      .node("OneHot", {"i", "depth", "values"}, {"y"}, {{"axis", N(-2)}})
      .output("y");
  const ImportedModel m = import(g, 11);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(y.dtype(), DType::kDouble);
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{2, 10, 3}));
  EXPECT_TRUE(same_axis(y.axes[2], output_value(m, "i").axes[1]));
  // Opset 9 knows no negative axis but -1.
  EXPECT_IMPORT_ERROR(g, 9, "negative values other than -1 need opset 11");
}

TEST(ImportIndexing, OneHotRejectsValuesThatAreNotAPair) {
  GraphBuilder g;
  g.input("i", DType::kInt64, {N(2)})
      .initializer("depth", DType::kInt64, {1}, {4})
      .input("values", DType::kFloat, {N(3)})
      .node("OneHot", {"i", "depth", "values"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 11, "input 2 (values) must hold 2 elements");
}

TEST(ImportIndexing, OneHotRejectsANegativeDepth) {
  GraphBuilder g;
  g.input("i", DType::kInt64, {N(2)})
      .initializer("depth", DType::kInt32, {}, {-3})
      .initializer("values", DType::kFloat, {2}, {0, 1})
      .node("OneHot", {"i", "depth", "values"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 11, "input 1 (depth) is -3");
}

TEST(ImportIndexing, CompressWithAConstantConditionCountsItsTrues) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(3), N(2)})
      .initializer("c", DType::kBool, {3}, {1, 0, 1})
      .node("Compress", {"x", "c"}, {"y"}, {{"axis", N(0)}})
      .output("y");
  const ImportedModel m = import(g, 11);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(same_axis(y.axes[1], output_value(m, "x").axes[1]));

  GraphBuilder flat;  // no axis: the flattened input
  flat.input("x", DType::kFloat, {N(3), N(2)})
      .input("c", DType::kBool, {N(6)})
      .node("Compress", {"x", "c"}, {"y"})
      .output("y");
  const ImportedModel m_yf = import(flat, 11);
  const Value& yf = output_value(m_yf, "y");
  ASSERT_EQ(yf.rank(), 1);
  EXPECT_TRUE(yf.axes[0].length.is_unknown());
}

TEST(ImportIndexing, CompressNegativeAxisNeedsOpset11) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(3), N(2)})
      .input("c", DType::kBool, {N(2)})
      .node("Compress", {"x", "c"}, {"y"}, {{"axis", N(-1)}})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 9, "attribute 'axis' -1 is negative, which needs opset 11");
  EXPECT_EQ(import_error(g, 11), "");
}

TEST(ImportIndexing, ReverseSequenceKeepsTheAxesAndChecksItsAttributes) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(4), N(3), N(2)})
      .input("lens", DType::kInt64, {N(3)})
      .node("ReverseSequence", {"x", "lens"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 10);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
  GraphBuilder bad;
  bad.input("x", DType::kFloat, {N(4), N(3)})
      .input("lens", DType::kInt64, {N(3)})
      .node("ReverseSequence", {"x", "lens"}, {"y"}, {{"batch_axis", N(0)}})
      .output("y");
  EXPECT_IMPORT_ERROR(bad, 10, "attributes 'batch_axis' and 'time_axis' are both 0");
  GraphBuilder lens;
  lens.input("x", DType::kFloat, {N(4), N(3)})
      .input("lens", DType::kInt64, {N(4)})
      .node("ReverseSequence", {"x", "lens"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(lens, 10, "input 1 (sequence_lens) has length 4 but the batch dim");
}

}  // namespace
}  // namespace geon
