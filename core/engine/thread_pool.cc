// ThreadPool: generation-counted wake-ups so a worker never runs the same job twice.
#include "core/engine/thread_pool.h"

#include <cstdlib>
#include <string>

#include "core/base/error.h"

namespace geon {

ThreadPool::ThreadPool(int threads) {
  require(threads >= 1, "ThreadPool: thread count must be >= 1, got " + std::to_string(threads));
  try {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
  } catch (...) {
    // No destructor runs for a half-made pool: stop the started workers here, or destroying
    // their joinable std::threads calls std::terminate (out of memory or threads).
    stop_and_join();
    throw;
  }
}

void ThreadPool::stop_and_join() noexcept {
  {
    std::lock_guard lock(m_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

ThreadPool::~ThreadPool() { stop_and_join(); }

void ThreadPool::run(int parts, const std::function<void(int)>& fn) {
  require(parts >= 0 && parts <= size(), "ThreadPool::run: parts out of range");
  if (parts <= 1 || workers_.empty()) {
    for (int p = 0; p < parts; ++p) fn(p);
    return;
  }
  std::lock_guard job_lock(job_mutex_);
  ++parallel_jobs_;
  {
    std::lock_guard lock(m_);
    job_ = &fn;
    parts_ = parts;
    pending_ = parts - 1;
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  std::exception_ptr mine;
  try {
    fn(0);
  } catch (...) {
    mine = std::current_exception();
  }
  std::unique_lock lock(m_);
  done_.wait(lock, [this] { return pending_ == 0; });
  job_ = nullptr;
  if (mine) std::rethrow_exception(mine);
  if (error_) std::rethrow_exception(error_);
}

void ThreadPool::worker_loop(int index) {
  unsigned seen = 0;
  for (;;) {
    const std::function<void(int)>* job;
    {
      std::unique_lock lock(m_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= parts_) continue;
      job = job_;
    }
    std::exception_ptr err;
    try {
      (*job)(index);
    } catch (...) {
      err = std::current_exception();
    }
    std::lock_guard lock(m_);
    if (err && !error_) error_ = err;
    if (--pending_ == 0) done_.notify_one();
  }
}

namespace {
thread_local ThreadPool* t_scoped_pool = nullptr;
}  // namespace

ScopedPool::ScopedPool(ThreadPool* pool) : previous_(t_scoped_pool) {
  if (pool) t_scoped_pool = pool;
}

ScopedPool::~ScopedPool() { t_scoped_pool = previous_; }

ThreadPool& default_thread_pool() {
  if (t_scoped_pool) return *t_scoped_pool;
  static ThreadPool pool([] {
    if (const char* env = std::getenv("GEON_THREADS")) {
      const int n = std::atoi(env);
      if (n >= 1) return n;
    }
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : static_cast<int>(hw);
  }());
  return pool;
}

}  // namespace geon
