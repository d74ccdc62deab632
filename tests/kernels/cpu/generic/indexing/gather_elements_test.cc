// cpu.generic GatherElements against a naive loop over the indices' coordinates: random ranks,
// axes (negative too) and negative indices, indices shorter than data on the other axes,
// strided and broadcast data, int32 indices, every whole-byte width (bool, float16, complex),
// and the errors for an out-of-range index, a rank mismatch and a too-long indices dim.
#include <gtest/gtest.h>

#include "core/desc/views.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// out[c] = data[c with c[axis] = wrap(indices[c])].
std::vector<double> gathered(const Host& data, const Host& idx, int axis) {
  const Dims ds = data.shape(), is = idx.shape();
  const int r = static_cast<int>(ds.size());
  std::vector<double> out;
  for (int64_t i = 0; i < element_count(is); ++i) {
    int64_t rest = i, src = 0, scale = 1;
    std::vector<int64_t> c(r);
    for (int d = r - 1; d >= 0; --d) {
      c[d] = rest % is[d];
      rest /= is[d];
    }
    auto v = static_cast<int64_t>(idx.at(i));
    c[axis] = v < 0 ? v + ds[axis] : v;
    for (int d = r - 1; d >= 0; --d) {
      src += c[d] * scale;
      scale *= ds[d];
    }
    out.push_back(data.at(src));
  }
  return out;
}

Host random_indices(std::mt19937& rng, const Dims& shape, int64_t len, DType t = DType::kInt64) {
  Host h = Host::dense(t, shape);
  for (int64_t i = 0; i < element_count(shape); ++i)
    h.set(i, static_cast<double>(static_cast<int64_t>(rng() % (2 * len)) - len));
  return h;
}

void expect_gather(const Host& data, const Host& idx, int64_t axis_attr, double tol = 0) {
  NodeGraph ng("GatherElements", 13);
  ng.in(data).in(idx).out(data.desc.dtype).attr_i("axis", axis_attr);
  const int r = data.desc.rank();
  const std::vector<double> want =
      gathered(data, idx, static_cast<int>(axis_attr < 0 ? axis_attr + r : axis_attr));
  expect_values(
      ng.run(gen())[0], idx.shape(), [&](int64_t i) { return want[i]; }, tol);
}

TEST(CpuGenericGatherElements, RandomShapesAxesAndNegativeIndices) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 60; ++trial) {
    const int r = 1 + trial % 4;
    const Dims ds = random_shape(rng, r, 5);
    const int64_t axis = static_cast<int64_t>(rng() % r) - (trial % 2 ? r : 0);
    const int a = static_cast<int>(axis < 0 ? axis + r : axis);
    Dims is = ds;
    for (int d = 0; d < r; ++d)
      is[d] =
          d == a ? 1 + static_cast<int64_t>(rng() % 6) : 1 + static_cast<int64_t>(rng() % ds[d]);
    const Host data = Host::random(DType::kFloat, ds, rng);
    expect_gather(data, random_indices(rng, is, ds[a], trial % 3 ? DType::kInt64 : DType::kInt32),
                  axis);
  }
}

TEST(CpuGenericGatherElements, StridedAndBroadcastData) {
  std::mt19937 rng(22);
  const Host data = Host::random(DType::kFloat, {3, 4, 5}, rng);
  for (int axis = 0; axis < 3; ++axis) {
    expect_gather(data.strided({2, 0, 1}), random_indices(rng, {3, 4, 5}, data.shape()[axis]),
                  axis);
    // A broadcast view: (3, 1, 5) seen as (3, 4, 5) with stride 0 on dim 1.
    const Host narrow_data = Host::random(DType::kFloat, {3, 1, 5}, rng);
    Host wide{broadcast_to(narrow_data.desc, Dims{3, 4, 5}), narrow_data.bytes};
    expect_gather(wide, random_indices(rng, {2, 4, 3}, wide.shape()[axis]), axis);
  }
}

TEST(CpuGenericGatherElements, EveryElementWidth) {
  std::mt19937 rng(23);
  for (DType t : {DType::kBool, DType::kInt8, DType::kUInt16, DType::kFloat16, DType::kBFloat16,
                  DType::kInt32, DType::kDouble, DType::kUInt64, DType::kComplex64,
                  DType::kComplex128, DType::kFloat8E4M3FN}) {
    const Host data = Host::random(t, {4, 6}, rng, 0, 2);
    expect_gather(data, random_indices(rng, {3, 6}, 4), 0);
    expect_gather(data.strided({1, 0}), random_indices(rng, {4, 5}, 6), -1);
  }
}

TEST(CpuGenericGatherElements, BadIndicesAreErrorsNamingThem) {
  const Host data = Host::of(DType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  NodeGraph hi("GatherElements", 13);
  hi.in(data).in(Host::of(DType::kInt64, {1, 2}, {0, 3})).out(DType::kFloat).attr_i("axis", 1);
  expect_error(hi, gen(), ErrorCode::kOutOfRange,
               {"GatherElements", "index 3", "indices element 1", "length 3"});
  NodeGraph lo("GatherElements", 13);
  lo.in(data).in(Host::of(DType::kInt32, {1, 1}, {-3})).out(DType::kFloat);
  expect_error(lo, gen(), ErrorCode::kOutOfRange, {"index -3", "length 2"});
  NodeGraph rank("GatherElements", 13);
  rank.in(data).in(Host::of(DType::kInt64, {2}, {0, 1})).out(DType::kFloat);
  expect_error(rank, gen(), ErrorCode::kInvalidArgument, {"rank 1", "rank 2"});
  NodeGraph wide("GatherElements", 13);
  wide.in(data).in(Host::dense(DType::kInt64, {1, 4})).out(DType::kFloat);
  expect_error(wide, gen(), ErrorCode::kInvalidArgument, {"(1, 4)", "axis 1"});
}

}  // namespace
}  // namespace geon::cpu::testing
