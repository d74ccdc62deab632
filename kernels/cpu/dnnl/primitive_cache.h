// A kernel object's oneDNN primitives by key (shapes, pads, post-ops as integers), each made once,
// bounded in number. Lookups share the lock: the parts of one split call (dnnl_parallel) look up
// their primitives at the same moment on every pool thread, and an exclusive mutex sent all but
// one of them to sleep in the kernel on every split node.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <utility>

namespace geon::cpu {

template <class Key, class Entry>
class PrimitiveCache {
 public:
  using Value = std::shared_ptr<const Entry>;

  explicit PrimitiveCache(size_t limit) : limit_(limit) {}

  // The entry under `key`, else make()'s, called once per key under the exclusive lock (so it
  // may touch state the kernel guards with this cache). What make() throws is not cached.
  template <class Make>
  Value get(Key key, Make&& make) const {
    {
      std::shared_lock<std::shared_mutex> lock(mu_);
      if (auto it = map_.find(key); it != map_.end()) return it->second;
    }
    std::unique_lock<std::shared_mutex> lock(mu_);
    if (auto it = map_.find(key); it != map_.end()) return it->second;
    Value made = make();
    // A model fed ever new shapes starts over; callers keep the entries they hold.
    if (map_.size() >= limit_) map_.clear();
    map_.emplace(std::move(key), made);
    return made;
  }

 private:
  size_t limit_;
  mutable std::shared_mutex mu_;
  mutable std::map<Key, Value> map_;
};

}  // namespace geon::cpu
