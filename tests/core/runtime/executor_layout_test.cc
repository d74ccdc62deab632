// Value::layout through the executor: a value marked channels-last is allocated with
// permuted strides (row-major over (N, spatial..., C)), its producer writes and its readers
// read that view, and the results equal the row-major run.
#include <gtest/gtest.h>

#include <array>
#include <mutex>

#include "core/engine/engine.h"
#include "tests/core/runtime/executor_fixture.h"

namespace geon {
namespace {

using namespace geon::testing;  // NOLINT

const Dims kShape{2, 3, 4, 5};

// "Probe": y = 2x through the engine (any strides), recording the descriptions it saw.
std::mutex g_mu;
std::vector<TensorDesc> g_seen_in, g_seen_out;

class ProbeKernel final : public Kernel {
 public:
  void compute(KernelContext& ctx) const override {
    const TensorRef& x = ctx.input(0);
    TensorRef& y = ctx.output(0, x.desc.shape);
    {
      std::lock_guard<std::mutex> lock(g_mu);
      g_seen_in.push_back(x.desc);
      g_seen_out.push_back(y.desc);
    }
    unary("identity", Operand{y.desc, y.data}, ConstOperand(x.desc, x.data), 2.0);
  }
};

std::optional<std::string> any_node(const Graph&, const Node&) { return std::nullopt; }
std::unique_ptr<Kernel> make_probe(const Graph&, const Node&) {
  return std::make_unique<ProbeKernel>();
}
const KernelEntry kProbe[] = {{"", "Probe", 1, any_node, make_probe}};
const KernelSet kProbeSet{"test.probe", Device{}, kProbe};

std::shared_ptr<Graph> probe_chain(bool channels_last) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {2, 3, 4, 5});
  const int a = b.node("Probe", {x}, "a", DType::kFloat, {2, 3, 4, 5});
  b.output(b.node("Probe", {a}, "y", DType::kFloat, {2, 3, 4, 5}));
  if (channels_last) b.graph().values[a].layout = {0, 2, 3, 1};
  return b.shared();
}

std::vector<float> run_chain(bool channels_last, std::vector<TensorDesc>* in,
                             std::vector<TensorDesc>* out) {
  const KernelSet* sets[] = {&kProbeSet};
  auto exe = Executable::compile(probe_chain(channels_last), sets);
  std::vector<float> xs(120);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i % 17) - 8.0f;
  HostTensor x = floats({2, 3, 4, 5}, xs);
  const std::array<TensorRef, 1> inputs{x.ref()};
  const std::array<int, 1> outs{0};
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_seen_in.clear();
    g_seen_out.clear();
  }
  const auto result = exe->run(inputs, outs);
  EXPECT_EQ(result[0].desc, row_major(DType::kFloat, kShape));  // outputs stay row-major
  std::lock_guard<std::mutex> lock(g_mu);
  *in = g_seen_in;
  *out = g_seen_out;
  return values_of<float>(result[0]);
}

TEST(ExecutorLayout, AChannelsLastValueIsAllocatedWithPermutedStrides) {
  std::vector<TensorDesc> in, out;
  const std::vector<float> laid = run_chain(true, &in, &out);
  ASSERT_EQ(in.size(), 2u);
  // The first Probe writes `a` channels-last; the second reads it so.
  const Dims nhwc_strides{60, 1, 15, 3};
  EXPECT_EQ(out[0].shape, (Dims{2, 3, 4, 5}));
  EXPECT_EQ(out[0].strides, nhwc_strides);
  EXPECT_EQ(in[1].strides, nhwc_strides);
  EXPECT_EQ(in[0], row_major(DType::kFloat, kShape));   // the graph input as given
  EXPECT_EQ(out[1], row_major(DType::kFloat, kShape));  // the graph output

  std::vector<TensorDesc> pin, pout;
  const std::vector<float> plain = run_chain(false, &pin, &pout);
  EXPECT_EQ(pout[0], row_major(DType::kFloat, kShape));
  EXPECT_EQ(laid, plain);
  EXPECT_EQ(plain[7], 4.0f * ((7 % 17) - 8.0f));
}

}  // namespace
}  // namespace geon
