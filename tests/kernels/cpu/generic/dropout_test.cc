// cpu.generic Dropout: at inference y = x for every opset, the mask all kept (data's type before
// opset 10, bool after), training_mode with a zero ratio as an identity; in training mode
// y = x * mask / (1 - ratio) with the mask drawn (numpy's stream for a seed: the ONNX data's
// masks), reproducible with a seed, and a ratio outside [0, 1) refused or a clear error.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

Host boolean(bool v) { return Host::of(DType::kBool, {}, {v ? 1.0 : 0.0}); }

TEST(CpuGenericDropout, InferenceIsIdentityWithAFullMask) {
  std::mt19937 rng(2);
  const Host x = Host::random(DType::kFloat, {3, 4}, rng).strided({1, 0});
  for (int opset : {6, 7, 10, 12, 13}) {
    NodeGraph ng("Dropout", opset);
    ng.in(x);
    if (opset >= 12) ng.in(Host::of(DType::kFloat, {}, {0.3}));
    const DType mask = opset >= 10 ? DType::kBool : DType::kFloat;
    ng.out(DType::kFloat, {3, 4}).out(mask, {3, 4});
    if (opset < 12) ng.attr_f("ratio", 0.3f);
    const std::vector<Host> y = ng.run(gen());
    expect_values(y[0], {3, 4}, [&](int64_t i) { return x.at(i); });
    EXPECT_EQ(y[1].desc.dtype, mask);
    expect_values(y[1], {3, 4}, [](int64_t) { return 1.0; });
  }
  NodeGraph y_only("Dropout", 13);
  y_only.in(x).out(DType::kFloat, {3, 4});
  expect_values(y_only.run(gen())[0], {3, 4}, [&](int64_t i) { return x.at(i); });
}

TEST(CpuGenericDropout, TrainingModeWithAZeroRatioOrOffIsIdentity) {
  std::mt19937 rng(9);
  const Host x = Host::random(DType::kDouble, {5}, rng);
  NodeGraph zero("Dropout", 13);
  zero.in(x).in(Host::of(DType::kFloat, {}, {0})).in(boolean(true));
  zero.out(DType::kDouble, {5}).out(DType::kBool, {5});
  const std::vector<Host> y = zero.run(gen());
  expect_values(y[0], {5}, [&](int64_t i) { return x.at(i); });
  expect_values(y[1], {5}, [](int64_t) { return 1.0; });
  NodeGraph off("Dropout", 13);
  off.in(x).in(Host::of(DType::kFloat, {}, {0.5})).in(boolean(false)).out(DType::kDouble, {5});
  expect_values(off.run(gen())[0], {5}, [&](int64_t i) { return x.at(i); });
}

TEST(CpuGenericDropout, TrainingModeDropsAndScalesTheKeptElements) {
  std::mt19937 rng(4);
  const Host x = Host::random(DType::kFloat, {40, 50}, rng, 1, 2).strided({1, 0});
  for (const double ratio : {0.25, 0.75}) {
    NodeGraph ng("Dropout", 13);
    ng.in(x).in(Host::of(DType::kFloat, {}, {ratio})).in(boolean(true)).attr_i("seed", 5);
    ng.out(DType::kFloat, {40, 50}).out(DType::kBool, {40, 50});
    const std::vector<Host> y = ng.run(gen());
    EXPECT_EQ(y[1].desc.dtype, DType::kBool);
    double kept = 0;
    for (int64_t i = 0; i < 2000; ++i) {
      const double m = y[1].at(i);
      ASSERT_TRUE(m == 0 || m == 1);
      kept += m;
      ASSERT_NEAR(y[0].at(i), m * x.at(i) / (1 - ratio), 1e-5) << i;
    }
    EXPECT_NEAR(kept / 2000, 1 - ratio, 0.05) << ratio;
    // A seed reproduces the draw on every run; the y-only (view) form draws the same.
    const std::vector<Host> again = ng.run(gen());
    for (int64_t i = 0; i < 2000; ++i) ASSERT_EQ(again[1].at(i), y[1].at(i));
    NodeGraph y_only("Dropout", 13);
    y_only.in(x).in(Host::of(DType::kFloat, {}, {ratio})).in(boolean(true)).attr_i("seed", 5);
    y_only.out(DType::kFloat, {40, 50});
    expect_values(y_only.run(gen())[0], {40, 50}, [&](int64_t i) { return y[0].at(i); });
  }
  // numpy: RandomState(0).random_sample(3) is [0.5488, 0.7152, 0.6028]: with ratio 0.6 only the
  // first is dropped.
  NodeGraph np("Dropout", 13);
  np.in(Host::of(DType::kDouble, {3}, {1, 2, 3})).in(Host::of(DType::kFloat, {}, {0.6}));
  np.in(boolean(true)).attr_i("seed", 0).out(DType::kDouble, {3}).out(DType::kBool, {3});
  expect_values(np.run(gen())[0], {3}, [](int64_t i) { return i == 0 ? 0.0 : (i + 1) / 0.4; });

  NodeGraph bad("Dropout", 13);
  bad.in(x).in(Host::of(DType::kFloat, {}, {1.0})).in(boolean(true)).out(DType::kFloat);
  expect_error(bad, gen(), ErrorCode::kInvalidArgument, {"Dropout", "[0, 1)"});
  NodeGraph refused("Dropout", 13);
  refused.in(x).in(Host::of(DType::kFloat, {}, {-0.5}), true).in(boolean(true), true);
  refused.out(DType::kFloat);
  ASSERT_TRUE(refused.supports(gen()));
  EXPECT_NE(refused.supports(gen())->find("[0, 1)"), std::string::npos);
}

}  // namespace
}  // namespace geon::cpu::testing
