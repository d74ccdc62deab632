// Transfers across devices with the fake cuda:0 set (host memory behind a registered
// allocator and copy): values reach each kernel on its own device (the kernels check), graph
// outputs come back to the host, constants are copied to the device once at compile.
#include <gtest/gtest.h>

#include <array>

#include "tests/core/runtime/executor_fixture.h"

namespace geon {
namespace {

using namespace geon::testing;  // NOLINT

std::span<const KernelSet* const> dev_first() {
  static const std::array<const KernelSet*, 2> sets{&dev_set(), &host_set()};
  return sets;
}

// a = x @ w (dev), c = Identity(a) (host: dev has no Identity), d = c + a (dev), n = Less(d, 0)
// (host), outputs d and a.
std::shared_ptr<Graph> mixed(std::vector<Dim> rows) {
  ExecBuilder b;
  std::vector<Dim> two = rows, three = rows;
  two.emplace_back(2);
  three.emplace_back(3);
  const int x = b.input("x", DType::kFloat, three);
  const int w = b.constant("w", float_data({3, 2}, {1, 2, 3, 4, 5, 6}));
  const int a = b.node("MatMul", {x, w}, "a", DType::kFloat, two);
  const int c = b.node("Identity", {a}, "c", DType::kFloat, two);
  const int d = b.node("Add", {c, a}, "d", DType::kFloat, two);
  const int zero = b.constant("zero", float_data({}, {0}));
  b.output(d);
  b.output(a);
  b.output(b.node("Less", {d, zero}, "neg", DType::kBool, two));
  return b.shared();
}

std::vector<float> matmul_reference(const std::vector<float>& x, int rows) {
  const float w[3][2] = {{1, 2}, {3, 4}, {5, 6}};
  std::vector<float> a(rows * 2);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < 2; ++j)
      for (int p = 0; p < 3; ++p) a[i * 2 + j] += x[i * 3 + p] * w[p][j];
  return a;
}

TEST(ExecutorTransfer, ValuesCrossToTheFakeDeviceAndBack) {
  for (const bool symbolic : {false, true}) {
    const int64_t copies_before = device_copies();
    ExecutorOptions opt;
    opt.poison_freed = true;
    auto exe = Executable::compile(symbolic ? mixed({"N"}) : mixed({4}), dev_first(), opt);
    // The weight went to the device's initializer arena at compile.
    EXPECT_EQ(device_copies(), copies_before + 1);
    const Placement& p = exe->placement();
    EXPECT_EQ(p.nodes[0].set, 0);  // MatMul on test.dev
    EXPECT_EQ(p.nodes[1].set, 1);  // Identity on test.host
    EXPECT_EQ(p.nodes[2].set, 0);

    const std::vector<float> xv{1, -1, 2, 0, 3, 1, -2, -2, 0, 1, 1, 1};
    for (int rep = 0; rep < 2; ++rep) {
      HostTensor x = floats({4, 3}, xv);
      const std::array<TensorRef, 1> in{x.ref()};
      const std::array<int, 3> outs{0, 1, 2};
      std::vector<OwnedTensor> r = exe->run(in, outs);
      const std::vector<float> a = matmul_reference(xv, 4);
      std::vector<float> d;
      std::vector<uint8_t> neg;
      for (float v : a) {
        d.push_back(2 * v);
        neg.push_back(2 * v < 0);
      }
      EXPECT_EQ(values_of<float>(r[0]), d);
      EXPECT_EQ(values_of<float>(r[1]), a);
      EXPECT_EQ(values_of<uint8_t>(r[2]), neg);
    }
    // Per run: x to dev, a to host, c to dev, d to host (read by Less, and an output), a
    // out: at least four copies each.
    EXPECT_GE(device_copies(), copies_before + 1 + 2 * 4);
    const std::vector<MemoryStats> stats = exe->memory();
    bool device_arena = false;
    for (const MemoryStats& s : stats) device_arena = device_arena || s.device == kDev;
    EXPECT_TRUE(device_arena);
  }
}

TEST(ExecutorTransfer, CallerMemoryReceivesADeviceOutput) {
  auto exe = Executable::compile(mixed({2}), dev_first());
  HostTensor x = floats({2, 3}, {1, 0, 0, 0, 1, 0});
  const std::array<TensorRef, 1> in{x.ref()};
  HostTensor a = floats({2, 2}, {0, 0, 0, 0});
  const std::array<int, 1> outs{1};
  const std::array<TensorRef, 1> dst{a.ref()};
  std::vector<OwnedTensor> r = exe->run(in, outs, dst);
  EXPECT_EQ(r[0].storage, nullptr);
  std::vector<float> got(4);
  std::memcpy(got.data(), a.bytes.data(), 16);
  EXPECT_EQ(got, (std::vector<float>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace geon
