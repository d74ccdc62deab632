// cpu.dnnl pooling against the naive loops of generic/pool/reference.h: MaxPool and AveragePool
// over 1-3 spatial dims with random pads, strides, dilations and ceil_mode (the extra right
// padding oneDNN is given), channels-last inputs read in place, int8/uint8 max, the global
// pools, several threads on one kernel, one image split by rows across the pool, and the cases
// supports() leaves to cpu.generic.
#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/generic/pool/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& dnnl() { return dnnl_kernels(); }

std::vector<int64_t> channels_last(int sp) {
  std::vector<int64_t> perm = {0};
  for (int i = 0; i < sp; ++i) perm.push_back(i + 2);
  perm.push_back(1);
  return perm;
}

void build(NodeGraph& ng, const Host& x, const PoolCase& c, const Dims& out) {
  ng.in(x).out(x.desc.dtype, out);
  ng.attr_ints("kernel_shape", c.kernel).attr_ints("strides", c.strides);
  ng.attr_ints("dilations", c.dilations).attr_ints("pads", c.pads);
  ng.attr_i("ceil_mode", c.ceil_mode);
  if (c.kind == "avg") ng.attr_i("count_include_pad", c.count_include_pad);
}

// Whether some window reads no element of X (dilation can step over a short input): ONNX
// leaves those undefined, so the random cases avoid them.
bool has_empty_window(const Host& x, const PoolCase& c) {
  PoolCase m = c;
  m.kind = "avg";
  m.count_include_pad = false;
  for (double v : naive_pool(x, m).y)
    if (std::isnan(v)) return true;
  return false;
}

// Max and average pools of random windows, pads, strides, dilations and ceil_mode over 1-3
// spatial dims, every other input channels-last, each against the naive loops; X's shape from
// `shape_for`. Returns how many ran (those with a window reading nothing are skipped).
int expect_random_windows_match(std::mt19937& rng, int trials,
                                const std::function<Dims(const PoolCase&)>& shape_for) {
  int ran = 0;
  for (const std::string kind : {"max", "avg"}) {
    for (int trial = 0; trial < trials; ++trial) {
      const int sp = 1 + trial % 3;
      PoolCase c = random_pool_case(rng, sp, kind);
      // count_include_pad with ceil_mode is refused (below); run it without ceil here.
      if (c.kind == "avg" && c.count_include_pad) c.ceil_mode = false;
      Host x = Host::random(DType::kFloat, shape_for(c), rng);
      if (has_empty_window(x, c)) continue;
      if (trial % 2) x = x.strided(channels_last(sp));
      const PoolResult want = naive_pool(x, c);
      NodeGraph ng(kind == "max" ? "MaxPool" : "AveragePool", kind == "max" ? 12 : 19);
      build(ng, x, c, want.shape);
      SCOPED_TRACE(kind + " trial " + std::to_string(trial) + " " + to_string(x.desc));
      EXPECT_EQ(ng.supports(dnnl()), std::nullopt);
      expect_values(
          ng.run(dnnl())[0], want.shape, [&](int64_t i) { return want.y[i]; }, 1e-5);
      ++ran;
    }
  }
  return ran;
}

TEST(CpuDnnlPool, RandomWindowsMatchNaiveLoops) {
  std::mt19937 rng(81);
  EXPECT_GT(expect_random_windows_match(
                rng, 40, [&](const PoolCase& c) { return random_pool_input(rng, c); }),
            60);
}

TEST(CpuDnnlPool, CeilModeExtraWindowAveragesOnlyInsideX) {
  // Length 5, kernel 2, stride 2, ceil: the third window (4, 5) reads only element 4.
  const Host v = Host::of(DType::kFloat, {1, 1, 5}, {1, 2, 3, 4, 5});
  for (const char* op : {"AveragePool", "MaxPool"}) {
    NodeGraph ng(op, 12);
    ng.in(v).out(DType::kFloat, {1, 1, 3});
    ng.attr_ints("kernel_shape", {2}).attr_ints("strides", {2}).attr_i("ceil_mode", 1);
    const std::vector<double> want = std::string(op) == "MaxPool"
                                         ? std::vector<double>{2, 4, 5}
                                         : std::vector<double>{1.5, 3.5, 5};
    expect_values(ng.run(dnnl())[0], {1, 1, 3}, [&](int64_t i) { return want[i]; });
  }
}

TEST(CpuDnnlPool, AutoPadSameUpperAndLower) {
  std::mt19937 rng(82);
  const Host x = Host::random(DType::kFloat, {1, 2, 6, 5}, rng);
  for (const std::string pad : {"SAME_UPPER", "SAME_LOWER"}) {
    // kernel 2x3, stride 2x1: totals 0 and 2 -> pads (0,0) and (1,1); kernel 3: total 1 on H.
    for (int64_t kh : {2, 3}) {
      PoolCase c;
      c.kind = "max";
      c.kernel = {kh, 3};
      c.strides = {2, 1};
      c.dilations = {1, 1};
      const int64_t total_h = std::max<int64_t>(0, (3 - 1) * 2 + kh - 6);
      const int64_t begin_h = pad == "SAME_UPPER" ? total_h / 2 : total_h - total_h / 2;
      c.pads = {begin_h, 1, total_h - begin_h, 1};
      const PoolResult want = naive_pool(x, c);
      NodeGraph ng("MaxPool", 12);
      ng.in(x).out(DType::kFloat, want.shape).attr_s("auto_pad", pad);
      ng.attr_ints("kernel_shape", c.kernel).attr_ints("strides", c.strides);
      SCOPED_TRACE(pad + " kh " + std::to_string(kh));
      expect_values(ng.run(dnnl())[0], want.shape, [&](int64_t i) { return want.y[i]; });
    }
  }
}

TEST(CpuDnnlPool, MaxPoolOfInt8AndUInt8) {
  std::mt19937 rng(83);
  PoolCase c;
  c.kernel = {3, 2};
  c.strides = {2, 2};
  c.dilations = {1, 1};
  c.pads = {1, 0, 1, 1};
  c.ceil_mode = true;
  for (DType t : {DType::kInt8, DType::kUInt8}) {
    const Host x = Host::random(t, {2, 3, 7, 6}, rng, t == DType::kInt8 ? -120 : 0,
                                t == DType::kInt8 ? 120 : 250);
    const PoolResult want = naive_pool(x, c);
    NodeGraph ng("MaxPool", 12);
    build(ng, x, c, want.shape);
    ASSERT_EQ(ng.supports(dnnl()), std::nullopt);
    expect_values(ng.run(dnnl())[0], want.shape, [&](int64_t i) { return want.y[i]; });
  }
}

// The (N, C, 1, ...) output is described to oneDNN in the input's channels-last order (one
// format on both sides); batch 1 and 2 place the length-1 dims differently.
TEST(CpuDnnlPool, GlobalPoolsOfChannelsLastInputs) {
  std::mt19937 rng(84);
  for (int sp = 1; sp <= 3; ++sp) {
    for (int64_t batch : {1, 2}) {
      Dims s = {batch, 5};
      for (int i = 0; i < sp; ++i) s.push_back(2 + static_cast<int64_t>(rng() % 5));
      const Host x = Host::random(DType::kFloat, s, rng).strided(channels_last(sp));
      int64_t plane = 1;
      for (int i = 0; i < sp; ++i) plane *= s[i + 2];
      Dims out = {batch, 5};
      for (int i = 0; i < sp; ++i) out.push_back(1);
      for (const char* op : {"GlobalMaxPool", "GlobalAveragePool"}) {
        NodeGraph ng(op, 1);
        ng.in(x).out(DType::kFloat, out);
        auto want = [&](int64_t i) {
          double m = x.at(i * plane), sum = 0;
          for (int64_t k = 0; k < plane; ++k)
            m = std::max(m, x.at(i * plane + k)), sum += x.at(i * plane + k);
          return std::string(op) == "GlobalMaxPool" ? m : sum / static_cast<double>(plane);
        };
        SCOPED_TRACE(std::string(op) + " " + to_string(x.desc));
        expect_values(ng.run(dnnl())[0], out, want);
      }
    }
  }
}

// Hands the kernel a preallocated output of any layout (as a planned, channels-last output of
// a layout pass would be), so the test sees where the kernel wrote.
class GivenOutputContext : public KernelContext {
 public:
  GivenOutputContext(const Host& x, const Host& y) : x_(x), y_(y) {
    in_.desc = x.desc;
    in_.data = x.bytes->data();
    out_.desc = y.desc;
    out_.data = y.bytes->data();
  }
  int num_inputs() const override { return 1; }
  const TensorRef& input(int) const override { return in_; }
  int num_outputs() const override { return 1; }
  TensorRef& output(int) override { return out_; }
  TensorRef& output(int, const Dims& shape) override {
    EXPECT_EQ(shape, out_.desc.shape);
    return out_;
  }

 private:
  Host x_, y_;
  TensorRef in_, out_;
};

TEST(CpuDnnlPool, WritesTheDstLayoutItIsGiven) {
  std::mt19937 rng(86);
  PoolCase c;
  c.kernel = {3, 2};
  c.strides = {2, 1};
  c.dilations = {1, 1};
  c.pads = {1, 0, 1, 1};
  for (const std::string kind : {"max", "avg"}) {
    c.kind = kind;
    for (int layouts = 0; layouts < 4; ++layouts) {
      Host x = Host::random(DType::kFloat, {2, 5, 7, 6}, rng);
      if (layouts & 1) x = x.strided(channels_last(2));
      const PoolResult want = naive_pool(x, c);
      Host y = Host::dense(DType::kFloat, want.shape);
      if (layouts & 2) y = y.strided(channels_last(2));
      NodeGraph ng(kind == "max" ? "MaxPool" : "AveragePool", 12);
      build(ng, x, c, want.shape);
      GivenOutputContext ctx(x, y);
      find_kernel(dnnl(), *ng.node)->create(ng.g, *ng.node)->compute(ctx);
      SCOPED_TRACE(kind + " x " + to_string(x.desc) + " y " + to_string(y.desc));
      expect_values(y, want.shape, [&](int64_t i) { return want.y[i]; });
    }
  }
}

TEST(CpuDnnlPool, OneKernelOnSeveralThreads) {
  // One kernel, its primitive cache shared: two input shapes, each run by two threads at once.
  PoolCase c;
  c.kind = "avg";
  c.kernel = {3, 3};
  c.strides = {2, 2};
  c.dilations = {1, 1};
  c.pads = {1, 1, 1, 1};
  std::mt19937 rng(85);
  const Host xs[2] = {Host::random(DType::kFloat, {2, 4, 11, 9}, rng),
                      Host::random(DType::kFloat, {1, 3, 8, 13}, rng)};
  NodeGraph ng("AveragePool", 19);
  build(ng, xs[0], c, naive_pool(xs[0], c).shape);
  const KernelEntry* e = find_kernel(dnnl(), *ng.node);
  ASSERT_NE(e, nullptr);
  const std::unique_ptr<Kernel> kernel = e->create(ng.g, *ng.node);
  std::vector<std::thread> threads;
  std::vector<double> worst(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const Host& x = xs[t % 2];
      const PoolResult want = naive_pool(x, c);
      for (int round = 0; round < 20; ++round) {
        FakeContext ctx({x}, {DType::kFloat});
        kernel->compute(ctx);
        for (int64_t i = 0; i < element_count(want.shape); ++i)
          worst[t] = std::max(worst[t], std::abs(ctx.result(0).at(i) - want.y[i]));
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_LT(worst[t], 1e-5) << "thread " << t;
}

// One image is split by output rows across the pool (three threads: parts of uneven length),
// each block with the input rows its windows read and the pads left at its edges: random
// windows, pads, strides, dilations and ceil_mode over images large enough to split.
TEST(CpuDnnlPool, OneImageSplitsByRowsAndMatchesNaiveLoops) {
  ThreadPool three(3);
  ScopedPool scope(&three);
  std::mt19937 rng(87);
  // 1 x 8 channels x about 2^18 / 8 positions: enough elements for three parts.
  const auto large = [](const PoolCase& c) {
    const Dims lengths[] = {{32771}, {181, 179}, {41, 39, 21}};
    Dims shape{1, 8};
    for (int64_t n : lengths[c.kernel.size() - 1]) shape.push_back(n);
    return shape;
  };
  EXPECT_GT(expect_random_windows_match(rng, 12, large), 18);
}

TEST(CpuDnnlPool, LeavesToGenericWhatOneDnnComputesDifferently) {
  auto node = [](NodeGraph& ng, DType t) {
    ng.in(Host::dense(t, {1, 1, 5, 5})).out(t, {1, 1, 3, 3});
    ng.attr_ints("kernel_shape", {2, 2}).attr_ints("strides", {2, 2});
  };
  NodeGraph indices("MaxPool", 12);
  node(indices, DType::kFloat);
  indices.out(DType::kInt64, {1, 1, 3, 3});
  EXPECT_NE(indices.supports(dnnl()), std::nullopt);
  NodeGraph cip("AveragePool", 19);
  node(cip, DType::kFloat);
  cip.attr_i("ceil_mode", 1).attr_i("count_include_pad", 1);
  EXPECT_NE(cip.supports(dnnl()), std::nullopt);
  NodeGraph dbl("MaxPool", 12);
  node(dbl, DType::kDouble);
  EXPECT_NE(dbl.supports(dnnl()), std::nullopt);
  NodeGraph avg8("AveragePool", 19);
  node(avg8, DType::kInt8);
  EXPECT_NE(avg8.supports(dnnl()), std::nullopt);
  NodeGraph lp("LpPool", 18);
  node(lp, DType::kFloat);
  EXPECT_EQ(lp.supports(dnnl()), std::string("no entry"));
}

}  // namespace
}  // namespace geon::cpu::testing
