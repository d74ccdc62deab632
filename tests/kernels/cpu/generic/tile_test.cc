// cpu.generic Tile against index arithmetic (output coordinate modulo the input's length):
// random ranks and repeats (0 and 1 included), strided inputs, run-time repeats, Tile-1's
// tiles/axis form and the errors for a repeats list of the wrong length or sign.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

void expect_tiled(const Host& y, const Host& x, const Dims& repeats) {
  const Dims& s = x.shape();
  const int r = static_cast<int>(s.size());
  Dims shape(r);
  for (int k = 0; k < r; ++k) shape[k] = s[k] * repeats[k];
  expect_values(y, shape, [&](int64_t i) {
    int64_t src = 0, stride = element_count(shape);
    for (int k = 0; k < r; ++k) {
      stride /= shape[k];
      src = src * s[k] + (i / stride % shape[k]) % s[k];
    }
    return x.at(src);
  });
}

TEST(CpuGenericTile, RandomRepeatsOverStridedInputs) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 16; ++trial) {
    const int r = 1 + trial % 4;
    Host x = Host::random(DType::kFloat, random_shape(rng, r, 4), rng);
    if (r > 1 && trial % 3 == 0) {
      std::vector<int64_t> perm(r);
      for (int k = 0; k < r; ++k) perm[k] = (k + 1) % r;
      x = x.strided(perm);
    }
    Dims repeats(r);
    for (auto& m : repeats) m = std::uniform_int_distribution<int64_t>(trial == 5 ? 0 : 1, 3)(rng);
    NodeGraph ng("Tile", 13);
    ng.in(x).in(ints(repeats), trial % 2 == 0).out(DType::kFloat);
    expect_tiled(ng.run(gen())[0], x, repeats);
  }
}

TEST(CpuGenericTile, TileOneAndIntegerData) {
  std::mt19937 rng(4);
  const Host x = Host::random(DType::kInt64, {2, 3}, rng, -100, 100);
  NodeGraph v1("Tile", 1);
  v1.in(x).in(ints({3}), true).in(ints({-1}), true).out(DType::kInt64, {2, 9});
  expect_tiled(v1.run(gen())[0], x, {1, 3});
  // int4 (two elements a byte) takes the one-assign path.
  const Host nibbles = Host::random(DType::kInt4, {3, 5}, rng, -8, 7);
  NodeGraph packed("Tile", 13);
  packed.in(nibbles).in(ints({2, 3}), true).out(DType::kInt4, {6, 15});
  expect_tiled(packed.run(gen())[0], nibbles, {2, 3});
}

TEST(CpuGenericTile, BadRepeatsAreErrors) {
  const Host x = Host::dense(DType::kFloat, {2, 3});
  NodeGraph len("Tile", 13);
  len.in(x).in(ints({2})).out(DType::kFloat);
  expect_error(len, gen(), ErrorCode::kInvalidArgument, {"Tile", "1 entries", "rank 2"});
  NodeGraph neg("Tile", 13);
  neg.in(x).in(ints({1, -2})).out(DType::kFloat);
  expect_error(neg, gen(), ErrorCode::kInvalidArgument, {"negative"});
}

}  // namespace
}  // namespace geon::cpu::testing
