// Import rules of the elementwise family.
#include <gtest/gtest.h>

#include "core/base/error.h"
#include "tests/importer/model_builder.h"

namespace geon {
namespace {

using namespace testing_models;

TEST(ImportElementwise, AddBroadcastsNumpyStyleAndSharesUnifiedAxes) {
  GraphBuilder g;
  g.input("a", DType::kFloat, {int64_t{2}, int64_t{1}, int64_t{4}})
      .input("b", DType::kFloat, {int64_t{3}, int64_t{1}})
      .node("Add", {"a", "b"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 17);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(y.dtype(), DType::kFloat);
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{2, 3, 4}));
  // The last dim is the same axis as a's: broadcasting unifies it rather than making a new one.
  EXPECT_TRUE(same_axis(y.axes[2], output_value(m, "a").axes[2]));
}

TEST(ImportElementwise, MismatchedDtypesNameBothInputs) {
  GraphBuilder g;
  g.input("a", DType::kFloat, {int64_t{2}})
      .input("b", DType::kInt32, {int64_t{2}})
      .node("Add", {"a", "b"}, {"y"})
      .output("y");
  try {
    import(g, 17);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("input 1 is int32 but input 0 is float"),
              std::string::npos)
        << e.what();
  }
}

TEST(ImportElementwise, ConstantInputsFoldThroughTheEngine) {
  GraphBuilder g;
  g.initializer("a", DType::kInt64, {2}, {3, 4})
      .initializer("b", DType::kInt64, {2}, {10, 20})
      .node("Add", {"a", "b"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 17);
  const Value& y = output_value(m, "y");
  ASSERT_TRUE(y.data);
  EXPECT_EQ(element_as_int(*y.data, 0), 13);
  EXPECT_EQ(element_as_int(*y.data, 1), 24);
}

}  // namespace
}  // namespace geon
