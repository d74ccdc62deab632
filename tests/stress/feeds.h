// The inputs that tests/stress feeds a session: seeded values shaped by the session's own input
// infos (symbolic dims taken as 2), or tensors read from a feeds file (written by
// model_suite_cycles.py from the model suite's .npz inputs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "geon/geon.h"

namespace geon::stress {

// One input by name, owning its shape and bytes.
struct Feed {
  std::string name;
  GeonDType dtype = 0;
  std::vector<int64_t> shape;
  std::vector<unsigned char> data;
  // String inputs (dtype 8): the text, which `data`'s GeonString handles point into.
  std::vector<std::string> strings;
  // A sequence input: its elements (seeded like a tensor of the declared element shape), and
  // this feed's own shape and data unused. An optional input is fed present. Maps are fed the
  // same way, as their keys and values (kind GEON_VALUE_MAP or GEON_VALUE_MAP_SEQUENCE).
  bool sequence = false;
  std::vector<Feed> elements;
  int32_t kind = GEON_VALUE_SEQUENCE;  // how `elements` are passed
};

// Whether the session has an input or output of sequence, optional or map type (run_values).
bool takes_values(const GeonApi& api, const GeonSession* session);

// Every input of the session that has no default, filled with values of a fixed LCG from
// `seed`. Throws std::runtime_error naming the input for a dtype or rank it cannot fill.
std::vector<Feed> seeded_feeds(const GeonApi& api, const GeonSession* session, uint32_t seed);

// The feeds stored in `path`: per input one text line "name dtype rank d0 .. dn-1 bytes"
// followed by that many raw bytes. Throws std::runtime_error when the file is malformed.
std::vector<Feed> read_feeds(const std::string& path);

}  // namespace geon::stress
