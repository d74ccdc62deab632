// Every function of the GeonApi table, called with NULL handles and then with released handles
// (and, with live handles, NULL for each other pointer argument): each returns a status naming
// the argument, or its documented neutral answer, and never dereferences what it was given.
// The walk names each member, and the test fails when the table has a member it does not walk.
#include <cstddef>
#include <cstdio>
#include <functional>
#include <set>

#include "tests/provider/provider_test_util.h"

namespace geon::provider_test {
namespace {

// The functions of the table: every member after `version`.
constexpr size_t kFunctions =
    (sizeof(GeonApi) - offsetof(GeonApi, library_version)) / sizeof(void*);

// Live objects of every handle type, for the calls that pass one good handle and a NULL
// elsewhere.
struct Live {
  GeonOptions* options = nullptr;
  GeonSession* session = nullptr;
  GeonResult* result = nullptr;
  GeonModel* model = nullptr;
  GeonCapability* capability = nullptr;
  std::vector<std::byte> model_bytes;
  std::vector<float> x = std::vector<float>(4, 0.5f);
  std::vector<int64_t> shape = {1, 4};
  GeonTensor input{1, 2, shape.data(), x.data(), x.size() * sizeof(float)};
  const char* input_name = "X";
  const char* output_name = "Y";
};

// The handles a walk passes: all NULL, or all released.
struct Bad {
  GeonOptions* options = nullptr;
  GeonSession* session = nullptr;
  GeonResult* result = nullptr;
  GeonModel* model = nullptr;
  GeonCapability* capability = nullptr;
  bool released = false;
  // What the message says of argument `arg`, a handle of type `what`.
  std::string says(const std::string& arg, const std::string& what) const {
    return released ? "argument '" + arg + "': the " + what + " handle was released"
                    : "argument '" + arg + "' is null";
  }
};

void expect_refused(GeonStatus* status, const std::string& fragment) {
  const StatusInfo s = take(status);
  EXPECT_EQ(s.code, GEON_INVALID_ARGUMENT) << s.message;
  EXPECT_NE(s.message.find(fragment), std::string::npos)
      << "message: '" << s.message << "', expected it to contain '" << fragment << "'";
}

using Walk = std::function<void(const GeonApi&, const Live&, const Bad&)>;
struct Entry {
  const char* name;
  size_t offset;
  Walk walk;
};
#define GEON_MEMBER(m) #m, offsetof(GeonApi, m)

// One entry per member of the table, in its order.
std::vector<Entry> table_walk() {
  return {
      {GEON_MEMBER(library_version),
       [](const GeonApi& a, const Live&, const Bad&) {
         EXPECT_NE(std::string(a.library_version()), "");
       }},
      {GEON_MEMBER(status_code), [](const GeonApi& a, const Live&,
                                    const Bad&) { EXPECT_EQ(a.status_code(nullptr), GEON_OK); }},
      {GEON_MEMBER(status_message),
       [](const GeonApi& a, const Live&, const Bad&) {
         EXPECT_STREQ(a.status_message(nullptr), "");
       }},
      {GEON_MEMBER(release_status),
       [](const GeonApi& a, const Live&, const Bad&) { a.release_status(nullptr); }},
      {GEON_MEMBER(release_string),
       [](const GeonApi& a, const Live&, const Bad&) { a.release_string(nullptr); }},
      {GEON_MEMBER(create_options),
       [](const GeonApi& a, const Live&, const Bad&) {
         expect_refused(a.create_options(nullptr), "argument 'out' is null");
       }},
      {GEON_MEMBER(set_option),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         expect_refused(a.set_option(bad.options, "strict", "1"), bad.says("options", "options"));
         expect_refused(a.set_option(ok.options, nullptr, "1"), "argument 'key' is null");
         expect_refused(a.set_option(ok.options, "strict", nullptr), "argument 'value' is null");
       }},
      {GEON_MEMBER(release_options),
       [](const GeonApi& a, const Live&, const Bad& bad) { a.release_options(bad.options); }},
      {GEON_MEMBER(create_session),
       [](const GeonApi& a, const Live&, const Bad& bad) {
         const std::string path = model_path("mlp.onnx");
         GeonSession* s = reinterpret_cast<GeonSession*>(&s);  // overwritten with NULL
         expect_refused(a.create_session(nullptr, nullptr, &s), "model_path");
         EXPECT_EQ(s, nullptr);
         expect_refused(a.create_session(path.c_str(), nullptr, nullptr), "argument 'out' is null");
         // NULL options are the defaults; released ones are refused.
         if (bad.released) {
           expect_refused(a.create_session(path.c_str(), bad.options, &s),
                          bad.says("options", "options"));
           EXPECT_EQ(s, nullptr);
         }
       }},
      {GEON_MEMBER(create_session_from_bytes),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         GeonSession* s = nullptr;
         expect_refused(a.create_session_from_bytes(nullptr, 10, nullptr, nullptr, &s), "bytes");
         EXPECT_EQ(s, nullptr);
         expect_refused(a.create_session_from_bytes(ok.model_bytes.data(), ok.model_bytes.size(),
                                                    nullptr, nullptr, nullptr),
                        "argument 'out' is null");
         if (bad.released)
           expect_refused(a.create_session_from_bytes(ok.model_bytes.data(), ok.model_bytes.size(),
                                                      nullptr, bad.options, &s),
                          bad.says("options", "options"));
       }},
      {GEON_MEMBER(release_session),
       [](const GeonApi& a, const Live&, const Bad& bad) { a.release_session(bad.session); }},
      {GEON_MEMBER(session_input_count),
       [](const GeonApi& a, const Live&, const Bad& bad) {
         EXPECT_EQ(a.session_input_count(bad.session), 0u);
       }},
      {GEON_MEMBER(session_output_count),
       [](const GeonApi& a, const Live&, const Bad& bad) {
         EXPECT_EQ(a.session_output_count(bad.session), 0u);
       }},
      {GEON_MEMBER(session_input_info),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         GeonValueInfo info{};
         expect_refused(a.session_input_info(bad.session, 0, &info),
                        bad.says("session", "session"));
         expect_refused(a.session_input_info(ok.session, 0, nullptr), "argument 'out' is null");
       }},
      {GEON_MEMBER(session_output_info),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         GeonValueInfo info{};
         expect_refused(a.session_output_info(bad.session, 0, &info),
                        bad.says("session", "session"));
         expect_refused(a.session_output_info(ok.session, 0, nullptr), "argument 'out' is null");
       }},
      {GEON_MEMBER(run),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         GeonResult* r = reinterpret_cast<GeonResult*>(&r);  // overwritten with NULL
         const char* const* names = &ok.input_name;
         expect_refused(a.run(bad.session, names, &ok.input, 1, nullptr, 0, nullptr, &r),
                        bad.says("session", "session"));
         EXPECT_EQ(r, nullptr);
         expect_refused(a.run(bad.session, nullptr, nullptr, 0, nullptr, 0, nullptr, nullptr),
                        bad.says("session", "session"));
         expect_refused(a.run(ok.session, nullptr, &ok.input, 1, nullptr, 0, nullptr, &r),
                        "argument 'input_names' is null");
         expect_refused(a.run(ok.session, names, nullptr, 1, nullptr, 0, nullptr, &r),
                        "argument 'inputs' is null");
         expect_refused(a.run(ok.session, names, &ok.input, 1, nullptr, 1, nullptr, &r),
                        "argument 'output_names' is null");
         expect_refused(a.run(ok.session, names, &ok.input, 1, nullptr, 0, nullptr, nullptr),
                        "argument 'result' is null");
         const char* null_name = nullptr;
         expect_refused(a.run(ok.session, &null_name, &ok.input, 1, nullptr, 0, nullptr, &r),
                        "input_names[0] is null");
         expect_refused(a.run(ok.session, names, &ok.input, 1, &null_name, 1, nullptr, &r),
                        "output_names[0] is null");
         GeonTensor no_shape = ok.input;
         no_shape.shape = nullptr;
         expect_refused(a.run(ok.session, names, &no_shape, 1, nullptr, 0, nullptr, &r),
                        "shape is null");
         GeonTensor no_data = ok.input;
         no_data.data = nullptr;
         expect_refused(a.run(ok.session, names, &no_data, 1, nullptr, 0, nullptr, &r),
                        "data is null");
         EXPECT_EQ(r, nullptr);
       }},
      {GEON_MEMBER(result_count),
       [](const GeonApi& a, const Live&, const Bad& bad) {
         EXPECT_EQ(a.result_count(bad.result), 0u);
       }},
      {GEON_MEMBER(result_tensor),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         GeonTensor t{};
         expect_refused(a.result_tensor(bad.result, 0, &t), bad.says("result", "result"));
         expect_refused(a.result_tensor(ok.result, 0, nullptr), "argument 'out' is null");
       }},
      {GEON_MEMBER(result_name),
       [](const GeonApi& a, const Live&, const Bad& bad) {
         EXPECT_STREQ(a.result_name(bad.result, 0), "");
       }},
      {GEON_MEMBER(release_result),
       [](const GeonApi& a, const Live&, const Bad& bad) { a.release_result(bad.result); }},
      {GEON_MEMBER(placement_report),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         char* text = nullptr;
         expect_refused(a.placement_report(bad.session, &text), bad.says("session", "session"));
         EXPECT_EQ(text, nullptr);
         expect_refused(a.placement_report(ok.session, nullptr), "argument 'json' is null");
       }},
      {GEON_MEMBER(end_profiling),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         char* text = nullptr;
         expect_refused(a.end_profiling(bad.session, &text), bad.says("session", "session"));
         EXPECT_EQ(text, nullptr);
         expect_refused(a.end_profiling(ok.session, nullptr), "argument 'json' is null");
       }},
      {GEON_MEMBER(session_graph_dump),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         char* text = nullptr;
         expect_refused(a.session_graph_dump(bad.session, &text), bad.says("session", "session"));
         EXPECT_EQ(text, nullptr);
         expect_refused(a.session_graph_dump(ok.session, nullptr), "argument 'text' is null");
       }},
      {GEON_MEMBER(load_model),
       [](const GeonApi& a, const Live&, const Bad&) {
         GeonModel* m = nullptr;
         expect_refused(a.load_model(nullptr, &m), "model_path");
         EXPECT_EQ(m, nullptr);
         expect_refused(a.load_model(model_path("mlp.onnx").c_str(), nullptr),
                        "argument 'out' is null");
       }},
      {GEON_MEMBER(load_model_from_bytes),
       [](const GeonApi& a, const Live& ok, const Bad&) {
         GeonModel* m = nullptr;
         expect_refused(a.load_model_from_bytes(nullptr, 10, nullptr, &m), "bytes");
         EXPECT_EQ(m, nullptr);
         expect_refused(a.load_model_from_bytes(ok.model_bytes.data(), ok.model_bytes.size(),
                                                nullptr, nullptr),
                        "argument 'out' is null");
       }},
      {GEON_MEMBER(release_model),
       [](const GeonApi& a, const Live&, const Bad& bad) { a.release_model(bad.model); }},
      {GEON_MEMBER(model_node_count),
       [](const GeonApi& a, const Live&, const Bad& bad) {
         EXPECT_EQ(a.model_node_count(bad.model), 0u);
       }},
      {GEON_MEMBER(model_node_name),
       [](const GeonApi& a, const Live&, const Bad& bad) {
         EXPECT_STREQ(a.model_node_name(bad.model, 0), "");
       }},
      {GEON_MEMBER(model_node_op),
       [](const GeonApi& a, const Live&, const Bad& bad) {
         EXPECT_STREQ(a.model_node_op(bad.model, 0), "");
       }},
      {GEON_MEMBER(get_capability),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         GeonCapability* c = nullptr;
         expect_refused(a.get_capability(bad.model, nullptr, &c), bad.says("model", "model"));
         EXPECT_EQ(c, nullptr);
         expect_refused(a.get_capability(ok.model, nullptr, nullptr), "argument 'out' is null");
         if (bad.released)
           expect_refused(a.get_capability(ok.model, bad.options, &c),
                          bad.says("options", "options"));
       }},
      {GEON_MEMBER(release_capability),
       [](const GeonApi& a, const Live&, const Bad& bad) { a.release_capability(bad.capability); }},
      {GEON_MEMBER(capability_subgraph_count),
       [](const GeonApi& a, const Live&, const Bad& bad) {
         EXPECT_EQ(a.capability_subgraph_count(bad.capability), 0u);
       }},
      {GEON_MEMBER(capability_subgraph_set),
       [](const GeonApi& a, const Live&, const Bad& bad) {
         EXPECT_STREQ(a.capability_subgraph_set(bad.capability, 0), "");
       }},
      {GEON_MEMBER(capability_subgraph_node_count),
       [](const GeonApi& a, const Live&, const Bad& bad) {
         EXPECT_EQ(a.capability_subgraph_node_count(bad.capability, 0), 0u);
       }},
      {GEON_MEMBER(capability_subgraph_node),
       [](const GeonApi& a, const Live&, const Bad& bad) {
         EXPECT_EQ(a.capability_subgraph_node(bad.capability, 0, 0), SIZE_MAX);
       }},
      {GEON_MEMBER(capability_node_subgraph),
       [](const GeonApi& a, const Live&, const Bad& bad) {
         EXPECT_EQ(a.capability_node_subgraph(bad.capability, 0), -1);
       }},
      {GEON_MEMBER(capability_node_reason),
       [](const GeonApi& a, const Live&, const Bad& bad) {
         EXPECT_STREQ(a.capability_node_reason(bad.capability, 0), "");
       }},
      {GEON_MEMBER(compile),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         GeonSession* s = nullptr;
         expect_refused(a.compile(bad.model, ok.capability, 0, nullptr, &s),
                        bad.says("model", "model"));
         expect_refused(a.compile(ok.model, bad.capability, 0, nullptr, &s),
                        bad.says("capability", "capability"));
         EXPECT_EQ(s, nullptr);
         expect_refused(a.compile(ok.model, ok.capability, 0, nullptr, nullptr),
                        "argument 'out' is null");
         if (bad.released)
           expect_refused(a.compile(ok.model, ok.capability, 0, bad.options, &s),
                          bad.says("options", "options"));
       }},
      {GEON_MEMBER(session_input_has_default),
       [](const GeonApi& a, const Live&, const Bad& bad) {
         EXPECT_EQ(a.session_input_has_default(bad.session, 0), 0);
       }},
      {GEON_MEMBER(session_model_metadata),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         char* text = nullptr;
         expect_refused(a.session_model_metadata(bad.session, &text),
                        bad.says("session", "session"));
         EXPECT_EQ(text, nullptr);
         expect_refused(a.session_model_metadata(ok.session, nullptr), "argument 'json' is null");
       }},
      {GEON_MEMBER(session_input_type),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         char* text = nullptr;
         expect_refused(a.session_input_type(bad.session, 0, &text),
                        bad.says("session", "session"));
         EXPECT_EQ(text, nullptr);
         expect_refused(a.session_input_type(ok.session, 0, nullptr), "argument 'type' is null");
         expect_refused(a.session_input_type(ok.session, 9, &text), "out of range");
       }},
      {GEON_MEMBER(session_output_type),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         char* text = nullptr;
         expect_refused(a.session_output_type(bad.session, 0, &text),
                        bad.says("session", "session"));
         expect_refused(a.session_output_type(ok.session, 0, nullptr), "argument 'type' is null");
       }},
      {GEON_MEMBER(run_values),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         GeonResult* r = reinterpret_cast<GeonResult*>(&r);  // overwritten with NULL
         const char* const* names = &ok.input_name;
         const GeonValue value{GEON_VALUE_TENSOR, 1, &ok.input};
         expect_refused(a.run_values(bad.session, names, &value, 1, nullptr, 0, &r),
                        bad.says("session", "session"));
         EXPECT_EQ(r, nullptr);
         expect_refused(a.run_values(bad.session, nullptr, nullptr, 0, nullptr, 0, nullptr),
                        bad.says("session", "session"));
         expect_refused(a.run_values(ok.session, names, &value, 1, nullptr, 0, nullptr),
                        "argument 'result' is null");
         expect_refused(a.run_values(ok.session, nullptr, &value, 1, nullptr, 0, &r),
                        "argument 'input_names' is null");
         expect_refused(a.run_values(ok.session, names, nullptr, 1, nullptr, 0, &r),
                        "argument 'inputs' is null");
         expect_refused(a.run_values(ok.session, names, &value, 1, nullptr, 1, &r),
                        "argument 'output_names' is null");
         const GeonValue no_tensor{GEON_VALUE_TENSOR, 1, nullptr};
         expect_refused(a.run_values(ok.session, names, &no_tensor, 1, nullptr, 0, &r),
                        "give one tensor");
         EXPECT_EQ(r, nullptr);
       }},
      {GEON_MEMBER(result_value),
       [](const GeonApi& a, const Live& ok, const Bad& bad) {
         GeonValue v{};
         expect_refused(a.result_value(bad.result, 0, &v), bad.says("result", "result"));
         expect_refused(a.result_value(ok.result, 0, nullptr), "argument 'out' is null");
         expect_refused(a.result_value(ok.result, 5, &v), "out of range");
       }},
  };
}
#undef GEON_MEMBER

class ProviderTableWalk : public ::testing::Test {
 protected:
  void SetUp() override {
    const GeonApi& a = c_api();
    live_.model_bytes = file_bytes(model_path("mlp.onnx"));
    ASSERT_FALSE(live_.model_bytes.empty());
    ASSERT_EQ(a.create_options(&live_.options), nullptr);
    ASSERT_EQ(a.create_session(model_path("mlp.onnx").c_str(), nullptr, &live_.session), nullptr);
    ASSERT_EQ(a.run(live_.session, &live_.input_name, &live_.input, 1, nullptr, 0, nullptr,
                    &live_.result),
              nullptr);
    ASSERT_EQ(a.load_model(model_path("mlp.onnx").c_str(), &live_.model), nullptr);
    ASSERT_EQ(a.get_capability(live_.model, nullptr, &live_.capability), nullptr);
    ASSERT_GE(a.capability_subgraph_count(live_.capability), 1u);
  }
  void TearDown() override {
    const GeonApi& a = c_api();
    a.release_capability(live_.capability);
    a.release_model(live_.model);
    a.release_result(live_.result);
    a.release_session(live_.session);
    a.release_options(live_.options);
  }

  // Walks the table with `bad`'s handles; the live objects still work afterwards.
  void walk(const Bad& bad) {
    const GeonApi& a = c_api();
    for (const Entry& e : table_walk()) {
      SCOPED_TRACE(e.name);
      e.walk(a, live_, bad);
    }
    EXPECT_EQ(a.session_input_count(live_.session), 1u);
    EXPECT_EQ(a.result_count(live_.result), 1u);
    EXPECT_GT(a.model_node_count(live_.model), 0u);
  }

  static std::vector<std::byte> file_bytes(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    std::vector<std::byte> out;
    if (!f) return out;
    std::byte buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
      out.insert(out.end(), buf, buf + n);
    std::fclose(f);
    return out;
  }

  Live live_;
};

TEST_F(ProviderTableWalk, WalksEveryMemberOfTheTableOnce) {
  const std::vector<Entry> entries = table_walk();
  EXPECT_EQ(entries.size(), kFunctions)
      << "GeonApi has " << kFunctions << " functions: add the new ones to table_walk()";
  std::set<size_t> offsets;
  for (const Entry& e : entries) {
    EXPECT_TRUE(offsets.insert(e.offset).second) << e.name << " is walked twice";
    EXPECT_EQ((e.offset - offsetof(GeonApi, library_version)) % sizeof(void*), 0u) << e.name;
  }
  EXPECT_EQ(offsets.size(), kFunctions);
}

TEST_F(ProviderTableWalk, NullHandlesAndPointersAreRefusedWithAStatus) { walk(Bad{}); }

TEST_F(ProviderTableWalk, ReleasedHandlesAreRefusedWithAStatus) {
  const GeonApi& a = c_api();
  Bad bad;
  bad.released = true;
  ASSERT_EQ(a.create_options(&bad.options), nullptr);
  ASSERT_EQ(a.create_session(model_path("mlp.onnx").c_str(), nullptr, &bad.session), nullptr);
  ASSERT_EQ(
      a.run(bad.session, &live_.input_name, &live_.input, 1, nullptr, 0, nullptr, &bad.result),
      nullptr);
  ASSERT_EQ(a.load_model(model_path("mlp.onnx").c_str(), &bad.model), nullptr);
  ASSERT_EQ(a.get_capability(bad.model, nullptr, &bad.capability), nullptr);
  a.release_options(bad.options);
  a.release_session(bad.session);
  a.release_result(bad.result);
  a.release_capability(bad.capability);
  a.release_model(bad.model);
  // The walk releases each of them a second time, too.
  walk(bad);
}

}  // namespace
}  // namespace geon::provider_test
