// cpu.generic RotaryEmbedding against a naive loop: 3-D and 4-D inputs, half-split and
// interleaved pairs, a partial rotary_embedding_dim, caches indexed by position_ids or given
// per (batch, seq), and a strided input.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

struct Case {
  bool four_d = false, interleaved = false, positions = true, strided = false;
  int64_t B = 2, S = 3, H = 2, D = 8, rot = 0, max_pos = 7;
};

void check(const Case& c, unsigned seed) {
  std::mt19937 rng(seed);
  const int64_t rot = c.rot ? c.rot : c.D, half = rot / 2;
  const Dims xs = c.four_d ? Dims{c.B, c.H, c.S, c.D} : Dims{c.B, c.S, c.H * c.D};
  Host x = Host::random(DType::kFloat, xs, rng);
  if (c.strided)
    x = x.strided(c.four_d ? std::vector<int64_t>{2, 3, 1, 0} : std::vector<int64_t>{1, 2, 0});
  const Dims cs = c.positions ? Dims{c.max_pos, half} : Dims{c.B, c.S, half};
  const Host cosc = Host::random(DType::kFloat, cs, rng, -1, 1);
  const Host sinc = Host::random(DType::kFloat, cs, rng, -1, 1);
  std::vector<int64_t> pos(c.B * c.S);
  for (auto& p : pos) p = static_cast<int64_t>(rng() % c.max_pos);
  Host pos_t = Host::dense(DType::kInt64, {c.B, c.S});
  for (size_t i = 0; i < pos.size(); ++i)
    pos_t.set(static_cast<int64_t>(i), static_cast<double>(pos[i]));
  NodeGraph ng("RotaryEmbedding", 23);
  ng.in(x).in(cosc).in(sinc);
  if (c.positions) ng.in(pos_t);
  ng.out(DType::kFloat, xs).attr_i("interleaved", c.interleaved);
  if (c.rot) ng.attr_i("rotary_embedding_dim", c.rot);
  if (!c.four_d) ng.attr_i("num_heads", c.H);
  ASSERT_EQ(ng.supports(generic_kernels()), std::nullopt);
  const Host y = ng.run(generic_kernels())[0];
  auto index = [&](int64_t b, int64_t s, int64_t h, int64_t d) {
    return c.four_d ? ((b * c.H + h) * c.S + s) * c.D + d : (b * c.S + s) * c.H * c.D + h * c.D + d;
  };
  std::vector<double> want(static_cast<size_t>(element_count(xs)));
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t s = 0; s < c.S; ++s) {
      const int64_t row = c.positions ? pos[b * c.S + s] : b * c.S + s;
      for (int64_t h = 0; h < c.H; ++h) {
        for (int64_t d = rot; d < c.D; ++d) want[index(b, s, h, d)] = x.at(index(b, s, h, d));
        for (int64_t k = 0; k < half; ++k) {
          const int64_t i1 = c.interleaved ? 2 * k : k, i2 = c.interleaved ? 2 * k + 1 : k + half;
          const double co = cosc.at(row * half + k), si = sinc.at(row * half + k);
          const double x1 = x.at(index(b, s, h, i1)), x2 = x.at(index(b, s, h, i2));
          want[index(b, s, h, i1)] = co * x1 - si * x2;
          want[index(b, s, h, i2)] = si * x1 + co * x2;
        }
      }
    }
  expect_values(y, xs, [&](int64_t i) { return want[i]; });
}

TEST(CpuGenericRotaryEmbedding, ThreeDHalfSplitWithPositionIds) { check(Case{}, 1); }

TEST(CpuGenericRotaryEmbedding, FourDInterleavedWithoutPositionIds) {
  Case c;
  c.four_d = true, c.interleaved = true, c.positions = false;
  check(c, 2);
}

TEST(CpuGenericRotaryEmbedding, PartialRotaryDimPassesTheRestThrough) {
  for (bool inter : {false, true}) {
    Case c;
    c.rot = 4, c.interleaved = inter, c.D = 10;
    check(c, 3);
    c.four_d = true;
    check(c, 4);
  }
}

TEST(CpuGenericRotaryEmbedding, StridedInputIsReadThroughItsView) {
  Case c;
  c.strided = true;
  check(c, 5);
  c.four_d = true;
  check(c, 6);
}

}  // namespace
}  // namespace geon::cpu::testing
