// cpu.generic GatherND against a naive loop over the index tuples: random ranks, tuple lengths
// and batch_dims, negative indices, strided data, int32 indices and other dtypes, and the
// errors for an out-of-range index, a tuple longer than data's rank and unequal batch dims.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// Output element i: batch entry, tuple and slice offset, as the spec's loops.
std::vector<double> gathered(const Host& data, const Host& idx, int64_t b) {
  const Dims ds = data.shape(), is = idx.shape();
  const int64_t k = is.back();
  int64_t batch = 1, slice = 1;
  for (int64_t d = 0; d < b; ++d) batch *= ds[d];
  for (size_t d = static_cast<size_t>(b + k); d < ds.size(); ++d) slice *= ds[d];
  int64_t block = 1;  // data elements per batch entry
  for (size_t d = static_cast<size_t>(b); d < ds.size(); ++d) block *= ds[d];
  const int64_t tuples = element_count(is) / k;
  std::vector<double> out;
  for (int64_t t = 0; t < tuples; ++t) {
    const int64_t be = t / (tuples / batch);
    int64_t off = 0;
    for (int64_t d = 0; d < k; ++d) {
      const int64_t len = ds[b + d];
      auto v = static_cast<int64_t>(idx.at(t * k + d));
      off = off * len + (v < 0 ? v + len : v);
    }
    for (int64_t j = 0; j < slice; ++j) out.push_back(data.at(be * block + off * slice + j));
  }
  return out;
}

void expect_gather(const Host& data, const Host& idx, int64_t b) {
  NodeGraph ng("GatherND", 13);
  ng.in(data).in(idx).out(data.desc.dtype).attr_i("batch_dims", b);
  const std::vector<double> want = gathered(data, idx, b);
  const Dims ds = data.shape(), is = idx.shape();
  Dims shape(is.begin(), is.end() - 1);
  shape.insert(shape.end(), ds.begin() + b + is.back(), ds.end());
  expect_values(
      ng.run(gen())[0], shape, [&](int64_t i) { return want[i]; }, 0);
}

Host random_tuples(std::mt19937& rng, const Dims& ds, int64_t b, Dims lead, int64_t k,
                   DType t = DType::kInt64) {
  lead.push_back(k);
  Host h = Host::dense(t, lead);
  for (int64_t i = 0; i < element_count(lead); ++i) {
    const int64_t len = ds[b + i % k];
    h.set(i, static_cast<double>(static_cast<int64_t>(rng() % (2 * len)) - len));
  }
  return h;
}

TEST(CpuGenericGatherND, RandomTuplesAndBatchDims) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 60; ++trial) {
    const int r = 1 + trial % 4;
    const Dims ds = random_shape(rng, r, 4);
    const int64_t b = static_cast<int64_t>(rng() % r);
    const int64_t k = 1 + static_cast<int64_t>(rng() % (r - b));
    Dims lead(ds.begin(), ds.begin() + b);
    for (int extra = static_cast<int>(rng() % 3); extra > 0; --extra)
      lead.push_back(1 + static_cast<int64_t>(rng() % 3));
    if (lead.size() == static_cast<size_t>(b) && b > 0 && rng() % 2) lead.push_back(2);
    const Host data = Host::random(DType::kFloat, ds, rng);
    expect_gather(data,
                  random_tuples(rng, ds, b, lead, k, trial % 4 ? DType::kInt64 : DType::kInt32), b);
  }
}

TEST(CpuGenericGatherND, StridedDataAndOtherDtypes) {
  std::mt19937 rng(32);
  for (DType t : {DType::kFloat, DType::kInt8, DType::kFloat16, DType::kInt64, DType::kBool,
                  DType::kComplex128}) {
    const Host data = Host::random(t, {3, 4, 5}, rng, 0, 3);
    expect_gather(data.strided({2, 1, 0}),
                  random_tuples(rng, {3, 4, 5}, 0, {2, 2}, 2, DType::kInt64), 0);
    expect_gather(data.strided({1, 2, 0}), random_tuples(rng, {3, 4, 5}, 1, {3, 2}, 1), 1);
  }
}

TEST(CpuGenericGatherND, BadIndicesAreErrorsNamingThem) {
  const Host data = Host::of(DType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  NodeGraph hi("GatherND", 13);
  hi.in(data).in(Host::of(DType::kInt64, {2, 2}, {0, 1, 1, 3})).out(DType::kFloat);
  expect_error(hi, gen(), ErrorCode::kOutOfRange,
               {"GatherND", "index 3", "indices element 3", "data axis 1", "length 3"});
  NodeGraph k("GatherND", 13);
  k.in(data).in(Host::dense(DType::kInt64, {1, 3})).out(DType::kFloat);
  expect_error(k, gen(), ErrorCode::kInvalidArgument, {"last dim is 3", "[1, 2]"});
  NodeGraph batch("GatherND", 13);
  batch.in(data).in(Host::dense(DType::kInt64, {3, 1})).out(DType::kFloat).attr_i("batch_dims", 1);
  expect_error(batch, gen(), ErrorCode::kInvalidArgument, {"batch dim 0"});
}

TEST(CpuGenericGatherND, HugeOutputFromSmallInputsIsRefused) {
  // 2^20 tuples, each picking a slice of 2^20 floats: 4 TiB from 12 MiB of inputs.
  const int64_t n = int64_t{1} << 20;
  NodeGraph ng("GatherND", 13);
  ng.in(Host::dense(DType::kFloat, {1, n}))
      .in(Host::dense(DType::kInt64, {n, 1}))
      .out(DType::kFloat);
  expect_error(ng, gen(), ErrorCode::kResourceExhausted, {"GatherND", "limit"});
}

}  // namespace
}  // namespace geon::cpu::testing
