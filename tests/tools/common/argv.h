// A command line for the argument-parsing tests: argv as main() receives it, a program name
// first, owning its strings.
#pragma once

#include <string>
#include <vector>

namespace geon::tools::testing {

struct Argv {
  std::vector<std::string> words;
  std::vector<char*> ptrs;
  explicit Argv(std::vector<std::string> args) : words(std::move(args)) {
    words.insert(words.begin(), "tool");
    for (auto& w : words) ptrs.push_back(w.data());
  }
  int argc() { return static_cast<int>(ptrs.size()); }
  char** argv() { return ptrs.data(); }
};

}  // namespace geon::tools::testing
