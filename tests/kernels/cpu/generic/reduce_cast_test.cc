// cpu.generic reductions (axes by attribute and by constant input, keepdims, empty axes),
// Clip in both forms, and Cast (saturate), against naive loops.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// Reference reduction of a (rank 3) over the axes flagged in `red`; result in kept-dims order.
std::vector<double> naive_reduce(const Host& a, const std::vector<bool>& red, const char* op) {
  const Dims& s = a.desc.shape;
  Dims o = s;
  for (int k = 0; k < 3; ++k)
    if (red[k]) o[k] = 1;
  std::vector<double> acc(element_count(o), std::string(op) == "ReduceProd" ? 1.0 : 0.0);
  std::vector<int> count(acc.size(), 0);
  for (int64_t i = 0; i < element_count(s); ++i) {
    const int64_t c0 = i / (s[1] * s[2]), c1 = i / s[2] % s[1], c2 = i % s[2];
    const int64_t j =
        (red[0] ? 0 : c0) * o[1] * o[2] + (red[1] ? 0 : c1) * o[2] + (red[2] ? 0 : c2);
    const double v = a.at(i);
    const std::string name = op;
    if (name == "ReduceSum" || name == "ReduceMean") acc[j] += v;
    if (name == "ReduceProd") acc[j] *= v;
    if (name == "ReduceMax") acc[j] = count[j] ? std::max(acc[j], v) : v;
    if (name == "ReduceMin") acc[j] = count[j] ? std::min(acc[j], v) : v;
    ++count[j];
  }
  if (std::string(op) == "ReduceMean")
    for (size_t j = 0; j < acc.size(); ++j) acc[j] /= count[j];
  return acc;
}

TEST(CpuGenericReduce, RandomAxesBothForms) {
  std::mt19937 rng(21);
  const char* ops[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"};
  for (const char* op : ops) {
    for (int trial = 0; trial < 6; ++trial) {
      const Dims s = random_shape(rng, 3, 4);
      Host a = Host::random(DType::kFloat, s, rng, 0.5, 1.5);
      if (trial % 2) a = a.strided({2, 0, 1});
      std::vector<bool> red(3);
      std::vector<int64_t> axes;
      for (int k = 0; k < 3; ++k)
        if (rng() % 2) red[k] = true, axes.push_back(k - (trial % 3 == 0 ? 3 : 0));
      if (axes.empty()) red = {true, true, true};  // empty axes: reduce everything
      const bool keep = trial % 3 != 1;
      Dims out;
      for (int k = 0; k < 3; ++k)
        if (!red[k] || keep) out.push_back(red[k] ? 1 : s[k]);
      const std::vector<double> want = naive_reduce(a, red, op);
      const bool by_input = trial >= 3;
      const bool sum = std::string(op) == "ReduceSum";
      NodeGraph ng(op, by_input ? 18 : (sum ? 11 : 13));
      ng.in(a);
      if (by_input)
        ng.in(ints(axes), true);
      else
        ng.attr_ints("axes", axes);
      ng.out(DType::kFloat, out).attr_i("keepdims", keep);
      SCOPED_TRACE(std::string(op) + " " + to_string(a.desc));
      expect_values(ng.run(gen())[0], out, [&](int64_t i) { return want[i]; });
    }
  }
}

TEST(CpuGenericReduce, NoopWithEmptyAxesAndNonConstantAxes) {
  const Host a = Host::of(DType::kFloat, {2, 2}, {1, 2, 3, 4});
  NodeGraph noop("ReduceSum", 13);
  noop.in(a).out(DType::kFloat, {2, 2}).attr_i("noop_with_empty_axes", 1);
  expect_values(noop.run(gen())[0], {2, 2}, [&](int64_t i) { return a.at(i); });
  NodeGraph dyn("ReduceSum", 13);
  dyn.in(a).in(ints({0})).out(DType::kFloat, {1, 2});
  EXPECT_FALSE(dyn.supports(gen()));  // axes read from the run's tensor
  expect_values(dyn.run(gen())[0], {1, 2}, [&](int64_t i) { return a.at(i) + a.at(2 + i); });
}

TEST(CpuGenericClip, AttributeAndInputForms) {
  std::mt19937 rng(2);
  const Host x = Host::random(DType::kFloat, {3, 5}, rng, -3, 3).strided({1, 0});
  NodeGraph old("Clip", 6);
  old.in(x).out(DType::kFloat, {3, 5}).attr_f("min", -1).attr_f("max", 0.5f);
  expect_values(old.run(gen())[0], {3, 5},
                [&](int64_t i) { return std::clamp(x.at(i), -1.0, 0.5); });
  NodeGraph both("Clip", 13);
  both.in(x).in(Host::of(DType::kFloat, {}, {-0.5})).in(Host::of(DType::kFloat, {}, {1}));
  both.out(DType::kFloat, {3, 5});
  expect_values(both.run(gen())[0], {3, 5},
                [&](int64_t i) { return std::clamp(x.at(i), -0.5, 1.0); });
  NodeGraph hi_only("Clip", 13);
  hi_only.in(x).omitted().in(Host::of(DType::kFloat, {}, {0})).out(DType::kFloat, {3, 5});
  expect_values(hi_only.run(gen())[0], {3, 5}, [&](int64_t i) { return std::min(x.at(i), 0.0); });
  const Host xi = Host::of(DType::kInt64, {4}, {-5, 0, 5, 10});
  NodeGraph ints_lo("Clip", 13);
  ints_lo.in(xi).in(Host::of(DType::kInt64, {}, {1})).out(DType::kInt64, {4});
  expect_values(ints_lo.run(gen())[0], {4}, [&](int64_t i) { return std::max(xi.at(i), 1.0); });
}

// ONNX defines Clip as min(max(x, lo), hi), so bounds that cross give hi everywhere.
TEST(CpuGenericClip, CrossedBoundsGiveTheUpperBoundEverywhere) {
  const Host x = Host::of(DType::kFloat, {4}, {-3, 0.5, 1.5, 4});
  NodeGraph crossed("Clip", 13);
  crossed.in(x).in(Host::of(DType::kFloat, {}, {2})).in(Host::of(DType::kFloat, {}, {1}));
  crossed.out(DType::kFloat, {4});
  expect_values(crossed.run(gen())[0], {4}, [](int64_t) { return 1.0; });
}

TEST(CpuGenericCast, ConvertsAndSaturates) {
  const Host x = Host::of(DType::kFloat, {4}, {1.7, -2.2, 1e6, 3.0});
  NodeGraph to_int("Cast", 13);
  to_int.in(x).out(DType::kInt32, {4}).attr_i("to", 6);
  expect_values(to_int.run(gen())[0], {4}, [&](int64_t i) { return std::trunc(x.at(i)); });
  NodeGraph sat("Cast", 19), nosat("Cast", 19);
  sat.in(x).out(DType::kFloat8E4M3FN, {4}).attr_i("to", 17);
  nosat.in(x).out(DType::kFloat8E4M3FN, {4}).attr_i("to", 17).attr_i("saturate", 0);
  EXPECT_EQ(sat.run(gen())[0].at(2), 448.0);  // largest finite e4m3fn
  EXPECT_TRUE(std::isnan(nosat.run(gen())[0].at(2)));
  NodeGraph like("CastLike", 15);
  like.in(x).in(Host::dense(DType::kDouble, {1})).out(DType::kDouble, {4});
  expect_values(like.run(gen())[0], {4}, [&](int64_t i) { return static_cast<float>(x.at(i)); });
  NodeGraph bad("Cast", 19);
  bad.in(x).out(DType::kFloat8E8M0, {4}).attr_s("round_mode", "sideways");
  EXPECT_TRUE(bad.supports(gen()));
}

}  // namespace
}  // namespace geon::cpu::testing
