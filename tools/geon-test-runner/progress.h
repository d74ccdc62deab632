// What geon-test-runner prints while it runs: the PASS / FAIL / SKIP line of each test (the
// format ctest and scripts parse), and on a terminal a progress line with the counts, done /
// total and an ETA, redrawn in place under the FAIL lines (PASS and SKIP only with --verbose).
#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>

#include "tools/geon-test-runner/run_test.h"

namespace geon::tools {

class Progress {
 public:
  // `live`: redraw a progress line (stdout is a terminal); `verbose`: print every test's line
  // even then.
  Progress(std::ostream& out, size_t total, bool live, bool verbose);

  void add(const TestResult& r);  // one test's verdict
  void tick();                    // redraw (the ETA moves even when no test ends)
  void finish();                  // clears the progress line and prints the totals line

  size_t passed() const { return passed_; }
  size_t failed() const { return failed_; }
  size_t skipped() const { return skipped_; }

 private:
  void clear_line();
  void draw();

  std::ostream& out_;
  size_t total_;
  bool live_, verbose_;
  size_t passed_ = 0, failed_ = 0, skipped_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace geon::tools
