// Helpers for the desc tests: read a view through its strides, and check that an Error carries
// the function, argument and value it should name.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/desc/desc.h"

namespace {

// Storage positions of every element, in row-major order of the logical shape.
inline std::vector<int64_t> positions(const geon::TensorDesc& d) {
  std::vector<int64_t> out;
  for (int64_t len : d.shape)
    if (len == 0) return out;
  std::vector<int64_t> index(d.shape.size(), 0);
  while (true) {
    int64_t p = d.offset;
    for (size_t i = 0; i < index.size(); ++i) p += index[i] * d.strides[i];
    out.push_back(p);
    int i = static_cast<int>(index.size()) - 1;
    for (; i >= 0; --i) {
      if (++index[i] < d.shape[i]) break;
      index[i] = 0;
    }
    if (i < 0) return out;
  }
}

// The values a view reads from `storage`.
template <typename T>
std::vector<T> values_of(const std::vector<T>& storage, const geon::TensorDesc& d) {
  std::vector<T> out;
  for (int64_t p : positions(d)) out.push_back(storage.at(static_cast<size_t>(p)));
  return out;
}

// Runs f, expecting a geon::Error of `code` whose message contains every one of `parts`.
inline void expect_error(const std::function<void()>& f, geon::ErrorCode code,
                         std::initializer_list<std::string> parts) {
  try {
    f();
  } catch (const geon::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const std::string& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "message \"" << e.what() << "\" lacks \"" << p << "\"";
    return;
  }
  ADD_FAILURE() << "no geon::Error thrown";
}

}  // namespace
