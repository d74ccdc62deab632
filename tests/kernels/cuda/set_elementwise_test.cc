// The cuda set's elementwise kernels against cpu.generic on the same seeded inputs: every
// unary op of the shared table in float (and the integer and bool ones), binary ops with
// broadcasting and strided inputs, integer and bool ops exactly, comparisons, variadic
// Sum/Mean/Max/Min, Where, and the attribute variants (alpha, fmod, BitShift direction).
#include <gtest/gtest.h>

#include "core/onnx/elementwise.h"
#include "kernels/cpu/kernel_sets.h"
#include "kernels/cuda/kernel_set.h"
#include "tests/kernels/cpu/reference.h"
#include "tests/kernels/cuda/gpu_util.h"
#include "tests/kernels/cuda/set_harness.h"

namespace geon::cuda::testing {
namespace {

using cpu::testing::broadcastable;
using cpu::testing::random_shape;

constexpr double kFloatRtol = 1e-5;

// Inputs inside each op's domain, so results are numbers rather than NaN.
std::pair<double, double> domain(std::string_view op) {
  if (op == "Log" || op == "Sqrt" || op == "Reciprocal") return {0.1, 3};
  if (op == "Acosh") return {1.1, 3};
  if (op == "Asin" || op == "Acos" || op == "Atanh") return {-0.9, 0.9};
  return {-3, 3};
}

bool predicate(std::string_view op) { return op == "IsNaN" || op == "IsInf"; }

TEST(CudaSetElementwise, EveryFloatUnaryOpMatchesCpuGeneric) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(11);
  int ran = 0;
  for (const onnx::ElementwiseOp& e : onnx::elementwise_ops()) {
    if (e.shape != onnx::EwShape::kUnary) continue;
    for (DType t : {DType::kFloat, DType::kDouble}) {
      const auto [lo, hi] = domain(e.onnx);
      const Dims shape = random_shape(rng, 3, 6);
      Host x = Host::random(t, shape, rng, lo, hi);
      if (x.desc.rank() == 3) x = x.strided({2, 0, 1});
      NodeGraph ng(std::string(e.onnx), 18);
      ng.in(x).out(predicate(e.onnx) ? DType::kBool : t, shape);
      if (ng.supports(cpu::generic_kernels())) {
        // Int- or bool-only ops (Not, BitwiseNot): both sets must refuse alike.
        EXPECT_TRUE(ng.supports(kernel_set())) << e.onnx << " on " << dtype_name(t);
        continue;
      }
      expect_matches_cpu(ng, kFloatRtol);
      ++ran;
    }
  }
  EXPECT_GE(ran, 60);
}

TEST(CudaSetElementwise, IntegerAndBoolUnaryOpsAreExact) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(12);
  for (const char* op : {"Abs", "Neg", "Sign", "BitwiseNot", "Relu"}) {
    for (DType t : {DType::kInt32, DType::kInt8, DType::kInt64}) {
      NodeGraph ng(op, 18);
      ng.in(Host::random(t, {5, 7}, rng, -50, 50)).out(t, {5, 7});
      expect_matches_cpu(ng, 0);
    }
  }
  NodeGraph ng("Not", 1);
  ng.in(Host::random(DType::kBool, {9}, rng, 0, 2)).out(DType::kBool, {9});
  expect_matches_cpu(ng, 0);
}

TEST(CudaSetElementwise, FloatBinaryOpsBroadcastOverStridedInputs) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(13);
  struct Case {
    const char* op;
    double lo, hi;
  };
  for (const Case& c :
       {Case{"Add", -2, 2}, Case{"Sub", -2, 2}, Case{"Mul", -2, 2}, Case{"Div", 0.5, 2},
        Case{"Pow", 0.5, 2}, Case{"PRelu", -2, 2}, Case{"Max", -2, 2}, Case{"Min", -2, 2}}) {
    for (int trial = 0; trial < 6; ++trial) {
      const Dims out = random_shape(rng, 1 + static_cast<int>(rng() % 4));
      Host a = Host::random(DType::kFloat, out, rng, c.lo, c.hi);
      Host b = Host::random(DType::kFloat, broadcastable(rng, out), rng, c.lo, c.hi);
      if (a.desc.rank() == 2 && trial % 2) a = a.strided({1, 0});
      // The broadcast operand first, half the time: the output shape still comes from both.
      NodeGraph ng(c.op, 14);
      if (trial % 3 == 2)
        ng.in(b).in(a);
      else
        ng.in(a).in(b);
      ng.out(DType::kFloat, out);
      expect_matches_cpu(ng, kFloatRtol);
    }
  }
}

TEST(CudaSetElementwise, IntegerBinaryOpsAreExact) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(14);
  for (const char* op :
       {"Add", "Sub", "Mul", "Div", "Mod", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Max", "Min"}) {
    for (DType t : {DType::kInt32, DType::kInt64, DType::kUInt8}) {
      const bool divides = std::string_view(op) == "Div" || std::string_view(op) == "Mod";
      Host a = Host::random(t, {4, 6}, rng, t == DType::kUInt8 ? 0 : -100, 100);
      Host b = Host::random(t, {6}, rng, divides ? 1 : -100, 100);
      if (t == DType::kUInt8 && !divides) b = Host::random(t, {6}, rng, 0, 100);
      NodeGraph ng(op, 18);
      ng.in(a).in(b).out(t, {4, 6});
      expect_matches_cpu(ng, 0);
    }
  }
}

TEST(CudaSetElementwise, AttributeVariantsMatch) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(15);
  const Host f = Host::random(DType::kFloat, {3, 5}, rng, -3, 3);
  const Host g = Host::random(DType::kFloat, {3, 5}, rng, 0.5, 2);
  {
    NodeGraph ng("Mod", 13);
    ng.in(f).in(g).out(DType::kFloat, {3, 5}).attr_i("fmod", 1);
    expect_matches_cpu(ng, kFloatRtol);
  }
  for (const char* dir : {"LEFT", "RIGHT"}) {
    NodeGraph ng("BitShift", 11);
    ng.in(Host::random(DType::kUInt32, {8}, rng, 0, 1000))
        .in(Host::random(DType::kUInt32, {8}, rng, 0, 7))
        .out(DType::kUInt32, {8})
        .attr_s("direction", dir);
    expect_matches_cpu(ng, 0);
  }
  for (const char* op : {"LeakyRelu", "Elu"}) {
    NodeGraph plain(op, 16);
    plain.in(f).out(DType::kFloat, {3, 5});
    expect_matches_cpu(plain, kFloatRtol);
    NodeGraph alpha(op, 16);
    alpha.in(f).out(DType::kFloat, {3, 5}).attr_f("alpha", 0.37f);
    expect_matches_cpu(alpha, kFloatRtol);
  }
}

TEST(CudaSetElementwise, ComparisonsAndLogicGiveTheSameBools) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(16);
  for (const char* op : {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"}) {
    for (DType t : {DType::kInt32, DType::kFloat}) {
      // Few distinct values, so equal pairs occur.
      NodeGraph ng(op, 16);
      ng.in(Host::random(t, {4, 5}, rng, -2, 2))
          .in(Host::random(t, {1, 5}, rng, -2, 2))
          .out(DType::kBool, {4, 5});
      expect_matches_cpu(ng, 0);
    }
  }
  for (const char* op : {"And", "Or", "Xor"}) {
    NodeGraph ng(op, 7);
    ng.in(Host::random(DType::kBool, {6, 2}, rng, 0, 2))
        .in(Host::random(DType::kBool, {2}, rng, 0, 2))
        .out(DType::kBool, {6, 2});
    expect_matches_cpu(ng, 0);
  }
}

TEST(CudaSetElementwise, VariadicOpsAndWhereFuseAllInputs) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(17);
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    for (int k : {1, 3, 6}) {
      NodeGraph ng(op, 13);
      const Dims out = {3, 4, 2};
      for (int i = 0; i < k; ++i)
        ng.in(Host::random(DType::kFloat, i == 0 ? out : broadcastable(rng, out), rng));
      ng.out(DType::kFloat, out);
      expect_matches_cpu(ng, kFloatRtol);
    }
    NodeGraph ints(op, 13);
    ints.in(Host::random(DType::kInt64, {5}, rng, -9, 9))
        .in(Host::random(DType::kInt64, {2, 5}, rng, -9, 9))
        .out(DType::kInt64, {2, 5});
    if (std::string_view(op) == "Mean") {  // floating types only, in both sets
      EXPECT_TRUE(ints.supports(cpu::generic_kernels()));
      EXPECT_TRUE(ints.supports(kernel_set()));
      continue;
    }
    expect_matches_cpu(ints, 0);
  }
  for (DType t : {DType::kFloat, DType::kInt32}) {
    NodeGraph ng("Where", 16);
    ng.in(Host::random(DType::kBool, {4, 1}, rng, 0, 2))
        .in(Host::random(t, {4, 3}, rng, -9, 9))
        .in(Host::random(t, {3}, rng, -9, 9))
        .out(t, {4, 3});
    expect_matches_cpu(ng, 0);
  }
}

TEST(CudaSetElementwise, NarrowFloatsAndEmptyTensors) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(18);
  for (DType t : {DType::kFloat16, DType::kBFloat16}) {
    NodeGraph ng("Mul", 14);
    ng.in(Host::random(t, {7, 3}, rng)).in(Host::random(t, {3}, rng)).out(t, {7, 3});
    expect_matches_cpu(ng, 0);  // float math, one rounding into the narrow type, on both
  }
  NodeGraph empty("Add", 14);
  empty.in(Host::dense(DType::kFloat, {0, 3}))
      .in(Host::random(DType::kFloat, {3}, rng))
      .out(DType::kFloat, {0, 3});
  expect_matches_cpu(empty, 0);
}

}  // namespace
}  // namespace geon::cuda::testing
