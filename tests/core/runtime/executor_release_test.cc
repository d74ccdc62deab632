// ExecutorOptions::release_constant: while compiling, the executor names each constant that
// every reader packed (Kernel::packed_inputs), once the last of them is made, and no other:
// not one a kernel reads at run time, a graph output, or one an If body captures. Runs stay
// right after the owner dropped the named constants' contents.
#include <gtest/gtest.h>

#include <array>
#include <set>

#include "tests/core/runtime/executor_fixture.h"

namespace geon {
namespace {

using namespace geon::testing;  // NOLINT

struct Weights {
  int packed_once = -1, packed_twice = -1, also_plain = -1, output = -1;
};

// x [2, 2] through PackedMatMuls and a MatMul over four constant [2, 2] weights:
//   a = x @ packed_once; b = a @ packed_twice; c = b @ packed_twice; d = c @ also_plain (packed);
//   e = d @ also_plain (plain MatMul: reads it); f = e @ output (packed), with `output` also a
//   graph output.
std::shared_ptr<Graph> chain(Weights& w) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {2, 2});
  w.packed_once = b.constant("packed_once", float_data({2, 2}, {1, 2, 3, 4}));
  w.packed_twice = b.constant("packed_twice", float_data({2, 2}, {0, 1, 1, 0}));
  w.also_plain = b.constant("also_plain", float_data({2, 2}, {2, 0, 0, 2}));
  w.output = b.constant("output", float_data({2, 2}, {1, 1, 0, 1}));
  int v = b.node("PackedMatMul", {x, w.packed_once}, "a", DType::kFloat, {2, 2});
  v = b.node("PackedMatMul", {v, w.packed_twice}, "b", DType::kFloat, {2, 2});
  v = b.node("PackedMatMul", {v, w.packed_twice}, "c", DType::kFloat, {2, 2});
  v = b.node("PackedMatMul", {v, w.also_plain}, "d", DType::kFloat, {2, 2});
  v = b.node("MatMul", {v, w.also_plain}, "e", DType::kFloat, {2, 2});
  b.output(b.node("PackedMatMul", {v, w.output}, "f", DType::kFloat, {2, 2}));
  b.output(w.output);
  return b.shared();
}

std::vector<float> product(const std::vector<float>& a, const std::vector<float>& b) {
  return {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
          a[2] * b[1] + a[3] * b[3]};
}

std::vector<float> chain_reference(const std::vector<float>& x) {
  std::vector<float> v = product(x, {1, 2, 3, 4});
  v = product(product(v, {0, 1, 1, 0}), {0, 1, 1, 0});
  v = product(product(v, {2, 0, 0, 2}), {2, 0, 0, 2});
  return product(v, {1, 1, 0, 1});
}

TEST(ExecutorRelease, OnlyConstantsEveryReaderPackedAreNamedOnce) {
  Weights w;
  std::shared_ptr<Graph> g = chain(w);
  std::vector<int> named;
  ExecutorOptions opt;
  Graph* graph = g.get();
  opt.release_constant = [&named, graph](int v) {
    named.push_back(v);
    // What the provider's session does: the value keeps its description, its data goes.
    graph->values[v].data = without_contents(*graph->values[v].data);
  };
  auto exe = Executable::compile(g, host_only(), opt);
  EXPECT_EQ(named, (std::vector<int>{w.packed_once, w.packed_twice}));
  EXPECT_EQ(g->values[w.packed_once].data->storage, nullptr);
  EXPECT_EQ(g->values[w.packed_once].data->desc, row_major(DType::kFloat, Dims{2, 2}));
  EXPECT_NE(g->values[w.also_plain].data->storage, nullptr);
  EXPECT_NE(g->values[w.output].data->storage, nullptr);

  const std::vector<float> xv{1, -2, 0.5f, 3};
  HostTensor x = floats({2, 2}, xv);
  const std::array<TensorRef, 1> in{x.ref()};
  const std::array<int, 2> outs{0, 1};
  for (int run = 0; run < 2; ++run) {
    const std::vector<OwnedTensor> r = exe->run(in, outs);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(values_of<float>(r[0]), chain_reference(xv));
    EXPECT_EQ(values_of<float>(r[1]), (std::vector<float>{1, 1, 0, 1}));
  }
}

TEST(ExecutorRelease, NothingIsReleasedWithoutTheOption) {
  Weights w;
  std::shared_ptr<Graph> g = chain(w);
  auto exe = Executable::compile(g, host_only());
  for (int v : {w.packed_once, w.packed_twice, w.also_plain, w.output})
    EXPECT_NE(g->values[v].data->storage, nullptr);
}

TEST(ExecutorRelease, AConstantAnIfBodyCapturesStays) {
  // y = If(cond) { x @ w (PackedMatMul, w captured) } else { x }; and a PackedMatMul of the main
  // graph reads w too: the body reads w's contents, so w stays.
  ExecBuilder b;
  const int cond = b.input("cond", DType::kBool, {});
  const int x = b.input("x", DType::kFloat, {2, 2});
  const int w = b.constant("w", float_data({2, 2}, {1, 2, 3, 4}));
  const int m = b.node("PackedMatMul", {x, w}, "m", DType::kFloat, {2, 2});
  ExecBuilder then_b(b.graph());
  const int tx = then_b.outer(b.graph().values[x]);
  const int tw = then_b.outer(b.graph().values[w]);
  then_b.output(then_b.node("MatMul", {tx, tw}, "t", DType::kFloat, {2, 2}));
  ExecBuilder else_b(b.graph());
  else_b.output(
      else_b.node("Identity", {else_b.outer(b.graph().values[m])}, "e", DType::kFloat, {2, 2}));
  b.node("If", {cond}, "y", DType::kFloat, {2, 2});
  b.graph_attr("then_branch", then_b.shared());
  b.graph_attr("else_branch", else_b.shared());
  b.output(b.graph().nodes.back().outputs[0]);
  std::vector<int> named;
  ExecutorOptions opt;
  opt.release_constant = [&named](int v) { named.push_back(v); };
  auto exe = Executable::compile(b.shared(), host_only(), opt);
  EXPECT_TRUE(named.empty());
}

}  // namespace
}  // namespace geon
