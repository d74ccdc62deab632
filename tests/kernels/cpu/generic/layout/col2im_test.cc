// cpu.generic Col2Im against a naive loop over (channel, block offset, block position) as
// ONNX's reference writes it: 1-D, 2-D and 3-D images with strides, dilations and pads,
// integer data (sums wrap), and the errors for a block count that does not match dim 2, a
// block larger than the padded image and mismatched shape inputs.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Geo {
  std::vector<int64_t> image, block, dil, strides, pads;
};

std::vector<int64_t> cols_of(const Geo& g) {
  std::vector<int64_t> c;
  const size_t n = g.image.size();
  for (size_t k = 0; k < n; ++k)
    c.push_back((g.image[k] + g.pads[k] + g.pads[k + n] - g.dil[k] * (g.block[k] - 1) - 1) /
                    g.strides[k] +
                1);
  return c;
}

std::vector<double> reference(const Host& x, const Geo& g) {
  const size_t n = g.image.size();
  const std::vector<int64_t> cols = cols_of(g);
  int64_t bsize = 1, csize = 1, isize = 1;
  for (size_t k = 0; k < n; ++k) {
    bsize *= g.block[k];
    csize *= cols[k];
    isize *= g.image[k];
  }
  const int64_t planes = x.shape()[0] * (x.shape()[1] / bsize);
  std::vector<double> out(static_cast<size_t>(planes * isize), 0.0);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t b = 0; b < bsize; ++b)
      for (int64_t c = 0; c < csize; ++c) {
        int64_t at = 0, rb = b, rc = c;
        bool in = true;
        std::vector<int64_t> pos(n);
        for (int64_t k = static_cast<int64_t>(n) - 1; k >= 0; --k) {
          const int64_t off = rb % g.block[k], col = rc % cols[k];
          rb /= g.block[k];
          rc /= cols[k];
          pos[k] = col * g.strides[k] - g.pads[k] + off * g.dil[k];
        }
        for (size_t k = 0; k < n; ++k) {
          in = in && pos[k] >= 0 && pos[k] < g.image[k];
          at = at * g.image[k] + pos[k];
        }
        if (in) out[p * isize + at] += x.at((p * bsize + b) * csize + c);
      }
  return out;
}

void expect_col2im(const Geo& g, int64_t batch, int64_t channels, DType t, std::mt19937& rng) {
  int64_t bsize = 1, csize = 1;
  for (size_t k = 0; k < g.block.size(); ++k) bsize *= g.block[k];
  for (int64_t c : cols_of(g)) csize *= c;
  const Host x = Host::random(t, {batch, channels * bsize, csize}, rng, -5, 5);
  NodeGraph ng("Col2Im", 18);
  ng.in(x).in(ints(g.image), true).in(ints(g.block), true).out(t);
  ng.attr_ints("dilations", g.dil).attr_ints("strides", g.strides).attr_ints("pads", g.pads);
  Dims os{batch, channels};
  os.insert(os.end(), g.image.begin(), g.image.end());
  const std::vector<double> want = reference(x, g);
  const double tol = t == DType::kFloat16 ? 2e-3 : 1e-4;  // float16 rounds the sum once
  expect_values(
      ng.run(gen())[0], os, [&](int64_t i) { return want[i]; }, tol);
}

TEST(CpuGenericCol2Im, MatchesNaiveSumsIn1d2d3d) {
  std::mt19937 rng(1);
  expect_col2im({{5, 5}, {1, 5}, {1, 1}, {1, 1}, {0, 0, 0, 0}}, 1, 1, DType::kFloat, rng);
  expect_col2im({{6, 7}, {2, 3}, {2, 1}, {2, 1}, {1, 0, 1, 2}}, 2, 3, DType::kFloat, rng);
  expect_col2im({{9}, {3}, {2}, {2}, {1, 1}}, 2, 2, DType::kDouble, rng);
  expect_col2im({{3, 4, 5}, {2, 2, 2}, {1, 1, 2}, {1, 2, 1}, {0, 1, 0, 1, 0, 1}}, 1, 2,
                DType::kFloat, rng);
  expect_col2im({{4, 4}, {2, 2}, {1, 1}, {1, 1}, {0, 0, 0, 0}}, 1, 2, DType::kInt32, rng);
  expect_col2im({{4, 4}, {2, 2}, {1, 1}, {1, 1}, {0, 0, 0, 0}}, 1, 1, DType::kFloat16, rng);
}

TEST(CpuGenericCol2Im, InconsistentShapesAreErrors) {
  NodeGraph blocks("Col2Im", 18);
  blocks.in(Host::dense(DType::kFloat, {1, 4, 7})).in(ints({3, 3})).in(ints({2, 2}));
  blocks.out(DType::kFloat);
  expect_error(blocks, gen(), ErrorCode::kInvalidArgument, {"Col2Im", "4"});
  NodeGraph fit("Col2Im", 18);
  fit.in(Host::dense(DType::kFloat, {1, 9, 1})).in(ints({2, 2})).in(ints({3, 3}));
  fit.out(DType::kFloat);
  expect_error(fit, gen(), ErrorCode::kInvalidArgument, {"does not fit"});
  NodeGraph count("Col2Im", 18);
  count.in(Host::dense(DType::kFloat, {1, 4, 4})).in(ints({3, 3})).in(ints({2}));
  count.out(DType::kFloat);
  expect_error(count, gen(), ErrorCode::kInvalidArgument, {"block_shape"});
  NodeGraph chans("Col2Im", 18);
  chans.in(Host::dense(DType::kFloat, {1, 5, 4})).in(ints({3, 3})).in(ints({2, 2}));
  chans.out(DType::kFloat);
  expect_error(chans, gen(), ErrorCode::kInvalidArgument, {"multiple"});
  // A huge image cannot make the kernel allocate: its block count is checked against dim 2.
  NodeGraph huge("Col2Im", 18);
  huge.in(Host::dense(DType::kFloat, {1, 1, 4}))
      .in(ints({int64_t{1} << 40, int64_t{1} << 40}))
      .in(ints({1, 1}));
  huge.out(DType::kFloat);
  expect_error(huge, gen(), ErrorCode::kInvalidArgument, {"outnumber"});
}

}  // namespace
}  // namespace geon::cpu::testing
