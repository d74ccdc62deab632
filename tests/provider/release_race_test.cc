// release_session racing with calls on the same session from other threads: each call either
// completes normally (a run with the correct result, bit for bit) or is refused with a status
// saying that the session was released; none touches freed memory (under ASan a use after
// free here is a failure).
#include <atomic>
#include <cstring>
#include <thread>

#include "tests/provider/provider_test_util.h"

namespace geon::provider_test {
namespace {

constexpr int kRounds = 60;
constexpr int kRunners = 3;
constexpr int kInputs = 5;
// A runner that is never refused stops here, so a broken release cannot hang the test.
constexpr int kMaxCallsPerRound = 20000;

int64_t batch_of(int k) { return 1 + k % 4; }

struct Counts {
  std::atomic<int> completed{0};
  std::atomic<int> refused{0};
  std::atomic<int> wrong{0};
  // Runs that completed after release_session had returned: they were in flight during it.
  std::atomic<int> in_flight_at_release{0};
};

bool says_released(const StatusInfo& s) {
  return s.code == GEON_INVALID_ARGUMENT &&
         s.message.find("the session handle was released") != std::string::npos;
}

// Runs s until a run is refused; checks each completed run against `expected`.
void run_until_refused(GeonSession* s, const std::vector<std::vector<float>>& expected,
                       Counts& counts, std::atomic<int>& round_runs,
                       const std::atomic<bool>& released, int seed) {
  const GeonApi& a = c_api();
  for (int call = 0; call < kMaxCallsPerRound; ++call) {
    const int k = (call + seed) % kInputs;
    const std::vector<float> x = mlp_input(batch_of(k), k);
    const int64_t shape[] = {batch_of(k), 4};
    const GeonTensor in{1, 2, shape, const_cast<float*>(x.data()), x.size() * sizeof(float)};
    const char* name = "X";
    GeonResult* r = nullptr;
    const StatusInfo st = take(a.run(s, &name, &in, 1, nullptr, 0, nullptr, &r));
    if (st.code == GEON_OK && released.load()) ++counts.in_flight_at_release;
    if (st.code != GEON_OK) {
      if (says_released(st)) {
        ++counts.refused;
      } else {
        ADD_FAILURE() << "run refused for another reason: " << st.message;
        ++counts.wrong;
      }
      EXPECT_EQ(r, nullptr);
      return;
    }
    GeonTensor t{};
    const StatusInfo got = take(a.result_tensor(r, 0, &t));
    const std::vector<float>& want = expected[k];
    if (got.code != GEON_OK || t.bytes != want.size() * sizeof(float) ||
        std::memcmp(t.data, want.data(), want.size() * sizeof(float)) != 0) {
      ADD_FAILURE() << "a completed run differs from the serial run (input " << k << ")";
      ++counts.wrong;
    }
    a.release_result(r);
    ++counts.completed;
    ++round_runs;
  }
  ADD_FAILURE() << "no run was refused after " << kMaxCallsPerRound << " calls";
}

// The session's other calls in a loop until one is refused; none may fail otherwise.
void query_until_refused(GeonSession* s, Counts& counts) {
  const GeonApi& a = c_api();
  for (int call = 0; call < kMaxCallsPerRound; ++call) {
    char* text = nullptr;
    GeonValueInfo info{};
    GeonStatus* status = nullptr;
    switch (call % 4) {
      case 0:
        status = a.placement_report(s, &text);
        break;
      case 1:
        status = a.session_output_info(s, 0, &info);
        break;
      case 2:
        status = a.end_profiling(s, &text);
        break;
      default:
        status = a.session_model_metadata(s, &text);
        break;
    }
    a.release_string(text);
    const StatusInfo st = take(status);
    if (st.code == GEON_OK) continue;
    if (says_released(st)) {
      ++counts.refused;
    } else {
      ADD_FAILURE() << "call " << call % 4 << " refused for another reason: " << st.message;
      ++counts.wrong;
    }
    return;
  }
  ADD_FAILURE() << "no call was refused after " << kMaxCallsPerRound << " calls";
}

TEST(ProviderReleaseRace, RunsRacingReleaseCompleteCorrectlyOrAreRefused) {
  const GeonApi& a = c_api();
  std::vector<std::vector<float>> expected;
  {
    api::Session reference(library(), model_path("mlp.onnx"));
    for (int k = 0; k < kInputs; ++k) {
      const std::vector<float> x = mlp_input(batch_of(k), k);
      const std::vector<api::Tensor> y = reference.run({{feed("X", x, {batch_of(k), 4})}});
      expected.emplace_back(y.at(0).as<float>().begin(), y.at(0).as<float>().end());
      expect_close(expected.back(), mlp_reference(x, batch_of(k)));
    }
  }
  Counts counts;
  for (int round = 0; round < kRounds; ++round) {
    GeonSession* s = nullptr;
    ASSERT_EQ(a.create_session(model_path("mlp.onnx").c_str(), nullptr, &s), nullptr);
    std::atomic<int> round_runs{0};
    std::atomic<bool> released{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < kRunners; ++t)
      threads.emplace_back([&, t] {
        run_until_refused(s, expected, counts, round_runs, released, round * kRunners + t);
      });
    threads.emplace_back([&] { query_until_refused(s, counts); });
    // Release after 0 to 7 completed runs: at once (racing the first calls) or mid-stream.
    const int wait_for = round % 8;
    while (round_runs.load() < wait_for) std::this_thread::yield();
    a.release_session(s);
    released = true;
    for (std::thread& t : threads) t.join();
    a.release_session(s);  // again: harmless
  }
  EXPECT_EQ(counts.wrong.load(), 0);
  EXPECT_EQ(counts.refused.load(), kRounds * (kRunners + 1));
  EXPECT_GT(counts.completed.load(), 0);
  // The race the test is for happened: some runs were still going when the session was
  // released, and they finished with correct results (checked above).
  EXPECT_GT(counts.in_flight_at_release.load(), 0);
  std::printf(
      "[ race ] %d rounds: %d runs completed (%d of them in flight at the release), %d calls "
      "refused as released\n",
      kRounds, counts.completed.load(), counts.in_flight_at_release.load(), counts.refused.load());
  RecordProperty("completed_runs", counts.completed.load());
  RecordProperty("refused_calls", counts.refused.load());
  RecordProperty("in_flight_at_release", counts.in_flight_at_release.load());
}

}  // namespace
}  // namespace geon::provider_test
