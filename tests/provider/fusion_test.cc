// The fusion passes as a session sees them (optimization_level 2, the default): the MLP's
// MatMul + Add + Relu and MatMul + Add each run as one geon.FusedMatMul on cpu.dnnl with the
// same results, and the placement report, the graph dump and the profile name the nodes each
// fused node replaced; levels 0 and 1 keep the imported nodes; 3 is refused.
#include <gtest/gtest.h>

#include <string>

#include "tests/provider/provider_test_util.h"

namespace geon::provider_test {
namespace {

size_t occurrences(const std::string& text, const std::string& word) {
  size_t n = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}
bool has(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

TEST(ProviderFusion, DefaultLevelFusesTheMlpAndReportsItsMembers) {
  api::Options o(library());
  o.set("profiling", "1");
  api::Session s(library(), model_path("mlp.onnx"), &o);
  const std::vector<float> x = mlp_input(3, 2);
  const std::vector<api::Tensor> y = s.run({{feed("X", x, {3, 4})}});
  const std::vector<float> want = mlp_reference(x, 3);
  const std::span<const float> got = y[0].as<float>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5 + 1e-4 * std::abs(want[i]));

  const std::string report = s.placement_report();
  EXPECT_TRUE(has(report, "\"optimization_level\": 2")) << report;
  EXPECT_TRUE(has(report, "\"name\": \"mm1+add1+relu1\", \"op\": \"geon.FusedMatMul\"")) << report;
  EXPECT_TRUE(has(report, "\"name\": \"mm2+add2\", \"op\": \"geon.FusedMatMul\"")) << report;
  EXPECT_FALSE(has(report, "\"op\": \"Relu\"")) << report;

  EXPECT_TRUE(has(s.graph_dump(), "mm1+add1+relu1")) << s.graph_dump();

  const std::string trace = s.end_profiling();
  EXPECT_EQ(occurrences(trace, "\"ph\": \"X\""), 2u) << trace;
  EXPECT_EQ(occurrences(trace, "\"name\": \"mm1+add1+relu1\""), 1u) << trace;
  EXPECT_EQ(occurrences(trace, "\"name\": \"mm2+add2\""), 1u) << trace;
  EXPECT_TRUE(has(trace, "\"set\": \"cpu.dnnl\"")) << trace;
}

TEST(ProviderFusion, LevelsZeroAndOneKeepTheImportedNodes) {
  for (const char* level : {"0", "1"}) {
    api::Options o(library());
    o.set("optimization_level", level);
    api::Session s(library(), model_path("mlp.onnx"), &o);
    const std::vector<float> x = mlp_input(2, 3);
    const std::vector<api::Tensor> y = s.run({{feed("X", x, {2, 4})}});
    const std::vector<float> want = mlp_reference(x, 2);
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(y[0].as<float>()[i], want[i], 1e-5 + 1e-4 * std::abs(want[i]));
    const std::string report = s.placement_report();
    EXPECT_TRUE(has(report, "\"name\": \"relu1\"")) << report;
    EXPECT_FALSE(has(report, "Fused")) << report;
  }
}

TEST(ProviderFusion, LevelAboveTwoIsRefused) {
  api::Options o(library());
  try {
    o.set("optimization_level", "3");
    FAIL() << "optimization_level 3 was accepted";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.code(), GEON_INVALID_ARGUMENT);
    EXPECT_TRUE(has(e.what(), "optimization_level")) << e.what();
  }
}

}  // namespace
}  // namespace geon::provider_test
