// The host allocator: small storages from operator new, large ones (2 MiB and up) mapped on
// their own. Both kinds hold what is written across their whole extent and are aligned for
// every kernel; an allocation the system cannot give is a clear kResourceExhausted error.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "core/base/error.h"
#include "core/buffer/buffer.h"

namespace geon {
namespace {

// Writes a pattern over every byte and reads it back: a mapping shorter than asked, or two
// storages sharing pages, would fail here (or under the sanitizers).
void expect_holds_pattern(Storage& s, unsigned seed) {
  auto* p = reinterpret_cast<unsigned char*>(s.data());
  for (size_t i = 0; i < s.size(); ++i) p[i] = static_cast<unsigned char>((i * 131 + seed) & 0xff);
  for (size_t i = 0; i < s.size(); ++i)
    ASSERT_EQ(p[i], static_cast<unsigned char>((i * 131 + seed) & 0xff)) << "byte " << i;
}

TEST(HostAllocator, StoragesOnBothSidesOfTheMappingThresholdHoldTheirBytesAndAreAligned) {
  const size_t sizes[] = {0,
                          1,
                          64,
                          (size_t{2} << 20) - 1,
                          size_t{2} << 20,
                          (size_t{2} << 20) + 4096 + 3,
                          size_t{9} << 20};
  for (size_t bytes : sizes) {
    Storage a(host_allocator(), bytes), b(host_allocator(), bytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % kStorageAlignment, 0u) << bytes;
    EXPECT_NE(a.data(), b.data()) << bytes;
    expect_holds_pattern(a, 1);
    expect_holds_pattern(b, 2);
    // b's writes did not land in a.
    auto* p = reinterpret_cast<unsigned char*>(a.data());
    for (size_t i = 0; i < bytes; i += 4093)
      ASSERT_EQ(p[i], static_cast<unsigned char>((i * 131 + 1) & 0xff)) << bytes << " at " << i;
  }
}

TEST(HostAllocator, ReleasedLargeStoragesAreReusedOnlyOnceAndKeptOnesStayIntact) {
  // Released mappings are kept for reuse by size: two live storages must never share one, and
  // reusing a released one must not touch a live one.
  const size_t bytes = size_t{4} << 20;
  struct Held {
    std::unique_ptr<Storage> s;
    unsigned seed;
  };
  std::vector<Held> kept;
  auto still_hold = [&] {
    for (const Held& h : kept) {
      auto* p = reinterpret_cast<unsigned char*>(h.s->data());
      for (size_t k = 0; k < bytes; k += 65521)
        ASSERT_EQ(p[k], static_cast<unsigned char>((k * 131 + h.seed) & 0xff));
    }
  };
  for (unsigned round = 0; round < 3; ++round) {
    std::vector<Held> fresh;
    for (unsigned i = 0; i < 10; ++i)
      fresh.push_back({std::make_unique<Storage>(host_allocator(), bytes), round * 16 + i});
    for (const Held& f : fresh) {
      for (const Held& k : kept) ASSERT_NE(f.s->data(), k.s->data());
      for (const Held& g : fresh)
        if (&g != &f) {
          ASSERT_NE(f.s->data(), g.s->data());
        }
    }
    for (Held& f : fresh) expect_holds_pattern(*f.s, f.seed);
    still_hold();
    for (size_t i = 0; i < 3; ++i) kept.push_back(std::move(fresh[i]));
    fresh.clear();  // the other seven are released, to be reused next round
    still_hold();
  }
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
constexpr bool kSanitized = __has_feature(address_sanitizer) || __has_feature(thread_sanitizer);
#else
constexpr bool kSanitized = false;
#endif

TEST(HostAllocator, AnAllocationBeyondTheAddressSpaceIsResourceExhausted) {
  if (kSanitized)
    GTEST_SKIP() << "the sanitizers' allocators abort on a request this large instead of "
                    "failing it (allocator_may_return_null=0)";
  try {
    Storage s(host_allocator(), size_t{1} << 62);
    FAIL() << "a 4 EiB storage was allocated";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kResourceExhausted);
    EXPECT_NE(std::string(e.what()).find("bytes failed"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace geon
