// Command-line helpers shared by the tools: numbers and NAME=VALUE pairs parsed strictly, so a
// typo is an error that names the flag rather than a silent zero.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace geon::tools {

// Walks argv; value() takes the argument after a flag, or fails naming the flag.
class ArgCursor {
 public:
  ArgCursor(int argc, char** argv) : argc_(argc), argv_(argv) {}
  bool more() const { return i_ < argc_; }
  std::string next() { return argv_[i_++]; }
  std::string value(const std::string& flag);

 private:
  int argc_;
  char** argv_;
  int i_ = 1;
};

int64_t parse_int(const std::string& text, const std::string& flag, int64_t min, int64_t max);
double parse_double(const std::string& text, const std::string& flag, double min, double max);
// "NAME=VALUE" -> {NAME, VALUE}; both must be non-empty.
std::pair<std::string, std::string> split_assignment(const std::string& text,
                                                     const std::string& flag);

// An argument no flag took: a ToolError when it looks like a flag (an unknown option), else
// the positional argument itself.
const std::string& positional(const std::string& arg);
// Stores the one MODEL a tool takes from `arg` (checked by positional()); a second is an error.
void set_model(std::string& model, const std::string& arg);
// A ToolError unless set_model() stored a model.
void require_model(const std::string& model);

}  // namespace geon::tools
