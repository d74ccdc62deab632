// In-place outputs: a kernel allowing it writes into an input that dies at its node, which
// lowers the arena's peak; never into user memory, a value read later, or an input the kernel
// reads with another shape; poison mode and caller-memory outputs are unaffected.
#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "core/runtime/memory_plan.h"
#include "tests/core/runtime/executor_fixture.h"

namespace geon {
namespace {

using namespace geon::testing;  // NOLINT

std::vector<float> values(int n, int seed) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<float>((i * 5 + seed * 11) % 19) - 9.0f);
  return v;
}

// `steps` unary ops on x [dims]: op(op(...op(x))).
std::shared_ptr<Graph> unary_chain(const std::string& op, std::vector<Dim> dims, int steps) {
  ExecBuilder b;
  int v = b.input("x", DType::kFloat, dims);
  for (int i = 0; i < steps; ++i) v = b.node(op, {v}, "v" + std::to_string(i), DType::kFloat, dims);
  b.output(v);
  return b.shared();
}

std::vector<float> run_one(const Executable& exe, HostTensor& x) {
  const std::array<TensorRef, 1> in{x.ref()};
  const std::array<int, 1> outs{0};
  return values_of<float>(exe.run(in, outs)[0]);
}

constexpr size_t kBytes = 32 * 16 * sizeof(float);

TEST(ExecutorInPlace, UnaryChainReusesOneBuffer) {
  // Neg allows in place, Relu does not: the same chain shape, with and without.
  auto in_place = Executable::compile(unary_chain("Neg", {32, 16}, 6), host_only());
  auto separate = Executable::compile(unary_chain("Relu", {32, 16}, 6), host_only());
  const MemoryStats a = in_place->memory().at(0), b = separate->memory().at(0);
  EXPECT_EQ(a.intermediate_bytes, b.intermediate_bytes);
  EXPECT_EQ(b.peak_bytes, 2 * kBytes);  // a step's input and output coexist
  EXPECT_LT(a.peak_bytes, b.peak_bytes);
  EXPECT_GE(a.peak_bytes, kBytes);

  HostTensor x = floats({32, 16}, values(512, 1));
  EXPECT_EQ(run_one(*in_place, x), values(512, 1));  // six negations
}

TEST(ExecutorInPlace, PoisonModeAndSymbolicShapesGiveTheSameResults) {
  for (const bool symbolic : {false, true}) {
    auto graph = symbolic ? unary_chain("Neg", {"N", 16}, 5) : unary_chain("Neg", {32, 16}, 5);
    ExecutorOptions poison;
    poison.poison_freed = true;
    auto plain = Executable::compile(graph, host_only());
    auto checked = Executable::compile(graph, host_only(), poison);
    for (int seed = 0; seed < 3; ++seed) {  // the first run records, the others use the plan
      HostTensor x = floats({32, 16}, values(512, seed));
      std::vector<float> expected = values(512, seed);
      for (float& e : expected) e = -e;
      EXPECT_EQ(run_one(*plain, x), expected) << "symbolic " << symbolic;
      EXPECT_EQ(run_one(*checked, x), expected) << "symbolic " << symbolic;
    }
    if (symbolic) {
      EXPECT_LT(checked->memory().at(0).peak_bytes, 2 * kBytes);
    }
  }
}

TEST(ExecutorInPlace, AValueReadLaterIsNotOverwritten) {
  // a = -x; b = -a; d = a - b; y = -d. b may not take a (the Sub reads a later); the Sub's
  // output may take a or b, both dying there.
  for (const bool poison : {false, true}) {
    ExecBuilder b;
    const int x = b.input("x", DType::kFloat, {8, 4});
    const int a = b.node("Neg", {x}, "a", DType::kFloat, {8, 4});
    const int nb = b.node("Neg", {a}, "b", DType::kFloat, {8, 4});
    const int d = b.node("Sub", {a, nb}, "d", DType::kFloat, {8, 4});
    const int y = b.node("Neg", {d}, "y", DType::kFloat, {8, 4});
    b.output(y);
    ExecutorOptions opt;
    opt.poison_freed = poison;
    auto exe = Executable::compile(b.shared(), host_only(), opt);
    HostTensor xt = floats({8, 4}, values(32, 2));
    const std::vector<float> xs = values(32, 2);
    std::vector<float> expected(32);
    for (int i = 0; i < 32; ++i) expected[i] = 2 * xs[i];  // -((-x) - x)
    EXPECT_EQ(run_one(*exe, xt), expected);
    // a and b coexist; without in place the Sub's output would be a third buffer.
    const MemoryStats m = exe->memory().at(0);
    EXPECT_EQ(m.intermediate_bytes, 3 * align_up(32 * sizeof(float)));
    EXPECT_LT(m.peak_bytes, m.intermediate_bytes);
  }
}

TEST(ExecutorInPlace, GraphInputsAreNeverOverwritten) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {4, 4});
  const int y = b.input("y", DType::kFloat, {4, 4});
  const int a = b.node("Sub", {x, y}, "a", DType::kFloat, {4, 4});
  const int n = b.node("Neg", {x}, "n", DType::kFloat, {4, 4});
  const int z = b.node("Sub", {a, n}, "z", DType::kFloat, {4, 4});
  b.output(z);
  auto exe = Executable::compile(b.shared(), host_only());
  HostTensor xt = floats({4, 4}, values(16, 3)), yt = floats({4, 4}, values(16, 4));
  const std::vector<std::byte> x_before = xt.bytes, y_before = yt.bytes;
  const std::array<TensorRef, 2> in{xt.ref(), yt.ref()};
  const std::array<int, 1> outs{0};
  const std::vector<float> got = values_of<float>(exe->run(in, outs)[0]);
  EXPECT_EQ(xt.bytes, x_before);
  EXPECT_EQ(yt.bytes, y_before);
  const std::vector<float> xs = values(16, 3), ys = values(16, 4);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(got[i], (xs[i] - ys[i]) + xs[i]) << i;
}

TEST(ExecutorInPlace, CallerMemoryOutputsAreUnaffected) {
  // Two outputs: one written to caller memory, one returned; the chain between runs in place.
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {16});
  int v = x;
  for (int i = 0; i < 4; ++i) v = b.node("Neg", {v}, "v" + std::to_string(i), DType::kFloat, {16});
  const int first = v;
  const int second = b.node("Neg", {v}, "w", DType::kFloat, {16});
  b.output(first);
  b.output(second);
  ExecutorOptions opt;
  opt.poison_freed = true;
  auto exe = Executable::compile(b.shared(), host_only(), opt);
  HostTensor xt = floats({16}, values(16, 5));
  HostTensor dst = floats({16}, std::vector<float>(16, 99.0f));
  const std::array<TensorRef, 1> in{xt.ref()};
  const std::array<int, 2> outs{0, 1};
  const std::array<TensorRef, 2> caller{dst.ref(), TensorRef{}};
  const std::vector<OwnedTensor> got = exe->run(in, outs, caller);
  const std::vector<float> xs = values(16, 5);
  std::vector<float> negated = xs;
  for (float& e : negated) e = -e;
  EXPECT_EQ(HostTensor::of<float>(DType::kFloat, {16}, xs).bytes, xt.bytes);
  std::vector<float> written(16);
  std::memcpy(written.data(), dst.bytes.data(), 16 * sizeof(float));
  EXPECT_EQ(written, xs);  // four negations
  EXPECT_EQ(values_of<float>(got[1]), negated);
}

TEST(ExecutorInPlace, AnInputReadWithAnotherShapeIsNotShared) {
  // Reverse claims in place but gives its output reversed dims: the run sees the descriptions
  // differ and allocates, so the (unsafe) reversal still reads intact input.
  for (const bool poison : {false, true}) {
    ExecBuilder b;
    const int x = b.input("x", DType::kFloat, {2, 6});
    const int a = b.node("Neg", {x}, "a", DType::kFloat, {2, 6});
    const int r = b.node("Reverse", {a}, "r", DType::kFloat, {2, 6});  // really [6, 2]
    const int y = b.node("Neg", {r}, "y", DType::kFloat, {6, 2});
    b.output(y);
    ExecutorOptions opt;
    opt.poison_freed = poison;
    auto exe = Executable::compile(b.shared(), host_only(), opt);
    HostTensor xt = floats({2, 6}, values(12, 6));
    const std::vector<float> xs = values(12, 6);
    const std::vector<float> expected(xs.rbegin(), xs.rend());
    for (int run = 0; run < 2; ++run) EXPECT_EQ(run_one(*exe, xt), expected);
  }
}

TEST(ExecutorInPlace, DeviceKernelsWriteInPlaceInDeviceArenas) {
  // On the host h = Identity(x); on the fake device a = -h', b = -a, d = a - b (h' is h's copy
  // there); back on the host y = Identity(d). b may not take a (read later), d takes a: two
  // device buffers at most instead of three.
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {32, 16});
  const int h = b.node("Identity", {x}, "h", DType::kFloat, {32, 16});
  const int a = b.node("Neg", {h}, "a", DType::kFloat, {32, 16});
  const int nb = b.node("Neg", {a}, "b", DType::kFloat, {32, 16});
  const int d = b.node("Sub", {a, nb}, "d", DType::kFloat, {32, 16});
  b.output(b.node("Identity", {d}, "y", DType::kFloat, {32, 16}));
  const std::array<const KernelSet*, 2> sets{&dev_set(), &host_set()};
  ExecutorOptions opt;
  opt.poison_freed = true;
  auto exe = Executable::compile(b.shared(), sets, opt);
  bool found = false;
  for (const MemoryStats& s : exe->memory()) {
    if (s.device != kDev) continue;
    found = true;
    EXPECT_EQ(s.intermediate_bytes, 4 * kBytes);  // h', a, b, d
    EXPECT_EQ(s.peak_bytes, 2 * kBytes);
  }
  EXPECT_TRUE(found);
  HostTensor xt = floats({32, 16}, values(512, 7));
  std::vector<float> expected = values(512, 7);
  for (float& e : expected) e = -2 * e;  // (-x) - x
  for (int run = 0; run < 2; ++run) EXPECT_EQ(run_one(*exe, xt), expected);
}

}  // namespace
}  // namespace geon
