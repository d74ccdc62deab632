#include "tools/common/args.h"

#include <charconv>
#include <cmath>

#include "tools/common/host_tensor.h"

namespace geon::tools {

std::string ArgCursor::value(const std::string& flag) {
  if (i_ >= argc_) throw ToolError(flag + " needs a value");
  return argv_[i_++];
}

int64_t parse_int(const std::string& text, const std::string& flag, int64_t min, int64_t max) {
  int64_t v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) {
    throw ToolError(flag + ": '" + text + "' is not an integer");
  }
  if (v < min || v > max) {
    throw ToolError(flag + ": " + text + " is outside [" + std::to_string(min) + ", " +
                    std::to_string(max) + "]");
  }
  return v;
}

double parse_double(const std::string& text, const std::string& flag, double min, double max) {
  double v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(v)) {
    throw ToolError(flag + ": '" + text + "' is not a number");
  }
  if (v < min || v > max) throw ToolError(flag + ": " + text + " is out of range");
  return v;
}

std::pair<std::string, std::string> split_assignment(const std::string& text,
                                                     const std::string& flag) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw ToolError(flag + ": expected NAME=VALUE, got '" + text + "'");
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

const std::string& positional(const std::string& arg) {
  if (!arg.empty() && arg[0] == '-') throw ToolError("unknown option " + arg + " (see --help)");
  return arg;
}

void set_model(std::string& model, const std::string& arg) {
  positional(arg);
  if (!model.empty())
    throw ToolError("more than one model given: '" + model + "' and '" + arg + "'");
  model = arg;
}

void require_model(const std::string& model) {
  if (model.empty()) throw ToolError("no model given (see --help)");
}

}  // namespace geon::tools
