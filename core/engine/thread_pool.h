// A fixed pool of worker threads for the engine's loops. Workers sleep on a condition variable
// between jobs (no spinning); one job runs at a time, callers take turns. A ScopedPool routes
// engine calls that name no pool to a caller's own pool (a session's intra_op_threads).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace geon {

class ThreadPool {
 public:
  // `threads` counts the calling thread: 1 runs every job inline.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(part) for every part in [0, parts), parts <= size(), part 0 on the calling thread,
  // and returns when all are done. The first exception thrown by any part is rethrown here.
  void run(int parts, const std::function<void(int)>& fn);

  // Jobs handed to the workers so far (runs with more than one part); for tests.
  uint64_t parallel_jobs() const { return parallel_jobs_.load(); }

 private:
  void worker_loop(int index);
  void stop_and_join() noexcept;

  std::vector<std::thread> workers_;
  std::mutex job_mutex_;  // one job at a time
  std::mutex m_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* job_ = nullptr;
  int parts_ = 0;
  int pending_ = 0;
  unsigned generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::atomic<uint64_t> parallel_jobs_{0};
};

// The pool the engine uses when the caller gives none: the innermost ScopedPool's on this
// thread if any, else the process-wide pool (GEON_THREADS from the environment if set, else the
// number of hardware threads).
ThreadPool& default_thread_pool();

// While alive, default_thread_pool() returns `pool` on the constructing thread (null: no
// change). Scopes nest, and must end in reverse order on the thread that made them.
class ScopedPool {
 public:
  explicit ScopedPool(ThreadPool* pool);
  ~ScopedPool();
  ScopedPool(const ScopedPool&) = delete;
  ScopedPool& operator=(const ScopedPool&) = delete;

 private:
  ThreadPool* previous_;
};

}  // namespace geon
