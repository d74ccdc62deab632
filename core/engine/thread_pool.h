// The one scheduler of a session's parallel work: the engine's loops, geon's own kernels and
// the oneDNN primitives (each run on one thread, a job split across the pool; see
// kernels/cpu/dnnl/runtime.h). A job is a number of parts that the calling thread and idle
// workers claim one at a time, so a worker the OS has not scheduled yet costs nothing: the
// caller runs what nobody has claimed and waits only for parts already started. A thread out of
// work (a worker between jobs, a caller waiting for the last parts) spins for up to a
// millisecond, then sleeps: the next job usually follows within microseconds.
// A ScopedPool routes engine calls that name no pool to a caller's own pool (a session's
// intra_op_threads).
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

  // Calls fn(part) for every part in [0, parts) and returns when all are done; parts may
  // exceed size() (up to kMaxParts), which balances uneven parts. The first exception thrown by
  // a part is rethrown here. Called from inside a part, or while another caller's job holds
  // the pool, the parts run one after another on the calling thread.
  void run(int parts, const std::function<void(int)>& fn);
  static constexpr int kMaxParts = 0xFFFF;

  // Jobs handed to the workers so far (runs with more than one part); for tests.
  uint64_t parallel_jobs() const { return parallel_jobs_.load(); }

 private:
  void worker_loop();
  // Claims and runs parts of the current job until none is left.
  void work(uint32_t seq);
  void stop_and_join() noexcept;
  // Sleeping: after a change that a sleeper may wait for, wake(cv) notifies cv's sleepers (no
  // system call when nobody sleeps); sleep_until blocks on cv until ready() holds.
  void wake(std::condition_variable& cv);
  template <class Ready>
  void sleep_until(std::condition_variable& cv, Ready ready);

  std::vector<std::thread> workers_;
  std::mutex job_mutex_;  // held by the caller whose job the pool runs
  // The job: sequence number (32 bits), next unclaimed part (16), part count (16). Claims are
  // compare-exchanges on this word, so a worker holding an old sequence claims nothing.
  std::atomic<uint64_t> state_{0};
  const std::function<void(int)>* fn_ = nullptr;  // written before state_ publishes a job
  std::atomic<int> done_{0};                      // parts of the current job finished
  std::atomic<uint32_t> generation_{0};           // bumped per job: what sleeping workers wait on
  std::atomic<bool> stop_{false};
  std::mutex sleep_mutex_;
  std::condition_variable workers_cv_;  // workers waiting for the next generation_
  std::condition_variable caller_cv_;   // a caller waiting for done_
  std::atomic<int> sleepers_{0};
  std::mutex error_mutex_;
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
