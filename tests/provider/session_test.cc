// Sessions end to end: the MLP and small models run through the C ABI and its wrapper, checked
// against naive references, and what a session reports about itself.
#include <fstream>
#include <iterator>

#include "tests/provider/provider_test_util.h"

namespace geon::provider_test {
namespace {

bool mentions(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

size_t count_of(const std::string& text, const std::string& word) {
  size_t n = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

// The number after `"key": ` following position `from` in a JSON text (-1 when absent).
int64_t number_after(const std::string& json, const std::string& key, size_t from = 0) {
  const size_t at = json.find("\"" + key + "\": ", from);
  if (at == std::string::npos) return -1;
  return std::stoll(json.substr(at + key.size() + 4));
}

// The kernel set the placement report gives the node named `node`.
std::string set_of(const std::string& report, const std::string& node) {
  const size_t at = report.find("\"name\": \"" + node + "\"");
  if (at == std::string::npos) return "";
  const size_t set = report.find("\"set\": ", at);
  if (set == std::string::npos || report[set + 7] != '"') return "";
  return report.substr(set + 8, report.find('"', set + 8) - set - 8);
}

std::vector<std::byte> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto bytes = std::as_bytes(std::span(chars));
  return {bytes.begin(), bytes.end()};
}

TEST(ProviderSession, MlpMatchesTheReferenceAtSeveralBatchSizes) {
  api::Session s(library(), model_path("mlp.onnx"));
  for (int64_t batch : {1, 3, 17, 3}) {
    const std::vector<float> x = mlp_input(batch, static_cast<int>(batch));
    const std::vector<api::Tensor> out = s.run({{feed("X", x, {batch, 4})}});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].name, "Y");
    EXPECT_EQ(out[0].dtype, 1);
    EXPECT_EQ(out[0].shape, (std::vector<int64_t>{batch, 3}));
    expect_close(out[0].as<float>(), mlp_reference(x, batch));
  }
}

TEST(ProviderSession, InfoDescribesSymbolicAndStaticDims) {
  api::Session s(library(), model_path("mlp.onnx"));
  const std::vector<api::ValueInfo> in = s.inputs(), out = s.outputs();
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].name, "X");
  EXPECT_EQ(in[0].dtype, 1);
  EXPECT_EQ(in[0].rank, 2);
  EXPECT_EQ(in[0].dims, (std::vector<int64_t>{-1, 4}));
  EXPECT_EQ(in[0].dim_names, (std::vector<std::string>{"batch", ""}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "Y");
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{-1, 3}));
  GeonValueInfo info{};
  const StatusInfo out_of_range = take(c_api().session_input_info(s.get(), 1, &info));
  EXPECT_EQ(out_of_range.code, GEON_INVALID_ARGUMENT);
  EXPECT_TRUE(mentions(out_of_range.message, "out of range")) << out_of_range.message;
}

TEST(ProviderSession, ModelBytesRunLikeTheFile) {
  const std::vector<std::byte> bytes = file_bytes(model_path("mlp.onnx"));
  ASSERT_FALSE(bytes.empty());
  api::Session s(library(), bytes, "");
  const std::vector<float> x = mlp_input(4, 9);
  expect_close(s.run({{feed("X", x, {4, 4})}})[0].as<float>(), mlp_reference(x, 4));
}

TEST(ProviderSession, InputsWithDefaultsComeLastAndMayBeOverridden) {
  api::Session s(library(), model_path("defaults.onnx"));
  const std::vector<api::ValueInfo> in = s.inputs();
  ASSERT_EQ(in.size(), 2u);
  EXPECT_EQ(in[0].name, "X");  // declared second, but it has no default
  EXPECT_EQ(in[1].name, "scale");
  EXPECT_FALSE(in[0].has_default);
  EXPECT_TRUE(in[1].has_default);
  EXPECT_EQ(library().api().session_input_has_default(nullptr, 0), 0);
  const std::vector<float> x = {5, 7}, scale = {-1, 0.5f};
  const std::vector<api::Tensor> by_default = s.run({{feed("X", x, {2})}}, {"Y"});
  expect_close(by_default.at(0).as<float>(), std::vector<float>{10, 21});
  const std::vector<api::Tensor> overridden =
      s.run({{feed("scale", scale, {2}), feed("X", x, {2})}}, {"Y"});
  expect_close(overridden.at(0).as<float>(), std::vector<float>{-5, 3.5f});
}

TEST(ProviderSession, OutputsComeInTheOrderAsked) {
  api::Session s(library(), model_path("defaults.onnx"));
  const std::vector<float> x = {1, 2};
  const std::vector<api::Tensor> out = s.run({{feed("X", x, {2})}}, {"Z", "Y"});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "Z");
  EXPECT_EQ(out[1].name, "Y");
  expect_close(out[0].as<float>(), std::vector<float>{3, 5});
  expect_close(out[1].as<float>(), std::vector<float>{2, 6});
}

TEST(ProviderSession, CallerMemoryIsWrittenAndTheRestIsAllocated) {
  api::Session s(library(), model_path("defaults.onnx"));
  const std::vector<float> x = {1, 2};
  std::vector<float> y = {-99, -99};
  const std::vector<api::Sink> sinks = {api::Sink{"Y", 1, {2}, y.data(), 8}, api::Sink{}};
  api::Result r = s.run_into({{feed("X", x, {2})}}, {"Y", "Z"}, sinks);
  expect_close(y, std::vector<float>{2, 6});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r.name(0), "Z");
  expect_close(r.copy(0).as<float>(), std::vector<float>{3, 5});
}

TEST(ProviderSession, EveryOutputInCallerMemoryNeedsNoResult) {
  api::Session s(library(), model_path("mlp.onnx"));
  const std::vector<float> x = mlp_input(2, 5);
  std::vector<float> y(6, -1.0f);
  const char* in_names[] = {"X"};
  const int64_t x_shape[] = {2, 4}, y_shape[] = {2, 3};
  GeonTensor in{1, 2, x_shape, const_cast<float*>(x.data()), 32};
  GeonTensor out{1, 2, y_shape, y.data(), 24};
  GeonStatus* st = c_api().run(s.get(), in_names, &in, 1, nullptr, 0, &out, nullptr);
  ASSERT_EQ(st, nullptr) << take(st).message;
  expect_close(y, mlp_reference(x, 2));
}

TEST(ProviderSession, InputsAreNotModified) {
  api::Options o(library());
  o.set("poison_freed", "1");
  api::Session s(library(), model_path("mlp.onnx"), &o);
  const std::vector<float> x = mlp_input(3, 2);
  const std::vector<float> before = x;
  s.run({{feed("X", x, {3, 4})}});
  EXPECT_EQ(x, before);
}

TEST(ProviderSession, OptimizationLevelZeroGivesTheSameResults) {
  api::Options o(library());
  o.set("optimization_level", "0");
  api::Session s(library(), model_path("mlp.onnx"), &o);
  const std::vector<float> x = mlp_input(2, 11);
  expect_close(s.run({{feed("X", x, {2, 4})}})[0].as<float>(), mlp_reference(x, 2));
}

TEST(ProviderSession, IntraOpThreadsGiveTheSameResults) {
  const std::vector<float> x = mlp_input(64, 5);
  api::Session by_default(library(), model_path("mlp.onnx"));
  const std::vector<api::Tensor> first = by_default.run({{feed("X", x, {64, 4})}});
  const std::span<const float> want = first[0].as<float>();
  expect_close(want, mlp_reference(x, 64));
  for (const char* threads : {"1", "3"}) {
    api::Options o(library());
    o.set("intra_op_threads", threads);
    api::Session s(library(), model_path("mlp.onnx"), &o);
    for (int run = 0; run < 2; ++run)  // the session's threads sleep between runs
      expect_close(s.run({{feed("X", x, {64, 4})}})[0].as<float>(), want);
  }
}

TEST(ProviderSession, GraphDumpListsNodesAndValues) {
  api::Options o(library());
  o.set("optimization_level", "1");  // the nodes as imported (level 2 fuses them)
  api::Session s(library(), model_path("mlp.onnx"), &o);
  const std::string dump = s.graph_dump();
  for (const char* word : {"mm1", "add1", "relu1", "mm2", "add2", "MatMul", "batch"})
    EXPECT_TRUE(mentions(dump, word)) << word << " in\n" << dump;
}

TEST(ProviderSession, ProfilingRecordsOneEventPerNodeRun) {
  api::Options o(library());
  o.set("profiling", "1").set("optimization_level", "1");  // one event per imported node
  api::Session s(library(), model_path("mlp.onnx"));
  api::Session profiled(library(), model_path("mlp.onnx"), &o);
  const std::vector<float> x = mlp_input(2, 1);
  for (int i = 0; i < 2; ++i) {
    s.run({{feed("X", x, {2, 4})}});
    profiled.run({{feed("X", x, {2, 4})}});
  }
  const std::string trace = profiled.end_profiling();
  EXPECT_TRUE(mentions(trace, "\"traceEvents\"")) << trace;
  EXPECT_EQ(count_of(trace, "\"ph\": \"X\""), 10u) << trace;
  EXPECT_EQ(count_of(trace, "\"name\": \"mm1\""), 2u) << trace;
  EXPECT_TRUE(mentions(trace, "\"set\": \"cpu.dnnl\"")) << trace;
  EXPECT_TRUE(mentions(trace, "\"input_shapes\": [[2, 4], [4, 16]]")) << trace;
  // The events were taken: the next call starts empty, and so does a session without profiling.
  EXPECT_EQ(count_of(profiled.end_profiling(), "\"ph\""), 0u);
  EXPECT_EQ(count_of(s.end_profiling(), "\"ph\""), 0u);
}

TEST(ProviderSession, ReportPlacesMatMulOnDnnlAndItsPeakReusesMemory) {
  api::Options o(library());
  o.set("optimization_level", "1");  // the imported nodes and intermediates (no fusion)
  api::Session s(library(), model_path("mlp.onnx"), &o);
  const int64_t batch = 5;
  const std::vector<float> x = mlp_input(batch, 4);
  s.run({{feed("X", x, {batch, 4})}});
  const std::string report = s.placement_report();
  EXPECT_EQ(set_of(report, "mm1"), "cpu.dnnl") << report;
  EXPECT_EQ(set_of(report, "mm2"), "cpu.dnnl") << report;
  EXPECT_EQ(set_of(report, "relu1"), "cpu.generic") << report;
  // h1, h2, h3: [5, 16] floats; h4: [5, 3] floats; each rounded up to 64 bytes.
  auto aligned = [](int64_t n) { return (n + 63) / 64 * 64; };
  const int64_t intermediates = 3 * aligned(batch * 16 * 4) + aligned(batch * 3 * 4);
  const size_t memory = report.find("\"memory\"");
  ASSERT_NE(memory, std::string::npos) << report;
  const int64_t peak = number_after(report, "peak_bytes", memory);
  EXPECT_GT(peak, 0) << report;
  EXPECT_LT(peak, intermediates) << report;
}

TEST(ProviderSession, ReportSaysWhatBecameOfEachRequestedDevice) {
  api::Options o(library());
  o.set("devices", "cuda,cpu").set("optimization_level", "1");  // mm1 stays a node of its own
  api::Session s(library(), model_path("mlp.onnx"), &o);
  const std::vector<float> x = mlp_input(2, 8);
  expect_close(s.run({{feed("X", x, {2, 4})}})[0].as<float>(), mlp_reference(x, 2));
  const std::string report = s.placement_report();
  EXPECT_TRUE(mentions(report, "\"requested\": [\"cuda\", \"cpu.dnnl\", \"cpu.generic\"]"))
      << report;
  // Built without CUDA, or on a machine without a usable GPU, the set is listed as
  // unavailable with the reason; with a GPU it is used (and refuses MatMul, in no CUDA table).
  if (!mentions(library().version(), "cuda")) {
    EXPECT_TRUE(mentions(report, "{\"set\": \"cuda\", \"reason\": \"not built")) << report;
  } else if (!mentions(report, "\"used\": [\"cuda\", ")) {
    EXPECT_TRUE(mentions(report, "{\"set\": \"cuda\", \"reason\": \"CUDA is not usable: "))
        << report;
  }
  EXPECT_EQ(set_of(report, "mm1"), "cpu.dnnl") << report;
}

TEST(ProviderSession, ScalarsHaveRankZeroAndNoShape) {
  api::Session s(library(), model_path("scalars.onnx"));
  const float a = 3, b = -2.5f;
  const std::vector<api::Feed> feeds = {api::Feed{"a", 1, {}, &a, 4}, api::Feed{"b", 1, {}, &b, 4}};
  api::Result r = s.run_result(feeds);
  ASSERT_EQ(r.size(), 1u);
  const GeonTensor c = r.view(0);
  EXPECT_EQ(c.rank, 0);
  EXPECT_EQ(c.bytes, 4u);
  ASSERT_NE(c.data, nullptr);
  EXPECT_EQ(*static_cast<const float*>(c.data), -7.5f);
}

TEST(ProviderSession, AnEmptyBatchGivesAnEmptyOutput) {
  api::Session s(library(), model_path("mlp.onnx"));
  const std::vector<api::Tensor> out = s.run({{api::Feed{"X", 1, {0, 4}, nullptr, 0}}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(out[0].data.empty());
}

TEST(ProviderSession, ExternalDataIsFoundNextToTheFileOrInBaseDir) {
  const std::vector<float> x = {10, 20, 30, 40}, want = {11, 22, 33, 44};
  api::Session from_file(library(), model_path("external.onnx"));
  expect_close(from_file.run({{feed("X", x, {4})}})[0].as<float>(), want);

  const std::vector<std::byte> bytes = file_bytes(model_path("external.onnx"));
  api::Session from_bytes(library(), bytes, model_path(""));
  expect_close(from_bytes.run({{feed("X", x, {4})}})[0].as<float>(), want);
  try {
    api::Session no_base_dir(library(), bytes, "");
    FAIL() << "external data was read without a base_dir";
  } catch (const api::Error& e) {
    EXPECT_TRUE(mentions(e.what(), "external_weights.bin")) << e.what();
  }
}

}  // namespace
}  // namespace geon::provider_test
