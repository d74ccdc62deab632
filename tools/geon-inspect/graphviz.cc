#include "tools/geon-inspect/graphviz.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "tools/common/file_bytes.h"
#include "tools/common/host_tensor.h"

extern char** environ;

namespace geon::tools {

std::string find_dot() {
  if (const char* env = std::getenv("GEON_DOT"); env && *env)
    return access(env, X_OK) == 0 ? env : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t at = 0;
  while (at <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', at), dirs.size());
    const std::string dir = dirs.substr(at, end - at);
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/dot";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    at = end + 1;
  }
  return "";
}

void render_dot(const std::string& dot_text, const std::string& format, const std::string& path) {
  const std::string dot = find_dot();
  if (const char* env = std::getenv("GEON_DOT"); dot.empty() && env && *env)
    throw ToolError(std::string("drawing --") + format + " needs Graphviz's `dot`: $GEON_DOT (" +
                    env + ") is not an executable");
  if (dot.empty())
    throw ToolError("drawing --" + format +
                    " needs Graphviz's `dot`, which is not on PATH (Debian: apt-get install "
                    "graphviz; or set GEON_DOT); --dot FILE writes the graph without it");
  // dot reads the graph from a file beside the picture, removed afterwards.
  const std::string input = path + ".tmp.dot";
  write_file_text(input, dot_text);
  std::vector<std::string> args = {dot, "-T" + format, "-o", path, input};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, dot.c_str(), nullptr, nullptr, argv.data(), environ);
  int status = 0;
  if (spawned == 0)
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  std::error_code ec;
  std::filesystem::remove(input, ec);
  if (spawned != 0) throw ToolError("cannot run " + dot + ": " + std::strerror(spawned));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw ToolError(dot + " -T" + format + " failed (exit status " +
                    std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                    "); its messages are above");
}

}  // namespace geon::tools
