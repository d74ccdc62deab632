// cpu.generic ScatterElements (and Scatter, opset 9) against a naive loop applying the updates
// in row-major order: random ranks and axes, negative and duplicate indices, every reduction,
// strided data and updates, integer (wrapping), bool, float16 and complex data, and the errors
// for an out-of-range index (nothing written), a shape mismatch and a reduction the opset lacks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

double combined(double o, double u, const std::string& red) {
  if (red == "add") return o + u;
  if (red == "mul") return o * u;
  if (red == "max") return u > o ? u : o;
  if (red == "min") return u < o ? u : o;
  return u;
}

std::vector<double> scattered(const Host& data, const Host& idx, const Host& upd, int axis,
                              const std::string& red) {
  const Dims ds = data.shape(), is = idx.shape();
  const int r = static_cast<int>(ds.size());
  std::vector<double> out;
  for (int64_t i = 0; i < element_count(ds); ++i) out.push_back(data.at(i));
  for (int64_t i = 0; i < element_count(is); ++i) {
    int64_t rest = i, dst = 0, scale = 1;
    std::vector<int64_t> c(r);
    for (int d = r - 1; d >= 0; --d) {
      c[d] = rest % is[d];
      rest /= is[d];
    }
    auto v = static_cast<int64_t>(idx.at(i));
    c[axis] = v < 0 ? v + ds[axis] : v;
    for (int d = r - 1; d >= 0; --d) {
      dst += c[d] * scale;
      scale *= ds[d];
    }
    out[dst] = combined(out[dst], upd.at(i), red);
  }
  return out;
}

Host random_indices(std::mt19937& rng, const Dims& shape, int64_t len) {
  Host h = Host::dense(DType::kInt64, shape);
  for (int64_t i = 0; i < element_count(shape); ++i)
    h.set(i, static_cast<double>(static_cast<int64_t>(rng() % (2 * len)) - len));
  return h;
}

void expect_scatter(const Host& data, const Host& idx, const Host& upd, int64_t axis_attr,
                    const std::string& red, double tol = 1e-5, const char* op = "ScatterElements",
                    int opset = 18) {
  NodeGraph ng(op, opset);
  ng.in(data).in(idx).in(upd).out(data.desc.dtype).attr_i("axis", axis_attr);
  if (red != "none") ng.attr_s("reduction", red);
  const int r = data.desc.rank();
  const std::vector<double> want =
      scattered(data, idx, upd, static_cast<int>(axis_attr < 0 ? axis_attr + r : axis_attr), red);
  expect_values(
      ng.run(gen())[0], data.shape(), [&](int64_t i) { return want[i]; }, tol);
}

TEST(CpuGenericScatterElements, EveryReductionOverRandomShapes) {
  std::mt19937 rng(41);
  for (const char* red : {"none", "add", "mul", "max", "min"}) {
    for (int trial = 0; trial < 20; ++trial) {
      const int r = 1 + trial % 4;
      const Dims ds = random_shape(rng, r, 5);
      const int64_t axis = static_cast<int64_t>(rng() % r) - (trial % 2 ? r : 0);
      const int a = static_cast<int>(axis < 0 ? axis + r : axis);
      Dims is = ds;
      for (int d = 0; d < r; ++d)
        is[d] =
            d == a ? 1 + static_cast<int64_t>(rng() % 6) : 1 + static_cast<int64_t>(rng() % ds[d]);
      expect_scatter(Host::random(DType::kFloat, ds, rng), random_indices(rng, is, ds[a]),
                     Host::random(DType::kFloat, is, rng), axis, red);
    }
  }
}

TEST(CpuGenericScatterElements, StridedDataAndUpdatesAndScatterOpset9) {
  std::mt19937 rng(42);
  const Host data = Host::random(DType::kFloat, {3, 4, 5}, rng);
  for (int axis = 0; axis < 3; ++axis) {
    const Host upd = Host::random(DType::kFloat, {2, 3, 4}, rng);
    const Host idx = random_indices(rng, {2, 3, 4}, data.shape()[axis]);
    expect_scatter(data.strided({2, 0, 1}), idx, upd.strided({1, 2, 0}), axis, "add");
    expect_scatter(data.strided({1, 2, 0}), idx.strided({2, 1, 0}), upd, axis, "none", 1e-5,
                   "Scatter", 9);
  }
}

TEST(CpuGenericScatterElements, IntegerBoolHalfAndComplexData) {
  std::mt19937 rng(43);
  for (DType t : {DType::kInt8, DType::kUInt8, DType::kInt16, DType::kUInt32, DType::kInt64,
                  DType::kDouble, DType::kFloat16, DType::kBFloat16, DType::kComplex64}) {
    for (const char* red : {"none", "add", "mul", "max", "min"}) {
      if (t == DType::kComplex64 && (std::string(red) == "max" || std::string(red) == "min"))
        continue;
      // Values 0, 1 or 2: even four combined into one element stay exact in every dtype.
      const Host data = Host::random(t, {4, 3}, rng, 0, 2.4);
      const Host upd = Host::random(t, {3, 3}, rng, 0, 2.4);
      const bool half = t == DType::kFloat16 || t == DType::kBFloat16;
      expect_scatter(data, random_indices(rng, {3, 3}, 4), upd, 0, red, half ? 1e-2 : 1e-6);
    }
  }
  // bool: add is or, mul is and (numpy).
  const Host bdata = Host::of(DType::kBool, {4}, {0, 1, 0, 1});
  const Host bupd = Host::of(DType::kBool, {4}, {1, 1, 0, 0});
  const Host bidx = Host::of(DType::kInt64, {4}, {0, 1, 2, 3});
  for (const char* red : {"add", "mul", "max", "min"}) {
    NodeGraph ng("ScatterElements", 18);
    ng.in(bdata).in(bidx).in(bupd).out(DType::kBool).attr_s("reduction", red);
    const Host got = ng.run(gen())[0];
    const bool is_or = std::string(red) == "add" || std::string(red) == "max";
    for (int64_t i = 0; i < 4; ++i) {
      const bool a = bdata.at(i) != 0, b = bupd.at(i) != 0;
      EXPECT_EQ(got.at(i) != 0, is_or ? (a || b) : (a && b)) << red << " at " << i;
    }
  }
}

TEST(CpuGenericScatterElements, IntegerOverflowWraps) {
  // int8: 100 + 100 wraps to -56; int64 max + 1 wraps to min (no signed overflow).
  NodeGraph i8("ScatterElements", 18);
  i8.in(Host::of(DType::kInt8, {1}, {100})).in(ints({0})).in(Host::of(DType::kInt8, {1}, {100}));
  i8.out(DType::kInt8).attr_s("reduction", "add");
  EXPECT_EQ(i8.run(gen())[0].at(0), -56);
  Host big = Host::dense(DType::kInt64, {1});
  *reinterpret_cast<int64_t*>(big.bytes->data()) = INT64_MAX;
  NodeGraph i64("ScatterElements", 18);
  i64.in(big).in(ints({0})).in(Host::of(DType::kInt64, {1}, {1}));
  i64.out(DType::kInt64).attr_s("reduction", "add");
  EXPECT_EQ(*reinterpret_cast<const int64_t*>(i64.run(gen())[0].bytes->data()), INT64_MIN);
}

TEST(CpuGenericScatterElements, DuplicateIndicesKeepTheLastUpdate) {
  NodeGraph ng("ScatterElements", 11);
  ng.in(Host::of(DType::kFloat, {3}, {0, 0, 0}))
      .in(ints({1, 1, 1}))
      .in(Host::of(DType::kFloat, {3}, {5, 6, 7}))
      .out(DType::kFloat);
  EXPECT_EQ(ng.run(gen())[0].at(1), 7);
}

TEST(CpuGenericScatterElements, BadInputsAreErrorsNamingThem) {
  const Host data = Host::of(DType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  NodeGraph hi("ScatterElements", 18);
  hi.in(data).in(Host::of(DType::kInt64, {1, 2}, {0, 3})).in(Host::dense(DType::kFloat, {1, 2}));
  hi.out(DType::kFloat).attr_i("axis", 1);
  expect_error(hi, gen(), ErrorCode::kOutOfRange,
               {"ScatterElements", "index 3", "indices element 1", "length 3"});
  NodeGraph shape("ScatterElements", 18);
  shape.in(data).in(Host::dense(DType::kInt64, {1, 2})).in(Host::dense(DType::kFloat, {1, 3}));
  shape.out(DType::kFloat);
  expect_error(shape, gen(), ErrorCode::kInvalidArgument, {"updates has shape (1, 3)", "(1, 2)"});
  NodeGraph g16("ScatterElements", 16);
  g16.in(data).in(Host::dense(DType::kInt64, {1, 2})).in(Host::dense(DType::kFloat, {1, 2}));
  g16.out(DType::kFloat).attr_s("reduction", "max");
  ASSERT_TRUE(g16.supports(gen()).has_value());
  EXPECT_NE(g16.supports(gen())->find("reduction 'max'"), std::string::npos);
}

}  // namespace
}  // namespace geon::cpu::testing
