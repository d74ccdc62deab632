// The CUDA kernels' index arithmetic on the CPU: every thread of a launch is replayed with the
// same GEON_HD functions the kernels call (tiling.h over core's loop plans), and the operand
// offsets it would touch are compared with the CPU engine's reference indexing, on seeded
// random shapes, permuted, stepped, negative and zero strides, broadcasts and modulo tiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "kernels/cuda/plan.h"
#include "kernels/cuda/typed.h"
#include "tests/core/engine/random_views.h"

namespace geon::cuda {
namespace {

using namespace testing_views;
using Tuple = std::vector<int64_t>;

// The work items thread `t` of block `b` takes in a grid-stride loop.
template <class F>
void for_each_thread_item(Grid g, int64_t items, F&& f) {
  for (int64_t b = 0; b < g.blocks; ++b)
    for (int64_t t = 0; t < g.threads; ++t)
      for (int64_t k = grid_first(b, t, g.threads); k < items;
           k += static_cast<int64_t>(g.blocks) * g.threads)
        f(k);
}

std::vector<Buffer> random_operands(std::mt19937_64& rng, int rep, int inputs, Dims& loop) {
  loop = random_shape(rng, 5, 5);
  if (rep % 7 == 0) loop = {3, 8};  // nested modulo: lengths 2 and 4 inside 8
  std::vector<Buffer> bufs;
  bufs.push_back(random_view(rng, DType::kFloat, loop));
  for (int k = 0; k < inputs; ++k) {
    Dims s = broadcastable_shape(rng, loop);
    if (rep % 7 == 0) s = {k == 0 ? 2 : 4};
    if (k == 0 && rep % 3 == 0) s = loop;
    bufs.push_back(random_view(rng, k % 2 ? DType::kInt32 : DType::kFloat, s));
  }
  return bufs;
}

std::vector<Tuple> reference_tuples(const std::vector<Buffer>& bufs, const Dims& loop) {
  std::vector<Tuple> want;
  for_each_index(loop, [&](const Dims& idx) {
    Tuple t;
    for (const Buffer& b : bufs) t.push_back(reference_offset(b.desc, idx));
    want.push_back(t);
  });
  std::sort(want.begin(), want.end());
  return want;
}

TEST(CudaIndexMath, ElementwiseThreadsTouchExactlyTheReferenceOffsets) {
  std::mt19937_64 rng(7);
  for (int rep = 0; rep < 400; ++rep) {
    Dims loop;
    std::vector<Buffer> bufs = random_operands(rng, rep, 1 + rep % 3, loop);
    std::vector<ConstOperand> in;
    std::vector<DType> dtypes;
    for (size_t i = 1; i < bufs.size(); ++i) {
      in.emplace_back(bufs[i].desc, bufs[i].data());
      dtypes.push_back(bufs[i].desc.dtype);
    }
    ExprBuilder b(dtypes);
    ExprArg acc = b.input(0);
    for (int i = 1; i < static_cast<int>(in.size()); ++i) acc = b.apply("add", {acc, b.input(i)});
    if (in.size() == 1) b.apply("neg", {acc});
    const DevExpr e = encode_expr(b.build());
    std::vector<const TensorDesc*> descs;
    for (const Buffer& x : bufs) descs.push_back(&x.desc);
    const Dims shape = loop_shape(descs);
    const int sm = 1 + static_cast<int>(rng() % 3);  // small grids: many items per thread
    const ElementwisePlan plan =
        plan_elementwise(e, {bufs[0].desc, bufs[0].data()}, in, shape, {}, sm);
    const EwPass& p = plan.pass;
    std::vector<Tuple> got;
    for_each_thread_item(plan.grid, p.tiles.count, [&](int64_t k) {
      const TilePos t = tile_pos(p.tiles, k);
      ASSERT_GE(t.n, 1);
      ASSERT_LE(t.n, p.tiles.vec);
      for (int64_t v = 0; v < t.n; ++v) {
        Tuple tu;
        for (int o = 0; o < p.plan.operands; ++o)
          tu.push_back(tile_offset(p.plan, o, t) + v * inner_stride(p.plan, o));
        got.push_back(tu);
      }
    });
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, reference_tuples(bufs, shape))
        << "rep " << rep << " " << to_string(bufs[0].desc);
  }
}

TEST(CudaIndexMath, ReductionThreadsFoldEveryElementIntoItsDestinationOnce) {
  std::mt19937_64 rng(11);
  for (int rep = 0; rep < 300; ++rep) {
    Dims loop = random_shape(rng, 4, 6);
    if (rep % 10 == 0) loop = {3, 700};  // long rows: block per segment, several segments
    Buffer src = random_view(rng, DType::kFloat, loop);
    Dims dshape = loop;
    for (auto& len : dshape) {
      const int pick = static_cast<int>(rng() % 3);
      if (pick == 1) len = 1;
      if (pick == 2 && len % 2 == 0) len /= 2;
    }
    Buffer dst = random_view(rng, DType::kFloat, dshape);
    const ConstOperand in[] = {{src.desc, src.data()}};
    const DType t = DType::kFloat;
    ExprBuilder b(std::span<const DType>(&t, 1));
    b.apply("identity", {b.input(0)});
    const int sm = 1 + static_cast<int>(rng() % 4);
    const ReductionPlan plan = plan_reduction(encode_expr(b.build()), Reduce::kSum,
                                              {dst.desc, dst.data()}, in, loop, {}, sm);
    const ReducePass& p = plan.pass;
    ASSERT_EQ(p.n_out, element_count(dst.desc));
    ASSERT_EQ(p.n_out * p.n_red, element_count(loop));
    std::vector<Tuple> got;
    // Every (output, segment) pair, whichever thread or block the launch gives it to.
    for (int64_t o = 0; o < p.n_out; ++o) {
      int64_t out_off[kMaxLoopOperands];
      output_offsets(p, o, out_off);
      ASSERT_EQ(out_off[0], element_offset(p.out, 0, o));
      for (int64_t s = 0; s < p.segments; ++s) {
        const int64_t lo = segment_begin(p.red_tiles.count, p.segments, s);
        const int64_t hi = segment_begin(p.red_tiles.count, p.segments, s + 1);
        for (int64_t k = lo; k < hi; ++k) {
          const TilePos tp = tile_pos(p.red_tiles, k);
          for (int64_t v = 0; v < tp.n; ++v) {
            Tuple tu;
            for (int op = 0; op < p.red.operands; ++op)
              tu.push_back(out_off[op] + tile_offset(p.red, op, tp) + v * inner_stride(p.red, op));
            got.push_back(tu);
          }
        }
      }
    }
    std::sort(got.begin(), got.end());
    const std::vector<Buffer> both{dst, src};
    ASSERT_EQ(got, reference_tuples(both, loop))
        << "rep " << rep << " " << to_string(src.desc) << " into " << to_string(dst.desc);
    // The first pass's grid reaches every (output, segment) pair.
    const int64_t pairs = p.n_out * p.segments;
    std::vector<int> seen(pairs, 0);
    if (plan.shape == ReduceShape::kBlockPerSegment) {
      for (int64_t blk = 0; blk < plan.first.blocks; ++blk)
        for (int64_t pair = blk; pair < pairs; pair += plan.first.blocks) ++seen[pair];
    } else {
      for_each_thread_item(plan.first, pairs, [&](int64_t pair) { ++seen[pair]; });
    }
    for (int c : seen) ASSERT_EQ(c, 1);
  }
}

TEST(CudaIndexMath, SplitKeepsDestinationDimsApartFromReducedOnes) {
  const TensorDesc dst = row_major(DType::kFloat, std::vector<int64_t>{4, 1, 3});
  const TensorDesc src = row_major(DType::kFloat, std::vector<int64_t>{4, 5, 3});
  const TensorDesc* descs[] = {&dst, &src};
  const LoopPlan p = make_loop_plan(descs, src.shape);
  const ReduceSplit s = split_reduction(p);
  for (int d = 0; d < s.out.rank; ++d) EXPECT_NE(s.out.stride[0][d], 0);
  for (int d = 0; d < s.red.rank; ++d) EXPECT_EQ(s.red.stride[0][d], 0);
  EXPECT_EQ(loop_elements(s.out), 12);
  EXPECT_EQ(loop_elements(s.red), 5);
}

TEST(CudaIndexMath, VectorLoadsOnlyWhereEveryFullTileIsAligned) {
  std::mt19937_64 rng(3);
  int vectorised = 0;
  for (int rep = 0; rep < 300; ++rep) {
    const Dims loop = {1 + static_cast<int64_t>(rng() % 4),
                       4 * (1 + static_cast<int64_t>(rng() % 6))};
    Buffer x = random_view(rng, DType::kFloat, loop);
    Buffer y = random_view(rng, DType::kFloat, loop);
    Buffer out = random_view(rng, DType::kFloat, loop);
    if (rep % 2 == 0) {  // dense and aligned: the common case must vectorise
      x.desc = row_major(DType::kFloat, loop);
      y.desc = row_major(DType::kFloat, loop);
      out.desc = row_major(DType::kFloat, loop);
      x.desc.offset = y.desc.offset = out.desc.offset = 4 * static_cast<int64_t>(rng() % 2);
    }
    // Storage bases 16-byte aligned, as device allocations are.
    std::vector<float> xs(4096), ys(4096), os(4096);
    const ConstOperand in[] = {{x.desc, xs.data()}, {y.desc, ys.data()}};
    const DType types[] = {DType::kFloat, DType::kFloat};
    ExprBuilder b(types);
    b.apply("add", {b.input(0), b.input(1)});
    const ElementwisePlan plan =
        plan_elementwise(encode_expr(b.build()), {out.desc, os.data()}, in, loop, {}, 2);
    ASSERT_TRUE(plan.typed);
    if (!plan.pass.vector) continue;
    ++vectorised;
    const void* bases[] = {os.data(), xs.data(), ys.data()};
    for (int64_t k = 0; k < plan.pass.tiles.count; ++k) {
      const TilePos t = tile_pos(plan.pass.tiles, k);
      if (t.n != typed_vec<float>()) continue;
      for (int o = 0; o < 3; ++o) {
        if (inner_stride(plan.pass.plan, o) != 1) continue;
        const auto addr = reinterpret_cast<uintptr_t>(static_cast<const float*>(bases[o]) +
                                                      tile_offset(plan.pass.plan, o, t));
        if (reinterpret_cast<uintptr_t>(bases[o]) % 16 == 0) {
          ASSERT_EQ(addr % 16, 0u);
        }
      }
    }
  }
  EXPECT_GT(vectorised, 100);
}

TEST(CudaIndexMath, GridsFillTheDeviceWithoutEmptyBlocks) {
  EXPECT_EQ(items_grid(0, 100).blocks, 0u);
  EXPECT_EQ(items_grid(1, 100).blocks, 1u);
  EXPECT_EQ(items_grid(257, 100).blocks, 2u);
  EXPECT_EQ(items_grid(int64_t{1} << 40, 132).blocks, 8u * 132);
}

}  // namespace
}  // namespace geon::cuda
