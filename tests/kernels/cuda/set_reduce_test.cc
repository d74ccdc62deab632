// The cuda set's reductions against cpu.generic: every kind, axes as attribute and as
// constant input, negative and multiple axes, keepdims on and off, all axes (none given),
// noop_with_empty_axes, integer (exact) and bool inputs, and a strided input.
#include <gtest/gtest.h>

#include "tests/kernels/cuda/gpu_util.h"
#include "tests/kernels/cuda/set_harness.h"

namespace geon::cuda::testing {
namespace {

using cpu::testing::ints;

const char* const kReductions[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                   "ReduceProd"};

// The result shape of reducing `shape` over `axes` (all when empty).
Dims reduced(const Dims& shape, std::vector<int64_t> axes, bool keepdims) {
  const int rank = static_cast<int>(shape.size());
  for (int64_t& a : axes) a = a < 0 ? a + rank : a;
  Dims out;
  for (int d = 0; d < rank; ++d) {
    const bool gone = axes.empty() || std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!gone)
      out.push_back(shape[d]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

TEST(CudaSetReduce, EveryKindBothFormsMatchesCpuGeneric) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(31);
  const Dims shape = {3, 4, 5};
  const std::vector<std::vector<int64_t>> axis_sets = {{1}, {-1}, {0, 2}, {}};
  for (const char* op : kReductions) {
    for (const auto& axes : axis_sets) {
      for (int keepdims : {0, 1}) {
        // Values near 1 keep products finite and sums away from cancellation.
        const Host x = Host::random(DType::kFloat, shape, rng, 0.5, 1.5);
        const Dims out = reduced(shape, axes, keepdims != 0);
        NodeGraph by_attr(op, 11);
        by_attr.in(x).out(DType::kFloat, out).attr_i("keepdims", keepdims);
        if (!axes.empty()) by_attr.attr_ints("axes", axes);
        expect_matches_cpu(by_attr, 1e-5);
        NodeGraph by_input(op, 18);
        by_input.in(x.strided({2, 0, 1}));
        if (!axes.empty()) by_input.in(ints(axes), /*constant=*/true);
        by_input.out(DType::kFloat, out).attr_i("keepdims", keepdims);
        expect_matches_cpu(by_input, 1e-5);
      }
    }
  }
}

TEST(CudaSetReduce, IntegersAreExactAndBoolTakesMaxMin) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(32);
  for (const char* op : kReductions) {
    NodeGraph ng(op, 18);
    ng.in(Host::random(DType::kInt32, {6, 7}, rng, -3, 3))
        .in(ints({0}), true)
        .out(DType::kInt32, {1, 7});
    expect_matches_cpu(ng, 0);
  }
  for (const char* op : {"ReduceMax", "ReduceMin"}) {
    NodeGraph ng(op, 18);
    ng.in(Host::random(DType::kBool, {5, 4}, rng, 0, 2))
        .in(ints({1}), true)
        .out(DType::kBool, {5})
        .attr_i("keepdims", 0);
    expect_matches_cpu(ng, 0);
  }
}

TEST(CudaSetReduce, EmptyReducedDimsGiveTheIdentityValue) {
  GEON_REQUIRE_CUDA();
  for (const char* op : {"ReduceSum", "ReduceProd"}) {
    NodeGraph ng(op, 18);
    ng.in(Host::dense(DType::kFloat, {3, 0})).in(ints({1}), true).out(DType::kFloat, {3, 1});
    expect_matches_cpu(ng, 0);
  }
}

TEST(CudaSetReduce, NoopWithEmptyAxesCopiesTheInput) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(33);
  NodeGraph ng("ReduceSum", 13);
  ng.in(Host::random(DType::kFloat, {3, 2}, rng))
      .out(DType::kFloat, {3, 2})
      .attr_i("noop_with_empty_axes", 1);
  expect_matches_cpu(ng, 0);
}

}  // namespace
}  // namespace geon::cuda::testing
