// A fixed pool of worker threads for the engine's loops. Workers sleep on a condition variable
// between jobs (no spinning), so an idle session costs no CPU. One job runs at a time; callers
// from several threads take turns.
#pragma once

#include <condition_variable>
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

 private:
  void worker_loop(int index);

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
};

// The pool the engine uses when the caller gives none: GEON_THREADS from the environment if
// set, else the number of hardware threads.
ThreadPool& default_thread_pool();

}  // namespace geon
