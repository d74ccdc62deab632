// arena_limit_bytes: the smallest limit a run passes under is found by search, and then a limit
// one byte below it fails with a status that gives both the bytes needed and the bytes allowed,
// while the limit itself passes with the unlimited run's results. The count covers device
// arenas and transfers, If / Loop bodies together with the run that encloses them, and what
// Loop and Scan keep between iterations.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <optional>

#include "tests/core/runtime/executor_fixture.h"

namespace geon {
namespace {

using namespace geon::testing;  // NOLINT

struct Case {
  std::function<std::shared_ptr<Graph>()> graph;
  std::span<const KernelSet* const> sets;
  std::vector<HostTensor> inputs;
  int outputs = 1;
};

// Two runs on a fresh executable (the first records sizes, the second uses the memory plan):
// their outputs, or the error of the first that failed.
struct Outcome {
  std::vector<std::vector<float>> results;
  std::optional<Error> error;
};

Outcome run_twice(Case& c, size_t limit) {
  ExecutorOptions opt;
  opt.arena_limit_bytes = limit;
  opt.poison_freed = true;
  auto exe = Executable::compile(c.graph(), c.sets, opt);
  std::vector<TensorRef> in;
  for (HostTensor& t : c.inputs) in.push_back(t.ref());
  std::vector<int> outs(c.outputs);
  for (int i = 0; i < c.outputs; ++i) outs[i] = i;
  Outcome o;
  try {
    for (int round = 0; round < 2; ++round) {
      o.results.clear();
      for (const OwnedTensor& t : exe->run(in, outs)) o.results.push_back(values_of<float>(t));
    }
  } catch (const Error& e) {
    o.error = e;
  }
  return o;
}

// The smallest limit under which both runs pass (runs fail for every smaller one: the bytes in
// use follow the same sequence whatever the limit, up to the failure).
size_t smallest_limit(Case& c) {
  size_t lo = 1, hi = size_t{1} << 24;
  EXPECT_FALSE(run_twice(c, hi).error) << run_twice(c, hi).error->what();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (run_twice(c, mid).error)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// The limit just below the need fails naming both numbers; the need itself passes, with the
// unlimited results. Returns the need.
size_t check_edges(Case& c) {
  const Outcome unlimited = run_twice(c, 0);
  EXPECT_FALSE(unlimited.error);
  const size_t need = smallest_limit(c);
  const Outcome below = run_twice(c, need - 1);
  if (!below.error) {
    ADD_FAILURE() << "passed at " << need - 1;
    return need;
  }
  EXPECT_EQ(below.error->code(), ErrorCode::kResourceExhausted);
  const std::string msg = below.error->what();
  EXPECT_NE(msg.find("needs at least " + std::to_string(need) + " bytes"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find(std::to_string(need - 1) + " bytes that arena_limit_bytes allows"),
            std::string::npos)
      << msg;
  const Outcome at = run_twice(c, need);
  EXPECT_FALSE(at.error) << at.error->what();
  EXPECT_EQ(at.results, unlimited.results);
  return need;
}

std::vector<float> ramp(int n, float start) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

TEST(ExecutorMemoryLimit, JustBelowTheNeedFailsWithBothNumbersAndTheNeedPasses) {
  Case c{batch_chain, host_only(), {}};
  c.inputs.push_back(floats({16, 4}, ramp(64, -20)));
  const size_t need = check_edges(c);
  EXPECT_GE(need, 64 * sizeof(float));  // at least the output
}

TEST(ExecutorMemoryLimit, DeviceArenasAndTransfersCount) {
  static const std::array<const KernelSet*, 2> dev_first{&dev_set(), &host_set()};
  Case host{batch_chain, host_only(), {}};
  host.inputs.push_back(floats({16, 4}, ramp(64, -20)));
  Case dev{batch_chain, dev_first, {}};
  dev.inputs.push_back(floats({16, 4}, ramp(64, -20)));
  const int64_t allocations = device_allocations();
  const size_t need_host = check_edges(host);
  const size_t need_dev = check_edges(dev);
  EXPECT_GT(device_allocations(), allocations);  // the chain did run on the device
  // On the device the run also holds x's copy there.
  EXPECT_GE(need_dev, need_host + 64 * sizeof(float));
}

constexpr int kN = 1024;

// The main graph keeps a = Relu(x) alive across an If whose then-branch holds three values of
// x's size at once (t1, t2 and t3 = t2 + t1); the else-branch only passes x through.
std::shared_ptr<Graph> if_over_live_value() {
  ExecBuilder b;
  const int cond = b.input("cond", DType::kBool, {});
  const int x = b.input("x", DType::kFloat, {kN});
  const int a = b.node("Relu", {x}, "a", DType::kFloat, {kN});
  ExecBuilder then_b(b.graph()), else_b(b.graph());
  const int tx = then_b.outer(b.graph().values[x]);
  const int t1 = then_b.node("Add", {tx, tx}, "t1", DType::kFloat, {kN});
  const int t2 = then_b.node("Mul", {t1, tx}, "t2", DType::kFloat, {kN});
  then_b.output(then_b.node("Add", {t2, t1}, "t3", DType::kFloat, {kN}));
  const int ex = else_b.outer(b.graph().values[x]);
  else_b.output(else_b.node("Identity", {ex}, "e", DType::kFloat, {kN}));
  const int y = b.node("If", {cond}, "y", DType::kFloat, {kN}, "choose");
  b.graph_attr("then_branch", then_b.shared());
  b.graph_attr("else_branch", else_b.shared());
  b.output(b.node("Add", {y, a}, "z", DType::kFloat, {kN}));
  return b.shared();
}

TEST(ExecutorMemoryLimit, AnIfBodyCountsTogetherWithTheRunAroundIt) {
  Case c{if_over_live_value, host_only(), {}};
  c.inputs.push_back(bools({}, {1}));
  c.inputs.push_back(floats({kN}, ramp(kN, -500)));
  const size_t need = check_edges(c);
  // a (outside) and t1, t2, t3 (inside) are alive at once.
  EXPECT_GE(need, 4 * kN * sizeof(float));
}

// Loop(M) over s' = s + x (x captured) with s' as a scan output: T parts of [64] floats kept
// until they are stacked into the [T, 64] output.
std::shared_ptr<Graph> scan_loop() {
  ExecBuilder b;
  const int m = b.input("M", DType::kInt64, {});
  const int s0 = b.input("s0", DType::kFloat, {64});
  const int x = b.input("x", DType::kFloat, {64});
  ExecBuilder body(b.graph());
  body.input("i", DType::kInt64, {});
  const int c_in = body.input("c_in", DType::kBool, {});
  const int s = body.input("s", DType::kFloat, {64});
  const int bx = body.outer(b.graph().values[x]);
  body.output(body.node("Identity", {c_in}, "c_out", DType::kBool, {}));
  const int next = body.node("Add", {s, bx}, "s_next", DType::kFloat, {64});
  body.output(next);
  body.output(body.node("Identity", {next}, "s_scan", DType::kFloat, {64}));
  const std::vector<int> outs =
      b.node_n("Loop", {m, -1, s0},
               {{"s_final", DType::kFloat, {64}}, {"s_all", DType::kFloat, {"T", 64}}}, "loop");
  b.graph_attr("body", body.shared());
  b.output(outs[0]);
  b.output(outs[1]);
  return b.shared();
}

Case loop_case(int64_t trips) {
  Case c{scan_loop, host_only(), {}, 2};
  c.inputs.push_back(int64s({}, {trips}));
  c.inputs.push_back(floats({64}, ramp(64, 0)));
  c.inputs.push_back(floats({64}, ramp(64, -30)));
  return c;
}

TEST(ExecutorMemoryLimit, LoopScanPartsAndCarriedValuesCount) {
  Case two = loop_case(2), eight = loop_case(8);
  const size_t need_two = check_edges(two);
  const size_t need_eight = check_edges(eight);
  // Six more parts of 64 floats are kept, and the stacked output is six rows longer, both
  // alive while the parts are stacked.
  EXPECT_GE(need_eight, need_two + 2 * 6 * 64 * sizeof(float));
}

// Scan over the rows of x [T, 64] read along axis 1 (so each slice is copied dense), summing
// into a state; the scan output is the running state.
std::shared_ptr<Graph> column_scan() {
  ExecBuilder b;
  const int acc0 = b.input("acc0", DType::kFloat, {64});
  const int x = b.input("x", DType::kFloat, {64, "T"});
  ExecBuilder body(b.graph());
  const int acc = body.input("acc", DType::kFloat, {64});
  const int col = body.input("col", DType::kFloat, {64});
  const int next = body.node("Add", {acc, col}, "acc_next", DType::kFloat, {64});
  body.output(next);
  body.output(body.node("Identity", {next}, "acc_scan", DType::kFloat, {64}));
  const std::vector<int> outs =
      b.node_n("Scan", {acc0, x},
               {{"acc_final", DType::kFloat, {64}}, {"acc_all", DType::kFloat, {"T", 64}}}, "scan");
  b.graph_attr("body", body.shared());
  b.int_attr("num_scan_inputs", 1);
  b.ints_attr("scan_input_axes", {1});
  b.ints_attr("scan_input_directions", {0});
  b.ints_attr("scan_output_axes", {0});
  b.ints_attr("scan_output_directions", {0});
  b.output(outs[0]);
  b.output(outs[1]);
  return b.shared();
}

Case scan_case(int64_t t) {
  Case c{column_scan, host_only(), {}, 2};
  c.inputs.push_back(floats({64}, ramp(64, 5)));
  c.inputs.push_back(floats({64, t}, ramp(static_cast<int>(64 * t), -100)));
  return c;
}

TEST(ExecutorMemoryLimit, ScanPartsAndSlicesCount) {
  Case two = scan_case(2), eight = scan_case(8);
  const size_t need_two = check_edges(two);
  const size_t need_eight = check_edges(eight);
  EXPECT_GE(need_eight, need_two + 2 * 6 * 64 * sizeof(float));
}

}  // namespace
}  // namespace geon
