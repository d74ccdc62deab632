// The shared half of the fuzz targets: API, capped options, base directory, seeded runs.
#include "fuzz_session.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace geon::fuzz {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "geon fuzz harness: %s\n", what.c_str());
  std::abort();
}

// splitmix64: a small deterministic generator for input values.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

void write_file(const fs::path& p, const std::vector<char>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) die("cannot write " + p.string());
}

std::string make_work_dir() {
  std::string dir;
  if (const char* env = std::getenv("GEON_FUZZ_WORKDIR"); env && *env) {
    dir = env;
    fs::create_directories(dir);
  } else {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/geon-fuzz-XXXXXX";
    if (!mkdtemp(templ.data())) die("mkdtemp failed");
    dir = templ;
  }
  const fs::path work = fs::canonical(dir);
  const fs::path base = work / "base";
  fs::create_directories(base / "sub");
  // Data a fuzzed model may legitimately point at: 64 KiB of a byte pattern, plus the
  // committed provider model's external weights when the source tree is at hand.
  std::vector<char> pattern(65536);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<char>(i * 7 + 1);
  write_file(base / "data.bin", pattern);
  write_file(base / "sub" / "data.bin", pattern);
  std::error_code ec;
#ifdef GEON_SOURCE_DIR
  fs::copy_file(fs::path(GEON_SOURCE_DIR) / "tests/provider/models/external_weights.bin",
                base / "external_weights.bin", fs::copy_options::overwrite_existing, ec);
#endif
  // A file outside base_dir, and a symlink inside that leads to it: neither may be read.
  write_file(work / "outside.bin", std::vector<char>(65536, 'X'));
  fs::remove(base / "escape.bin", ec);
  fs::create_symlink("../outside.bin", base / "escape.bin", ec);
  return work.string();
}

// Values 0..16 in an int64 or int32 tensor (zeros for any other dtype).
void fill_small(int32_t dtype, std::vector<unsigned char>& data, Rng& rng) {
  std::fill(data.begin(), data.end(), 0);
  if (dtype == 7)
    for (size_t i = 0; i + 8 <= data.size(); i += 8) {
      const int64_t v = static_cast<int64_t>(rng.next() % 17);
      std::memcpy(&data[i], &v, 8);
    }
  if (dtype == 6)
    for (size_t i = 0; i + 4 <= data.size(); i += 4) {
      const int32_t v = static_cast<int32_t>(rng.next() % 17);
      std::memcpy(&data[i], &v, 4);
    }
}

std::atomic<uint64_t> g_counts[static_cast<int>(Event::kCount)];

void print_counts() {
  static const char* const kNames[] = {
      "inputs", "sessions", "runs", "runs_ok", "skipped_unbounded_loop", "skipped_size"};
  std::fprintf(stderr, "geon fuzz stats:");
  for (int i = 0; i < static_cast<int>(Event::kCount); ++i)
    std::fprintf(stderr, " %s=%llu", kNames[i],
                 static_cast<unsigned long long>(g_counts[i].load()));
  std::fprintf(stderr, "\n");
}

}  // namespace

void count(Event e) {
  static const bool enabled = [] {
    const char* env = std::getenv("GEON_FUZZ_STATS");
    if (env && *env) std::atexit(print_counts);
    return env && *env;
  }();
  if (enabled) ++g_counts[static_cast<int>(e)];
}

const GeonApi& api() {
  static const GeonApi* const table = [] {
    const char* refusal = nullptr;
    const GeonApi* a = geon_get_api(GEON_API_VERSION, &refusal);
    if (!a) die(std::string("geon_get_api: ") + (refusal ? refusal : "refused"));
    return a;
  }();
  return *table;
}

bool failed(GeonStatus* st) {
  if (!st) return false;
  static const bool verbose = std::getenv("GEON_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "geon fuzz: status: %s\n", api().status_message(st));
  api().release_status(st);
  return true;
}

const GeonOptions* capped_options() {
  static GeonOptions* const options = [] {
    GeonOptions* o = nullptr;
    if (failed(api().create_options(&o)) ||
        failed(api().set_option(o, "arena_limit_bytes", "67108864")) ||
        failed(api().set_option(o, "intra_op_threads", "1")))
      die("cannot set the session options");
    return o;
  }();
  return options;
}

const std::string& work_dir() {
  static const std::string dir = make_work_dir();
  return dir;
}

const std::string& base_dir() {
  static const std::string dir = work_dir() + "/base";
  return dir;
}

int64_t dtype_bytes(int32_t dtype, int64_t n) {
  int64_t bits = 0;
  switch (dtype) {
    case 1:
    case 6:
    case 12:
      bits = 32;
      break;
    case 2:
    case 3:
    case 9:
    case 17:
    case 18:
    case 19:
    case 20:
    case 24:
      bits = 8;
      break;
    case 4:
    case 5:
    case 10:
    case 16:
      bits = 16;
      break;
    case 7:
    case 11:
    case 13:
    case 14:
      bits = 64;
      break;
    case 15:
      bits = 128;
      break;
    case 21:
    case 22:
    case 23:
      bits = 4;
      break;
    case 25:
    case 26:
      bits = 2;
      break;
    default:
      return -1;
  }
  return (n * bits + 7) / 8;
}

uint64_t hash_bytes(const void* data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

GeonSession* create_session(const void* bytes, size_t size) {
  GeonSession* s = nullptr;
  if (failed(
          api().create_session_from_bytes(bytes, size, base_dir().c_str(), capped_options(), &s)))
    return nullptr;
  return s;
}

void consume_result(GeonResult* r) {
  volatile unsigned sum = 0;
  for (size_t i = 0; i < api().result_count(r); ++i) {
    GeonTensor t{};
    if (failed(api().result_tensor(r, i, &t))) continue;
    for (int32_t d = 0; d < t.rank; ++d) sum = sum + static_cast<unsigned>(t.shape[d]);
    const auto* p = static_cast<const unsigned char*>(t.data);
    for (uint64_t b = 0; p && b < t.bytes; ++b) sum = sum + p[b];
    (void)api().result_name(r, i);
  }
  api().release_result(r);
}

void run_with_seeded_inputs(GeonSession* s, uint64_t seed,
                            const std::set<std::string>& small_inputs) {
  const GeonApi& a = api();
  Rng rng{seed};
  const size_t n = a.session_input_count(s);
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::vector<unsigned char>> buffers;
  std::vector<GeonTensor> tensors;
  std::vector<const char*> names;
  std::vector<int32_t> dtypes;
  for (size_t i = 0; i < n; ++i) {
    if (a.session_input_has_default(s, i)) continue;
    GeonValueInfo info{};
    if (failed(a.session_input_info(s, i, &info))) return;
    std::vector<int64_t> shape;
    if (info.rank < 0) {
      shape.push_back(2);
    } else {
      for (int32_t d = 0; d < info.rank; ++d)
        shape.push_back(info.dims[d] >= 0 ? info.dims[d]
                                          : 1 + static_cast<int64_t>(rng.next() % 3));
    }
    int64_t count = 1;
    for (int64_t d : shape) {
      if (d != 0 && count > kMaxInputElements / d) return fuzz::count(Event::kSkippedSize);
      count *= d;
    }
    if (count > kMaxInputElements) return fuzz::count(Event::kSkippedSize);
    const int64_t bytes = dtype_bytes(info.dtype, count);
    if (bytes < 0) return;  // strings and unknown types cannot be fed through the C ABI
    std::vector<unsigned char> data(static_cast<size_t>(bytes));
    for (auto& b : data) b = static_cast<unsigned char>(rng.next());
    if (info.dtype == 9)
      for (auto& b : data) b &= 1;
    if (small_inputs.count(info.name)) fill_small(info.dtype, data, rng);
    shapes.push_back(std::move(shape));
    buffers.push_back(std::move(data));
    names.push_back(info.name);
    dtypes.push_back(info.dtype);
  }
  for (size_t k = 0; k < buffers.size(); ++k) {
    GeonTensor t{};
    t.dtype = dtypes[k];
    t.rank = static_cast<int32_t>(shapes[k].size());
    t.shape = shapes[k].data();
    t.data = buffers[k].data();
    t.bytes = buffers[k].size();
    tensors.push_back(t);
  }
  GeonResult* r = nullptr;
  fuzz::count(Event::kRun);
  if (failed(a.run(s, names.data(), tensors.data(), tensors.size(), nullptr, 0, nullptr, &r)))
    return;
  fuzz::count(Event::kRunOk);
  consume_result(r);
}

}  // namespace geon::fuzz
