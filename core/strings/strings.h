// String tensor elements. A string element is a 16-byte handle (pointer, size) to bytes that
// live elsewhere: in the current run's StringArena, in a constant's TensorData, or in the
// caller's memory for inputs. Handles have a fixed width, so every kernel that only moves
// elements (Identity, Reshape, Transpose, Gather, Concat, Slice...) and the memory planner
// treat strings like any 16-byte type; only kernels that make new strings need an arena.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffer/buffer.h"

namespace geon {

// Layout-compatible with the C ABI's GeonString (provider/include/geon/geon.h).
struct StringElem {
  const char* data = nullptr;
  uint64_t size = 0;
  std::string_view view() const { return size ? std::string_view(data, size) : std::string_view(); }
};
static_assert(sizeof(StringElem) == 16, "string handles are 16 bytes (dtype_bits(kString))");

// Append-only storage for string bytes; what it stores stays at its address until the arena
// dies. Thread-safe, so parallel kernel rows may store into one arena.
class StringArena {
 public:
  StringArena() = default;
  StringArena(const StringArena&) = delete;
  StringArena& operator=(const StringArena&) = delete;

  // A handle to a copy of s (empty strings take no bytes).
  StringElem store(std::string_view s);
  size_t bytes() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t used_ = 0;      // in the last block
  size_t capacity_ = 0;  // of the last block
  size_t total_ = 0;
};

// The arena of the run in progress on this thread. Kernels that make strings store them
// here (capture it before parallel work: pool threads have none). Outside a run (a kernel
// called directly in a unit test) it is a thread-local arena that lives as long as the thread.
StringArena& current_string_arena();

// Makes a fresh arena current on this thread for the scope's lifetime, unless one already is
// (a nested If/Loop/Scan body shares the arena of the run that encloses it).
class StringScope {
 public:
  StringScope();
  ~StringScope();
  StringScope(const StringScope&) = delete;
  StringScope& operator=(const StringScope&) = delete;

 private:
  std::shared_ptr<StringArena> owned_;
};

// Copies n handles' bytes into a new arena and points the handles there, so that they no
// longer depend on the run's arena, the caller's input memory or a constant. Returns the arena
// that now owns the bytes (null when n == 0).
std::shared_ptr<StringArena> detach_strings(StringElem* elems, int64_t n);

// Host storage holding one handle per string, pointing into `strings` (which must outlive it
// and not change): how a string constant's TensorData is bound for a run.
std::shared_ptr<Storage> string_handles(std::span<const std::string> strings);

}  // namespace geon
