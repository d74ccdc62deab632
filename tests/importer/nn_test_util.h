// Helpers shared by the nn family's import tests: short shapes, import without value_info,
// and the error message of a model that must not import.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "tests/importer/model_builder.h"

namespace geon::nn_testing {

using testing_models::Attr;
using testing_models::Dim;
using testing_models::GraphBuilder;
using testing_models::output_value;
using testing_models::static_dims;
using Ints = std::vector<int64_t>;

// Static dims for GraphBuilder::input.
inline std::vector<Dim> dims(std::initializer_list<int64_t> d) {
  return std::vector<Dim>(d.begin(), d.end());
}

inline ImportedModel import_raw(const GraphBuilder& g, int opset) {
  ImportOptions opt;
  opt.trust_value_info = false;
  return testing_models::import(g, opset, opt);
}

// The message of the error that importing g raises; fails the test when g imports.
inline std::string import_error(const GraphBuilder& g, int opset) {
  try {
    import_raw(g, opset);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "the model imported, but an error was expected";
  return {};
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace geon::nn_testing

#define EXPECT_IMPORT_ERROR(g, opset, part)                                     \
  do {                                                                          \
    const std::string nn_msg_ = ::geon::nn_testing::import_error((g), (opset)); \
    EXPECT_TRUE(::geon::nn_testing::contains(nn_msg_, (part))) << nn_msg_;      \
  } while (0)
