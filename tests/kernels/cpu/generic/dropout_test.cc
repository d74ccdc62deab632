// cpu.generic Dropout at inference: y = x for every opset, the mask all kept (data's type before
// opset 10, bool after), training_mode with a zero ratio as an identity, and random dropout
// refused (constant inputs) or a kNotSupported error (run-time inputs).
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

TEST(CpuGenericDropout, TrainingModeRunsOnlyWithAZeroRatio) {
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

  NodeGraph random("Dropout", 13);
  random.in(x).in(Host::of(DType::kFloat, {}, {0.5})).in(boolean(true)).out(DType::kDouble);
  expect_error(random, gen(), ErrorCode::kNotSupported, {"Dropout", "random dropout"});
  NodeGraph refused("Dropout", 13);
  refused.in(x).omitted().in(boolean(true), true).out(DType::kDouble);
  ASSERT_TRUE(refused.supports(gen()));
  EXPECT_NE(refused.supports(gen())->find("ratio 0.5"), std::string::npos);
}

}  // namespace
}  // namespace geon::cpu::testing
