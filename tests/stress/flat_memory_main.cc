// geon_flat_memory: one session of the committed MLP (models/mlp.onnx) run 10,000 times at batch
// 64; resident memory (/proc/self/statm) is read after a warm-up, at 1,000 and at 10,000 runs,
// and its growth from 1,000 to 10,000 must stay under 1 MiB. A leak of even 120 bytes per run
// would add 1 MiB over those 9,000 runs, while malloc's steady state, once every arena and
// pool has seen the run's working set, moves by a few pages at most. Release builds only:
// AddressSanitizer's quarantine holds freed memory back and makes RSS meaningless.
//
//   geon_flat_memory MODEL
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "geon/geon.h"
#include "tests/stress/feeds.h"

namespace {

constexpr long kWarmup = 100;
constexpr long kFirstMark = 1000;
constexpr long kRuns = 10000;
constexpr long kBatch = 64;
constexpr long kBoundBytes = 1 << 20;

long resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  if (!(statm >> size >> resident)) throw std::runtime_error("cannot read /proc/self/statm");
  return resident * sysconf(_SC_PAGESIZE);
}

void check(const GeonApi& api, GeonStatus* s, const char* what) {
  if (!s) return;
  std::string text = std::string(what) + ": " + api.status_message(s);
  api.release_status(s);
  throw std::runtime_error(text);
}

int measure(const GeonApi& api, const char* model) {
  GeonSession* session = nullptr;
  check(api, api.create_session(model, nullptr, &session), "create_session");
  // The MLP's one input, [batch, 64]: the seeded feeds take a symbolic dim as 2, so the
  // batch of 64 is set here (same values, seeded, only more rows).
  std::vector<geon::stress::Feed> feeds = geon::stress::seeded_feeds(api, session, 7);
  if (feeds.size() != 1 || feeds[0].dtype != 1 || feeds[0].shape.size() != 2)
    throw std::runtime_error("expected the committed MLP: one float input [batch, features]");
  const int64_t features = feeds[0].shape[1];
  std::vector<float> x(static_cast<size_t>(kBatch * features));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(int(i * 7 % 23) - 11) / 5.0f;
  const int64_t shape[2] = {kBatch, features};
  const char* name = feeds[0].name.c_str();
  const GeonTensor input{1, 2, shape, x.data(), x.size() * sizeof(float)};
  long after_warmup = 0, at_first_mark = 0;
  for (long run = 1; run <= kRuns; ++run) {
    GeonResult* result = nullptr;
    check(api, api.run(session, &name, &input, 1, nullptr, 0, nullptr, &result), "run");
    api.release_result(result);
    if (run == kWarmup) after_warmup = resident_bytes();
    if (run == kFirstMark) at_first_mark = resident_bytes();
  }
  const long at_end = resident_bytes();
  api.release_session(session);
  const long growth = at_end - at_first_mark;
  std::printf(
      "resident memory: %ld KiB after %ld runs, %ld KiB after %ld, %ld KiB after %ld; "
      "growth from %ld to %ld runs: %ld bytes (bound %ld)\n",
      after_warmup / 1024, kWarmup, at_first_mark / 1024, kFirstMark, at_end / 1024, kRuns,
      kFirstMark, kRuns, growth, kBoundBytes);
  if (growth >= kBoundBytes) {
    std::fprintf(stderr, "resident memory grew by %ld bytes from run %ld to run %ld\n", growth,
                 kFirstMark, kRuns);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODEL\n", argv[0]);
    return 2;
  }
  const char* refusal = nullptr;
  const GeonApi* api = geon_get_api(GEON_API_VERSION, &refusal);
  if (!api) {
    std::fprintf(stderr, "geon_get_api: %s\n", refusal);
    return 1;
  }
  try {
    return measure(*api, argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
