// session_model_metadata: the ModelProto's producer, versions, doc strings, opset imports and
// metadata_props come back as JSON, checked against a model whose bytes are written here by
// hand (protobuf's wire format), so every expected value is the one put in.
#include <cstdint>
#include <string>
#include <vector>

#include "tests/provider/provider_test_util.h"

namespace geon::provider_test {
namespace {

std::string varint(uint64_t n) {
  std::string out;
  do {
    const auto byte = static_cast<char>((n & 0x7F) | (n > 0x7F ? 0x80 : 0));
    out += byte;
    n >>= 7;
  } while (n);
  return out;
}
std::string bytes_field(int number, const std::string& payload) {
  return varint(static_cast<uint64_t>(number) << 3 | 2) + varint(payload.size()) + payload;
}
std::string int_field(int number, uint64_t value) {
  return varint(static_cast<uint64_t>(number) << 3) + varint(value);
}

// ValueInfoProto: a float tensor of shape [2].
std::string float2(const std::string& name) {
  const std::string shape = bytes_field(1, int_field(1, 2));           // dim { dim_value: 2 }
  const std::string tensor = int_field(1, 1) + bytes_field(2, shape);  // elem_type FLOAT
  return bytes_field(1, name) + bytes_field(2, bytes_field(1, tensor));
}

// A one-Relu model with every metadata field ModelProto has set (field numbers of onnx.proto).
std::string model_with_metadata() {
  const std::string node = bytes_field(1, "x") + bytes_field(2, "y") + bytes_field(4, "Relu");
  const std::string graph = bytes_field(1, node) + bytes_field(2, "relu_graph") +
                            bytes_field(10, "graph \"doc\"") + bytes_field(11, float2("x")) +
                            bytes_field(12, float2("y"));
  auto prop = [](const std::string& k, const std::string& v) {
    return bytes_field(14, bytes_field(1, k) + bytes_field(2, v));
  };
  return int_field(1, 8) +                                            // ir_version
         bytes_field(2, "test-producer") + bytes_field(3, "1.2.3") +  // producer name, version
         bytes_field(4, "ai.geon.test") + int_field(5, 42) +          // domain, model_version
         bytes_field(6, "model doc") + bytes_field(7, graph) +
         bytes_field(8, int_field(2, 17)) +  // opset "" 17
         bytes_field(8, bytes_field(1, "com.microsoft") + int_field(2, 1)) +
         prop("author", "geon") + prop("license", "MIT");
}

bool mentions(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

TEST(ProviderModelMetadata, EveryModelFieldComesBackAsJson) {
  const std::string bytes = model_with_metadata();
  api::Session s(library(), std::as_bytes(std::span(bytes.data(), bytes.size())), "");
  const std::string json = s.model_metadata();
  for (const char* part :
       {"\"producer_name\": \"test-producer\"", "\"producer_version\": \"1.2.3\"",
        "\"domain\": \"ai.geon.test\"", "\"model_version\": 42", "\"description\": \"model doc\"",
        "\"graph_name\": \"relu_graph\"", "\"graph_description\": \"graph \\\"doc\\\"\"",
        "\"ir_version\": 8", "\"opset_imports\": {\"\": 17, \"com.microsoft\": 1}",
        "\"custom_metadata\": {\"author\": \"geon\", \"license\": \"MIT\"}"})
    EXPECT_TRUE(mentions(json, part)) << part << " in\n" << json;
}

TEST(ProviderModelMetadata, UnsetFieldsAreEmpty) {
  api::Session s(library(), model_path("mlp.onnx"));
  const std::string json = s.model_metadata();
  EXPECT_TRUE(mentions(json, "\"producer_name\": \"geon-tests\"")) << json;
  EXPECT_TRUE(mentions(json, "\"domain\": \"\"")) << json;
  EXPECT_TRUE(mentions(json, "\"model_version\": null")) << json;  // unset, unlike 0
  EXPECT_TRUE(mentions(json, "\"custom_metadata\": {}")) << json;
}

TEST(ProviderModelMetadata, NullArgumentsAreInvalid) {
  char* json = nullptr;
  EXPECT_EQ(take(c_api().session_model_metadata(nullptr, &json)).code, GEON_INVALID_ARGUMENT);
  EXPECT_EQ(json, nullptr);
  api::Session s(library(), model_path("mlp.onnx"));
  EXPECT_EQ(take(c_api().session_model_metadata(s.get(), nullptr)).code, GEON_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace geon::provider_test
