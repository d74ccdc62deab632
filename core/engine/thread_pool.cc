// ThreadPool: claims by compare-exchange on one state word, brief spinning, then a condition
// variable for sleeping workers and for a caller whose last parts run elsewhere. (libstdc++ 12's
// std::atomic wait/notify lost wake-ups here: a worker slept through the destructor's notify.)
#include "core/engine/thread_pool.h"

#include <chrono>
#include <cstdlib>
#include <string>

#include "core/base/error.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define GEON_CPU_RELAX() _mm_pause()
#else
#define GEON_CPU_RELAX() std::this_thread::yield()
#endif

namespace geon {
namespace {

// How long a thread that ran out of work spins before it sleeps: longer than the gaps inside a
// run (a part that ends early, the next node's job) and between runs called back to back, also
// through Python. A thread that sleeps idles its virtual CPU, and on the KVM guests measured
// (2 vCPUs, Zen 4) runs after such idling came in stretches at one thread's speed: at about
// 0.1 ms of spinning ResNet-50's 2-thread p99 through Python was 1.7x its p50, at 1 ms 1.24x.
// Timed rather than counted: a pause takes 27 ns on a Zen 4 and several times that elsewhere.
constexpr std::chrono::microseconds kSpinTime{1000};

// Spins until done() holds (true) or kSpinTime has passed (done()'s last value).
template <class Done>
bool spin_until(Done done) {
  if (done()) return true;  // often so: no clock read on the common path
  const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  for (;;) {
    for (int i = 0; i < 64; ++i) {  // the clock read costs about as much as one pause
      if (done()) return true;
      GEON_CPU_RELAX();
    }
    if (std::chrono::steady_clock::now() >= deadline) return done();
  }
}

thread_local bool t_in_part = false;

constexpr uint64_t pack(uint32_t seq, uint32_t next, uint32_t parts) {
  return (uint64_t{seq} << 32) | (uint64_t{next} << 16) | parts;
}
constexpr uint32_t seq_of(uint64_t s) { return static_cast<uint32_t>(s >> 32); }
constexpr uint32_t next_of(uint64_t s) { return static_cast<uint32_t>(s >> 16) & 0xFFFF; }
constexpr uint32_t parts_of(uint64_t s) { return static_cast<uint32_t>(s) & 0xFFFF; }

}  // namespace

ThreadPool::ThreadPool(int threads) {
  require(threads >= 1, "ThreadPool: thread count must be >= 1, got " + std::to_string(threads));
  try {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
  } catch (...) {
    // No destructor runs for a half-made pool: stop the started workers here, or destroying
    // their joinable std::threads calls std::terminate (out of memory or threads).
    stop_and_join();
    throw;
  }
}

void ThreadPool::stop_and_join() noexcept {
  stop_.store(true);
  generation_.fetch_add(1);
  wake(workers_cv_);
  for (auto& t : workers_) t.join();
}

// The store that a sleeper waits for is made (seq_cst) before this reads sleepers_, and a
// sleeper counts itself (seq_cst, under sleep_mutex_) before it re-reads that value, so either
// the sleeper sees the change or this sees the sleeper; taking the mutex then orders the notify
// after the sleeper has started waiting.
void ThreadPool::wake(std::condition_variable& cv) {
  if (sleepers_.load() == 0) return;
  { std::lock_guard lock(sleep_mutex_); }
  cv.notify_all();
}

template <class Ready>
void ThreadPool::sleep_until(std::condition_variable& cv, Ready ready) {
  std::unique_lock lock(sleep_mutex_);
  sleepers_.fetch_add(1);
  while (!ready()) cv.wait(lock);
  sleepers_.fetch_sub(1);
}

ThreadPool::~ThreadPool() { stop_and_join(); }

void ThreadPool::work(uint32_t seq) {
  uint64_t s = state_.load(std::memory_order_acquire);
  for (;;) {
    if (seq_of(s) != seq || next_of(s) >= parts_of(s)) return;
    const uint32_t part = next_of(s);
    if (!state_.compare_exchange_weak(s, pack(seq, part + 1, parts_of(s)),
                                      std::memory_order_acq_rel, std::memory_order_acquire))
      continue;
    // The claim holds the job open (the caller waits for done_), so fn_ is still this job's.
    t_in_part = true;
    try {
      (*fn_)(static_cast<int>(part));
    } catch (...) {
      std::lock_guard lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
    }
    t_in_part = false;
    if (done_.fetch_add(1) + 1 == static_cast<int>(parts_of(s))) wake(caller_cv_);
    s = state_.load(std::memory_order_acquire);
  }
}

void ThreadPool::worker_loop() {
  uint32_t seen = generation_.load(std::memory_order_acquire);
  for (;;) {
    // stop_ is read as well: a worker that starts after the destructor's bump reads the bumped
    // generation as its first and would wait for another.
    // Sequentially consistent loads, as sleep_until's re-check needs (see wake).
    const auto changed = [&] { return generation_.load() != seen || stop_.load(); };
    if (!spin_until(changed)) sleep_until(workers_cv_, changed);
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load()) return;
    work(seq_of(state_.load(std::memory_order_acquire)));
  }
}

void ThreadPool::run(int parts, const std::function<void(int)>& fn) {
  require(parts >= 0 && parts <= kMaxParts, "ThreadPool::run: parts out of range");
  std::unique_lock job(job_mutex_, std::defer_lock);
  if (parts <= 1 || workers_.empty() || t_in_part || !job.try_lock()) {
    for (int p = 0; p < parts; ++p) fn(p);
    return;
  }
  ++parallel_jobs_;
  fn_ = &fn;
  error_ = nullptr;
  done_.store(0, std::memory_order_relaxed);
  const uint32_t seq = seq_of(state_.load(std::memory_order_relaxed)) + 1;
  state_.store(pack(seq, 0, static_cast<uint32_t>(parts)), std::memory_order_release);
  generation_.fetch_add(1);
  wake(workers_cv_);  // a system call only when some worker sleeps
  work(seq);
  // Every part is claimed; wait for those still running on workers.
  const auto finished = [&] { return done_.load() == parts; };  // seq_cst: see wake
  if (!spin_until(finished)) sleep_until(caller_cv_, finished);
  fn_ = nullptr;
  if (error_) std::rethrow_exception(error_);
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
