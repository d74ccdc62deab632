// StringArena: bytes in blocks that never move; the thread's current arena for runs.
#include "core/strings/strings.h"

#include <algorithm>
#include <cstring>

namespace geon {
namespace {

constexpr size_t kBlockBytes = 64 * 1024;

thread_local StringArena* t_current = nullptr;

}  // namespace

StringElem StringArena::store(std::string_view s) {
  if (s.empty()) return {};
  std::lock_guard<std::mutex> lock(mu_);
  if (blocks_.empty() || capacity_ - used_ < s.size()) {
    // Large strings get a block of their own, so a block never wastes more than kBlockBytes.
    const size_t cap = std::max(kBlockBytes, s.size());
    blocks_.push_back(std::make_unique<char[]>(cap));
    used_ = 0;
    capacity_ = cap;
  }
  char* dst = blocks_.back().get() + used_;
  std::memcpy(dst, s.data(), s.size());
  used_ += s.size();
  total_ += s.size();
  return {dst, s.size()};
}

size_t StringArena::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return total_;
}

StringArena& current_string_arena() {
  if (t_current) return *t_current;
  thread_local StringArena fallback;
  return fallback;
}

StringScope::StringScope() {
  if (t_current) return;
  owned_ = std::make_shared<StringArena>();
  t_current = owned_.get();
}

StringScope::~StringScope() {
  if (owned_) t_current = nullptr;
}

std::shared_ptr<StringArena> detach_strings(StringElem* elems, int64_t n) {
  if (n <= 0) return nullptr;
  auto arena = std::make_shared<StringArena>();
  for (int64_t i = 0; i < n; ++i) elems[i] = arena->store(elems[i].view());
  return arena;
}

std::shared_ptr<Storage> string_handles(std::span<const std::string> strings) {
  auto s = std::make_shared<Storage>(host_allocator(),
                                     std::max<size_t>(strings.size() * sizeof(StringElem), 1));
  auto* e = reinterpret_cast<StringElem*>(s->data());
  for (size_t i = 0; i < strings.size(); ++i) e[i] = {strings[i].data(), strings[i].size()};
  return s;
}

}  // namespace geon
