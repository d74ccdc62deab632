// The little JSON the tools write: quoted strings and numbers for their reports; and one number
// by key from an object (a backend test's data.json: {"rtol": 1e-3, "atol": 1e-7}), read with
// json_value.h's parser.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace geon::tools {

// `s` as a JSON string literal, quotes included; control characters escaped.
std::string json_quote(std::string_view s);
// A finite number as JSON (NaN and infinities, which JSON lacks, become null).
std::string json_number(double v);

// The number after "key": at the top level of a flat object; nullopt when absent or not a
// number.
std::optional<double> json_find_number(std::string_view json, std::string_view key);

}  // namespace geon::tools
