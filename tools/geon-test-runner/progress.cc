#include "tools/geon-test-runner/progress.h"

#include <cstdio>
#include <ostream>
#include <string>

namespace geon::tools {
namespace {

std::string duration_text(double s) {
  char buf[32];
  const long t = static_cast<long>(s + 0.5);
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, t / 60 % 60);
  else if (t >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", t);
  return buf;
}

}  // namespace

Progress::Progress(std::ostream& out, size_t total, bool live, bool verbose)
    : out_(out), total_(total), live_(live), verbose_(verbose) {
  if (live_) draw();
}

void Progress::add(const TestResult& r) {
  std::string line;
  switch (r.status) {
    case TestStatus::kPass:
      ++passed_;
      if (!live_ || verbose_) line = "PASS " + r.name;
      break;
    case TestStatus::kFail:
      ++failed_;
      line = "FAIL " + r.name + ": " + r.message;
      break;
    case TestStatus::kUnsupported:
      ++skipped_;
      if (!live_ || verbose_) line = "SKIP " + r.name + ": unsupported: " + r.message;
      break;
  }
  if (live_) clear_line();
  if (!line.empty()) out_ << line << "\n";
  if (live_) draw();
}

void Progress::tick() {
  if (!live_) return;
  clear_line();
  draw();
}

void Progress::finish() {
  if (live_) clear_line();
  out_ << passed_ << " passed, " << failed_ << " failed, " << skipped_ << " skipped" << std::endl;
}

void Progress::clear_line() { out_ << "\r\033[K"; }

void Progress::draw() {
  const size_t done = passed_ + failed_ + skipped_;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string eta = "ETA --";
  if (done > 0 && done < total_)
    eta = "ETA " +
          duration_text(elapsed / static_cast<double>(done) * static_cast<double>(total_ - done));
  else if (done == total_)
    eta = "done";
  out_ << "[" << done << "/" << total_ << "] " << passed_ << " passed, " << failed_ << " failed, "
       << skipped_ << " skipped  " << duration_text(elapsed) << "  " << eta << std::flush;
}

}  // namespace geon::tools
