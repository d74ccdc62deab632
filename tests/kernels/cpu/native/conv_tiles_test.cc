// run_conv_tiles_avx2 (kernels/cpu/native/conv_tiles.h): a last block of at most 8 output
// channels runs the half-width tile, which must give the full tile's values bit for bit (the
// same products added in the same order), checked against the same job with 8 or 16 more
// output channels, and the naive sum; over every tile size, taps, residuals and activations.
// And a job run as any ranges of its items gives the values of the whole, which match the
// naive sum over images, rows and column blocks; an empty range or job runs nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/native/conv_tiles.h"
#include "kernels/cpu/native/cpu_isa.h"

namespace geon::cpu::native {
namespace {

// 64-byte aligned floats (the tiles load weights with aligned loads).
struct Aligned {
  std::vector<float> store;
  float* p = nullptr;
  explicit Aligned(size_t n) : store(n + 16, 0.0f) {
    p = store.data() + (16 - reinterpret_cast<uintptr_t>(store.data()) / 4 % 16) % 16;
  }
};

struct Job {
  int64_t pixels, c, k;
  int taps;  // 1, or 2: a second tap one pixel on (a 1x2 kernel over a padded row)
  bool residual;
  TileActivation act;
};

// Y for `k` output channels whose weights and biases are the first `k` of `w_all` / `b_all`
// (K_all = `k_all` channels, row-major [k][tap][c]).
std::vector<float> run(const Job& j, int64_t k, const std::vector<float>& x,
                       const std::vector<float>& w_all, const std::vector<float>& b_all,
                       const std::vector<float>& z_all, int64_t k_all) {
  const int64_t blocks = (k + kTileChannels - 1) / kTileChannels;
  Aligned w(static_cast<size_t>(blocks * j.taps * j.c * kTileChannels));
  Aligned b(static_cast<size_t>(blocks * kTileChannels));
  for (int64_t o = 0; o < k; ++o) {
    b.p[o] = b_all[o];
    for (int t = 0; t < j.taps; ++t)
      for (int64_t ci = 0; ci < j.c; ++ci)
        w.p[((o / kTileChannels * j.taps + t) * j.c + ci) * kTileChannels + o % kTileChannels] =
            w_all[(o * j.taps + t) * j.c + ci];
  }
  std::vector<float> y(static_cast<size_t>(j.pixels * k)), z(j.residual ? y.size() : 0);
  for (int64_t p = 0; p < j.pixels; ++p)
    for (int64_t o = 0; o < k && j.residual; ++o) z[p * k + o] = z_all[p * k_all + o];
  const int64_t taps[2] = {0, j.c};
  ConvTiles job;
  job.x = x.data();
  job.x_image = job.x_row = (j.pixels + 1) * j.c;
  job.channels = j.c;
  job.taps = taps;
  job.taps_count = j.taps;
  job.weights = w.p;
  job.bias = b.p;
  job.y = y.data();
  job.z = j.residual ? z.data() : nullptr;
  job.batch = job.out_h = 1;
  job.out_w = j.pixels;
  job.k = k;
  job.activation = j.act;
  job.alpha = j.act == TileActivation::kLeakyRelu ? 0.1f : -0.5f;
  job.beta = 0.5f;
  run_conv_tiles_avx2(job, 0, job.blocks() * job.tiles());
  return y;
}

TEST(ConvTiles, AShortLastBlockGivesTheFullTilesValuesBitForBit) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "the native kernels need AVX2 and FMA";
  std::mt19937 g(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const TileActivation acts[] = {TileActivation::kNone, TileActivation::kRelu,
                                 TileActivation::kLeakyRelu, TileActivation::kClip};
  int round = 0;
  for (int64_t k : {8, 24, 5, 40, 19})
    for (int64_t pixels : {1, 2, 3, 5, 6, 7, 13})
      for (int taps : {1, 2}) {
        const Job j{pixels, 3 + round % 29, k, taps, round % 3 == 0, acts[round % 4]};
        ++round;
        // The reference job: the last block made full (k rounded up to 16, extra channels
        // random), so it runs the full tile where `k` runs the half one.
        const int64_t k_full = (k + kTileChannels - 1) / kTileChannels * kTileChannels;
        std::vector<float> x(static_cast<size_t>((pixels + 1) * j.c));
        std::vector<float> w(static_cast<size_t>(k_full * taps * j.c)), b(k_full);
        std::vector<float> z(static_cast<size_t>(pixels * k_full));
        for (auto* v : {&x, &w, &b, &z})
          for (float& f : *v) f = u(g);
        const std::vector<float> half = run(j, k, x, w, b, z, k_full);
        const std::vector<float> full = run(j, k_full, x, w, b, z, k_full);
        SCOPED_TRACE(::testing::Message() << "k " << k << " pixels " << pixels << " taps " << taps
                                          << " c " << j.c << " residual " << j.residual);
        for (int64_t p = 0; p < pixels; ++p)
          for (int64_t o = 0; o < k; ++o) {
            const float got = half[p * k + o];
            ASSERT_EQ(std::memcmp(&got, &full[p * k_full + o], sizeof(float)), 0)
                << "pixel " << p << " channel " << o << ": " << got << " against "
                << full[p * k_full + o];
            double s = b[o] + (j.residual ? z[p * k_full + o] : 0.0);
            for (int t = 0; t < taps; ++t)
              for (int64_t ci = 0; ci < j.c; ++ci)
                s += double(x[(p + t) * j.c + ci]) * w[(o * taps + t) * j.c + ci];
            const double want = j.act == TileActivation::kRelu        ? std::max(s, 0.0)
                                : j.act == TileActivation::kLeakyRelu ? (s < 0 ? 0.1 * s : s)
                                : j.act == TileActivation::kClip ? std::min(std::max(s, -0.5), 0.5)
                                                                 : s;
            ASSERT_NEAR(got, want, 1e-5 * (1 + std::abs(want)))
                << "pixel " << p << " channel " << o;
          }
      }
}

TEST(ConvTiles, AnyRangesOfItemsGiveTheWholeJobsValues) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "the native kernels need AVX2 and FMA";
  std::mt19937 g(12);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  // 2 images of 3x5 output pixels (tiles cross rows and images), 40 channels out (3 blocks):
  // input rows padded by one pixel, images by one row, so positions come from all three.
  const int64_t batch = 2, oh = 3, ow = 5, c = 7, k = 40;
  const int64_t x_row = (ow + 1) * c, x_image = (oh + 1) * x_row;
  const int64_t blocks = (k + kTileChannels - 1) / kTileChannels;
  std::vector<float> x(static_cast<size_t>(batch * x_image)), w_plain(k * c), bias_plain(k);
  for (auto* v : {&x, &w_plain, &bias_plain})
    for (float& f : *v) f = u(g);
  Aligned w(static_cast<size_t>(blocks * c * kTileChannels)), b(blocks * kTileChannels);
  for (int64_t o = 0; o < k; ++o) {
    b.p[o] = bias_plain[o];
    for (int64_t ci = 0; ci < c; ++ci)
      w.p[(o / kTileChannels * c + ci) * kTileChannels + o % kTileChannels] = w_plain[o * c + ci];
  }
  const int64_t tap = 0;
  ConvTiles job;
  job.x = x.data();
  job.x_image = x_image;
  job.x_row = x_row;
  job.channels = c;
  job.taps = &tap;
  job.taps_count = 1;
  job.weights = w.p;
  job.bias = b.p;
  job.batch = batch;
  job.out_h = oh;
  job.out_w = ow;
  job.k = k;
  const int64_t items = job.blocks() * job.tiles();
  std::vector<float> whole(static_cast<size_t>(job.pixels() * k));
  job.y = whole.data();
  run_conv_tiles_avx2(job, 0, items);
  for (int64_t p = 0; p < job.pixels(); ++p)
    for (int64_t o = 0; o < k; ++o) {
      const float* xp = &x[p / (oh * ow) * x_image + p % (oh * ow) / ow * x_row + p % ow * c];
      double s = bias_plain[o];
      for (int64_t ci = 0; ci < c; ++ci) s += double(xp[ci]) * w_plain[o * c + ci];
      ASSERT_NEAR(whole[p * k + o], s, 1e-5 * (1 + std::abs(s))) << "pixel " << p << " ch " << o;
    }
  for (int64_t step = 1; step <= 7; ++step) {
    std::vector<float> parts(whole.size(), -9.0f);
    job.y = parts.data();
    for (int64_t first = 0; first < items; first += step)
      run_conv_tiles_avx2(job, first, std::min(items, first + step));
    ASSERT_EQ(std::memcmp(parts.data(), whole.data(), sizeof(float) * whole.size()), 0)
        << "ranges of " << step << " items";
  }
  // An empty range, and a job with no pixels (its items: none), run nothing.
  std::vector<float> untouched(whole.size(), -9.0f);
  job.y = untouched.data();
  run_conv_tiles_avx2(job, 4, 4);
  job.out_w = 0;
  run_conv_tiles_avx2(job, 0, job.blocks() * job.tiles());
  EXPECT_TRUE(std::all_of(untouched.begin(), untouched.end(), [](float f) { return f == -9.0f; }));
}

}  // namespace
}  // namespace geon::cpu::native
