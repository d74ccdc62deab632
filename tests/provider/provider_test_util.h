// Shared by the provider tests: the library loaded by path (the tests never link it), the
// test models, and naive references for them (weights by the formulas in
// models/make_models.py).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "geon/geon.hpp"

namespace geon::provider_test {

inline const api::Library& library() {
  static const api::Library lib(GEON_PROVIDER_PATH);
  return lib;
}
inline const GeonApi& c_api() { return library().api(); }

inline std::string model_path(const std::string& name) {
  return std::string(GEON_PROVIDER_MODELS) + "/" + name;
}

// The repository's own example models (models/mlp.onnx, models/cnn.onnx).
inline std::string repo_model_path(const std::string& name) {
  return std::string(GEON_PROVIDER_MODELS) + "/../../../models/" + name;
}

// Frees a status and returns its code and message.
struct StatusInfo {
  GeonErrorCode code = GEON_OK;
  std::string message;
};
inline StatusInfo take(GeonStatus* s) {
  StatusInfo out{c_api().status_code(s), c_api().status_message(s)};
  c_api().release_status(s);
  return out;
}

// The declared type of input or output i in ONNX's notation ("seq(tensor(float))").
inline std::string type_of(GeonSession* s, size_t i, bool input) {
  char* t = nullptr;
  EXPECT_EQ(
      take(input ? c_api().session_input_type(s, i, &t) : c_api().session_output_type(s, i, &t))
          .code,
      GEON_OK);
  std::string out = t ? t : "";
  c_api().release_string(t);
  return out;
}

// The MLP's weights, as make_models.py writes them.
inline float w1(int i, int j) { return static_cast<float>(((16 * i + j) % 7 - 3) / 8.0); }
inline float b1(int j) { return static_cast<float>(j / 20.0 - 0.4); }
inline float w2(int i, int j) { return static_cast<float>(((3 * i + j) % 5 - 2) / 4.0); }
inline float b2(int j) { return static_cast<float>(j / 10.0); }

// The hidden layer relu(X W1 + B1) for X [batch, 4]: [batch, 16].
inline std::vector<float> mlp_hidden(const std::vector<float>& x, int64_t batch) {
  std::vector<float> h(static_cast<size_t>(batch) * 16);
  for (int64_t b = 0; b < batch; ++b)
    for (int j = 0; j < 16; ++j) {
      double acc = 0;
      for (int i = 0; i < 4; ++i) acc += double{x[b * 4 + i]} * w1(i, j);
      h[b * 16 + j] = std::max(0.0f, static_cast<float>(acc) + b1(j));
    }
  return h;
}

// Y = relu(X W1 + B1) W2 + B2: [batch, 3].
inline std::vector<float> mlp_reference(const std::vector<float>& x, int64_t batch) {
  const std::vector<float> h = mlp_hidden(x, batch);
  std::vector<float> y(static_cast<size_t>(batch) * 3);
  for (int64_t b = 0; b < batch; ++b)
    for (int j = 0; j < 3; ++j) {
      double acc = 0;
      for (int i = 0; i < 16; ++i) acc += double{h[b * 16 + i]} * w2(i, j);
      y[b * 3 + j] = static_cast<float>(acc) + b2(j);
    }
  return y;
}

// Distinct inputs per seed, with negative values so that relu matters.
inline std::vector<float> mlp_input(int64_t batch, int seed) {
  std::vector<float> x(static_cast<size_t>(batch) * 4);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>((static_cast<int>(i) * 7 + seed * 13) % 23 - 11) / 5.0f;
  return x;
}

inline api::Feed feed(const std::string& name, const std::vector<float>& data,
                      std::vector<int64_t> shape) {
  return api::Feed{name, 1, std::move(shape), data.data(), data.size() * sizeof(float)};
}

// The ONNX test data's tolerances.
inline void expect_close(std::span<const float> got, std::span<const float> want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(std::fabs(got[i] - want[i]), 1e-7 + 1e-3 * std::fabs(want[i]))
        << "element " << i << ": got " << got[i] << ", want " << want[i];
}

}  // namespace geon::provider_test
