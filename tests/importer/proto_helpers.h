// Raw ONNX protobuf models for the importer's bad-input tests: where model_builder.h makes
// well-formed models, these helpers let a test write any field, malformed ones included, and
// check that the import fails with an error that names what is wrong.
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "importer/import.h"

namespace geon::testing_protos {

// A model with one default-domain opset import and an empty graph named "g".
inline onnx::ModelProto model(int opset = 17) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("geon-tests");
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(opset);
  m.mutable_graph()->set_name("g");
  return m;
}

inline onnx::ValueInfoProto* add_input(onnx::GraphProto& g, const std::string& name,
                                       int elem_type = onnx::TensorProto::FLOAT,
                                       std::vector<int64_t> dims = {2, 3}) {
  auto* vi = g.add_input();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem_type);
  auto* shape = tt->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  return vi;
}

inline void add_output(onnx::GraphProto& g, const std::string& name) {
  g.add_output()->set_name(name);
}

inline onnx::NodeProto* add_node(onnx::GraphProto& g, const std::string& op,
                                 std::vector<std::string> inputs, std::vector<std::string> outputs,
                                 const std::string& name = {}) {
  auto* n = g.add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto& i : inputs) n->add_input(i);
  for (auto& o : outputs) n->add_output(o);
  return n;
}

// A float initializer holding 0, 1, 2... in raw_data.
inline onnx::TensorProto* add_float_initializer(onnx::GraphProto& g, const std::string& name,
                                                std::vector<int64_t> dims) {
  auto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
  return t;
}

inline std::string serialize(const onnx::ModelProto& m) {
  std::string out;
  m.SerializeToString(&out);
  return out;
}

inline std::span<const std::byte> as_bytes(const std::string& s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

inline ImportedModel import_proto(const onnx::ModelProto& m, ImportOptions opt = {}) {
  const std::string bytes = serialize(m);
  return import_model_bytes(as_bytes(bytes), opt);
}

// Runs f, expecting a geon::Error with this code whose message contains every part.
inline ::testing::AssertionResult fails_with(const std::function<void()>& f, ErrorCode code,
                                             const std::vector<std::string>& parts) {
  try {
    f();
  } catch (const Error& e) {
    const std::string msg = e.what();
    if (e.code() != code)
      return ::testing::AssertionFailure()
             << "error code " << static_cast<int>(e.code()) << " instead of "
             << static_cast<int>(code) << ": " << msg;
    for (const auto& p : parts)
      if (msg.find(p) == std::string::npos)
        return ::testing::AssertionFailure() << "message lacks \"" << p << "\": " << msg;
    return ::testing::AssertionSuccess() << msg;
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw a non-geon exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not fail";
}

inline ::testing::AssertionResult import_fails_with(const onnx::ModelProto& m, ErrorCode code,
                                                    const std::vector<std::string>& parts,
                                                    const ImportOptions& opt = {}) {
  return fails_with([&] { import_proto(m, opt); }, code, parts);
}

// A fresh, empty directory under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("geon-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path write(const std::string& name, const std::string& contents) const {
    const auto p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << contents;
    return p;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace geon::testing_protos
