// PrimitiveCache: one make per key however many threads ask at once, the same entry for every
// lookup, nothing cached from a make that throws, and a bounded size.
#include "kernels/cpu/dnnl/primitive_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace geon::cpu {
namespace {

struct Made {
  int key = 0;
};

TEST(PrimitiveCache, MakesEachKeyOnceAndReturnsTheSameEntry) {
  PrimitiveCache<int, Made> cache(8);
  int makes = 0;
  const auto make = [&](int k) {
    return [&makes, k] {
      ++makes;
      return std::make_shared<Made>(Made{k});
    };
  };
  const auto a = cache.get(1, make(1));
  const auto b = cache.get(1, make(1));
  const auto c = cache.get(2, make(2));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(a->key, 1);
  EXPECT_EQ(c->key, 2);
  EXPECT_EQ(makes, 2);
}

TEST(PrimitiveCache, ThreadsAskingAtOnceShareOneMakePerKey) {
  // Every thread walks the same keys in the same order, so each key is new to all at once.
  constexpr int kThreads = 8, kKeys = 500;
  PrimitiveCache<std::vector<int64_t>, Made> cache(kKeys);
  std::atomic<int> makes{0};
  std::atomic<int> ready{0};
  std::vector<std::vector<const Made*>> seen(kThreads, std::vector<const Made*>(kKeys, nullptr));
  std::vector<std::shared_ptr<const Made>> keep(kThreads * kKeys);  // no address reused
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }
      for (int k = 0; k < kKeys; ++k) {
        auto e = cache.get({k, 7}, [&] {
          makes.fetch_add(1);
          std::this_thread::yield();  // widen the window for a second make of the same key
          return std::make_shared<Made>(Made{k});
        });
        seen[t][k] = e->key == k ? e.get() : nullptr;
        keep[t * kKeys + k] = std::move(e);
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(makes.load(), kKeys);
  for (int k = 0; k < kKeys; ++k) {
    ASSERT_NE(seen[0][k], nullptr) << "key " << k;
    for (int t = 1; t < kThreads; ++t) EXPECT_EQ(seen[t][k], seen[0][k]) << "key " << k;
  }
}

TEST(PrimitiveCache, AMakeThatThrowsCachesNothing) {
  PrimitiveCache<int, Made> cache(8);
  EXPECT_THROW(cache.get(3, []() -> std::shared_ptr<Made> { throw std::runtime_error("no"); }),
               std::runtime_error);
  int makes = 0;
  const auto e = cache.get(3, [&] {
    ++makes;
    return std::make_shared<Made>(Made{3});
  });
  EXPECT_EQ(makes, 1);
  EXPECT_EQ(e->key, 3);
}

TEST(PrimitiveCache, StartsOverPastItsLimitWhileHeldEntriesStayValid) {
  PrimitiveCache<int, Made> cache(2);
  int makes = 0;
  const auto get = [&](int k) {
    return cache.get(k, [&] {
      ++makes;
      return std::make_shared<Made>(Made{k});
    });
  };
  const auto one = get(1);
  get(2);
  get(3);  // the cache held two: it starts over with this one
  EXPECT_EQ(makes, 3);
  EXPECT_EQ(one->key, 1);  // the caller's entry outlives the cache's
  const auto again = get(1);
  EXPECT_EQ(makes, 4);
  EXPECT_NE(again, one);
  get(3);
  EXPECT_EQ(makes, 4);  // kept after the restart
}

}  // namespace
}  // namespace geon::cpu
