// Finding backend tests: one test directory or a directory of them, the filter, and data
// files ordered by their number (input_10 after input_2), not by name.
#include "tools/geon-test-runner/discover.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tools/common/host_tensor.h"

namespace geon::tools {
namespace {
namespace fs = std::filesystem;

class DiscoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("geon_discover_" + std::to_string(getpid()));
    fs::remove_all(root_);
    for (const char* t : {"test_b", "test_a", "test_c_long"}) touch(root_ / t / "model.onnx");
    fs::create_directories(root_ / "not_a_test");
    for (int i : {0, 1, 2, 10, 11})
      touch(root_ / "test_a" / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb"));
    touch(root_ / "test_a" / "test_data_set_0" / "output_0.pb");
    touch(root_ / "test_a" / "test_data_set_0" / "input_x.pb");  // not numbered: ignored
    touch(root_ / "test_a" / "test_data_set_1" / "output_0.pb");
  }
  void TearDown() override { fs::remove_all(root_); }
  static void touch(const fs::path& p) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "";
  }
  fs::path root_;
};

TEST_F(DiscoverTest, ADirectoryOfTestsGivesEachTestSortedAndSkipsOthers) {
  const auto tests = discover_tests({root_.string()}, {});
  ASSERT_EQ(tests.size(), 3u);
  EXPECT_EQ(tests[0].name, "test_a");
  EXPECT_EQ(tests[1].name, "test_b");
  EXPECT_EQ(tests[2].name, "test_c_long");
}

TEST_F(DiscoverTest, ATestDirectoryIsOneTestAndTheFilterSelectsBySubstring) {
  const auto one = discover_tests({(root_ / "test_b").string()}, {});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].name, "test_b");
  const auto filtered = discover_tests({root_.string()}, {"_long"});
  ASSERT_EQ(filtered.size(), 1u);
  EXPECT_EQ(filtered[0].name, "test_c_long");
}

// Repeated filters select the union; one with a wildcard is a glob over the whole name.
TEST_F(DiscoverTest, FiltersAreSubstringsOrGlobsAndRepeatedOnesAddUp) {
  const auto names = [&](const std::vector<std::string>& filters) {
    std::vector<std::string> out;
    for (const auto& t : discover_tests({root_.string()}, filters)) out.push_back(t.name);
    return out;
  };
  EXPECT_EQ(names({"test_a", "_long"}), (std::vector<std::string>{"test_a", "test_c_long"}));
  EXPECT_EQ(names({"test_?"}), (std::vector<std::string>{"test_a", "test_b"}));
  EXPECT_EQ(names({"*long"}), (std::vector<std::string>{"test_c_long"}));
  EXPECT_EQ(names({"long*"}), (std::vector<std::string>{}));  // a glob matches the whole name
  EXPECT_EQ(names({"test_[ab]*"}), (std::vector<std::string>{"test_a", "test_b"}));
  EXPECT_TRUE(filter_selects({}, "anything"));
}

TEST_F(DiscoverTest, MissingOrEmptyDirectoriesAreErrors) {
  EXPECT_THROW(discover_tests({(root_ / "nope").string()}, {}), ToolError);
  EXPECT_THROW(discover_tests({(root_ / "not_a_test").string()}, {}), ToolError);
}

TEST_F(DiscoverTest, DataFilesAreOrderedByNumber) {
  const auto sets = discover_data_sets((root_ / "test_a").string());
  ASSERT_EQ(sets.size(), 2u);
  ASSERT_EQ(sets[0].inputs.size(), 5u);
  std::vector<std::string> names;
  for (const auto& p : sets[0].inputs) names.push_back(fs::path(p).filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"input_0.pb", "input_1.pb", "input_2.pb",
                                             "input_10.pb", "input_11.pb"}));
  EXPECT_EQ(sets[0].outputs.size(), 1u);
  EXPECT_TRUE(sets[1].inputs.empty());
  EXPECT_EQ(sets[1].outputs.size(), 1u);
}

}  // namespace
}  // namespace geon::tools
