// The host allocators: small storages from operator new, large ones (2 MiB and up) mapped on
// their own, advised for huge pages except the graph constants'. Both kinds hold what is written
// across their whole extent and are aligned for every kernel; an allocation the system cannot
// give is a clear kResourceExhausted error.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/buffer/buffer.h"
#include "core/graph/tensor_data.h"

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

// Whether the mapping holding p is advised for huge pages ("hg" in its VmFlags), or nullopt
// when /proc/self/smaps does not say.
std::optional<bool> advised_huge(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2) {  // a mapping's first line
      inside = lo <= at && at < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      std::istringstream flags(line.substr(8));
      for (std::string f; flags >> f;)
        if (f == "hg") return true;
      return false;
    }
  }
  return std::nullopt;
}

// Whether this kernel takes huge-page advice at all (it refuses it where THP is not built in).
bool kernel_takes_huge_page_advice() {
  const size_t bytes = size_t{2} << 20;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  const bool ok = ::madvise(p, bytes, MADV_HUGEPAGE) == 0 && advised_huge(p) == true;
  ::munmap(p, bytes);
  return ok;
}

TEST(HostAllocator, LargeConstantsAreMappedWithSmallPagesAndOtherStoragesAdvisedHuge) {
  if (kSanitized) GTEST_SKIP() << "sanitizer builds take every storage from the heap";
  if (!kernel_takes_huge_page_advice())
    GTEST_SKIP() << "this kernel refuses MADV_HUGEPAGE or does not show VmFlags in smaps";
  // Sizes no other test releases, so that neither comes from the cache of released mappings
  // (which hands back whatever pages the released one had).
  Storage working(host_allocator(), (size_t{6} << 20) + 3 * 4096);
  Storage constant(host_constants_allocator(), (size_t{6} << 20) + 5 * 4096);
  auto folded = make_tensor_data_for_overwrite(DType::kFloat, {(int64_t{6} << 18) + 7 * 1024});
  EXPECT_EQ(advised_huge(working.data()), true);
  EXPECT_EQ(advised_huge(constant.data()), false);
  EXPECT_EQ(advised_huge(folded->storage->data()), false) << "graph constants' storage";
  EXPECT_EQ(reinterpret_cast<uintptr_t>(constant.data()) % kStorageAlignment, 0u);
  expect_holds_pattern(working, 3);
  expect_holds_pattern(constant, 4);
  expect_holds_pattern(*folded->storage, 5);
}

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
