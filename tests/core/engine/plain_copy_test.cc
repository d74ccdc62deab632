// Plain copies (core/engine/plain_copy.h): the row path takes copies whose rows are contiguous
// on both sides (broadcast rows, slices) and the register-block path the transposes (NCHW <->
// NHWC, 2-D transposes, either dim order); each declines the rest, and every copy through
// assign, either path or neither, puts each element where a naive index loop does, for 1-, 2-,
// 4- and 8-byte elements, block tails, offsets, reversed and stepped views.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <random>

#include "core/desc/views.h"
#include "core/engine/engine.h"
#include "core/engine/loop_plan.h"
#include "core/engine/plain_copy.h"
#include "core/engine/thread_pool.h"
#include "tests/core/engine/random_views.h"

namespace geon {
namespace {

using namespace testing_views;

// The plan assign makes for dst <- src.
LoopPlan copy_plan(const TensorDesc& dst, const TensorDesc& src) {
  const TensorDesc* descs[] = {&dst, &src};
  const Dims shape = loop_shape(descs);
  return make_loop_plan(descs, shape);
}

// Storage of n elements of t whose every byte differs from its neighbours', so an element
// landing in the wrong place, or half of one, shows.
std::vector<std::byte> distinct_bytes(DType t, int64_t n) {
  std::vector<std::byte> b(static_cast<size_t>(dtype_bytes_for(t, n)));
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::byte>((i * 7 + i / 251) & 0xff);
  return b;
}

// Runs dst <- src through copy_transposed directly; expects it to take the plan and checks
// every element against the index loop.
void check_block_path(DType t, const TensorDesc& dst, const TensorDesc& src) {
  const int64_t bytes = dtype_bits(t) / 8;
  std::vector<std::byte> s = distinct_bytes(t, byte_span(src).end / bytes + 1);
  std::vector<std::byte> d(static_cast<size_t>(byte_span(dst).end + bytes), std::byte{0x5a});
  ASSERT_TRUE(copy_transposed(copy_plan(dst, src), static_cast<int>(bytes), d.data(), s.data()))
      << to_string(dst) << " <- " << to_string(src);
  for_each_index(dst.shape, [&](const Dims& idx) {
    const int64_t o = reference_offset(dst, idx), i = reference_offset(src, idx);
    ASSERT_EQ(std::memcmp(&d[o * bytes], &s[i * bytes], bytes), 0)
        << to_string(dst) << " <- " << to_string(src) << " at flat " << o;
  });
}

TEST(TransposeCopy, NchwToNhwcAndBackTakeTheBlockPathForEveryElementSize) {
  for (DType t : {DType::kUInt8, DType::kUInt16, DType::kFloat, DType::kInt64}) {
    const Dims nchw{2, 19, 6, 5};  // 19 channels, 30 pixels: tails on both sides of the blocks
    const TensorDesc plain = row_major(t, nchw);
    const int64_t perm_to[] = {0, 2, 3, 1}, perm_back[] = {0, 3, 1, 2};
    // The NHWC tensor, and the same seen in NCHW order.
    const TensorDesc nhwc = row_major(t, Dims{2, 6, 5, 19});
    check_block_path(t, nhwc, permute(plain, perm_to));    // gather: NHWC dense <- NCHW
    check_block_path(t, permute(nhwc, perm_back), plain);  // scatter: NCHW view of NHWC <- NCHW
    check_block_path(t, plain, permute(nhwc, perm_back));
  }
}

TEST(TransposeCopy, TwoDimTransposesWithTailsOffsetsAndReversedColumns) {
  for (DType t : {DType::kUInt8, DType::kInt32, DType::kUInt64})
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{8, 8}, {9, 17}, {33, 64}, {100, 13}}) {
      TensorDesc src = transpose(row_major(t, Dims{cols, rows}));  // (rows, cols), column-major
      check_block_path(t, row_major(t, Dims{rows, cols}), src);
      // Offset into a larger buffer, with the rows of src reversed (its inner dim runs back).
      TensorDesc back = src;
      back.offset = 3 + (cols - 1) * src.strides[1];
      back.strides[1] = -src.strides[1];
      check_block_path(t, row_major(t, Dims{rows, cols}), back);
      // Destination rows further apart than their length (a slice of a wider tensor).
      TensorDesc wide = row_major(t, Dims{rows, cols});
      wide.strides[0] = cols + 5;
      check_block_path(t, wide, src);
    }
}

TEST(TransposeCopy, DeclinesWhatIsNotATransposeOrTooShortForABlock) {
  auto takes = [](const TensorDesc& dst, const TensorDesc& src) {
    std::vector<std::byte> s(static_cast<size_t>(byte_span(src).end + 8));
    std::vector<std::byte> d(static_cast<size_t>(byte_span(dst).end + 8), std::byte{1});
    const std::vector<std::byte> before = d;
    const bool took = copy_transposed(copy_plan(dst, src), 4, d.data(), s.data());
    if (!took) {
      EXPECT_EQ(d, before) << "declined but wrote";
    }
    return took;
  };
  const TensorDesc m = row_major(DType::kFloat, Dims{64, 48});
  EXPECT_FALSE(takes(m, m));  // a plain copy
  TensorDesc row = row_major(DType::kFloat, Dims{48});
  EXPECT_FALSE(takes(m, broadcast_to(row, Dims{64, 48})));  // a broadcast
  EXPECT_FALSE(takes(row_major(DType::kFloat, Dims{5, 48}),
                     transpose(row_major(DType::kFloat, Dims{48, 5}))));  // 5 rows: no block
  TensorDesc stepped = transpose(row_major(DType::kFloat, Dims{48, 128}));
  stepped.shape[0] = 64;
  stepped.strides[0] = 2;  // src rows two apart: no unit stride outside the inner dim
  EXPECT_FALSE(takes(row_major(DType::kFloat, Dims{64, 48}), stepped));
  EXPECT_TRUE(takes(m, transpose(row_major(DType::kFloat, Dims{48, 64}))));
}

// Runs dst <- src through copy_rows and checks it against the index loop, or that it declined
// without writing.
bool rows_path(DType t, const TensorDesc& dst, const TensorDesc& src) {
  const int64_t bytes = dtype_bits(t) / 8;
  std::vector<std::byte> s = distinct_bytes(t, byte_span(src).end / bytes + 1);
  std::vector<std::byte> d(static_cast<size_t>(byte_span(dst).end + bytes), std::byte{0x5a});
  const std::vector<std::byte> before = d;
  if (!copy_rows(copy_plan(dst, src), static_cast<int>(bytes), d.data(), s.data())) {
    EXPECT_EQ(d, before) << "declined but wrote";
    return false;
  }
  for_each_index(dst.shape, [&](const Dims& idx) {
    const int64_t o = reference_offset(dst, idx), i = reference_offset(src, idx);
    EXPECT_EQ(std::memcmp(&d[o * bytes], &s[i * bytes], bytes), 0)
        << to_string(dst) << " <- " << to_string(src) << " at flat " << o;
  });
  return true;
}

TEST(PlainCopy, RowsContiguousOnBothSidesAreCopiedWholeAndOthersDeclined) {
  for (DType t : {DType::kUInt8, DType::kFloat16, DType::kInt32, DType::kDouble}) {
    // Expand: (C, 1, W) to (N, C, H, W), rows repeated along N and H.
    const Dims out{3, 5, 4, 9};
    EXPECT_TRUE(rows_path(t, row_major(t, out), broadcast_to(row_major(t, Dims{5, 1, 9}), out)));
    // A slice of a wider tensor into a slice of another, with offsets.
    const TensorDesc wide = row_major(t, Dims{6, 20}), taller = row_major(t, Dims{8, 20});
    EXPECT_TRUE(rows_path(t, narrow(wide, 1, 2, 11), narrow(narrow(taller, 1, 7, 11), 0, 1, 6)));
    EXPECT_TRUE(rows_path(t, row_major(t, Dims{7}), row_major(t, Dims{7})));  // one row
    // Not contiguous along the inner dim on one side, or the inner dim broadcast.
    EXPECT_FALSE(
        rows_path(t, row_major(t, Dims{4, 6}), slice(row_major(t, Dims{4, 12}), 1, 0, 12, 2)));
    EXPECT_FALSE(rows_path(t, transpose(row_major(t, Dims{6, 4})), row_major(t, Dims{4, 6})));
    EXPECT_FALSE(
        rows_path(t, row_major(t, Dims{4, 6}), broadcast_to(row_major(t, Dims{4, 1}), Dims{4, 6})));
  }
}

// Random views on both sides (permuted, stepped, reversed, offset) through assign, which takes
// the row or block path wherever one applies, on one and two threads.
TEST(PlainCopy, AssignBetweenRandomViewsMatchesTheIndexLoop) {
  std::mt19937_64 rng(41);
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    EngineOptions opt;
    opt.pool = &pool;
    for (int trial = 0; trial < 120; ++trial) {
      const DType types[] = {DType::kUInt8, DType::kInt16, DType::kInt32, DType::kInt64};
      const DType t = types[rng() % 4];
      Dims shape(2 + rng() % 3);
      for (int64_t& len : shape) len = 1 + static_cast<int64_t>(rng() % 40);
      Buffer src = random_view(rng, t, shape), dst = random_view(rng, t, shape);
      assign(Operand{dst.desc, dst.data()}, ConstOperand(src.desc, src.data()), opt);
      const int64_t bytes = dtype_bits(t) / 8;
      for_each_index(shape, [&](const Dims& idx) {
        const auto* d =
            static_cast<const std::byte*>(dst.data()) + reference_offset(dst.desc, idx) * bytes;
        const auto* s =
            static_cast<const std::byte*>(src.data()) + reference_offset(src.desc, idx) * bytes;
        ASSERT_EQ(std::memcmp(d, s, bytes), 0)
            << "trial " << trial << ": " << to_string(dst.desc) << " <- " << to_string(src.desc);
      });
    }
  }
}

}  // namespace
}  // namespace geon
