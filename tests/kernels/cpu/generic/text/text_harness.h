// String tensors for the text family's kernel tests: a Host of string handles over strings the
// test keeps alive, views of it (transposed), reading a result's strings back, and node
// attributes the generic harness has no setter for (string lists, float lists, tensors).
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "core/graph/tensor_data.h"
#include "core/strings/strings.h"
#include "tests/kernels/cpu/harness.h"

namespace geon::cpu::testing {

// Keeps the bytes a string Host points at for the whole test program.
inline const std::string& keep(std::string s) {
  static std::deque<std::string> pool;
  pool.push_back(std::move(s));
  return pool.back();
}

inline Host strings(const Dims& shape, const std::vector<std::string>& v) {
  Host h = Host::dense(DType::kString, shape);
  auto* e = reinterpret_cast<StringElem*>(h.bytes->data());
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string& s = keep(v[i]);
    e[i] = {s.data(), s.size()};
  }
  return h;
}

// Row-major element i of a string view (any strides).
inline std::string string_at(const Host& h, int64_t i) {
  const auto* e = reinterpret_cast<const StringElem*>(h.bytes->data());
  return std::string(e[storage_index(h.desc, i)].view());
}

inline std::vector<std::string> all_strings(const Host& h) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < element_count(h.desc); ++i) out.push_back(string_at(h, i));
  return out;
}

// The same strings laid out transposed in storage (a 2-D view with non-dense strides).
inline Host transposed_strings(const Dims& shape, const std::vector<std::string>& v) {
  const Dims t{shape[1], shape[0]};
  std::vector<std::string> stored(v.size());
  for (int64_t r = 0; r < shape[0]; ++r)
    for (int64_t c = 0; c < shape[1]; ++c) stored[c * shape[0] + r] = v[r * shape[1] + c];
  Host h = strings(t, stored);
  h.desc = permute(h.desc, std::vector<int64_t>{1, 0});
  return h;
}

inline void attr_strings(NodeGraph& ng, const std::string& name, std::vector<std::string> v) {
  Attribute a;
  a.kind = Attribute::Kind::kStrings;
  a.strings = std::move(v);
  ng.node->attrs[name] = a;
}

inline void attr_floats(NodeGraph& ng, const std::string& name, std::vector<float> v) {
  Attribute a;
  a.kind = Attribute::Kind::kFloats;
  a.floats = std::move(v);
  ng.node->attrs[name] = a;
}

// A tensor attribute of `dtype` holding `v` (converted), or strings for kString.
inline void attr_tensor(NodeGraph& ng, const std::string& name, DType dtype,
                        const std::vector<double>& v, const std::vector<std::string>& s = {}) {
  const int64_t n =
      dtype == DType::kString ? static_cast<int64_t>(s.size()) : static_cast<int64_t>(v.size());
  auto t = make_tensor_data(dtype, Dims{n});
  if (dtype == DType::kString) {
    t->strings = s;
  } else {
    Host h = Host::of(dtype, Dims{n}, v);
    std::memcpy(t->storage->data(), h.bytes->data(),
                static_cast<size_t>(dtype_bytes_for(dtype, n)));
  }
  Attribute a;
  a.kind = Attribute::Kind::kTensor;
  a.t = t;
  ng.node->attrs[name] = a;
}

}  // namespace geon::cpu::testing
