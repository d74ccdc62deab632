// The cuda set under the real executor (core/runtime/executor.h), against the same graph run
// on cpu.generic alone: nodes placed on cuda:0, values moved to the GPU and back through the
// registered device copy, outputs allocated from the registered pool, constants (Reduce axes)
// beside device inputs, and a node cuda lacks (Reshape) forcing transfers mid-graph.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/graph/tensor_data.h"
#include "core/runtime/executor.h"
#include "kernels/cpu/kernel_sets.h"
#include "kernels/cuda/kernel_set.h"
#include "tests/kernels/cuda/gpu_util.h"

namespace geon::cuda::testing {
namespace {

// A graph built by hand; lengths are static, or the symbol "N" where given as -1.
class Builder {
 public:
  Builder() {
    g_ = std::make_shared<Graph>();
    g_->axis_factory = std::make_shared<AxisFactory>();
  }
  int input(const std::string& name, DType t, const Dims& dims) {
    const int v = add(name, t, dims, ValueKind::kInput);
    g_->inputs.push_back(v);
    return v;
  }
  int constant_ints(const std::string& name, const std::vector<int64_t>& values) {
    const int v =
        add(name, DType::kInt64, {static_cast<int64_t>(values.size())}, ValueKind::kConstant);
    auto data = make_tensor_data(DType::kInt64, {static_cast<int64_t>(values.size())});
    std::memcpy(data->storage->data(), values.data(), values.size() * sizeof(int64_t));
    g_->values[v].data = data;
    return v;
  }
  int node(const std::string& op, std::vector<int> inputs, const std::string& out, DType t,
           const Dims& dims) {
    const int v = add(out, t, dims, ValueKind::kIntermediate);
    Node n;
    n.name = out;
    n.op = op;
    n.opset = 18;
    n.inputs = std::move(inputs);
    n.outputs = {v};
    g_->values[v].producer = static_cast<int>(g_->nodes.size());
    g_->nodes.push_back(std::move(n));
    return v;
  }
  void attr_i(const std::string& key, int64_t i) {
    Attribute a;
    a.kind = Attribute::Kind::kInt;
    a.i = i;
    g_->nodes.back().attrs[key] = a;
  }
  void output(int v) { g_->outputs.push_back(v); }
  std::shared_ptr<Graph> shared() { return g_; }

 private:
  int add(const std::string& name, DType t, const Dims& dims, ValueKind kind) {
    Value v;
    v.name = name;
    v.type.dtype = t;
    v.kind = kind;
    v.rank_known = true;
    std::vector<Axis> axes;
    for (size_t i = 0; i < dims.size(); ++i)
      axes.push_back(make_axis(g_->factory(), name + "_" + std::to_string(i),
                               dims[i] < 0 ? Length::symbolic("N") : Length::known(dims[i])));
    v.axes = Axes(std::move(axes));
    return g_->add_value(std::move(v));
  }
  std::shared_ptr<Graph> g_;
};

// x[N,6], y[6]: t = Transpose(Relu(x)); s = ReduceSum(t, axes=[1], keepdims=0); a = s + y;
// c = Cast(a, int32); e = Exp(Reshape(Neg(x), [-1])). Outputs: a, c, t, e.
std::shared_ptr<Graph> model(int64_t rows) {
  Builder b;
  const int x = b.input("x", DType::kFloat, {rows, 6});
  const int y = b.input("y", DType::kFloat, {6});
  const int r = b.node("Relu", {x}, "r", DType::kFloat, {rows, 6});
  const int t = b.node("Transpose", {r}, "t", DType::kFloat, {6, rows});
  const int axes = b.constant_ints("axes", {1});
  const int s = b.node("ReduceSum", {t, axes}, "s", DType::kFloat, {6});
  b.attr_i("keepdims", 0);
  const int a = b.node("Add", {s, y}, "a", DType::kFloat, {6});
  const int c = b.node("Cast", {a}, "c", DType::kInt32, {6});
  b.attr_i("to", static_cast<int64_t>(DType::kInt32));
  const int n = b.node("Neg", {x}, "n", DType::kFloat, {rows, 6});
  const int shape = b.constant_ints("shape", {-1});
  const int flat = b.node("Reshape", {n, shape}, "flat", DType::kFloat, {-1});
  const int e = b.node("Exp", {flat}, "e", DType::kFloat, {-1});
  for (int v : {a, c, t, e}) b.output(v);
  return b.shared();
}

// Multiples of 1/8 in [-3, 3]: sums of a few of them are exact in float in any order, so the
// engines' different reduction orders give bit-identical results.
std::vector<float> random_floats(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> u(-24, 24);
  std::vector<float> v(n);
  for (float& f : v) f = static_cast<float>(u(rng)) / 8;
  return v;
}

std::vector<std::byte> bytes_of(const OwnedTensor& t) {
  const size_t n = static_cast<size_t>(dtype_bytes_for(t.desc.dtype, element_count(t.desc)));
  std::vector<std::byte> out(n);
  if (n) std::memcpy(out.data(), t.data(), n);
  return out;
}

TEST(CudaSetExecutor, AGraphOnCudaMatchesCpuGeneric) {
  GEON_REQUIRE_CUDA();
  const std::array<const KernelSet*, 2> gpu_first{&kernel_set(), &cpu::generic_kernels()};
  const std::array<const KernelSet*, 1> cpu_only{&cpu::generic_kernels()};
  std::mt19937 rng(41);
  for (const bool symbolic : {false, true}) {
    const std::shared_ptr<Graph> g = model(symbolic ? -1 : 5);
    auto on_gpu = Executable::compile(g, gpu_first);
    auto on_cpu = Executable::compile(g, cpu_only);
    // Every node but Reshape runs on cuda:0.
    const Placement& p = on_gpu->placement();
    ASSERT_EQ(p.nodes.size(), g->nodes.size());
    for (size_t i = 0; i < g->nodes.size(); ++i)
      EXPECT_EQ(p.nodes[i].set, g->nodes[i].op == "Reshape" ? 1 : 0) << g->nodes[i].op;
    for (const int64_t rows : {int64_t{5}, symbolic ? int64_t{17} : int64_t{5}}) {
      std::vector<float> x = random_floats(static_cast<size_t>(rows) * 6, rng);
      std::vector<float> y = random_floats(6, rng);
      const TensorRef inputs[] = {
          {row_major(DType::kFloat, Dims{rows, 6}), x.data(), Device{}},
          {row_major(DType::kFloat, Dims{6}), y.data(), Device{}},
      };
      const int outputs[] = {0, 1, 2, 3};
      for (int rep = 0; rep < 2; ++rep) {  // a second run reuses the cached plan and pool
        const std::vector<OwnedTensor> got = on_gpu->run(inputs, outputs);
        const std::vector<OwnedTensor> want = on_cpu->run(inputs, outputs);
        ASSERT_EQ(got.size(), want.size());
        for (size_t o = 0; o < want.size(); ++o) {
          EXPECT_EQ(got[o].desc.shape, want[o].desc.shape) << "output " << o;
          EXPECT_EQ(got[o].desc.dtype, want[o].desc.dtype) << "output " << o;
          if (o == 3) {  // exp: the device's and the host's libm may differ in the last ulp
            const auto* gv = static_cast<const float*>(got[o].data());
            const auto* wv = static_cast<const float*>(want[o].data());
            for (int64_t i = 0; i < element_count(want[o].desc); ++i)
              EXPECT_NEAR(gv[i], wv[i], 1e-7 + 1e-5 * std::abs(wv[i])) << "exp element " << i;
          } else {  // relu, transpose, exact sums, add, cast
            EXPECT_EQ(bytes_of(got[o]), bytes_of(want[o])) << "output " << o;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace geon::cuda::testing
