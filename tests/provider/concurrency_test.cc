// Runs from several threads on one session (different inputs and batch sizes), sessions
// created, run and released on many threads at once, and the poison debug mode: all must give
// the results of plain single-threaded runs. Also a model heavy enough for its weights to be
// read on several threads while the session is made.
#include <cstring>
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

// One model input with a symbolic batch: its name and its per-item shape.
struct BatchedInput {
  std::string model;
  std::string input;
  std::vector<int64_t> item_shape;
};

// Distinct values per seed over the whole batch, positive and negative.
std::vector<float> batched_values(const BatchedInput& m, int64_t batch, int seed) {
  int64_t n = batch;
  for (int64_t d : m.item_shape) n *= d;
  std::vector<float> x(static_cast<size_t>(n));
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>((static_cast<int64_t>(i) * 7 + seed * 13) % 23 - 11) / 5.0f;
  return x;
}

api::Tensor run_batched(const api::Session& s, const BatchedInput& m, int64_t batch, int seed) {
  const std::vector<float> x = batched_values(m, batch, seed);
  std::vector<int64_t> shape = {batch};
  shape.insert(shape.end(), m.item_shape.begin(), m.item_shape.end());
  const std::vector<float> before = x;
  std::vector<api::Tensor> y = s.run({{feed(m.input, x, shape)}});
  EXPECT_EQ(x, before) << "the run modified its input";
  return std::move(y.at(0));
}

// kThreads x runs runs on one session, interleaved so that every thread changes batch size
// from one run to the next; each output must equal, bit for bit, the serial run's.
void expect_bit_identical_across_shapes(const BatchedInput& m, int threads, int runs,
                                        int max_batch) {
  api::Session s(library(), m.model);
  auto batch_of_run = [&](int run) { return int64_t{1} + (run * 5) % max_batch; };
  std::vector<api::Tensor> serial;
  for (int run = 0; run < threads * runs; ++run)
    serial.push_back(run_batched(s, m, batch_of_run(run), run));
  std::vector<api::Tensor> parallel(serial.size());
  std::vector<std::string> errors(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        for (int k = 0; k < runs; ++k) {
          const int run = t + threads * k;
          parallel[run] = run_batched(s, m, batch_of_run(run), run);
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (std::thread& t : pool) t.join();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
  for (size_t run = 0; run < serial.size(); ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    EXPECT_EQ(parallel[run].shape, serial[run].shape);
    ASSERT_EQ(parallel[run].data.size(), serial[run].data.size());
    EXPECT_EQ(
        std::memcmp(parallel[run].data.data(), serial[run].data.data(), serial[run].data.size()),
        0);
  }
}

TEST(ProviderConcurrency, EightThreadsOfDifferentShapesGetTheSerialRunsBitForBit) {
  // The test MLP (checked against its naive reference elsewhere), the repository's MLP and,
  // fewer runs as each costs more, its CNN.
  expect_bit_identical_across_shapes({model_path("mlp.onnx"), "X", {4}}, 8, 25, 33);
  expect_bit_identical_across_shapes({repo_model_path("mlp.onnx"), "x", {64}}, 8, 25, 33);
  expect_bit_identical_across_shapes({repo_model_path("cnn.onnx"), "image", {3, 64, 64}}, 4, 3, 3);
}

TEST(ProviderConcurrency, SessionsCreatedRunAndReleasedOnManyThreadsAtOnce) {
  constexpr int kCreators = 8;
  constexpr int kCycles = 20;
  const BatchedInput m{model_path("mlp.onnx"), "X", {4}};
  std::vector<api::Tensor> expected;
  {
    api::Session reference(library(), m.model);
    for (int k = 0; k < kCycles; ++k) expected.push_back(run_batched(reference, m, 1 + k % 5, k));
  }
  std::vector<std::string> errors(kCreators);
  std::vector<int> matched(kCreators, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < kCreators; ++t)
    pool.emplace_back([&, t] {
      try {
        for (int k = 0; k < kCycles; ++k) {
          const int cycle = (k + t) % kCycles;
          api::Session s(library(), m.model);  // released at the end of each cycle
          const api::Tensor y = run_batched(s, m, 1 + cycle % 5, cycle);
          if (y.shape == expected[cycle].shape && y.data == expected[cycle].data) ++matched[t];
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (std::thread& t : pool) t.join();
  for (int t = 0; t < kCreators; ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    EXPECT_EQ(matched[t], kCycles) << "thread " << t << ": results differing from the serial run";
  }
}

// Protobuf's wire format, enough for a ModelProto of float initializers that are its outputs.
void put_varint(std::string& s, uint64_t v) {
  for (; v >= 0x80; v >>= 7) s += static_cast<char>(v | 0x80);
  s += static_cast<char>(v);
}
void put_field(std::string& s, int number, uint64_t v) {
  put_varint(s, static_cast<uint64_t>(number) << 3);
  put_varint(s, v);
}
void put_field(std::string& s, int number, const std::string& bytes) {
  put_varint(s, static_cast<uint64_t>(number) << 3 | 2);
  put_varint(s, bytes.size());
  s += bytes;
}

// Initializer k holds `elements` floats k*elements + i, for i in [0, elements), and is output k.
std::string constant_outputs_model(int count, int64_t elements) {
  constexpr int kFloat = 1;
  std::string graph;
  for (int k = 0; k < count; ++k) {
    const std::string name = "w" + std::to_string(k);
    std::vector<float> v(static_cast<size_t>(elements));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(k * elements + i);
    std::string tensor;
    put_field(tensor, 1, static_cast<uint64_t>(elements));  // dims
    put_field(tensor, 2, kFloat);                           // data_type
    put_field(tensor, 8, name);                             // name
    put_field(tensor, 9, std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
    put_field(graph, 5, tensor);  // initializer
  }
  for (int k = 0; k < count; ++k) {
    std::string dim, shape, tensor_type, type, info;
    put_field(dim, 1, static_cast<uint64_t>(elements));  // dim_value
    put_field(shape, 1, dim);
    put_field(tensor_type, 1, kFloat);  // elem_type
    put_field(tensor_type, 2, shape);
    put_field(type, 1, tensor_type);
    put_field(info, 1, "w" + std::to_string(k));
    put_field(info, 2, type);
    put_field(graph, 12, info);  // output
  }
  put_field(graph, 2, "weights");
  std::string opset, model;
  put_field(opset, 2, 17);
  put_field(model, 1, 8);  // ir_version
  put_field(model, 7, graph);
  put_field(model, 8, opset);
  return model;
}

// 24 MB of weights: the importer reads them on the session's pool (ImportOptions::pool).
TEST(ProviderConcurrency, WeightsReadOnSeveralThreadsHoldTheModelsValues) {
  constexpr int kCount = 12;
  constexpr int64_t kElements = int64_t{1} << 19;
  const std::string bytes = constant_outputs_model(kCount, kElements);
  for (const char* threads : {"1", "2", "4"}) {
    SCOPED_TRACE(std::string("threads ") + threads);
    api::Options o(library());
    o.set("intra_op_threads", threads);
    api::Session s(library(), std::as_bytes(std::span(bytes.data(), bytes.size())), "", &o);
    const std::vector<api::Tensor> y = s.run({});
    ASSERT_EQ(y.size(), static_cast<size_t>(kCount));
    for (int k = 0; k < kCount; ++k) {
      const std::span<const float> w = y[k].as<float>();
      ASSERT_EQ(static_cast<int64_t>(w.size()), kElements) << k;
      int64_t wrong = 0;
      for (int64_t i = 0; i < kElements; ++i)
        wrong += w[static_cast<size_t>(i)] != static_cast<float>(k * kElements + i);
      EXPECT_EQ(wrong, 0) << "output " << k << " differs from its initializer";
    }
  }
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
