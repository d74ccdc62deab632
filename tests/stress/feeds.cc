// Seeded and stored inputs for the stress programs (see feeds.h).
#include "tests/stress/feeds.h"

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace geon::stress {
namespace {

// A small LCG: the same seed gives the same inputs in every build and on every machine.
struct Lcg {
  uint32_t state;
  uint32_t next() { return state = state * 1664525u + 1013904223u; }
  // In [-2, 2), so that relu-like ops see both signs.
  double signed_unit() { return (next() >> 8) / double(1u << 24) * 4.0 - 2.0; }
};

template <typename T>
void fill(std::vector<unsigned char>& bytes, size_t n, Lcg& lcg, T (*make)(Lcg&)) {
  bytes.resize(n * sizeof(T));
  for (size_t i = 0; i < n; ++i) {
    const T v = make(lcg);
    std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
  }
}

std::string status_text(const GeonApi& api, GeonStatus* s) {
  std::string text = api.status_message(s);
  api.release_status(s);
  return text;
}

// The declared type of input / output i ("seq(tensor(float))"), "" when the library has none.
std::string type_of(const GeonApi& api, const GeonSession* session, size_t i, bool input) {
  char* t = nullptr;
  GeonStatus* s =
      input ? api.session_input_type(session, i, &t) : api.session_output_type(session, i, &t);
  if (s) throw std::runtime_error("type of " + std::to_string(i) + ": " + status_text(api, s));
  std::string out = t ? t : "";
  api.release_string(t);
  return out;
}

bool is_value_type(const std::string& t) {
  return t.rfind("seq(", 0) == 0 || t.rfind("optional(", 0) == 0 || t.rfind("map(", 0) == 0;
}

// f's data: n seeded elements of f.dtype.
void fill_seeded(Feed& f, size_t n, Lcg& lcg) {
  switch (f.dtype) {
    case 1:  // float
      fill<float>(f.data, n, lcg, [](Lcg& g) { return static_cast<float>(g.signed_unit()); });
      break;
    case 11:  // double
      fill<double>(f.data, n, lcg, [](Lcg& g) { return g.signed_unit(); });
      break;
    case 6:  // int32: small non-negative values, valid as indices of small axes
      fill<int32_t>(f.data, n, lcg, [](Lcg& g) { return static_cast<int32_t>(g.next() >> 30); });
      break;
    case 7:  // int64, as int32
      fill<int64_t>(f.data, n, lcg, [](Lcg& g) { return static_cast<int64_t>(g.next() >> 30); });
      break;
    case 9:  // bool
      fill<uint8_t>(f.data, n, lcg, [](Lcg& g) { return static_cast<uint8_t>(g.next() >> 31); });
      break;
    case 8:  // string: short words, one of 16, so string ops see equal and unequal text
      for (size_t k = 0; k < n; ++k) f.strings.push_back("w" + std::to_string(lcg.next() >> 28));
      f.data.resize(n * sizeof(GeonString));
      for (size_t k = 0; k < n; ++k) {
        const GeonString h{f.strings[k].data(), f.strings[k].size()};
        std::memcpy(f.data.data() + k * sizeof h, &h, sizeof h);
      }
      break;
    default:
      throw std::runtime_error("input '" + f.name + "' has dtype " + std::to_string(f.dtype) +
                               ", which seeded_feeds cannot fill");
  }
}

// A map input ("map(int64,tensor(float))", or a sequence of them): four seeded entries per map,
// keys then values, three maps for a sequence.
Feed seeded_maps(const std::string& name, const std::string& type, GeonDType value_dtype,
                 Lcg& lcg) {
  const bool sequence = type.rfind("seq(", 0) == 0;
  const std::string key =
      type.substr(type.find("map(") + 4, type.find(',') - type.find("map(") - 4);
  Feed out{name, value_dtype, {}, {}, {}, true, {}};
  out.kind = sequence ? GEON_VALUE_MAP_SEQUENCE : GEON_VALUE_MAP;
  for (int m = 0; m < (sequence ? 3 : 1); ++m) {
    Feed keys{name, key == "string" ? 8 : 7, {4}, {}, {}, false, {}};
    Feed values{name, value_dtype, {4}, {}, {}, false, {}};
    fill_seeded(keys, 4, lcg);
    fill_seeded(values, 4, lcg);
    out.elements.push_back(std::move(keys));
    out.elements.push_back(std::move(values));
  }
  return out;
}

}  // namespace

bool takes_values(const GeonApi& api, const GeonSession* session) {
  for (size_t i = 0; i < api.session_input_count(session); ++i)
    if (is_value_type(type_of(api, session, i, true))) return true;
  for (size_t i = 0; i < api.session_output_count(session); ++i)
    if (is_value_type(type_of(api, session, i, false))) return true;
  return false;
}

std::vector<Feed> seeded_feeds(const GeonApi& api, const GeonSession* session, uint32_t seed) {
  std::vector<Feed> feeds;
  Lcg lcg{seed};
  for (size_t i = 0; i < api.session_input_count(session); ++i) {
    if (api.session_input_has_default(session, i)) continue;
    GeonValueInfo info{};
    if (GeonStatus* s = api.session_input_info(session, i, &info))
      throw std::runtime_error("input " + std::to_string(i) + ": " + status_text(api, s));
    const std::string type = type_of(api, session, i, true);
    if (type.rfind("map(", 0) == 0 || type.rfind("seq(map(", 0) == 0) {
      feeds.push_back(seeded_maps(info.name, type, info.dtype, lcg));
      continue;
    }
    if (info.rank < 0)
      throw std::runtime_error(std::string("input '") + info.name + "' has no known rank");
    Feed f{info.name, info.dtype, {}, {}, {}, false, {}};
    size_t n = 1;
    for (int32_t d = 0; d < info.rank; ++d) {
      f.shape.push_back(info.dims[d] < 0 ? 2 : info.dims[d]);  // a symbolic dim: 2
      n *= static_cast<size_t>(f.shape.back());
    }
    fill_seeded(f, n, lcg);
    if (type.rfind("seq(", 0) == 0 || type.rfind("optional(seq(", 0) == 0) {
      // Four elements (seeded int64 inputs, as positions, are in [0, 4)): the seeded tensor and
      // its bytes scrambled by the same stream.
      Feed seq{f.name, f.dtype, {}, {}, {}, true, {}};
      for (int k = 1; k < 4; ++k) {
        Feed more = f;
        for (auto& b : more.data) b = static_cast<unsigned char>(b ^ (lcg.next() >> 24));
        seq.elements.push_back(std::move(more));
      }
      seq.elements.insert(seq.elements.begin(), std::move(f));
      feeds.push_back(std::move(seq));
      continue;
    }
    feeds.push_back(std::move(f));
  }
  return feeds;
}

std::vector<Feed> read_feeds(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open feeds file '" + path + "'");
  std::vector<Feed> feeds;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream header(line);
    Feed f;
    int32_t rank = -1;
    uint64_t bytes = 0;
    header >> f.name >> f.dtype >> rank;
    for (int32_t d = 0; header && d < rank; ++d) f.shape.push_back(0), header >> f.shape.back();
    header >> bytes;
    if (!header || rank < 0) throw std::runtime_error("'" + path + "': bad header '" + line + "'");
    f.data.resize(bytes);
    if (!in.read(reinterpret_cast<char*>(f.data.data()), static_cast<std::streamsize>(bytes)))
      throw std::runtime_error("'" + path + "': input '" + f.name + "' is cut short");
    feeds.push_back(std::move(f));
  }
  return feeds;
}

}  // namespace geon::stress
