// cpu.generic's view kernels (Transpose, Reshape, Flatten, Squeeze, Unsqueeze, Slice, Expand,
// Identity) through the executor: the same values as when every view is copied, less planned
// memory, graph inputs untouched, views as graph outputs delivered dense, and oneDNN's MatMul
// reading transposed and broadcast views.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/runtime/executor.h"
#include "core/runtime/memory_plan.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/graph_builder.h"

namespace geon::cpu::testing {
namespace {

// A cpu.generic kernel with is_view() off: what the executor ran before views.
class CopyingKernel final : public Kernel {
 public:
  explicit CopyingKernel(std::unique_ptr<Kernel> k) : k_(std::move(k)) {}
  void compute(KernelContext& ctx) const override { k_->compute(ctx); }
  std::span<const int> in_place_inputs() const override { return k_->in_place_inputs(); }

 private:
  std::unique_ptr<Kernel> k_;
};
std::unique_ptr<Kernel> create_copying(const Graph& g, const Node& n) {
  return std::make_unique<CopyingKernel>(find_kernel(generic_kernels(), n)->create(g, n));
}
const KernelSet& generic_copying() {
  static const std::vector<KernelEntry> entries = [] {
    std::vector<KernelEntry> e(generic_kernels().entries.begin(), generic_kernels().entries.end());
    for (KernelEntry& k : e) k.create = create_copying;
    return e;
  }();
  static const KernelSet set{"cpu.generic.copying", generic_kernels().device, entries};
  return set;
}

void attr_ints(Builder& b, const std::string& name, std::vector<int64_t> v) {
  Attribute a;
  a.kind = Attribute::Kind::kInts;
  a.ints = std::move(v);
  b.g.nodes.back().attrs[name] = a;
}
int ints(Builder& b, const std::string& name, const std::vector<double>& v) {
  return b.constant(name, DType::kInt64, {static_cast<int64_t>(v.size())}, v);
}

std::vector<float> inputs(int64_t n, int seed) {
  std::vector<float> xs(n);
  for (int64_t i = 0; i < n; ++i) xs[i] = static_cast<float>((i * 7 + seed) % 29) * 0.5f - 7;
  return xs;
}

std::vector<float> floats_of(const OwnedTensor& t) {
  std::vector<float> v(static_cast<size_t>(element_count(t.desc)));
  if (!v.empty()) std::memcpy(v.data(), t.data(), v.size() * sizeof(float));
  return v;
}

std::vector<std::vector<float>> run_all(const Executable& exe, std::vector<float>& xs,
                                        const Dims& shape) {
  TensorRef in{row_major(DType::kFloat, shape), xs.data(), Device{}};
  std::vector<int> outputs(exe.graph().outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) outputs[i] = static_cast<int>(i);
  std::vector<std::vector<float>> out;
  for (const OwnedTensor& t : exe.run({&in, 1}, outputs)) {
    EXPECT_EQ(t.desc, row_major(t.desc.dtype, t.desc.shape));
    out.push_back(floats_of(t));
  }
  return out;
}

// y = Reshape(Relu(Transpose(a, perm 2,0,1)), [5, 24]) - Reshape(a, [5, 24]) with
// a = Relu(x), x [6, 4, 5]: a is read again at the end, so copies of its transpose would
// coexist with it.
std::shared_ptr<Graph> transpose_relu_reshape() {
  Builder b;
  const int x = b.input("x", DType::kFloat, {6, 4, 5});
  const int a = b.node("Relu", {x}, DType::kFloat, {6, 4, 5});
  const int t = b.node("Transpose", {a}, DType::kFloat, {5, 6, 4});
  attr_ints(b, "perm", {2, 0, 1});
  const int r = b.node("Relu", {t}, DType::kFloat, {5, 6, 4});
  const int shape = ints(b, "shape", {5, 24});
  const int s = b.node("Reshape", {r, shape}, DType::kFloat, {5, 24});
  const int s2 = b.node("Reshape", {a, shape}, DType::kFloat, {5, 24});
  b.g.outputs = {b.node("Sub", {s, s2}, DType::kFloat, {5, 24})};
  return std::make_shared<Graph>(std::move(b.g));
}

TEST(CpuGenericExecutorViews, TransposeReluReshapeGivesTheSameValuesWithLessMemory) {
  const KernelSet* views[] = {&generic_kernels()};
  const KernelSet* copies[] = {&generic_copying()};
  for (const bool poison : {false, true}) {
    ExecutorOptions opt;
    opt.poison_freed = poison;
    auto with_views = Executable::compile(transpose_relu_reshape(), views, opt);
    auto with_copies = Executable::compile(transpose_relu_reshape(), copies, opt);
    const MemoryStats v = with_views->memory().at(0), c = with_copies->memory().at(0);
    constexpr size_t kBytes = 120 * sizeof(float);
    EXPECT_EQ(c.intermediate_bytes, 5 * align_up(kBytes));  // a, t, r, s, s2
    EXPECT_EQ(v.intermediate_bytes, 2 * align_up(kBytes));  // a, r: the others are views
    EXPECT_LT(v.peak_bytes, c.peak_bytes);

    std::vector<float> xs = inputs(120, 1);
    const std::vector<float> before = xs;
    const std::vector<float> got = run_all(*with_views, xs, {6, 4, 5}).at(0);
    EXPECT_EQ(got, run_all(*with_copies, xs, {6, 4, 5}).at(0));
    EXPECT_EQ(xs, before);
    // y[k][i*4 + j] = relu(x[i][j][k]) - relu(x) flat at k*24 + i*4 + j.
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 5; ++k) {
          const int at = k * 24 + i * 4 + j;
          EXPECT_EQ(got[at], std::max(xs[(i * 4 + j) * 5 + k], 0.0f) - std::max(xs[at], 0.0f));
        }
  }
}

// Every view op in one graph over x [4, 6] (-1 dims symbolic), with three outputs:
// y0 = Neg(Reshape(Transpose(a), [24])) (a reshape that must copy), y1 = Identity of a
// Flatten of an Expand of a Slice of Squeeze(Unsqueeze(a)) plus 1, y2 = Transpose(a) itself.
std::shared_ptr<Graph> all_views(const Dims& shape) {
  Builder b;
  const int x = b.input("x", DType::kFloat, shape);
  const int a = b.node("Relu", {x}, DType::kFloat, {4, 6});
  const int t = b.node("Transpose", {a}, DType::kFloat, {6, 4});
  const int s = b.node("Reshape", {t, ints(b, "flat", {24})}, DType::kFloat, {24});
  const int y0 = b.node("Neg", {s}, DType::kFloat, {24});
  const int u = b.node("Unsqueeze", {a, ints(b, "axes0", {0})}, DType::kFloat, {1, 4, 6});
  const int q = b.node("Squeeze", {u, ints(b, "axes1", {0})}, DType::kFloat, {4, 6});
  const int sl =
      b.node("Slice", {q, ints(b, "starts", {1}), ints(b, "ends", {3})}, DType::kFloat, {2, 6});
  const int e = b.node("Expand", {sl, ints(b, "to", {3, 2, 6})}, DType::kFloat, {3, 2, 6});
  const int f = b.node("Flatten", {e}, DType::kFloat, {3, 12});
  const int i = b.node("Identity", {f}, DType::kFloat, {3, 12});
  const int one = b.constant("one", DType::kFloat, {}, {1});
  const int y1 = b.node("Add", {i, one}, DType::kFloat, {3, 12});
  const int y2 = b.node("Transpose", {a}, DType::kFloat, {6, 4});
  b.g.outputs = {y0, y1, y2};
  return std::make_shared<Graph>(std::move(b.g));
}

TEST(CpuGenericExecutorViews, EveryViewOpGivesTheSameValuesAsCopies) {
  const KernelSet* views[] = {&generic_kernels()};
  const KernelSet* copies[] = {&generic_copying()};
  for (const Dims& shape : {Dims{4, 6}, Dims{-1, 6}}) {
    for (const bool poison : {false, true}) {
      ExecutorOptions opt;
      opt.poison_freed = poison;
      auto with_views = Executable::compile(all_views(shape), views, opt);
      auto with_copies = Executable::compile(all_views(shape), copies, opt);
      for (int seed = 0; seed < 3; ++seed) {  // symbolic: the first run records, then a plan
        std::vector<float> xs = inputs(24, seed);
        const std::vector<float> before = xs;
        const auto got = run_all(*with_views, xs, {4, 6});
        EXPECT_EQ(got, run_all(*with_copies, xs, {4, 6}));
        EXPECT_EQ(xs, before);
        ASSERT_EQ(got.size(), 3u);
        for (int r = 0; r < 4; ++r)
          for (int c = 0; c < 6; ++c) {
            const float a = std::max(xs[r * 6 + c], 0.0f);
            EXPECT_EQ(got[0][c * 4 + r], -a);
            EXPECT_EQ(got[2][c * 4 + r], a);
            if (r < 1 || r >= 3) continue;
            for (int k = 0; k < 3; ++k) EXPECT_EQ(got[1][k * 12 + (r - 1) * 6 + c], a + 1);
          }
      }
      EXPECT_LT(with_views->memory().at(0).intermediate_bytes,
                with_copies->memory().at(0).intermediate_bytes);
    }
  }
}

TEST(CpuGenericExecutorViews, DnnlMatMulReadsTransposedAndBroadcastViews) {
  // y = MatMul(Transpose(Relu(x)), w) and z = MatMul(Transpose(Relu(x)), Expand(v, [5, 4]))
  // with x [5, 3], on cpu.dnnl; the views come from cpu.generic.
  Builder b;
  const int x = b.input("x", DType::kFloat, {5, 3});
  std::vector<double> wv(20), vv(4);
  for (int i = 0; i < 20; ++i) wv[i] = (i % 7) * 0.25 - 0.75;
  for (int i = 0; i < 4; ++i) vv[i] = i - 1.5;
  const int w = b.constant("w", DType::kFloat, {5, 4}, wv);
  const int v = b.constant("v", DType::kFloat, {1, 4}, vv);
  const int a = b.node("Relu", {x}, DType::kFloat, {5, 3});
  const int t = b.node("Transpose", {a}, DType::kFloat, {3, 5});
  const int y = b.node("MatMul", {t, w}, DType::kFloat, {3, 4});
  const int e = b.node("Expand", {v, ints(b, "to", {5, 4})}, DType::kFloat, {5, 4});
  const int z = b.node("MatMul", {t, e}, DType::kFloat, {3, 4});
  b.g.outputs = {y, z};
  auto g = std::make_shared<Graph>(std::move(b.g));
  const KernelSet* sets[] = {&dnnl_kernels(), &generic_kernels()};
  ExecutorOptions opt;
  opt.poison_freed = true;
  auto exe = Executable::compile(g, sets, opt);
  int on_dnnl = 0;
  for (size_t n = 0; n < g->nodes.size(); ++n)
    if (g->nodes[n].op == "MatMul") on_dnnl += exe->placement().nodes[n].set == 0;
  EXPECT_EQ(on_dnnl, 2);

  std::vector<float> xs = inputs(15, 3);
  const auto got = run_all(*exe, xs, {5, 3});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      double want_y = 0, want_z = 0;
      for (int k = 0; k < 5; ++k) {
        const double at = std::max(xs[k * 3 + i], 0.0f);
        want_y += at * static_cast<float>(wv[k * 4 + j]);
        want_z += at * static_cast<float>(vv[j]);
      }
      EXPECT_NEAR(got[0][i * 4 + j], want_y, 1e-7 + 1e-3 * std::fabs(want_y));
      EXPECT_NEAR(got[1][i * 4 + j], want_z, 1e-7 + 1e-3 * std::fabs(want_z));
    }
}

}  // namespace
}  // namespace geon::cpu::testing
