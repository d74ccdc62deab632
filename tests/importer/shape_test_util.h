// Helpers for the shape family's import tests: attributes without aggregate initialisation,
// shapes as text ("N,3,?"), folded data as numbers, and expected error messages.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/base/error.h"
#include "tests/importer/model_builder.h"

namespace geon::shape_tests {

using namespace testing_models;

template <class V>
Attr attr(std::string name, V v) {
  Attr a;
  a.name = std::move(name);
  a.value = std::move(v);
  return a;
}
inline Attr ints(std::string name, std::vector<int64_t> v) { return attr(std::move(name), v); }
inline Attr i64(std::string name, int64_t v) { return attr(std::move(name), v); }
inline Attr str(std::string name, std::string v) { return attr(std::move(name), v); }

// "N,3,?" from a value's axes; "<unknown rank>" when it has none.
inline std::string shape_of(const Value& v) {
  if (!v.rank_known) return "<unknown rank>";
  std::string s;
  for (const Axis& a : v.axes) s += (s.empty() ? "" : ",") + to_string(a.length);
  return s;
}

// The folded data as numbers (fails the test when the value has none).
inline std::vector<int64_t> ints_of(const Value& v) {
  EXPECT_TRUE(v.data) << v.name << " was not folded";
  std::vector<int64_t> out;
  if (v.data)
    for (int64_t i = 0; i < v.data->elements(); ++i) out.push_back(element_as_int(*v.data, i));
  return out;
}
inline std::vector<double> doubles_of(const Value& v) {
  EXPECT_TRUE(v.data) << v.name << " was not folded";
  std::vector<double> out;
  if (v.data)
    for (int64_t i = 0; i < v.data->elements(); ++i) out.push_back(element_as_double(*v.data, i));
  return out;
}

// The contents as text ("N,3,?"), or "<none>".
inline std::string contents_of(const Value& v) {
  if (!v.contents_known) return "<none>";
  std::string s;
  for (const Length& l : v.contents) s += (s.empty() ? "" : ",") + to_string(l);
  return s;
}

// The message of the error importing g throws, or "<no error>".
inline std::string import_error(const GraphBuilder& g, int opset) {
  try {
    import(g, opset);
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

#define EXPECT_IMPORT_ERROR(g, opset, text)                                    \
  do {                                                                         \
    const std::string geon_msg_ = ::geon::shape_tests::import_error(g, opset); \
    EXPECT_NE(geon_msg_.find(text), std::string::npos) << geon_msg_;           \
  } while (0)

inline Dim sym(const char* s) { return Dim(std::string(s)); }
inline Dim len(int64_t n) { return Dim(n); }

}  // namespace geon::shape_tests
