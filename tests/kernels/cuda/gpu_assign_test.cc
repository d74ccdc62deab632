// Needs a GPU (skipped elsewhere, with the reason): casts between every pair of numeric dtypes
// on the device against the CPU assign, and host<->device assign round trips for every dtype,
// with conversion on either side, strides and broadcasting on both.
#include <gtest/gtest.h>

#include <random>

#include "kernels/cuda/engine.h"
#include "tests/kernels/cuda/cases.h"
#include "tests/kernels/cuda/gpu_util.h"

namespace geon::cuda {
namespace {

using namespace testing_views;
using namespace cuda::testing;

const Device kHost{};
const Device kCuda0{DeviceKind::kCuda, 0};

std::vector<DType> numeric_dtypes() {
  std::vector<DType> out;
  for (int i = 1; i < kDTypeCount; ++i)
    if (is_numeric(static_cast<DType>(i))) out.push_back(static_cast<DType>(i));
  return out;
}

// Values across each dtype's range: signs, fractions, large magnitudes, inf and NaN.
void fill_wide(std::mt19937_64& rng, Buffer& b) {
  const double kFloats[] = {0,     -0.0, 0.5,   -1.5, 2.5,      300,       65504,
                            70000, 1e10, -1e20, 1e-9, INFINITY, -INFINITY, NAN};
  const int64_t n =
      static_cast<int64_t>(b.bytes.size()) * 8 / std::max(1, dtype_bits(b.desc.dtype)) - 8;
  for (int64_t i = 0; i < n; ++i) {
    Scalar s;
    if (rng() % 2) {
      s.kind = Scalar::Kind::kSigned;
      s.i = static_cast<int64_t>(rng()) >> (rng() % 64);
    } else {
      s.kind = Scalar::Kind::kFloat;
      s.re = kFloats[rng() % 14];
    }
    store_scalar(b.desc.dtype, b.data(), i, s);
  }
}

TEST(CudaGpuAssign, CastsBetweenEveryPairOfNumericDtypesMatchTheCpu) {
  GEON_REQUIRE_CUDA();
  std::mt19937_64 rng(2024);
  for (DType from : numeric_dtypes())
    for (DType to : numeric_dtypes()) {
      const Dims loop = {5, 1 + static_cast<int64_t>(rng() % 40)};
      Buffer src = random_view(rng, from, loop);
      fill_wide(rng, src);
      const Buffer dst = random_view(rng, to, loop);
      CastOptions opt;
      opt.saturate = rng() % 2;
      opt.e8m0_round = static_cast<E8M0Round>(rng() % 3);
      Buffer want = dst;
      geon::assign({want.desc, want.data()}, {src.desc, src.data()}, {nullptr, opt});
      DeviceCopy ds(src), dd(dst);
      cuda::assign({dst.desc, dd.data()}, {src.desc, ds.data()}, {0, nullptr, opt});
      expect_same_values(dd.download(dst), want, 0,
                         std::string(dtype_name(from)) + " to " + std::string(dtype_name(to)));
    }
}

TEST(CudaGpuAssign, HostDeviceRoundTripsKeepEveryDtypeBitForBit) {
  GEON_REQUIRE_CUDA();
  std::mt19937_64 rng(3);
  for (DType t : numeric_dtypes()) {
    for (int rep = 0; rep < 3; ++rep) {
      const Dims shape = {3, 1 + static_cast<int64_t>(rng() % 50), 2};
      Buffer host = random_view(rng, t, shape);       // strided, maybe reversed
      if (rep == 0) host.desc = row_major(t, shape);  // dense: the direct memcpy path
      Buffer dev_layout = random_view(rng, t, shape);
      DeviceCopy dd(dev_layout);
      cuda::assign({dev_layout.desc, dd.data()}, kCuda0, {host.desc, host.data()}, kHost);
      Buffer back = random_view(rng, t, shape);
      cuda::assign({back.desc, back.data()}, kHost, {dev_layout.desc, dd.data()}, kCuda0);
      Buffer want = back;
      geon::assign({want.desc, want.data()}, {host.desc, host.data()});
      expect_same_values(back, want, 0, std::string("round trip ") + std::string(dtype_name(t)));
    }
  }
}

TEST(CudaGpuAssign, TransfersConvertAndBroadcastOnEitherSide) {
  GEON_REQUIRE_CUDA();
  std::mt19937_64 rng(4);
  const std::pair<DType, DType> pairs[] = {
      {DType::kFloat, DType::kFloat16},      {DType::kFloat16, DType::kFloat},
      {DType::kDouble, DType::kInt8},        {DType::kInt4, DType::kFloat},
      {DType::kFloat, DType::kFloat8E4M3FN}, {DType::kBool, DType::kInt64},
      {DType::kComplex64, DType::kFloat},    {DType::kUInt2, DType::kUInt2}};
  for (auto [from, to] : pairs) {
    const Dims shape = {4, 6};
    Buffer src = random_view(rng, from, {rng() % 2 ? 4 : 1, 6});  // sometimes broadcast
    // Host to device, then compared on the host with the CPU assign of the same pair.
    Buffer dev = random_view(rng, to, shape);
    DeviceCopy dd(dev);
    cuda::assign({dev.desc, dd.data()}, kCuda0, {src.desc, src.data()}, kHost);
    Buffer want = dev;
    geon::assign({want.desc, want.data()}, {src.desc, src.data()});
    expect_same_values(
        dd.download(dev), want, 0,
        std::string(dtype_name(from)) + " host to device " + std::string(dtype_name(to)));
    // Device to host.
    DeviceCopy ds(src);
    Buffer host = random_view(rng, to, shape);
    Buffer want_host = host;
    cuda::assign({host.desc, host.data()}, kHost, {src.desc, ds.data()}, kCuda0);
    geon::assign({want_host.desc, want_host.data()}, {src.desc, src.data()});
    expect_same_values(
        host, want_host, 0,
        std::string(dtype_name(from)) + " device to host " + std::string(dtype_name(to)));
  }
}

}  // namespace
}  // namespace geon::cuda
