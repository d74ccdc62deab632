// Every way a caller can get it wrong returns a status with a code and a message that says
// what was wrong, and never crashes or returns a half-made object.
#include <cstdio>
#include <cstring>

#include "tests/provider/provider_test_util.h"

namespace geon::provider_test {
namespace {

bool mentions(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

TEST(ProviderErrors, NullStatusMeansSuccess) {
  EXPECT_EQ(c_api().status_code(nullptr), GEON_OK);
  EXPECT_STREQ(c_api().status_message(nullptr), "");
  c_api().release_status(nullptr);
  c_api().release_string(nullptr);
}

TEST(ProviderErrors, NullArgumentsAreRefusedByName) {
  const GeonApi& a = c_api();
  struct Case {
    GeonStatus* status;
    const char* argument;
  };
  GeonOptions* options = nullptr;
  ASSERT_EQ(a.create_options(&options), nullptr);
  GeonSession* session = nullptr;
  GeonModel* model = nullptr;
  GeonCapability* cap = nullptr;
  char* text = nullptr;
  GeonTensor tensor{};
  GeonValueInfo info{};
  const Case cases[] = {
      {a.create_options(nullptr), "out"},
      {a.set_option(nullptr, "strict", "1"), "options"},
      {a.set_option(options, nullptr, "1"), "key"},
      {a.set_option(options, "strict", nullptr), "value"},
      {a.create_session(nullptr, nullptr, &session), "model_path"},
      {a.create_session(model_path("mlp.onnx").c_str(), nullptr, nullptr), "out"},
      {a.create_session_from_bytes(nullptr, 10, nullptr, nullptr, &session), "bytes"},
      {a.session_input_info(nullptr, 0, &info), "session"},
      {a.run(nullptr, nullptr, nullptr, 0, nullptr, 0, nullptr, nullptr), "session"},
      {a.result_tensor(nullptr, 0, &tensor), "result"},
      {a.placement_report(nullptr, &text), "session"},
      {a.end_profiling(nullptr, &text), "session"},
      {a.session_graph_dump(nullptr, &text), "session"},
      {a.load_model(nullptr, &model), "model_path"},
      {a.get_capability(nullptr, nullptr, &cap), "model"},
      {a.compile(nullptr, nullptr, 0, nullptr, &session), "model"},
  };
  for (const Case& c : cases) {
    const StatusInfo s = take(c.status);
    EXPECT_EQ(s.code, GEON_INVALID_ARGUMENT) << s.message;
    EXPECT_TRUE(mentions(s.message, std::string("'") + c.argument + "'")) << s.message;
  }
  EXPECT_EQ(session, nullptr);
  EXPECT_EQ(model, nullptr);
  EXPECT_EQ(cap, nullptr);
  EXPECT_EQ(text, nullptr);
  // Accessors on null handles answer "nothing" instead of failing.
  EXPECT_EQ(a.session_input_count(nullptr), 0u);
  EXPECT_EQ(a.model_node_count(nullptr), 0u);
  EXPECT_STREQ(a.model_node_name(nullptr, 0), "");
  EXPECT_EQ(a.capability_node_subgraph(nullptr, 0), -1);
  EXPECT_EQ(a.result_count(nullptr), 0u);
  a.release_options(options);
}

TEST(ProviderErrors, MissingModelFileIsNotFound) {
  for (auto* load : {+[](const std::string& p) { api::Session(library(), p); },
                     +[](const std::string& p) { api::Model(library(), p); }}) {
    try {
      load("/nonexistent/model.onnx");
      ADD_FAILURE() << "a missing file loaded";
    } catch (const api::Error& e) {
      EXPECT_EQ(e.code(), GEON_NOT_FOUND);
      EXPECT_TRUE(mentions(e.what(), "/nonexistent/model.onnx")) << e.what();
    }
  }
}

TEST(ProviderErrors, BytesThatAreNoModelAreInvalidModel) {
  const std::string junk = "this is not an ONNX model \x01\x02\xff\xfe";
  try {
    api::Session(library(), std::as_bytes(std::span(junk)), "");
    FAIL() << "junk bytes made a session";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.code(), GEON_INVALID_MODEL) << e.what();
    EXPECT_FALSE(std::string(e.what()).empty());
  }
  GeonSession* s = nullptr;
  const StatusInfo empty =
      take(c_api().create_session_from_bytes(junk.data(), 0, nullptr, nullptr, &s));
  EXPECT_EQ(empty.code, GEON_INVALID_ARGUMENT);
  EXPECT_TRUE(mentions(empty.message, "empty")) << empty.message;
  EXPECT_EQ(s, nullptr);
}

// Every prefix of a real model, and the model with single bytes flipped: each either loads
// or fails with a message, and a failure leaves no session behind.
TEST(ProviderErrors, DamagedModelBytesFailCleanly) {
  std::FILE* f = std::fopen(model_path("mlp.onnx").c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::vector<char> bytes(4096);
  bytes.resize(std::fread(bytes.data(), 1, bytes.size(), f));
  std::fclose(f);
  ASSERT_GT(bytes.size(), 100u);
  auto check = [](const std::vector<char>& b, size_t n) {
    GeonSession* s = nullptr;
    GeonStatus* st = c_api().create_session_from_bytes(b.data(), n, nullptr, nullptr, &s);
    if (st) {
      EXPECT_EQ(s, nullptr);
      EXPECT_NE(take(st).message, "");
    }
    c_api().release_session(s);
    return st != nullptr;
  };
  size_t failures = 0;
  for (size_t n = 1; n < bytes.size(); n += 3) failures += check(bytes, n);
  EXPECT_GT(failures, 0u);
  for (size_t i = 0; i < bytes.size(); i += 5) {
    std::vector<char> flipped = bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
    check(flipped, flipped.size());
  }
}

TEST(ProviderErrors, UnknownOptionKeyIsInvalidArgument) {
  api::Options o(library());
  try {
    o.set("intra_op_thread", "2");
    FAIL();
  } catch (const api::Error& e) {
    EXPECT_EQ(e.code(), GEON_INVALID_ARGUMENT);
    EXPECT_TRUE(mentions(e.what(), "intra_op_thread")) << e.what();
  }
}

TEST(ProviderErrors, MalformedOptionValuesAreRefusedNamingKeyAndValue) {
  const std::pair<const char*, const char*> bad[] = {
      {"devices", "tpu"},
      {"devices", "cpu.dnnl,,cpu.generic"},
      {"devices", ""},
      {"intra_op_threads", "-1"},
      {"intra_op_threads", "2x"},
      {"intra_op_threads", ""},
      {"optimization_level", "7"},
      {"strict", "yes"},
      {"profiling", "true"},
      {"log_level", "loud"},
      {"arena_limit_bytes", "1e9"},
      {"poison_freed", "2"},
  };
  api::Options o(library());
  for (const auto& [key, value] : bad) {
    try {
      o.set(key, value);
      ADD_FAILURE() << key << "=" << value << " was accepted";
    } catch (const api::Error& e) {
      EXPECT_EQ(e.code(), GEON_INVALID_ARGUMENT);
      EXPECT_TRUE(mentions(e.what(), key)) << e.what();
      EXPECT_TRUE(mentions(e.what(), std::string("'") + value + "'")) << e.what();
    }
  }
  // Good values for every key are accepted.
  o.set("devices", "cpu").set("intra_op_threads", "2").set("optimization_level", "0");
  o.set("strict", "0").set("profiling", "1").set("log_level", "error");
  o.set("arena_limit_bytes", "1000000").set("poison_freed", "1");
}

class ProviderRunErrors : public ::testing::Test {
 protected:
  api::Session session{library(), model_path("mlp.onnx")};
  std::vector<float> x = mlp_input(2, 1);

  api::Error run_error(const std::vector<api::Feed>& feeds,
                       const std::vector<std::string>& outputs = {},
                       const std::vector<api::Sink>& sinks = {}) {
    try {
      session.run_into(feeds, outputs, sinks);
    } catch (const api::Error& e) {
      return e;
    }
    ADD_FAILURE() << "the run succeeded";
    return api::Error(GEON_OK, "");
  }
};

TEST_F(ProviderRunErrors, WrongInputNameIsNotFound) {
  const api::Error e = run_error({feed("x", x, {2, 4})});
  EXPECT_EQ(e.code(), GEON_NOT_FOUND);
  EXPECT_TRUE(mentions(e.what(), "'x'")) << e.what();
  EXPECT_TRUE(mentions(e.what(), "'X'")) << e.what();  // lists the real inputs
}

TEST_F(ProviderRunErrors, WrongDtypeNamesBothTypes) {
  std::vector<int64_t> ints(8, 1);
  const api::Error e = run_error({api::Feed{"X", 7, {2, 4}, ints.data(), 64}});
  EXPECT_EQ(e.code(), GEON_INVALID_ARGUMENT);
  EXPECT_TRUE(mentions(e.what(), "int64") && mentions(e.what(), "float")) << e.what();
}

TEST_F(ProviderRunErrors, UnknownDtypeNumberIsRefused) {
  const api::Error e = run_error({api::Feed{"X", 99, {2, 4}, x.data(), 32}});
  EXPECT_EQ(e.code(), GEON_INVALID_ARGUMENT);
  EXPECT_TRUE(mentions(e.what(), "dtype 99")) << e.what();
}

TEST_F(ProviderRunErrors, NegativeLengthIsRefused) {
  const api::Error e = run_error({api::Feed{"X", 1, {-2, 4}, x.data(), 32}});
  EXPECT_EQ(e.code(), GEON_INVALID_ARGUMENT);
  EXPECT_TRUE(mentions(e.what(), "negative")) << e.what();
}

TEST_F(ProviderRunErrors, NullDataIsRefused) {
  const api::Error e = run_error({api::Feed{"X", 1, {2, 4}, nullptr, 32}});
  EXPECT_EQ(e.code(), GEON_INVALID_ARGUMENT);
  EXPECT_TRUE(mentions(e.what(), "null")) << e.what();
}

TEST_F(ProviderRunErrors, WrongRankOrLengthShowsTheDeclaredShape) {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{8}, {2, 2, 2}, {4, 2}}) {
    const api::Error e = run_error({feed("X", x, shape)});
    EXPECT_EQ(e.code(), GEON_INVALID_ARGUMENT);
    EXPECT_TRUE(mentions(e.what(), "(batch, 4)")) << e.what();
  }
}

TEST_F(ProviderRunErrors, TooFewInputBytesAreRefused) {
  const api::Error e = run_error({api::Feed{"X", 1, {2, 4}, x.data(), 16}});
  EXPECT_EQ(e.code(), GEON_INVALID_ARGUMENT);
  EXPECT_TRUE(mentions(e.what(), "needs 32")) << e.what();
}

TEST_F(ProviderRunErrors, MissingInputIsNamed) {
  const api::Error e = run_error({});
  EXPECT_EQ(e.code(), GEON_INVALID_ARGUMENT);
  EXPECT_TRUE(mentions(e.what(), "'X'")) << e.what();
}

TEST_F(ProviderRunErrors, InputFedTwiceIsRefused) {
  const api::Error e = run_error({feed("X", x, {2, 4}), feed("X", x, {2, 4})});
  EXPECT_EQ(e.code(), GEON_INVALID_ARGUMENT);
  EXPECT_TRUE(mentions(e.what(), "twice")) << e.what();
}

TEST_F(ProviderRunErrors, UnknownOutputNameIsNotFound) {
  const api::Error e = run_error({feed("X", x, {2, 4})}, {"h3"});
  EXPECT_EQ(e.code(), GEON_NOT_FOUND);
  EXPECT_TRUE(mentions(e.what(), "'h3'")) << e.what();
}

TEST_F(ProviderRunErrors, CallerOutputTooSmallIsRefused) {
  std::vector<float> y(5);
  const api::Error e =
      run_error({feed("X", x, {2, 4})}, {"Y"}, {api::Sink{"Y", 1, {2, 3}, y.data(), y.size() * 4}});
  EXPECT_EQ(e.code(), GEON_INVALID_ARGUMENT);
  EXPECT_TRUE(mentions(e.what(), "output 'Y'")) << e.what();
  EXPECT_TRUE(mentions(e.what(), "needs 24")) << e.what();
}

TEST_F(ProviderRunErrors, CallerOutputOfWrongShapeIsRefused) {
  std::vector<float> y(8);
  const api::Error e =
      run_error({feed("X", x, {2, 4})}, {"Y"}, {api::Sink{"Y", 1, {2, 4}, y.data(), y.size() * 4}});
  EXPECT_EQ(e.code(), GEON_INVALID_ARGUMENT);
  EXPECT_TRUE(mentions(e.what(), "output 'Y'")) << e.what();
}

TEST_F(ProviderRunErrors, WrapperRefusesSinksThatDoNotMatchTheOutputs) {
  std::vector<float> y(6);
  const api::Sink sink{"Y", 1, {2, 3}, y.data(), 24};
  const api::Error e = run_error({feed("X", x, {2, 4})}, {}, {sink, sink});
  EXPECT_EQ(e.code(), GEON_INVALID_ARGUMENT);
  EXPECT_TRUE(mentions(e.what(), "2 sinks for 1 outputs")) << e.what();
}

TEST_F(ProviderRunErrors, NullResultIsRefusedWhenAnOutputNeedsAllocation) {
  const char* names[] = {"X"};
  const int64_t shape[] = {2, 4};
  GeonTensor t{1, 2, shape, x.data(), 32};
  const StatusInfo s = take(c_api().run(session.get(), names, &t, 1, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(s.code, GEON_INVALID_ARGUMENT);
  EXPECT_TRUE(mentions(s.message, "'result'")) << s.message;
}

TEST_F(ProviderRunErrors, AFailedRunReturnsNoResult) {
  const char* names[] = {"nope"};
  const int64_t shape[] = {2, 4};
  GeonTensor t{1, 2, shape, x.data(), 32};
  GeonResult* r = reinterpret_cast<GeonResult*>(&t);  // garbage in: must be reset
  const StatusInfo s = take(c_api().run(session.get(), names, &t, 1, nullptr, 0, nullptr, &r));
  EXPECT_EQ(s.code, GEON_NOT_FOUND);
  EXPECT_EQ(r, nullptr);
}

TEST(ProviderErrors, ArenaLimitRefusesARunThatNeedsMore) {
  api::Options o(library());
  o.set("arena_limit_bytes", "64");
  api::Session s(library(), model_path("mlp.onnx"), &o);
  const std::vector<float> x = mlp_input(64, 3);
  try {
    s.run({{feed("X", x, {64, 4})}});
    FAIL() << "a run above the arena limit succeeded";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.code(), GEON_RESOURCE_EXHAUSTED) << e.what();
  }
}

TEST(ProviderErrors, StrictModeNamesEveryNodeTheFirstSetRefuses) {
  api::Options o(library());
  // Level 1: at level 2 Add and Relu fuse into the MatMuls, which cpu.dnnl runs.
  o.set("devices", "cpu.dnnl,cpu.generic").set("strict", "1").set("optimization_level", "1");
  try {
    api::Session s(library(), model_path("mlp.onnx"), &o);
    FAIL() << "strict mode accepted Add and Relu on cpu.dnnl";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.code(), GEON_UNSUPPORTED);
    for (const char* word : {"add1", "relu1", "add2", "Add", "Relu", "cpu.dnnl"})
      EXPECT_TRUE(mentions(e.what(), word)) << word << " in " << e.what();
    EXPECT_FALSE(mentions(e.what(), "mm1")) << e.what();
  }
}

TEST(ProviderErrors, ANodeNoSetCanRunFailsSessionCreationNamingIt) {
  try {
    api::Options o(library());
    o.set("devices", "cpu.dnnl");  // which has no Det
    api::Session s(library(), model_path("unclaimed.onnx"), &o);
    FAIL() << "Det ran on cpu.dnnl; pick another op without a kernel there for this test";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.code(), GEON_UNSUPPORTED) << e.what();
    EXPECT_TRUE(mentions(e.what(), "det")) << e.what();
    EXPECT_TRUE(mentions(e.what(), "Det")) << e.what();
  }
}

// Whether the cuda set is built or not (then it is skipped as unavailable), it cannot run
// MatMul, so the MLP has no kernel set for some node.
TEST(ProviderErrors, DevicesThatCannotRunTheModelAreUnsupported) {
  api::Options o(library());
  o.set("devices", "cuda");
  try {
    api::Session s(library(), model_path("mlp.onnx"), &o);
    FAIL() << "the MLP ran on the cuda set alone";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.code(), GEON_UNSUPPORTED);
    EXPECT_TRUE(mentions(e.what(), "cuda")) << e.what();
  }
}

}  // namespace
}  // namespace geon::provider_test
