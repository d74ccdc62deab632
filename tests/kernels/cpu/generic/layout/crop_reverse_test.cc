// cpu.generic ReverseSequence and CenterCropPad against naive index loops: both axis orders,
// every sequence length from 0 to the time dim, strided and integer inputs; crops and pads of
// odd and even differences along all or some (negative) axes, a run-time shape, a crop as a
// view of the input; and the errors for an out-of-range length, a shape of the wrong size, a
// negative entry and a huge shape.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

void expect_reverse(const Host& x, const std::vector<int64_t>& lens, int batch_axis) {
  const int time_axis = 1 - batch_axis;
  NodeGraph ng("ReverseSequence", 10);
  ng.in(x)
      .in(ints(lens))
      .out(x.desc.dtype)
      .attr_i("batch_axis", batch_axis)
      .attr_i("time_axis", time_axis);
  const Dims s = x.shape();
  int64_t inner = 1;
  for (size_t d = 2; d < s.size(); ++d) inner *= s[d];
  expect_values(ng.run(gen())[0], s, [&](int64_t i) {
    const int64_t rest = i % inner, d1 = (i / inner) % s[1], d0 = i / (inner * s[1]);
    const int64_t b = batch_axis == 0 ? d0 : d1, t = batch_axis == 0 ? d1 : d0;
    const int64_t src_t = t < lens[b] ? lens[b] - 1 - t : t;
    const int64_t s0 = batch_axis == 0 ? d0 : src_t, s1 = batch_axis == 0 ? src_t : d1;
    return x.at((s0 * s[1] + s1) * inner + rest);
  });
}

TEST(CpuGenericReverseSequence, EveryLengthBothAxisOrders) {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 20; ++trial) {
    const int batch_axis = trial % 2;
    Dims s = random_shape(rng, 2 + trial % 2, 5);
    const int64_t batch = s[batch_axis], steps = s[1 - batch_axis];
    std::vector<int64_t> lens;
    for (int64_t b = 0; b < batch; ++b) lens.push_back(static_cast<int64_t>(rng() % (steps + 1)));
    Host x = Host::random(DType::kFloat, s, rng);
    if (trial % 3 == 0) {
      std::vector<int64_t> perm(s.size());
      for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int64_t>(perm.size() - 1 - d);
      x = x.strided(perm);
    }
    expect_reverse(x, lens, batch_axis);
  }
  expect_reverse(Host::random(DType::kInt16, {4, 3, 2}, rng, -9, 9), {4, 1, 2}, 1);
  expect_reverse(Host::random(DType::kBool, {2, 5}, rng, 0, 2), {5, 3}, 0);
}

TEST(CpuGenericReverseSequence, BadLengthsAreErrors) {
  NodeGraph hi("ReverseSequence", 10);
  hi.in(Host::dense(DType::kFloat, {3, 2})).in(ints({1, 4})).out(DType::kFloat);
  expect_error(hi, gen(), ErrorCode::kInvalidArgument, {"ReverseSequence", "sequence_lens[1]"});
  NodeGraph neg("ReverseSequence", 10);
  neg.in(Host::dense(DType::kFloat, {3, 2})).in(ints({-1, 1})).out(DType::kFloat);
  expect_error(neg, gen(), ErrorCode::kInvalidArgument, {"sequence_lens[0] is -1"});
  NodeGraph count("ReverseSequence", 10);
  count.in(Host::dense(DType::kFloat, {3, 2})).in(ints({1})).out(DType::kFloat);
  expect_error(count, gen(), ErrorCode::kInvalidArgument, {"1 entries", "length 2"});
}

// The centred window: output index o along a dim of input length n and output length m
// reads input o + (n - m) / 2 when cropping, o - (m - n) / 2 when padding (0 outside).
void expect_crop_pad(const Host& x, const std::vector<int64_t>& shape,
                     std::optional<std::vector<int64_t>> axes, bool const_shape) {
  NodeGraph ng("CenterCropPad", 18);
  ng.in(x).in(ints(shape), const_shape).out(x.desc.dtype);
  if (axes) ng.attr_ints("axes", *axes);
  const Dims s = x.shape();
  const int r = static_cast<int>(s.size());
  Dims os = s;
  for (size_t i = 0; i < shape.size(); ++i) {
    const int64_t a = axes ? ((*axes)[i] + r) % r : static_cast<int64_t>(i);
    os[a] = shape[i];
  }
  expect_values(ng.run(gen())[0], os, [&](int64_t i) {
    int64_t src = 0;
    for (int d = 0; d < r; ++d) {
      int64_t stride = 1;
      for (int e = d + 1; e < r; ++e) stride *= os[e];
      const int64_t o = (i / stride) % os[d];
      const int64_t c = os[d] <= s[d] ? o + (s[d] - os[d]) / 2 : o - (os[d] - s[d]) / 2;
      if (c < 0 || c >= s[d]) return 0.0;
      src = src * s[d] + c;
    }
    return x.at(src);
  });
}

TEST(CpuGenericCenterCropPad, CropsAndPadsCentred) {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 24; ++trial) {
    const Dims s = random_shape(rng, 1 + trial % 3, 7);
    std::vector<int64_t> want;
    for (size_t d = 0; d < s.size(); ++d) want.push_back(static_cast<int64_t>(rng() % 10));
    Host x = Host::random(DType::kFloat, s, rng);
    if (s.size() == 3) x = x.strided({1, 2, 0});
    expect_crop_pad(x, want, std::nullopt, trial % 2 == 0);
  }
  const Host hwc = Host::random(DType::kInt32, {5, 4, 3}, rng, -9, 9);
  expect_crop_pad(hwc, {3, 7}, std::vector<int64_t>{0, 1}, true);
  expect_crop_pad(hwc, {2, 6}, std::vector<int64_t>{-3, -2}, false);
  expect_crop_pad(Host::random(DType::kFloat16, {4, 6}, rng), {5}, std::vector<int64_t>{1}, true);
}

TEST(CpuGenericCenterCropPad, CropAloneIsAViewOfTheInput) {
  std::mt19937 rng(3);
  const Host x = Host::random(DType::kFloat, {5, 6, 3}, rng).strided({2, 0, 1});
  for (const std::vector<int64_t>& want :
       {std::vector<int64_t>{3, 3}, std::vector<int64_t>{5, 8}}) {
    NodeGraph ng("CenterCropPad", 18);
    ng.in(x).in(ints(want)).out(DType::kFloat).attr_ints("axes", {0, 1});
    const std::unique_ptr<Kernel> k = find_kernel(gen(), *ng.node)->create(ng.g, *ng.node);
    ASSERT_TRUE(k->is_view());
    FakeContext ctx(ng.inputs, {DType::kFloat});
    const std::optional<TensorDesc> v = k->view(ctx);
    if (want[1] > 6) {  // a pad cannot be a view
      EXPECT_FALSE(v.has_value());
      continue;
    }
    ASSERT_TRUE(v.has_value());
    const Host seen{*v, x.bytes};
    ASSERT_EQ(seen.shape(), (Dims{3, 3, 3}));
    for (int64_t i = 0; i < 27; ++i) {
      const int64_t c = i % 3, col = (i / 3) % 3, row = i / 9;
      EXPECT_EQ(seen.at(i), x.at(((row + 1) * 6 + col + 1) * 3 + c)) << "at " << i;
    }
  }
}

TEST(CpuGenericCenterCropPad, BadShapesAreErrors) {
  NodeGraph count("CenterCropPad", 18);
  count.in(Host::dense(DType::kFloat, {3, 2})).in(ints({1})).out(DType::kFloat);
  expect_error(count, gen(), ErrorCode::kInvalidArgument, {"CenterCropPad", "1 entries", "2 axes"});
  NodeGraph neg("CenterCropPad", 18);
  neg.in(Host::dense(DType::kFloat, {3, 2})).in(ints({1, -2})).out(DType::kFloat);
  expect_error(neg, gen(), ErrorCode::kInvalidArgument, {"negative"});
  NodeGraph huge("CenterCropPad", 18);
  huge.in(Host::dense(DType::kFloat, {3, 2})).in(ints({int64_t{1} << 40, int64_t{1} << 40}));
  huge.out(DType::kFloat);
  expect_error(huge, gen(), ErrorCode::kResourceExhausted, {"limit"});
}

}  // namespace
}  // namespace geon::cpu::testing
