// cpu.generic's layout kernels on string tensors, against naive loops over std::string: Trilu
// masks to "", DepthToSpace (DCR, CRD) and SpaceToDepth and ReverseSequence move handles,
// CenterCropPad pads with "", from dense and permuted-storage views; the arithmetic ops
// (Col2Im, Det, Einsum, GridSample) and EyeLike refuse strings with a reason that says why.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/generic/string_views.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// Dense and permuted-storage views of the strings v of `shape` (rank >= 2).
std::vector<Host> views(const Dims& shape, const std::vector<std::string>& v) {
  std::vector<int64_t> rev(shape.size());
  for (size_t k = 0; k < rev.size(); ++k) rev[k] = static_cast<int64_t>(rev.size() - 1 - k);
  return {strings(shape, v), permuted_strings(shape, v, rev)};
}

TEST(CpuGenericLayoutStrings, TriluMasksToEmptyStrings) {
  const Dims s{2, 3, 4};
  const std::vector<std::string> v = words(24);
  for (const Host& x : views(s, v))
    for (bool upper : {true, false})
      for (int64_t k : {-5, -1, 0, 2, 9}) {
        NodeGraph ng("Trilu", 14);
        Host kh = Host::of(DType::kInt64, {}, {static_cast<double>(k)});
        ng.in(x).in(kh).out(DType::kString).attr_i("upper", upper ? 1 : 0);
        const Host out = ng.run(gen())[0];
        ASSERT_EQ(out.shape(), s);
        for (int64_t i = 0; i < 24; ++i) {
          const int64_t c = i % 4, r = (i / 4) % 3;
          const bool keep = upper ? c - r >= k : c - r <= k;
          EXPECT_EQ(string_at(out, i), keep ? v[i] : "") << i << " k " << k;
        }
      }
}

TEST(CpuGenericLayoutStrings, DepthToSpaceAndSpaceToDepthMoveHandles) {
  const int64_t n = 2, c = 8, h = 2, w = 3, b = 2, oc = c / (b * b);
  const Dims s{n, c, h, w};
  const std::vector<std::string> v = words(n * c * h * w);
  for (const Host& x : views(s, v))
    for (const char* mode : {"DCR", "CRD"}) {
      NodeGraph ng("DepthToSpace", 13);
      ng.in(x).out(DType::kString).attr_i("blocksize", b).attr_s("mode", mode);
      const Host out = ng.run(gen())[0];
      const Dims os{n, oc, h * b, w * b};
      ASSERT_EQ(out.shape(), os);
      for (int64_t f = 0; f < element_count(os); ++f) {
        const std::vector<int64_t> o = unflatten(os, f);
        const int64_t i = o[2] % b, j = o[3] % b;
        const int64_t ch =
            std::string(mode) == "DCR" ? (i * b + j) * oc + o[1] : o[1] * b * b + i * b + j;
        EXPECT_EQ(string_at(out, f), v[flat_index(s, {o[0], ch, o[2] / b, o[3] / b})]);
      }
    }
  const Dims s2{1, 2, 4, 6};
  const std::vector<std::string> v2 = words(48);
  for (const Host& x : views(s2, v2)) {
    NodeGraph ng("SpaceToDepth", 13);
    ng.in(x).out(DType::kString).attr_i("blocksize", b);
    const Host out = ng.run(gen())[0];
    const Dims os{1, 8, 2, 3};
    ASSERT_EQ(out.shape(), os);
    for (int64_t f = 0; f < element_count(os); ++f) {
      const std::vector<int64_t> o = unflatten(os, f);
      const int64_t blk = o[1] / 2, ch = o[1] % 2, i = blk / b, j = blk % b;
      EXPECT_EQ(string_at(out, f), v2[flat_index(s2, {o[0], ch, o[2] * b + i, o[3] * b + j})]);
    }
  }
}

TEST(CpuGenericLayoutStrings, ReverseSequenceReversesPrefixes) {
  const Dims s{4, 3, 2};  // (time, batch, 2) or (batch, time... ) by the axes below
  const std::vector<std::string> v = words(24);
  for (const Host& x : views(s, v))
    for (int batch_axis : {0, 1}) {
      const int time_axis = 1 - batch_axis;
      const std::vector<int64_t> lens =
          batch_axis == 1 ? std::vector<int64_t>{4, 0, 2} : std::vector<int64_t>{3, 1, 2, 0};
      NodeGraph ng("ReverseSequence", 10);
      ng.in(x).in(ints(lens)).out(DType::kString);
      ng.attr_i("batch_axis", batch_axis).attr_i("time_axis", time_axis);
      const Host out = ng.run(gen())[0];
      for (int64_t f = 0; f < 24; ++f) {
        std::vector<int64_t> o = unflatten(s, f);
        const int64_t len = lens[o[batch_axis]];
        if (o[time_axis] < len) o[time_axis] = len - 1 - o[time_axis];
        EXPECT_EQ(string_at(out, f), v[flat_index(s, o)]);
      }
    }
}

TEST(CpuGenericLayoutStrings, CenterCropPadPadsWithEmptyStrings) {
  const Dims s{3, 5};
  const std::vector<std::string> v = words(15);
  // Crop one axis and pad the other, both ways round, and pad both.
  for (const Dims& want : {Dims{1, 8}, Dims{6, 2}, Dims{4, 7}, Dims{3, 5}})
    for (const Host& x : views(s, v)) {
      NodeGraph ng("CenterCropPad", 18);
      ng.in(x).in(ints(want), true).out(DType::kString);
      const Host out = ng.run(gen())[0];
      ASSERT_EQ(out.shape(), want);
      for (int64_t f = 0; f < element_count(want); ++f) {
        std::vector<int64_t> o = unflatten(want, f);
        bool inside = true;
        for (int k = 0; k < 2; ++k) {
          o[k] += want[k] <= s[k] ? (s[k] - want[k]) / 2 : -((want[k] - s[k]) / 2);
          inside = inside && o[k] >= 0 && o[k] < s[k];
        }
        EXPECT_EQ(string_at(out, f), inside ? v[flat_index(s, o)] : "") << f;
      }
    }
}

// Each refusal names strings and what the op would have to do with them.
void expect_refused(const NodeGraph& ng, const char* why) {
  const std::optional<std::string> r = ng.supports(gen());
  ASSERT_TRUE(r.has_value());
  EXPECT_NE(r->find(why), std::string::npos) << *r;
  EXPECT_NE(r->find("string"), std::string::npos) << *r;
}

TEST(CpuGenericLayoutStrings, ArithmeticOpsRefuseStringsSayingWhy) {
  NodeGraph col2im("Col2Im", 18);
  col2im.in(strings({1, 4, 4}, words(16))).in(ints({3, 3}), true).in(ints({2, 2}), true);
  col2im.out(DType::kString);
  expect_refused(col2im, "summed");
  NodeGraph det("Det", 22);
  det.in(strings({2, 2}, words(4))).out(DType::kString);
  expect_refused(det, "determinant");
  NodeGraph einsum("Einsum", 12);
  einsum.in(strings({2, 2}, words(4))).out(DType::kString).attr_s("equation", "ij->ji");
  expect_refused(einsum, "multiplies");
  NodeGraph grid("GridSample", 20);
  grid.in(strings({1, 1, 1, 1}, words(1))).in(Host::dense(DType::kFloat, {1, 1, 1, 2}));
  grid.out(DType::kString);
  expect_refused(grid, "sum");
  NodeGraph eye("EyeLike", 22);
  eye.in(Host::dense(DType::kFloat, {2, 2})).out(DType::kString);
  expect_refused(eye, "ones");
}

}  // namespace
}  // namespace geon::cpu::testing
