// External data: tensors stored in files next to the model. Every refusal (absolute path,
// '..', a symlink out of the model's directory, a missing file, offsets and ranges past the
// end, a length that disagrees with the shape, bytes without a base directory) has its own
// message; a well-formed reference reads the right bytes. Real files in a temp dir.
#include <gtest/gtest.h>

#include "tests/importer/proto_helpers.h"

namespace geon {
namespace {

using namespace testing_protos;
using E = ErrorCode;
namespace fs = std::filesystem;

// 24 bytes of floats 0..5 behind 4 bytes of padding: offset 4 reads [0, 1, 2, 3, 4, 5].
std::string data_file_contents() {
  std::string s(4, '\x7f');
  for (int i = 0; i < 6; ++i) {
    const float f = static_cast<float>(i);
    s.append(reinterpret_cast<const char*>(&f), 4);
  }
  return s;
}

// A model whose initializer 'w' (float [dims]) lives in external data with these keys.
onnx::ModelProto external_model(const std::vector<std::pair<std::string, std::string>>& keys,
                                std::vector<int64_t> dims = {2, 3}) {
  auto m = model();
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name("w");
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  for (const auto& [k, v] : keys) {
    auto* e = t->add_external_data();
    e->set_key(k);
    e->set_value(v);
  }
  add_output(*m.mutable_graph(), "w");
  return m;
}

class ExternalData : public ::testing::Test {
 protected:
  void SetUp() override { dir_.write("weights.bin", data_file_contents()); }
  ImportOptions in_dir() const {
    ImportOptions opt;
    opt.base_dir = dir_.path().string();
    return opt;
  }
  TempDir dir_;
};

TEST_F(ExternalData, ReadsTheRangeAtOffsetFromAFileBesideTheModel) {
  const auto m = external_model({{"location", "weights.bin"}, {"offset", "4"}, {"length", "24"}});
  const auto path = dir_.write("model.onnx", serialize(m));
  const ImportedModel im = import_model_file(path.string());
  const Value& w = im.graph->value(im.graph->find("w"));
  ASSERT_TRUE(w.data);
  ASSERT_EQ(w.data->elements(), 6);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(element_as_double(*w.data, i), i);
  // From bytes, with the directory given explicitly; no length means "what the shape needs".
  const auto m2 = external_model({{"location", "weights.bin"}, {"offset", "8"}}, {5});
  const ImportedModel im2 = import_proto(m2, in_dir());
  const Value& w2 = im2.graph->value(im2.graph->find("w"));
  ASSERT_TRUE(w2.data);
  EXPECT_EQ(element_as_double(*w2.data, 0), 1.0);
  EXPECT_EQ(element_as_double(*w2.data, 4), 5.0);
}

TEST_F(ExternalData, ReadsFromASubdirectory) {
  dir_.write("sub/more.bin", data_file_contents());
  const auto m = external_model({{"location", "sub/more.bin"}, {"offset", "4"}});
  const ImportedModel im = import_proto(m, in_dir());
  EXPECT_EQ(element_as_double(*im.graph->value(im.graph->find("w")).data, 5), 5.0);
}

TEST_F(ExternalData, ModelFromBytesNeedsABaseDirectory) {
  const auto m = external_model({{"location", "weights.bin"}, {"offset", "4"}});
  EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument,
                                {"initializer 'w'", "external data 'weights.bin'",
                                 "loaded from bytes without a base directory"}));
}

TEST_F(ExternalData, AbsolutePathIsRefused) {
  const std::string abs = (dir_.path() / "weights.bin").string();
  const auto m = external_model({{"location", abs}, {"offset", "4"}});
  EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument,
                                {"initializer 'w'", "absolute paths are not allowed"}, in_dir()));
}

TEST_F(ExternalData, DotDotSegmentsAreRefused) {
  for (const std::string loc : {"../weights.bin", "sub/../weights.bin", "a/b/../../x.bin"}) {
    const auto m = external_model({{"location", loc}});
    EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument,
                                  {"external data '" + loc + "'", "'..' segments are not allowed"},
                                  in_dir()));
  }
}

TEST_F(ExternalData, SymlinkLeavingTheModelDirectoryIsRefused) {
  TempDir outside;
  outside.write("secret.bin", data_file_contents());
  fs::create_symlink(outside.path() / "secret.bin", dir_.path() / "link.bin");
  fs::create_directory_symlink(outside.path(), dir_.path() / "linkdir");
  for (const std::string loc : {"link.bin", "linkdir/secret.bin"}) {
    const auto m = external_model({{"location", loc}, {"offset", "4"}});
    EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument,
                                  {"external data '" + loc + "'", "outside the model's directory"},
                                  in_dir()));
  }
  // A symlink that stays inside the directory is fine.
  fs::create_symlink("weights.bin", dir_.path() / "inside.bin");
  EXPECT_NO_THROW(
      import_proto(external_model({{"location", "inside.bin"}, {"offset", "4"}}), in_dir()));
}

TEST_F(ExternalData, MissingFileIsNamed) {
  const auto m = external_model({{"location", "absent.bin"}});
  EXPECT_TRUE(import_fails_with(m, E::kInvalidArgument,
                                {"external data 'absent.bin'", "file does not exist"}, in_dir()));
}

TEST_F(ExternalData, DirectoryOrMissingLocationIsRefused) {
  fs::create_directory(dir_.path() / "adir");
  EXPECT_TRUE(import_fails_with(external_model({{"location", "adir"}}), E::kInvalidArgument,
                                {"external data 'adir'", "not a regular file"}, in_dir()));
  EXPECT_TRUE(import_fails_with(external_model({{"offset", "0"}}), E::kInvalidArgument,
                                {"initializer 'w'", "no location given"}, in_dir()));
}

TEST_F(ExternalData, OffsetPastTheEndOfTheFileIsRefused) {
  const auto m = external_model({{"location", "weights.bin"}, {"offset", "100"}});
  EXPECT_TRUE(import_fails_with(m, E::kOutOfRange,
                                {"offset 100 is past the end of the file (28 bytes)"}, in_dir()));
}

TEST_F(ExternalData, RangePastTheEndOfTheFileIsRefused) {
  const auto m = external_model({{"location", "weights.bin"}, {"offset", "8"}, {"length", "24"}});
  EXPECT_TRUE(import_fails_with(
      m, E::kOutOfRange, {"range [8, 32) is past the end of the file (28 bytes)"}, in_dir()));
}

TEST_F(ExternalData, HugeDimsAreRefusedByTheFileSizeNotByAnAllocator) {
  const auto m = external_model({{"location", "weights.bin"}}, {int64_t{1} << 38});
  EXPECT_TRUE(
      import_fails_with(m, E::kOutOfRange, {"past the end of the file (28 bytes)"}, in_dir()));
}

TEST_F(ExternalData, LengthDisagreeingWithTheShapeIsRefused) {
  const auto m = external_model({{"location", "weights.bin"}, {"offset", "4"}, {"length", "16"}});
  EXPECT_TRUE(import_fails_with(
      m, E::kInvalidArgument,
      {"length 16 does not match the 24 bytes the tensor's dtype and shape need"}, in_dir()));
}

TEST_F(ExternalData, NonNumericOffsetOrLengthIsRefused) {
  for (const std::string bad : {"12abc", "-4", "", "99999999999999999999999"}) {
    const auto m = external_model({{"location", "weights.bin"}, {"offset", bad}});
    EXPECT_TRUE(import_fails_with(
        m, E::kInvalidArgument,
        {"initializer 'w'", "external data offset '" + bad + "' is not a non-negative integer"},
        in_dir()));
  }
}

}  // namespace
}  // namespace geon
