// Support for the robustness tests: stable seeds, the name of the case being imported printed
// when one crashes the process (sanitizer reports included), and a watchdog for hangs.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace geon::testing_robustness {

// The case being imported, for the message printed when one crashes the process.
inline char g_case[512];

extern "C" inline void print_current_case() {
  std::fprintf(stderr, "\nrobustness: crashed while importing %s\n", g_case);
}

extern "C" inline void on_fatal_signal(int sig) {
  print_current_case();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

inline void set_current_case(const std::string& what) {
  std::snprintf(g_case, sizeof g_case, "%s", what.c_str());
}

// After this, a crash (or a sanitizer's report) ends with the current case's name.
inline void name_cases_on_crash() {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_set_death_callback(print_current_case);
  std::signal(SIGABRT, on_fatal_signal);  // UBSan's abort_on_error
#else
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, on_fatal_signal);
#endif
}

inline int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

// FNV-1a: a seed that is the same on every platform and run.
inline uint64_t stable_hash(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Aborts the process, naming the case, when one import runs longer than the limit.
class Watchdog {
 public:
  explicit Watchdog(int seconds) : limit_(seconds), thread_([this] { run(); }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void start(const std::string& what) {
    std::lock_guard lock(mu_);
    what_ = what;
    since_ = std::chrono::steady_clock::now();
    busy_ = true;
  }
  void stop() {
    std::lock_guard lock(mu_);
    busy_ = false;
  }

 private:
  void run() {
    std::unique_lock lock(mu_);
    while (!done_) {
      cv_.wait_for(lock, std::chrono::milliseconds(200));
      if (busy_ && std::chrono::steady_clock::now() - since_ > std::chrono::seconds(limit_)) {
        std::fprintf(stderr, "robustness: %s has run for over %d s (hang?)\n", what_.c_str(),
                     limit_);
        std::abort();
      }
    }
  }
  int limit_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string what_;
  std::chrono::steady_clock::time_point since_;
  bool busy_ = false, done_ = false;
  std::thread thread_;
};

}  // namespace geon::testing_robustness
