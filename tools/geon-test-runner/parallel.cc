#include "tools/geon-test-runner/parallel.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>

#include "tools/common/host_tensor.h"

namespace geon::tools {
namespace {

using Clock = std::chrono::steady_clock;

struct Child {
  pid_t pid = -1;
  int fd = -1;  // the read end of the child's answer
  Clock::time_point start;
  ChildEnd end;
};

Child start_child(const geon::api::Library& lib, const TestCase& test, const RunnerArgs& args) {
  int fds[2];
  if (pipe(fds) != 0) throw ToolError(std::string("pipe failed: ") + std::strerror(errno));
  std::cout.flush();  // a forked child must not inherit unflushed output
  std::cerr.flush();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw ToolError(std::string("fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    const std::string msg = run_test_for_parent(lib, test, args);
    size_t done = 0;
    while (done < msg.size()) {
      const ssize_t n = write(fds[1], msg.data() + done, msg.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    _exit(0);  // no destructors or atexit handlers of the parent's state in the child
  }
  close(fds[1]);
  return Child{pid, fds[0], Clock::now(), {}};
}

void reap(Child& c, bool timed_out) {
  close(c.fd);
  if (timed_out) kill(c.pid, SIGKILL);
  while (waitpid(c.pid, &c.end.wait_status, 0) < 0 && errno == EINTR) {
  }
  c.end.timed_out = timed_out;
  c.end.seconds = std::chrono::duration<double>(Clock::now() - c.start).count();
}

}  // namespace

void run_tests_forked(const geon::api::Library& lib, const std::vector<TestCase>& tests,
                      const RunnerArgs& args, const ResultSink& sink, const Tick& tick) {
  std::map<size_t, Child> running;  // by test index
  std::vector<std::optional<TestResult>> finished(tests.size());
  size_t next_start = 0, next_report = 0;
  auto last_tick = Clock::now();
  while (next_report < tests.size()) {
    while (running.size() < static_cast<size_t>(args.jobs) && next_start < tests.size()) {
      running.emplace(next_start, start_child(lib, tests[next_start], args));
      ++next_start;
    }
    std::vector<pollfd> fds;
    std::vector<size_t> index;
    for (const auto& [i, c] : running) {
      fds.push_back({c.fd, POLLIN, 0});
      index.push_back(i);
    }
    const int ready = poll(fds.data(), fds.size(), 200);
    if (ready < 0 && errno != EINTR) throw ToolError(std::string("poll: ") + std::strerror(errno));
    char buf[4096];
    for (size_t k = 0; k < fds.size(); ++k) {
      Child& c = running.at(index[k]);
      bool ended = false, timed_out = false;
      if (ready > 0 && (fds[k].revents & (POLLIN | POLLHUP | POLLERR))) {
        const ssize_t n = read(c.fd, buf, sizeof buf);
        if (n > 0)
          c.end.message.append(buf, static_cast<size_t>(n));
        else
          ended = true;  // the child closed the pipe: done or dead
      }
      if (!ended && std::chrono::duration<double>(Clock::now() - c.start).count() > args.timeout_s)
        ended = timed_out = true;
      if (!ended) continue;
      reap(c, timed_out);
      finished[index[k]] = child_result(tests[index[k]].name, c.end, args.timeout_s);
      running.erase(index[k]);
    }
    while (next_report < tests.size() && finished[next_report]) {
      sink(next_report, std::move(*finished[next_report]));
      finished[next_report].reset();
      ++next_report;
    }
    if (Clock::now() - last_tick > std::chrono::seconds(1)) {
      last_tick = Clock::now();
      tick();
    }
  }
}

}  // namespace geon::tools
