// geon_cycles: create session / run / release result / release session, N times per model,
// through the C ABI, and check that every cycle's outputs equal the first cycle's byte for
// byte. Under LeakSanitizer (the ASan tree) a leak in any of those steps is reported at exit.
// A model that create_session refuses as unsupported (a node no kernel set runs) is cycled
// through the provider contract instead: load, capability, compile and run each subgraph.
//
//   geon_cycles CYCLES MODEL[=FEEDS] ...
//
// MODEL is run with seeded inputs (feeds.h), or with the inputs stored in FEEDS.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "geon/geon.h"
#include "tests/stress/feeds.h"

namespace geon::stress {
namespace {

// One output of one cycle, as the result held it.
struct Output {
  std::string name;
  GeonDType dtype = 0;
  std::vector<int64_t> shape;
  std::vector<unsigned char> data;
  bool operator==(const Output&) const = default;
};

// Throws with the status's message (and frees it) when the call failed.
void check(const GeonApi& api, GeonStatus* s, const std::string& what) {
  if (!s) return;
  std::string text = what + ": " + api.status_message(s);
  api.release_status(s);
  throw std::runtime_error(text);
}

// Releases a handle when it goes out of scope, so that a failing step leaks nothing.
template <typename Handle, void (*GeonApi::*Release)(Handle*)>
struct Owned {
  const GeonApi& api;
  Handle* handle = nullptr;
  ~Owned() { (api.*Release)(handle); }
};

// Runs the session once with its inputs and appends its outputs.
void run_once(const GeonApi& api, GeonSession* session, const std::string& feeds, uint32_t seed,
              std::vector<Output>& outputs) {
  const std::vector<Feed> in = feeds.empty() ? seeded_feeds(api, session, seed) : read_feeds(feeds);
  auto tensor_of = [](const Feed& f) {
    return GeonTensor{f.dtype, static_cast<int32_t>(f.shape.size()), f.shape.data(),
                      const_cast<unsigned char*>(f.data.data()), f.data.size()};
  };
  std::vector<const char*> names;
  std::vector<GeonTensor> tensors;
  for (const Feed& f : in) {
    names.push_back(f.name.c_str());
    tensors.push_back(tensor_of(f));
  }
  Owned<GeonResult, &GeonApi::release_result> result{api};
  // Models with sequences, optionals or maps run through run_values, and every output is read back
  // as a value: each of its tensors becomes one Output.
  const bool values = takes_values(api, session);
  if (values) {
    std::vector<std::vector<GeonTensor>> elements(in.size());
    std::vector<GeonValue> feeds_v;
    for (size_t k = 0; k < in.size(); ++k) {
      for (const Feed& e : in[k].elements) elements[k].push_back(tensor_of(e));
      feeds_v.push_back(in[k].sequence
                            ? GeonValue{in[k].kind, elements[k].size(), elements[k].data()}
                            : GeonValue{GEON_VALUE_TENSOR, 1, &tensors[k]});
    }
    check(api,
          api.run_values(session, names.data(), feeds_v.data(), feeds_v.size(), nullptr, 0,
                         &result.handle),
          "run_values");
  } else {
    check(api,
          api.run(session, names.data(), tensors.data(), tensors.size(), nullptr, 0, nullptr,
                  &result.handle),
          "run");
  }
  std::vector<GeonTensor> got;
  std::vector<std::string> got_names;
  for (size_t i = 0; i < api.result_count(result.handle); ++i) {
    if (values) {
      GeonValue v{};
      check(api, api.result_value(result.handle, i, &v), "result_value");
      for (uint64_t k = 0; k < v.count; ++k) got.push_back(v.tensors[k]);
      if (v.kind == GEON_VALUE_NONE) got.push_back(GeonTensor{});
      got_names.resize(got.size(), api.result_name(result.handle, i));
    } else {
      GeonTensor t{};
      check(api, api.result_tensor(result.handle, i, &t), "result_tensor");
      got.push_back(t);
      got_names.push_back(api.result_name(result.handle, i));
    }
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const GeonTensor& t = got[i];
    const auto* bytes = static_cast<const unsigned char*>(t.data);
    std::vector<unsigned char> content(bytes, bytes + t.bytes);
    if (t.dtype == 8) {  // strings: the text (length, bytes), not the handles' addresses
      content.clear();
      const auto* h = static_cast<const GeonString*>(t.data);
      for (uint64_t k = 0; k < t.bytes / sizeof(GeonString); ++k) {
        const uint64_t n = h[k].size;
        content.insert(content.end(), reinterpret_cast<const unsigned char*>(&n),
                       reinterpret_cast<const unsigned char*>(&n) + sizeof n);
        if (n) content.insert(content.end(), h[k].data, h[k].data + n);
      }
    }
    outputs.push_back(Output{got_names[i], t.dtype, std::vector<int64_t>(t.shape, t.shape + t.rank),
                             std::move(content)});
  }
}

// A model that the provider cannot run whole (a node no kernel set has, as a host's model
// often holds) goes the host's way: load_model, get_capability, compile and run every claimed
// subgraph, release everything.
void contract_cycle(const GeonApi& api, const std::string& model, uint32_t seed,
                    std::vector<Output>& outputs) {
  Owned<GeonModel, &GeonApi::release_model> m{api};
  check(api, api.load_model(model.c_str(), &m.handle), "load_model");
  Owned<GeonCapability, &GeonApi::release_capability> c{api};
  check(api, api.get_capability(m.handle, nullptr, &c.handle), "get_capability");
  for (size_t g = 0; g < api.capability_subgraph_count(c.handle); ++g) {
    Owned<GeonSession, &GeonApi::release_session> s{api};
    check(api, api.compile(m.handle, c.handle, g, nullptr, &s.handle), "compile");
    run_once(api, s.handle, "", seed + static_cast<uint32_t>(g), outputs);
  }
}

// One cycle: every handle it makes is released before it returns, on failure too.
std::vector<Output> cycle(const GeonApi& api, const std::string& model, const std::string& feeds,
                          uint32_t seed, bool& through_contract) {
  std::vector<Output> outputs;
  Owned<GeonSession, &GeonApi::release_session> s{api};
  GeonStatus* status = api.create_session(model.c_str(), nullptr, &s.handle);
  through_contract = feeds.empty() && api.status_code(status) == GEON_UNSUPPORTED;
  if (through_contract) {
    api.release_status(status);
    contract_cycle(api, model, seed, outputs);
    return outputs;
  }
  check(api, status, "create_session");
  run_once(api, s.handle, feeds, seed, outputs);
  return outputs;
}

// Runs `cycles` cycles of one model; returns false (having said why) on any difference.
bool run_model(const GeonApi& api, const std::string& spec, long cycles) {
  const size_t eq = spec.find('=');
  const std::string model = spec.substr(0, eq);
  const std::string feeds = eq == std::string::npos ? "" : spec.substr(eq + 1);
  const auto start = std::chrono::steady_clock::now();
  bool through_contract = false;
  const std::vector<Output> first = cycle(api, model, feeds, 1234, through_contract);
  for (long c = 1; c < cycles; ++c) {
    bool again = false;
    if (cycle(api, model, feeds, 1234, again) != first || again != through_contract) {
      std::fprintf(stderr, "%s: cycle %ld gave outputs that differ from cycle 0's\n", model.c_str(),
                   c);
      return false;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "%s: %ld cycles%s, %zu outputs identical to the first cycle's, %.2f s (%.2f ms/cycle)\n",
      model.c_str(), cycles,
      through_contract ? " (unsupported whole: load_model, get_capability, compile and "
                         "run each claimed subgraph)"
                       : "",
      first.size(), seconds, seconds * 1e3 / double(cycles));
  return true;
}

}  // namespace
}  // namespace geon::stress

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CYCLES MODEL[=FEEDS] ...\n", argv[0]);
    return 2;
  }
  const long cycles = std::strtol(argv[1], nullptr, 10);
  if (cycles < 1) {
    std::fprintf(stderr, "CYCLES must be a positive number, not '%s'\n", argv[1]);
    return 2;
  }
  const char* refusal = nullptr;
  const GeonApi* api = geon_get_api(GEON_API_VERSION, &refusal);
  if (!api) {
    std::fprintf(stderr, "geon_get_api: %s\n", refusal);
    return 1;
  }
  bool ok = true;
  for (int i = 2; i < argc; ++i) {
    try {
      ok = geon::stress::run_model(*api, argv[i], cycles) && ok;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", argv[i], e.what());
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
