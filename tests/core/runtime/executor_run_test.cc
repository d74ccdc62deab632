// The executor on small static graphs with the fake host set: results against hand-computed
// references, requested subsets of outputs, caller memory, overridable inputs, planned output
// shapes, and errors naming the node or the unplaced nodes.
#include <gtest/gtest.h>

#include <array>

#include "tests/core/runtime/executor_fixture.h"

namespace geon {
namespace {

using namespace geon::testing;  // NOLINT

// y = relu(x @ w + b), z = x + x: x [2,3], w [3,2] constant, b [2,2] input.
std::shared_ptr<Graph> mlp() {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {2, 3});
  const int bias = b.input("b", DType::kFloat, {2, 2});
  const int w = b.constant("w", float_data({3, 2}, {1, 0, 0, 1, 1, 1}));
  const int m = b.node("MatMul", {x, w}, "m", DType::kFloat, {2, 2});
  const int s = b.node("Add", {m, bias}, "s", DType::kFloat, {2, 2});
  b.output(b.node("Relu", {s}, "y", DType::kFloat, {2, 2}));
  b.output(b.node("Add", {x, x}, "z", DType::kFloat, {2, 3}));
  return b.shared();
}

std::vector<float> mlp_reference(const std::vector<float>& x, const std::vector<float>& bias) {
  const float w[3][2] = {{1, 0}, {0, 1}, {1, 1}};
  std::vector<float> y(4);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      float s = bias[i * 2 + j];
      for (int p = 0; p < 3; ++p) s += x[i * 3 + p] * w[p][j];
      y[i * 2 + j] = std::max(s, 0.0f);
    }
  return y;
}

TEST(ExecutorRun, StaticGraphMatchesReference) {
  auto exe = Executable::compile(mlp(), host_only());
  const std::vector<float> xv{1, -2, 3, -4, 5, -6}, bv{0.5f, -10, 1, 2};
  HostTensor x = floats({2, 3}, xv), bias = floats({2, 2}, bv);
  const std::array<TensorRef, 2> in{x.ref(), bias.ref()};
  const std::array<int, 2> outs{0, 1};
  std::vector<OwnedTensor> r = exe->run(in, outs);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].desc, row_major(DType::kFloat, Dims{2, 2}));
  EXPECT_EQ(values_of<float>(r[0]), mlp_reference(xv, bv));
  std::vector<float> z;
  for (float v : xv) z.push_back(v + v);
  EXPECT_EQ(values_of<float>(r[1]), z);
  // Static shapes are planned at compile; the inputs were not written.
  EXPECT_FALSE(exe->memory().empty());
  EXPECT_EQ(x.ref().desc, row_major(DType::kFloat, Dims{2, 3}));
  EXPECT_EQ(std::vector<float>(reinterpret_cast<float*>(x.bytes.data()),
                               reinterpret_cast<float*>(x.bytes.data()) + 6),
            xv);
}

TEST(ExecutorRun, OnlyNodesForRequestedOutputsRun) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {2});
  b.output(b.node("Relu", {x}, "y", DType::kFloat, {2}));
  b.output(b.node("Fail", {x}, "bad", DType::kFloat, {2}));
  auto exe = Executable::compile(b.shared(), host_only());
  HostTensor xt = floats({2}, {-1, 2});
  const std::array<TensorRef, 1> in{xt.ref()};
  const std::array<int, 1> first{0};
  std::vector<OwnedTensor> r = exe->run(in, first);
  EXPECT_EQ(values_of<float>(r[0]), (std::vector<float>{0, 2}));
  const std::array<int, 1> second{1};
  EXPECT_THROW(exe->run(in, second), Error);
}

TEST(ExecutorRun, KernelErrorsNameTheNodeAndKeepTheCode) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {2});
  b.output(b.node("Fail", {x}, "y", DType::kFloat, {2}, "explode"));
  auto exe = Executable::compile(b.shared(), host_only());
  HostTensor xt = floats({2}, {1, 2});
  const std::array<TensorRef, 1> in{xt.ref()};
  const std::array<int, 1> outs{0};
  try {
    exe->run(in, outs);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kOutOfRange);
    EXPECT_EQ(std::string(e.what()), "node 'explode' (Fail): boom");
  }
}

TEST(ExecutorRun, UnplacedNodesAreListedWithEveryReason) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {2});
  const int y = b.node("Frob", {x}, "y", DType::kFloat, {2}, "first");
  b.output(b.node("Blur", {y}, "z", DType::kFloat, {2}, "second"));
  try {
    Executable::compile(b.shared(), host_only());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotSupported);
    const std::string what = e.what();
    EXPECT_NE(what.find("2 node(s)"), std::string::npos) << what;
    EXPECT_NE(what.find("'first' (Frob): test.host: no kernel for Frob at opset 13"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("'second' (Blur)"), std::string::npos) << what;
  }
}

TEST(ExecutorRun, CallerMemoryOutputsAreWrittenInPlace) {
  auto exe = Executable::compile(mlp(), host_only());
  const std::vector<float> xv{1, 2, 3, 4, 5, 6}, bv{1, 1, 1, 1};
  HostTensor x = floats({2, 3}, xv), bias = floats({2, 2}, bv);
  const std::array<TensorRef, 2> in{x.ref(), bias.ref()};
  HostTensor y = floats({2, 2}, {0, 0, 0, 0});
  const std::array<int, 1> outs{0};
  const std::array<TensorRef, 1> dst{y.ref()};
  std::vector<OwnedTensor> r = exe->run(in, outs, dst);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].storage, nullptr);
  std::vector<float> got(4);
  std::memcpy(got.data(), y.bytes.data(), 16);
  EXPECT_EQ(got, mlp_reference(xv, bv));

  HostTensor wrong = floats({4}, {0, 0, 0, 0});
  const std::array<TensorRef, 1> bad{wrong.ref()};
  try {
    exe->run(in, outs, bad);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("output 'y'"), std::string::npos) << e.what();
  }
}

TEST(ExecutorRun, OutputsThatAreInputsOrConstantsAreCopied) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {2});
  b.output(x);
  b.output(b.constant("c", float_data({2}, {7, 8})));
  b.output(x);
  auto exe = Executable::compile(b.shared(), host_only());
  HostTensor xt = floats({2}, {3, 4});
  const std::array<TensorRef, 1> in{xt.ref()};
  const std::array<int, 3> outs{0, 1, 2};
  std::vector<OwnedTensor> r = exe->run(in, outs);
  EXPECT_EQ(values_of<float>(r[0]), (std::vector<float>{3, 4}));
  EXPECT_NE(r[0].data(), static_cast<void*>(xt.bytes.data()));
  EXPECT_EQ(values_of<float>(r[1]), (std::vector<float>{7, 8}));
  EXPECT_EQ(values_of<float>(r[2]), (std::vector<float>{3, 4}));
}

TEST(ExecutorRun, OverridableInputUsesItsDefaultUnlessGiven) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {3});
  const int scale = b.overridable("scale", float_data({3}, {2, 3, 4}));
  b.output(b.node("Mul", {x, scale}, "y", DType::kFloat, {3}));
  auto exe = Executable::compile(b.shared(), host_only());
  HostTensor xt = floats({3}, {1, 1, 2});
  const std::array<int, 1> outs{0};
  const std::array<TensorRef, 2> by_default{xt.ref(), TensorRef{}};
  EXPECT_EQ(values_of<float>(exe->run(by_default, outs)[0]), (std::vector<float>{2, 3, 8}));
  HostTensor other = floats({3}, {-1, 0, 1});
  const std::array<TensorRef, 2> given{xt.ref(), other.ref()};
  EXPECT_EQ(values_of<float>(exe->run(given, outs)[0]), (std::vector<float>{-1, 0, 2}));
  const std::array<TensorRef, 2> missing{TensorRef{}, other.ref()};
  EXPECT_THROW(exe->run(missing, outs), Error);
}

TEST(ExecutorRun, PlannedShapeOutputUsesBoundSymbols) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {"N", 2});
  b.output(b.node("Planned", {x}, "y", DType::kFloat, {"N", 3}));
  auto exe = Executable::compile(b.shared(), host_only());
  HostTensor xt = floats({4, 2}, std::vector<float>(8, 0));
  const std::array<TensorRef, 1> in{xt.ref()};
  const std::array<int, 1> outs{0};
  std::vector<OwnedTensor> r = exe->run(in, outs);
  EXPECT_EQ(r[0].desc.shape, (Dims{4, 3}));
  EXPECT_EQ(values_of<float>(r[0]), std::vector<float>(12, 1));
}

TEST(ExecutorRun, NodesTheImporterFoldedNeedNoKernel) {
  // A node whose every output already has data (a Constant node, a folded Shape) never runs:
  // no set has "Frob", yet the graph compiles and its output is the data.
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {2});
  const int k = b.node("Frob", {}, "k", DType::kFloat, {2});
  b.graph().values[k].data = float_data({2}, {5, -6});
  b.output(b.node("Add", {x, k}, "y", DType::kFloat, {2}));
  b.output(k);
  auto exe = Executable::compile(b.shared(), host_only());
  HostTensor xt = floats({2}, {1, 2});
  const std::array<TensorRef, 1> in{xt.ref()};
  const std::array<int, 2> outs{0, 1};
  std::vector<OwnedTensor> r = exe->run(in, outs);
  EXPECT_EQ(values_of<float>(r[0]), (std::vector<float>{6, -4}));
  EXPECT_EQ(values_of<float>(r[1]), (std::vector<float>{5, -6}));
}

TEST(ExecutorRun, OutputIndexOutOfRangeIsRefused) {
  auto exe = Executable::compile(mlp(), host_only());
  HostTensor x = floats({2, 3}, std::vector<float>(6, 0)), bias = floats({2, 2}, {0, 0, 0, 0});
  const std::array<TensorRef, 2> in{x.ref(), bias.ref()};
  const std::array<int, 1> outs{2};
  EXPECT_THROW(exe->run(in, outs), Error);
}

}  // namespace
}  // namespace geon
