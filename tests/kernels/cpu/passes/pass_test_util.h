// Shared by the pass tests: graphs built with graph_builder.h, run through the executor over
// the real CPU kernel sets (before and after a pass, to compare), seeded random inputs, and
// attribute setters for the node added last.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/runtime/executor.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/graph_builder.h"

namespace geon::cpu::testing {

inline const std::vector<const KernelSet*>& cpu_sets() {
  static const std::vector<const KernelSet*> sets = {&dnnl_kernels(), &generic_kernels()};
  return sets;
}

inline std::vector<float> random_floats(size_t n, unsigned seed, float lo = -2, float hi = 2) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}
inline std::vector<double> random_doubles(size_t n, unsigned seed, double lo = -2, double hi = 2) {
  std::vector<double> out;
  for (float f : random_floats(n, seed, static_cast<float>(lo), static_cast<float>(hi)))
    out.push_back(f);
  return out;
}

// Runs g (a copy) on float inputs, one per g.inputs with the input's static shape; returns every
// graph output as floats.
inline std::vector<std::vector<float>> run_graph(
    const Graph& g, std::vector<std::vector<float>> inputs,
    const std::vector<const KernelSet*>& sets = cpu_sets()) {
  auto exe = Executable::compile(std::make_shared<Graph>(g), sets);
  std::vector<TensorRef> refs;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& v = g.value(g.inputs[i]);
    refs.push_back(
        TensorRef{row_major(DType::kFloat, *static_lengths(v.axes)), inputs[i].data(), Device{}});
  }
  std::vector<int> outs(g.outputs.size());
  for (size_t i = 0; i < outs.size(); ++i) outs[i] = static_cast<int>(i);
  std::vector<std::vector<float>> result;
  for (const OwnedTensor& t : exe->run(refs, outs)) {
    std::vector<float> v(static_cast<size_t>(element_count(t.desc)));
    if (!v.empty()) std::memcpy(v.data(), t.data(), v.size() * sizeof(float));
    result.push_back(v);
  }
  return result;
}

inline void expect_close(const std::vector<float>& got, const std::vector<float>& want,
                         double rtol = 1e-4, double atol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], atol + rtol * std::abs(want[i])) << "at " << i;
}

inline int count_op(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op == op;
  return n;
}
inline const Node* find_op(const Graph& g, const std::string& op) {
  for (const Node& node : g.nodes)
    if (node.op == op) return &node;
  return nullptr;
}

// The producer of every value is the node that lists it as an output, and every node's inputs
// are produced earlier (or are inputs/constants).
inline void expect_consistent(const Graph& g) {
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    for (int o : g.nodes[k].outputs)
      if (o >= 0) {
        EXPECT_EQ(g.value(o).producer, static_cast<int>(k)) << g.value(o).name;
      }
    for (int i : g.nodes[k].inputs)
      if (i >= 0) {
        EXPECT_LT(g.value(i).producer, static_cast<int>(k)) << g.value(i).name;
      }
  }
}

inline void set_attr(Builder& b, const std::string& name, Attribute a) {
  b.g.nodes.back().attrs[name] = std::move(a);
}
inline void attr_ints(Builder& b, const std::string& name, std::vector<int64_t> v) {
  Attribute a;
  a.kind = Attribute::Kind::kInts;
  a.ints = std::move(v);
  set_attr(b, name, a);
}
inline void attr_f(Builder& b, const std::string& name, float v) {
  Attribute a;
  a.kind = Attribute::Kind::kFloat;
  a.f = v;
  set_attr(b, name, a);
}
inline void attr_s(Builder& b, const std::string& name, const std::string& v) {
  Attribute a;
  a.kind = Attribute::Kind::kString;
  a.s = v;
  set_attr(b, name, a);
}
inline std::vector<std::string> members(const Node& n) {
  const Attribute* a = n.attr("members");
  return a ? a->strings : std::vector<std::string>{};
}

}  // namespace geon::cpu::testing
