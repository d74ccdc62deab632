// cpu.generic shape computations run at run time: Shape (with start/end), Size, Gather (any
// axis, negative and out-of-range indices), ConstantOfShape and Range (with their size bounds),
// and a Shape -> Gather -> Concat -> Reshape chain fed from one kernel's output to the next.
#include <gtest/gtest.h>

#include "core/base/error.h"
#include "core/graph/tensor_data.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

void expect_error(const NodeGraph& ng, ErrorCode code, std::initializer_list<const char*> parts) {
  testing::expect_error(ng, gen(), code, parts);
}

std::vector<int64_t> as_ints(const Host& h) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < element_count(h.desc); ++i) v.push_back(static_cast<int64_t>(h.at(i)));
  return v;
}

TEST(CpuGenericShape, ShapeHonoursStartAndEnd) {
  const Host x = Host::dense(DType::kFloat, {2, 3, 4, 5});
  struct Case {
    int opset;
    std::optional<int64_t> start, end;
    std::vector<int64_t> want;
  };
  const Case cases[] = {
      {13, std::nullopt, std::nullopt, {2, 3, 4, 5}}, {15, 1, -1, {3, 4}},
      {15, -10, std::nullopt, {2, 3, 4, 5}},          {15, 3, 1, {}},
      {15, std::nullopt, 100, {2, 3, 4, 5}},          {15, -1, std::nullopt, {5}},
  };
  for (const Case& c : cases) {
    NodeGraph ng("Shape", c.opset);
    ng.in(x).out(DType::kInt64);
    if (c.start) ng.attr_i("start", *c.start);
    if (c.end) ng.attr_i("end", *c.end);
    const Host y = ng.run(gen())[0];
    EXPECT_EQ(y.shape(), Dims{static_cast<int64_t>(c.want.size())});
    EXPECT_EQ(as_ints(y), c.want);
  }
  NodeGraph wrong("Shape", 13);
  wrong.in(x).out(DType::kInt32);
  ASSERT_TRUE(wrong.supports(gen()));
}

TEST(CpuGenericShape, SizeCountsElements) {
  for (const Dims& s : {Dims{2, 3, 4}, Dims{}, Dims{5, 0}}) {
    NodeGraph ng("Size", 13);
    ng.in(Host::dense(DType::kInt8, s)).out(DType::kInt64);
    const Host y = ng.run(gen())[0];
    EXPECT_EQ(y.shape(), Dims{});
    EXPECT_EQ(y.at(0), static_cast<double>(element_count(s)));
  }
}

TEST(CpuGenericGather, AnyAxisWithNegativeIndices) {
  std::mt19937 rng(3);
  const std::vector<int64_t> idx = {0, -1, 2, 2, -4, 1};
  // Dense data takes the block-copy path, strided data the per-index views.
  for (bool strided : {false, true}) {
    Host x = Host::random(DType::kFloat, {3, 4, 2}, rng);
    if (strided) x = x.strided({1, 2, 0});
    for (DType it : {DType::kInt64, DType::kInt32}) {
      const Host indices = Host::of(it, {2, 3}, {idx.begin(), idx.end()});
      NodeGraph ng("Gather", 13);
      ng.in(x).in(indices).out(DType::kFloat, {3, 2, 3, 2}).attr_i("axis", -2);
      expect_values(ng.run(gen())[0], {3, 2, 3, 2}, [&](int64_t i) {
        const int64_t a = i / 12, k = i / 2 % 6, c = i % 2;
        const int64_t j = idx[k] < 0 ? idx[k] + 4 : idx[k];
        return x.at(a * 8 + j * 2 + c);
      });
    }
    // A scalar index removes the axis; axis 0 is the default.
    NodeGraph scalar("Gather", 13);
    scalar.in(x).in(Host::of(DType::kInt64, {}, {-1})).out(DType::kFloat, {4, 2});
    expect_values(scalar.run(gen())[0], {4, 2}, [&](int64_t i) { return x.at(16 + i); });
  }
  // Gathering from a shape vector, the common case in shape computations.
  NodeGraph dims("Gather", 13);
  dims.in(ints({7, 8, 9})).in(ints({2, 0})).out(DType::kInt64, {2});
  expect_values(dims.run(gen())[0], {2}, [](int64_t i) { return i == 0 ? 9.0 : 7.0; });
}

TEST(CpuGenericGather, OutOfRangeIndexIsAnError) {
  const Host x = Host::dense(DType::kFloat, {3, 4});
  NodeGraph ng("Gather", 13);
  ng.in(x).in(ints({1, 4})).out(DType::kFloat, {3, 2}).attr_i("axis", 1);
  expect_error(ng, ErrorCode::kOutOfRange, {"Gather: ", "index 4", "axis 1 of length 4"});
  NodeGraph low("Gather", 13);
  low.in(x).in(ints({-4})).out(DType::kFloat, {1, 4});
  expect_error(low, ErrorCode::kOutOfRange, {"index -4", "length 3"});
  NodeGraph axis("Gather", 13);
  axis.in(x).in(ints({0})).out(DType::kFloat).attr_i("axis", 2);
  expect_error(axis, ErrorCode::kInvalidArgument, {"axis 2 is out of range"});
  NodeGraph real_idx("Gather", 13);
  real_idx.in(x).in(Host::of(DType::kFloat, {1}, {0})).out(DType::kFloat, {1, 4});
  EXPECT_TRUE(real_idx.supports(gen()));
}

TEST(CpuGenericConstantOfShape, FillsRunTimeShapeWithValue) {
  auto value = make_tensor_data(DType::kInt32, {1});
  store_scalar(DType::kInt32, value->storage->data(), 0, Scalar{Scalar::Kind::kSigned, 0, 0, 7});
  Attribute a;
  a.kind = Attribute::Kind::kTensor;
  a.t = value;
  NodeGraph ng("ConstantOfShape", 20);
  ng.in(ints({2, 3})).out(DType::kInt32);
  ng.node->attrs["value"] = a;
  EXPECT_FALSE(ng.supports(gen()));
  expect_values(ng.run(gen())[0], {2, 3}, [](int64_t) { return 7.0; });
  // Without `value`: float zeros; an empty shape gives a scalar.
  NodeGraph dflt("ConstantOfShape", 9);
  dflt.in(Host::dense(DType::kInt64, {0})).out(DType::kFloat);
  const Host y = dflt.run(gen())[0];
  expect_values(y, {}, [](int64_t) { return 0.0; });
}

TEST(CpuGenericConstantOfShape, RefusesHugeAndNegativeShapes) {
  NodeGraph huge("ConstantOfShape", 20);
  huge.in(ints({1 << 20, 1 << 20, 1 << 20})).out(DType::kFloat);
  expect_error(huge, ErrorCode::kResourceExhausted, {"ConstantOfShape: ", "limit"});
  NodeGraph overflow("ConstantOfShape", 20);
  overflow.in(ints({int64_t{1} << 62, 8})).out(DType::kFloat);
  expect_error(overflow, ErrorCode::kResourceExhausted, {"limit"});
  NodeGraph negative("ConstantOfShape", 20);
  negative.in(ints({2, -1})).out(DType::kFloat);
  expect_error(negative, ErrorCode::kInvalidArgument, {"negative length -1"});
  NodeGraph rank2("ConstantOfShape", 20);
  rank2.in(Host::of(DType::kInt64, {1, 2}, {2, 2})).out(DType::kFloat);
  expect_error(rank2, ErrorCode::kInvalidArgument, {"the shape must be a scalar or 1-D"});
}

TEST(CpuGenericRange, IntegerAndRealRanges) {
  struct Case {
    DType t;
    double start, limit, delta;
  };
  const Case cases[] = {{DType::kInt64, 2, 11, 3},    {DType::kInt32, 10, -3, -4},
                        {DType::kFloat, 1, 0, -0.25}, {DType::kDouble, 0, 1, 0.3},
                        {DType::kInt16, 5, 5, 1},     {DType::kInt64, 0, 5, -1}};
  for (const Case& c : cases) {
    NodeGraph ng("Range", 11);
    ng.in(Host::of(c.t, {}, {c.start}))
        .in(Host::of(c.t, {}, {c.limit}))
        .in(Host::of(c.t, {}, {c.delta}))
        .out(c.t);
    std::vector<double> want;
    for (double v = c.start; c.delta > 0 ? v < c.limit - 1e-9 : v > c.limit + 1e-9; v += c.delta)
      want.push_back(v);
    SCOPED_TRACE(std::string(dtype_name(c.t)) + " " + std::to_string(c.start));
    expect_values(ng.run(gen())[0], {static_cast<int64_t>(want.size())},
                  [&](int64_t i) { return want[i]; });
  }
}

TEST(CpuGenericRange, ZeroDeltaAndHugeCountsAreErrors) {
  auto range = [](double start, double limit, double delta) {
    auto ng = std::make_unique<NodeGraph>("Range", 11);
    ng->in(Host::of(DType::kInt64, {}, {start}))
        .in(Host::of(DType::kInt64, {}, {limit}))
        .in(Host::of(DType::kInt64, {}, {delta}))
        .out(DType::kInt64);
    return ng;
  };
  expect_error(*range(0, 5, 0), ErrorCode::kInvalidArgument, {"Range", "delta is 0"});
  expect_error(*range(-9e18, 9e18, 1), ErrorCode::kResourceExhausted, {"limit"});
  expect_error(*range(0, -9223372036854775808.0, -1), ErrorCode::kResourceExhausted, {"limit"});
  NodeGraph real("Range", 11);
  real.in(Host::of(DType::kFloat, {}, {0}))
      .in(Host::of(DType::kFloat, {}, {1e30}))
      .in(Host::of(DType::kFloat, {}, {1e-30}))
      .out(DType::kFloat);
  expect_error(real, ErrorCode::kResourceExhausted, {"limit"});
  NodeGraph two("Range", 11);
  two.in(ints({0, 1})).in(ints({5})).in(ints({1})).out(DType::kInt64);
  expect_error(two, ErrorCode::kInvalidArgument, {"start must hold one element"});
  NodeGraph mixed("Range", 11);
  mixed.in(ints({0})).in(Host::of(DType::kInt32, {1}, {5})).in(ints({1})).out(DType::kInt64);
  EXPECT_TRUE(mixed.supports(gen()));
}

// x of shape (2, 3, 4) reshaped to (x.shape[0], -1) with the target built at run time.
TEST(CpuGenericShape, ShapeGatherConcatReshapeChain) {
  std::mt19937 rng(5);
  const Host x = Host::random(DType::kFloat, {2, 3, 4}, rng);
  NodeGraph shape("Shape", 13);
  shape.in(x).out(DType::kInt64);
  const Host s = shape.run(gen())[0];
  NodeGraph gather("Gather", 13);
  gather.in(s).in(ints({0})).out(DType::kInt64);
  const Host batch = gather.run(gen())[0];
  NodeGraph concat("Concat", 13);
  concat.in(batch).in(ints({-1})).out(DType::kInt64, {2}).attr_i("axis", 0);
  const Host target = concat.run(gen())[0];
  NodeGraph reshape("Reshape", 14);
  reshape.in(x).in(target).out(DType::kFloat);
  expect_values(reshape.run(gen())[0], {2, 12}, [&](int64_t i) { return x.at(i); });
}

}  // namespace
}  // namespace geon::cpu::testing
