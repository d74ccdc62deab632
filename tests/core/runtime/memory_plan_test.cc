// The memory planner: reuse on chains and random DAGs, verify_plan on random lifetimes, views,
// in-place, alignment, run-time sizes, devices, and the initializer arena.
#include "core/runtime/memory_plan.h"

#include <gtest/gtest.h>

#include <random>

#include "core/base/error.h"
#include "core/runtime/graph_uses.h"
#include "tests/core/runtime/graph_builder.h"

namespace geon {
namespace {

const Device kHost{};
const Device kGpu{DeviceKind::kCuda, 0};

PlanValue planned(size_t bytes, int first, int last, Device d = kHost) {
  PlanValue v;
  v.bytes = bytes;
  v.device = d;
  v.first = first;
  v.last = last;
  return v;
}

size_t sum_aligned(const std::vector<PlanValue>& values) {
  size_t sum = 0;
  for (const PlanValue& v : values)
    if (!v.external && v.alias_of < 0 && v.bytes) sum += align_up(*v.bytes);
  return sum;
}

TEST(MemoryPlan, ChainReusesTwoBuffers) {
  // x0 -> x1 -> ... -> x9: each step reads the previous value and writes the next.
  std::vector<PlanValue> values;
  for (int i = 0; i < 10; ++i) values.push_back(planned(1000, i, i + 1));
  const MemoryPlan plan = plan_memory(values);
  verify_plan(values, plan);
  EXPECT_EQ(plan.peak_bytes(kHost), 2 * align_up(1000));
  EXPECT_LT(plan.peak_bytes(kHost), sum_aligned(values));
  for (const Slot& s : plan.slots) EXPECT_EQ(s.offset % kArenaAlignment, 0u);
}

TEST(MemoryPlan, OffsetsAndSizesAreAligned) {
  const std::vector<PlanValue> values{planned(1, 0, 3), planned(65, 0, 3), planned(3, 1, 2)};
  const MemoryPlan plan = plan_memory(values);
  verify_plan(values, plan);
  EXPECT_EQ(plan.slots[0].bytes, 64u);
  EXPECT_EQ(plan.slots[1].bytes, 128u);
  EXPECT_EQ(plan.peak_bytes(kHost), 64u + 128u + 64u);
  for (const Slot& s : plan.slots) EXPECT_EQ(s.offset % 64, 0u);
}

TEST(MemoryPlan, BestFitPicksTheSmallestHole) {
  // At step 2 two holes are free, 256 bytes at 0 and 128 bytes at 320 (between live values);
  // the 100-byte value takes the smaller one and the arena does not grow.
  const std::vector<PlanValue> values{planned(256, 0, 1), planned(64, 0, 5), planned(128, 1, 1),
                                      planned(64, 1, 5), planned(100, 2, 3)};
  const MemoryPlan plan = plan_memory(values);
  verify_plan(values, plan);
  EXPECT_EQ(plan.slots[2].offset, 320u);
  EXPECT_EQ(plan.slots[4].offset, plan.slots[2].offset);
  EXPECT_EQ(plan.peak_bytes(kHost), 512u);
}

TEST(MemoryPlan, OneInPlaceOutputPerDyingInput) {
  // Two outputs of step 1 could each overwrite x0; only one may.
  std::vector<PlanValue> values{planned(256, 0, 1), planned(256, 1, 1), planned(256, 1, 2)};
  values[1].inplace = {0};
  values[2].inplace = {0};
  const MemoryPlan plan = plan_memory(values);
  verify_plan(values, plan);
  EXPECT_EQ(plan.in_place.size(), 1u);
}

TEST(MemoryPlan, ViewsTakeNoMemoryAndExtendTheirBase) {
  // v1 is a view (a reshape) of v0 read until step 5: v0's memory must live until then.
  std::vector<PlanValue> values{planned(256, 0, 1), planned(0, 1, 5), planned(256, 2, 3)};
  values[1].alias_of = 0;
  values[1].bytes.reset();
  const MemoryPlan plan = plan_memory(values);
  verify_plan(values, plan);
  EXPECT_EQ(plan.slots[1].kind, SlotKind::kView);
  EXPECT_EQ(plan.slots[1].base, 0);
  EXPECT_EQ(plan.slots[1].offset, plan.slots[0].offset);
  EXPECT_NE(plan.slots[2].offset, plan.slots[0].offset);
  EXPECT_EQ(plan.peak_bytes(kHost), 512u);

  // A view of a view points at the root; a view of a graph input stays external memory.
  std::vector<PlanValue> more{planned(64, 0, 1), planned(0, 1, 2), planned(0, 2, 3)};
  more[0].external = true;
  more[1].alias_of = 0;
  more[2].alias_of = 1;
  const MemoryPlan p2 = plan_memory(more);
  verify_plan(more, p2);
  EXPECT_EQ(p2.slots[2].base, 0);
  EXPECT_EQ(p2.slots[2].arena, -1);
  EXPECT_TRUE(p2.arenas.empty());
}

TEST(MemoryPlan, InPlaceWhenTheInputDiesThere) {
  // Relu(x1) at step 1 may overwrite x1, which nobody reads afterwards.
  std::vector<PlanValue> values{planned(512, 0, 1), planned(512, 1, 2), planned(512, 2, 3)};
  values[1].inplace = {0};
  values[2].inplace = {1};
  const MemoryPlan plan = plan_memory(values);
  verify_plan(values, plan);
  EXPECT_EQ(plan.in_place, (std::vector<std::pair<int, int>>{{1, 0}, {2, 1}}));
  EXPECT_EQ(plan.slots[1].offset, plan.slots[0].offset);
  EXPECT_EQ(plan.peak_bytes(kHost), 512u);
}

TEST(MemoryPlan, NoInPlaceWhenTheInputLivesOnOrIsTooSmall) {
  std::vector<PlanValue> values{planned(512, 0, 2), planned(512, 1, 3), planned(64, 1, 2),
                                planned(512, 2, 4)};
  values[1].inplace = {0};  // 0 is still read at step 2
  values[3].inplace = {2};  // 2 dies at step 2 but is smaller
  const MemoryPlan plan = plan_memory(values);
  verify_plan(values, plan);
  EXPECT_TRUE(plan.in_place.empty());

  // A view of the candidate read later keeps the candidate's memory alive.
  std::vector<PlanValue> v2{planned(512, 0, 1), planned(0, 1, 3), planned(512, 1, 2)};
  v2[1].alias_of = 0;
  v2[2].inplace = {0};
  const MemoryPlan p2 = plan_memory(v2);
  verify_plan(v2, p2);
  EXPECT_TRUE(p2.in_place.empty());
}

TEST(MemoryPlan, RunTimeSizesExternalsAndDevices) {
  std::vector<PlanValue> values{planned(100, 0, 1), planned(100, 0, 1, kGpu),
                                planned(300, 1, 2, kGpu), planned(0, 0, 2)};
  values[3].bytes.reset();
  values.push_back(planned(4096, 0, 9));
  values.back().external = true;
  const MemoryPlan plan = plan_memory(values);
  verify_plan(values, plan);
  EXPECT_EQ(plan.slots[3].kind, SlotKind::kRunTime);
  EXPECT_EQ(plan.slots[4].kind, SlotKind::kExternal);
  EXPECT_EQ(plan.arenas.size(), 2u);
  EXPECT_EQ(plan.peak_bytes(kHost), 128u);
  EXPECT_EQ(plan.peak_bytes(kGpu), 128u + 320u);
}

TEST(MemoryPlan, RejectsMalformedInput) {
  std::vector<PlanValue> cycle{planned(64, 0, 1), planned(64, 0, 1)};
  cycle[0].alias_of = 1;
  cycle[1].alias_of = 0;
  EXPECT_THROW(plan_memory(cycle), Error);
  EXPECT_THROW(plan_memory(std::vector<PlanValue>{planned(64, 3, 1)}), Error);
}

TEST(MemoryPlan, VerifyCatchesOverlap) {
  const std::vector<PlanValue> values{planned(128, 0, 2), planned(128, 1, 3)};
  MemoryPlan plan = plan_memory(values);
  verify_plan(values, plan);
  plan.slots[1].offset = 64;
  EXPECT_THROW(verify_plan(values, plan), Error);
  plan.slots[1].offset = 130;
  EXPECT_THROW(verify_plan(values, plan), Error);  // misaligned (and outside the arena)
}

// Random lifetimes with views, in-place candidates, run-time sizes and two devices.
std::vector<PlanValue> random_values(std::mt19937& rng) {
  const int n = 1 + static_cast<int>(rng() % 60);
  const int steps = 1 + static_cast<int>(rng() % 30);
  std::vector<PlanValue> values;
  for (int i = 0; i < n; ++i) {
    const int first = static_cast<int>(rng() % steps);
    const int last = first + static_cast<int>(rng() % (steps - first + 1));
    PlanValue v = planned(rng() % 5000, first, last, rng() % 3 == 0 ? kGpu : kHost);
    if (rng() % 10 == 0) v.bytes.reset();
    if (rng() % 15 == 0) v.external = true;
    if (i > 0 && rng() % 6 == 0) {
      v.alias_of = static_cast<int>(rng() % i);
      v.bytes.reset();
    }
    for (int k = 0; k < 2 && i > 0; ++k)
      if (rng() % 2) v.inplace.push_back(static_cast<int>(rng() % i));
    values.push_back(std::move(v));
  }
  return values;
}

TEST(MemoryPlan, RandomLifetimesVerify) {
  int in_place = 0;
  for (unsigned seed = 0; seed < 500; ++seed) {
    std::mt19937 rng(seed);
    const std::vector<PlanValue> values = random_values(rng);
    const MemoryPlan plan = plan_memory(values);
    ASSERT_NO_THROW(verify_plan(values, plan)) << "seed " << seed;
    in_place += static_cast<int>(plan.in_place.size());
    for (const Arena& a : plan.arenas) {
      size_t sum = 0;
      for (size_t i = 0; i < values.size(); ++i)
        if (plan.slots[i].kind == SlotKind::kArena &&
            plan.arenas[plan.slots[i].arena].device == a.device)
          sum += plan.slots[i].bytes;
      EXPECT_LE(a.peak_bytes, sum) << "seed " << seed;
    }
  }
  EXPECT_GT(in_place, 0);  // the random cases do exercise in-place
}

TEST(MemoryPlan, RandomDagsPeakBelowSum) {
  for (unsigned seed = 0; seed < 100; ++seed) {
    std::mt19937 rng(seed);
    testing::GraphBuilder b;
    std::vector<int> avail{b.input("x")};
    const int nodes = 8 + static_cast<int>(rng() % 40);
    for (int i = 0; i < nodes; ++i) {
      // Mostly read recent values, so most intermediates die long before the end.
      const int a = avail[avail.size() - 1 - rng() % std::min<size_t>(avail.size(), 3)];
      const int c = avail[rng() % avail.size()];
      avail.push_back(b.node("n" + std::to_string(i), "Add", {a, c}));
    }
    b.output(avail.back());
    const Graph& g = b.graph();
    std::vector<int> order(g.nodes.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    const std::vector<Lifetime> life = value_lifetimes(g, order);
    std::vector<PlanValue> values;
    for (size_t v = 0; v < g.values.size(); ++v) {
      PlanValue pv = planned(1 + rng() % 10000, life[v].first, life[v].last);
      pv.external = life[v].first < 0;
      values.push_back(pv);
    }
    const MemoryPlan plan = plan_memory(values);
    ASSERT_NO_THROW(verify_plan(values, plan)) << "seed " << seed;
    EXPECT_LT(plan.peak_bytes(kHost), sum_aligned(values)) << "seed " << seed;
  }
}

TEST(InitializerArena, OneAlignedArenaPerDevice) {
  const std::vector<ConstantRequest> consts{
      {10, kHost}, {100, kGpu}, {64, kHost}, {0, kHost}, {1, kHost}};
  const InitializerPlan plan = plan_initializers(consts);
  ASSERT_EQ(plan.arenas.size(), 2u);
  EXPECT_EQ(plan.slots[0].offset, 0u);
  EXPECT_EQ(plan.slots[2].offset, 64u);
  EXPECT_EQ(plan.slots[4].offset, 128u);
  EXPECT_EQ(plan.slots[1].offset, 0u);
  EXPECT_EQ(plan.slots[1].arena, 1);
  EXPECT_EQ(plan.arenas[0].peak_bytes, 192u);
  EXPECT_EQ(plan.arenas[1].peak_bytes, 128u);
}

}  // namespace
}  // namespace geon
