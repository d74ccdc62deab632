// Parsing of the option keys. Values are strict: "1"/"0" for switches, plain decimal numbers,
// names from a fixed list; anything else is refused rather than guessed.
#include "provider/src/options.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "provider/src/status.h"

namespace geon::provider {
namespace {

constexpr const char* kDeviceNames[] = {"cpu.dnnl", "cpu.generic", "cuda"};

[[noreturn]] void bad_value(const std::string& key, const std::string& value,
                            const std::string& expected) {
  api_fail(GEON_INVALID_ARGUMENT,
           "option '" + key + "': value '" + value + "' is not valid; expected " + expected);
}

uint64_t parse_unsigned(const std::string& key, const std::string& value, uint64_t max) {
  uint64_t n = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, n);
  if (value.empty() || ec != std::errc() || ptr != end || n > max)
    bad_value(key, value, "a decimal number from 0 to " + std::to_string(max));
  return n;
}

bool parse_switch(const std::string& key, const std::string& value) {
  if (value == "1") return true;
  if (value == "0") return false;
  bad_value(key, value, "\"0\" or \"1\"");
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> parse_devices(const std::string& key, const std::string& value) {
  const std::string expected =
      "a comma-separated list of kernel sets from cpu.dnnl, cpu.generic, cuda (or cpu)";
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    const std::string name = trim(value.substr(start, comma - start));
    if (name == "cpu") {
      add("cpu.dnnl");
      add("cpu.generic");
    } else if (std::find(std::begin(kDeviceNames), std::end(kDeviceNames), name) !=
               std::end(kDeviceNames)) {
      add(name);
    } else {
      bad_value(key, value, expected + " ('" + name + "' is not one)");
    }
    start = comma + 1;
  }
  return out;
}

}  // namespace

void set_option(ProviderOptions& o, const std::string& key, const std::string& value) {
  if (key == "devices") {
    o.devices = parse_devices(key, value);
  } else if (key == "intra_op_threads") {
    o.intra_op_threads = static_cast<int>(parse_unsigned(key, value, 4096));
  } else if (key == "optimization_level") {
    o.optimization_level = static_cast<int>(parse_unsigned(key, value, 2));
  } else if (key == "strict") {
    o.strict = parse_switch(key, value);
  } else if (key == "profiling") {
    o.profiling = parse_switch(key, value);
  } else if (key == "poison_freed") {
    o.poison_freed = parse_switch(key, value);
  } else if (key == "arena_limit_bytes") {
    o.arena_limit_bytes = static_cast<size_t>(parse_unsigned(key, value, SIZE_MAX));
  } else if (key == "log_level") {
    static constexpr const char* kLevels[] = {"error", "warning", "info", "verbose"};
    auto it = std::find(std::begin(kLevels), std::end(kLevels), value);
    if (it == std::end(kLevels)) bad_value(key, value, "error, warning, info or verbose");
    o.log_level = static_cast<LogLevel>(it - std::begin(kLevels));
  } else {
    api_fail(GEON_INVALID_ARGUMENT,
             "unknown option '" + key +
                 "'; the keys are devices, intra_op_threads, optimization_level, strict, "
                 "profiling, log_level, arena_limit_bytes, poison_freed");
  }
}

OptionsTable& options_table() {
  // Never destroyed: handles the host leaks stay valid until the process ends.
  static auto* table = new OptionsTable("options", "release_options");
  return *table;
}

std::shared_ptr<const ProviderOptions> options_or_default(const GeonOptions* o) {
  static const auto* defaults =
      new std::shared_ptr<const ProviderOptions>(std::make_shared<const ProviderOptions>());
  return o ? options_table().require(o, "options") : *defaults;
}

GeonStatus* create_options(GeonOptions** out) noexcept {
  return guard("create_options", [&] {
    require_arg(out, "out");
    *out = nullptr;
    *out = options_table().add(std::make_shared<ProviderOptions>());
  });
}

GeonStatus* set_option(GeonOptions* o, const char* key, const char* value) noexcept {
  return guard("set_option", [&] {
    const std::shared_ptr<ProviderOptions> options = options_table().require(o, "options");
    require_arg(key, "key");
    require_arg(value, "value");
    set_option(*options, key, value);
  });
}

void release_options(GeonOptions* o) noexcept { options_table().remove(o); }

}  // namespace geon::provider
