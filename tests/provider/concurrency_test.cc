// Runs from several threads on one session, and the poison debug mode: both must give the
// results of plain single-threaded runs.
#include <thread>

#include "tests/provider/provider_test_util.h"

namespace geon::provider_test {
namespace {

constexpr int kThreads = 4;
constexpr int kRunsPerThread = 30;

int64_t batch_of(int run) { return 1 + run % 7; }

// Every run's output, run one after another.
std::vector<std::vector<float>> serial_outputs(const api::Session& s) {
  std::vector<std::vector<float>> out;
  for (int run = 0; run < kThreads * kRunsPerThread; ++run) {
    const std::vector<float> x = mlp_input(batch_of(run), run);
    const std::vector<api::Tensor> y = s.run({{feed("X", x, {batch_of(run), 4})}});
    out.emplace_back(y.at(0).as<float>().begin(), y.at(0).as<float>().end());
  }
  return out;
}

void expect_concurrent_runs_match(const api::Session& s) {
  const std::vector<std::vector<float>> serial = serial_outputs(s);
  std::vector<std::vector<float>> parallel(serial.size());
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int k = 0; k < kRunsPerThread; ++k) {
          const int run = t + kThreads * k;  // interleaved, so shapes change between runs
          const std::vector<float> x = mlp_input(batch_of(run), run);
          const std::vector<api::Tensor> y = s.run({{feed("X", x, {batch_of(run), 4})}});
          parallel[run].assign(y.at(0).as<float>().begin(), y.at(0).as<float>().end());
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
  for (size_t run = 0; run < serial.size(); ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    expect_close(parallel[run], serial[run]);
    expect_close(serial[run],
                 mlp_reference(mlp_input(batch_of(static_cast<int>(run)), static_cast<int>(run)),
                               batch_of(static_cast<int>(run))));
  }
}

TEST(ProviderConcurrency, ThreadsSharingASessionGetSerialResults) {
  api::Session s(library(), model_path("mlp.onnx"));
  expect_concurrent_runs_match(s);
}

TEST(ProviderConcurrency, PoisonedFreedMemoryChangesNoResult) {
  api::Options o(library());
  o.set("poison_freed", "1");
  api::Session poisoned(library(), model_path("mlp.onnx"), &o);
  api::Session plain(library(), model_path("mlp.onnx"));
  for (int run = 0; run < 10; ++run) {
    const std::vector<float> x = mlp_input(batch_of(run), run);
    const std::vector<api::Feed> feeds = {feed("X", x, {batch_of(run), 4})};
    expect_close(poisoned.run(feeds)[0].as<float>(), plain.run(feeds)[0].as<float>());
  }
  expect_concurrent_runs_match(poisoned);
}

}  // namespace
}  // namespace geon::provider_test
