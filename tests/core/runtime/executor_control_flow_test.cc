// If, Loop and Scan on hand-built graphs: branches chosen by the condition, bodies reading
// outer values by name (two levels up as well), Loop's trip count, condition and scan
// outputs (zero iterations included), Scan's directions and axes.
#include <gtest/gtest.h>

#include <array>

#include "tests/core/runtime/executor_fixture.h"

namespace geon {
namespace {

using namespace geon::testing;  // NOLINT

const Value& value(ExecBuilder& b, int v) { return b.graph().values[v]; }

TEST(ExecutorControlFlow, IfRunsTheChosenBranchWithCapturedValues) {
  ExecBuilder b;
  const int cond = b.input("cond", DType::kBool, {});
  const int x = b.input("x", DType::kFloat, {3});
  ExecBuilder then_b(b.graph()), else_b(b.graph());
  const int tx = then_b.outer(value(b, x));
  then_b.output(then_b.node("Add", {tx, tx}, "t", DType::kFloat, {3}));
  const int ex = else_b.outer(value(b, x));
  else_b.output(else_b.node("Relu", {ex}, "e", DType::kFloat, {3}));
  b.output(b.node("If", {cond}, "y", DType::kFloat, {3}, "choose"));
  b.graph_attr("then_branch", then_b.shared());
  b.graph_attr("else_branch", else_b.shared());

  ExecutorOptions opt;
  opt.profile = true;
  auto exe = Executable::compile(b.shared(), host_only(), opt);
  HostTensor xt = floats({3}, {-1, 2, -3});
  const std::array<int, 1> outs{0};
  HostTensor yes = bools({}, {1}), no = bools({}, {0});
  const std::array<TensorRef, 2> in_yes{yes.ref(), xt.ref()}, in_no{no.ref(), xt.ref()};
  EXPECT_EQ(values_of<float>(exe->run(in_yes, outs)[0]), (std::vector<float>{-2, 4, -6}));
  EXPECT_EQ(values_of<float>(exe->run(in_no, outs)[0]), (std::vector<float>{0, 2, 0}));
  const std::vector<ProfileEvent> events = exe->take_profile();
  int ifs = 0, adds = 0, relus = 0;
  for (const ProfileEvent& e : events) {
    if (e.op == "If") {
      ++ifs;
      EXPECT_EQ(e.set, "control");
      EXPECT_EQ(e.node, "choose");
    }
    adds += e.op == "Add";
    relus += e.op == "Relu";
  }
  EXPECT_EQ(ifs, 2);
  EXPECT_EQ(adds, 1);
  EXPECT_EQ(relus, 1);
}

// Loop(M, cond, s0): body s' = s + x (x captured), cond' = i < 3, scan output s'.
std::shared_ptr<Graph> sum_loop(bool with_m, bool with_cond) {
  ExecBuilder b;
  const int m = with_m ? b.input("M", DType::kInt64, {}) : -1;
  const int c = with_cond ? b.input("cond", DType::kBool, {}) : -1;
  const int s0 = b.input("s0", DType::kFloat, {3});
  const int x = b.input("x", DType::kFloat, {3});
  ExecBuilder body(b.graph());
  const int i = body.input("i", DType::kInt64, {});
  body.input("c_in", DType::kBool, {});
  const int s = body.input("s", DType::kFloat, {3});
  const int bx = body.outer(value(b, x));
  const int three = body.constant("three", int64_data({}, {3}));
  body.output(body.node("Less", {i, three}, "c_out", DType::kBool, {}));
  const int next = body.node("Add", {s, bx}, "s_next", DType::kFloat, {3});
  body.output(next);
  body.output(body.node("Identity", {next}, "s_scan", DType::kFloat, {3}));
  const std::vector<int> outs =
      b.node_n("Loop", {m, c, s0},
               {{"s_final", DType::kFloat, {3}}, {"s_all", DType::kFloat, {"T", 3}}}, "loop");
  b.graph_attr("body", body.shared());
  b.output(outs[0]);
  b.output(outs[1]);
  return b.shared();
}

struct LoopResult {
  std::vector<float> final;
  Dims all_shape;
  std::vector<float> all;
};

LoopResult run_loop(const Executable& exe, std::optional<int64_t> m, std::optional<bool> cond) {
  HostTensor mt = int64s({}, {m.value_or(0)});
  HostTensor ct = bools({}, {static_cast<uint8_t>(cond.value_or(false))});
  HostTensor s0 = floats({3}, {1, 2, 3});
  HostTensor x = floats({3}, {10, 20, 30});
  std::vector<TensorRef> in;
  if (m) in.push_back(mt.ref());
  if (cond) in.push_back(ct.ref());
  in.push_back(s0.ref());
  in.push_back(x.ref());
  const std::array<int, 2> outs{0, 1};
  std::vector<OwnedTensor> r = exe.run(in, outs);
  return {values_of<float>(r[0]), r[1].desc.shape, values_of<float>(r[1])};
}

std::vector<float> after(int iterations) {
  return {1.0f + 10 * iterations, 2.0f + 20 * iterations, 3.0f + 30 * iterations};
}

TEST(ExecutorControlFlow, LoopStopsOnTripCountOrCondition) {
  auto exe = Executable::compile(sum_loop(true, true), host_only());
  // cond' = i < 3 stops after the iteration i == 3: four iterations unless M is lower.
  LoopResult r = run_loop(*exe, 10, true);
  EXPECT_EQ(r.final, after(4));
  EXPECT_EQ(r.all_shape, (Dims{4, 3}));
  std::vector<float> all;
  for (int k = 1; k <= 4; ++k)
    for (float v : after(k)) all.push_back(v);
  EXPECT_EQ(r.all, all);

  r = run_loop(*exe, 2, true);
  EXPECT_EQ(r.final, after(2));
  EXPECT_EQ(r.all_shape, (Dims{2, 3}));

  r = run_loop(*exe, 10, false);  // the condition is false from the start
  EXPECT_EQ(r.final, after(0));
  EXPECT_EQ(r.all_shape, (Dims{0, 3}));
  EXPECT_TRUE(r.all.empty());
}

TEST(ExecutorControlFlow, LoopWithoutConditionRunsTheTripCount) {
  auto exe = Executable::compile(sum_loop(true, false), host_only());
  // The body's condition turns false at i == 3, but without a cond input it is ignored.
  const LoopResult r = run_loop(*exe, 6, std::nullopt);
  EXPECT_EQ(r.final, after(6));
  EXPECT_EQ(r.all_shape, (Dims{6, 3}));
}

TEST(ExecutorControlFlow, LoopWithoutTripCountRunsWhileTheConditionHolds) {
  auto exe = Executable::compile(sum_loop(false, true), host_only());
  const LoopResult r = run_loop(*exe, std::nullopt, true);
  EXPECT_EQ(r.final, after(4));
}

TEST(ExecutorControlFlow, LoopWithNeitherBoundIsRefusedAtCompile) {
  try {
    Executable::compile(sum_loop(false, false), host_only());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotSupported);
    EXPECT_NE(std::string(e.what()).find("node 'loop' (Loop)"), std::string::npos) << e.what();
  }
}

// Scan with one state (a running sum) and one scan input; the scan output is the state after
// each iteration.
std::shared_ptr<Graph> cumsum_scan(std::vector<Dim> x_dims, int64_t in_axis, int64_t in_dir,
                                   int64_t out_axis, int64_t out_dir, std::vector<Dim> out_dims) {
  ExecBuilder b;
  const int acc0 = b.input("acc0", DType::kFloat, {2});
  const int x = b.input("x", DType::kFloat, std::move(x_dims));
  ExecBuilder body(b.graph());
  const int acc = body.input("acc", DType::kFloat, {2});
  const int row = body.input("row", DType::kFloat, {2});
  const int next = body.node("Add", {acc, row}, "acc_next", DType::kFloat, {2});
  body.output(next);
  body.output(body.node("Identity", {next}, "acc_scan", DType::kFloat, {2}));
  const std::vector<int> outs = b.node_n(
      "Scan", {acc0, x},
      {{"acc_final", DType::kFloat, {2}}, {"acc_all", DType::kFloat, std::move(out_dims)}}, "scan");
  b.graph_attr("body", body.shared());
  b.int_attr("num_scan_inputs", 1);
  b.ints_attr("scan_input_axes", {in_axis});
  b.ints_attr("scan_input_directions", {in_dir});
  b.ints_attr("scan_output_axes", {out_axis});
  b.ints_attr("scan_output_directions", {out_dir});
  b.output(outs[0]);
  b.output(outs[1]);
  return b.shared();
}

std::vector<OwnedTensor> run_scan(const Executable& exe, HostTensor x) {
  HostTensor acc0 = floats({2}, {100, 200});
  const std::array<TensorRef, 2> in{acc0.ref(), x.ref()};
  const std::array<int, 2> outs{0, 1};
  return exe.run(in, outs);
}

TEST(ExecutorControlFlow, ScanForwardAndBackward) {
  // x rows: (1,2), (3,4), (5,6).
  HostTensor x = floats({3, 2}, {1, 2, 3, 4, 5, 6});
  auto forward = Executable::compile(cumsum_scan({3, 2}, 0, 0, 0, 0, {3, 2}), host_only());
  std::vector<OwnedTensor> r = run_scan(*forward, x);
  EXPECT_EQ(values_of<float>(r[0]), (std::vector<float>{109, 212}));
  EXPECT_EQ(values_of<float>(r[1]), (std::vector<float>{101, 202, 104, 206, 109, 212}));

  // Reversed input: rows taken last first; reversed output: iteration 0 stored last.
  auto backward = Executable::compile(cumsum_scan({3, 2}, 0, 1, 0, 1, {3, 2}), host_only());
  r = run_scan(*backward, x);
  EXPECT_EQ(values_of<float>(r[0]), (std::vector<float>{109, 212}));
  EXPECT_EQ(values_of<float>(r[1]), (std::vector<float>{109, 212, 108, 210, 105, 206}));
}

TEST(ExecutorControlFlow, ScanAlongAnInnerAxis) {
  // x is (2, 3): column t is the row of iteration t; the output stacks along axis 1.
  HostTensor x = floats({2, 3}, {1, 3, 5, 2, 4, 6});
  auto exe = Executable::compile(cumsum_scan({2, 3}, 1, 0, 1, 0, {2, 3}), host_only());
  std::vector<OwnedTensor> r = run_scan(*exe, x);
  EXPECT_EQ(values_of<float>(r[0]), (std::vector<float>{109, 212}));
  EXPECT_EQ(r[1].desc.shape, (Dims{2, 3}));
  EXPECT_EQ(values_of<float>(r[1]), (std::vector<float>{101, 104, 109, 202, 206, 212}));
}

TEST(ExecutorControlFlow, NestedBodyCapturesFromTwoLevelsUp) {
  // Loop body (level 1) holds an If whose branch (level 2) reads s from level 1 and x from
  // level 0, which level 1 itself never names.
  ExecBuilder b;
  const int m = b.input("M", DType::kInt64, {});
  const int s0 = b.input("s0", DType::kFloat, {3});
  const int x = b.input("x", DType::kFloat, {3});
  ExecBuilder body(b.graph());
  body.input("i", DType::kInt64, {});
  const int c_in = body.input("c_in", DType::kBool, {});
  const int s = body.input("s", DType::kFloat, {3});
  ExecBuilder then_b(body.graph()), else_b(body.graph());
  const int ts = then_b.outer(body.graph().values[s]);
  const int tx = then_b.outer(value(b, x));
  then_b.output(then_b.node("Add", {ts, tx}, "sum", DType::kFloat, {3}));
  const int es = else_b.outer(body.graph().values[s]);
  else_b.output(else_b.node("Identity", {es}, "same", DType::kFloat, {3}));
  body.output(body.node("Identity", {c_in}, "c_out", DType::kBool, {}));
  body.output(body.node("If", {c_in}, "s_next", DType::kFloat, {3}, "inner_if"));
  body.graph_attr("then_branch", then_b.shared());
  body.graph_attr("else_branch", else_b.shared());
  b.output(b.node("Loop", {m, -1, s0}, "s_final", DType::kFloat, {3}, "outer_loop"));
  b.graph_attr("body", body.shared());

  ExecutorOptions opt;
  opt.poison_freed = true;
  auto exe = Executable::compile(b.shared(), host_only(), opt);
  HostTensor mt = int64s({}, {3}), s0t = floats({3}, {0, 1, 2}), xt = floats({3}, {1, 2, 3});
  const std::array<TensorRef, 3> in{mt.ref(), s0t.ref(), xt.ref()};
  const std::array<int, 1> outs{0};
  EXPECT_EQ(values_of<float>(exe->run(in, outs)[0]), (std::vector<float>{3, 7, 11}));
}

TEST(ExecutorControlFlow, BodyErrorsNameBothNodes) {
  ExecBuilder b;
  const int cond = b.input("cond", DType::kBool, {});
  const int x = b.input("x", DType::kFloat, {3});
  ExecBuilder then_b(b.graph());
  then_b.output(then_b.node("Fail", {then_b.outer(value(b, x))}, "t", DType::kFloat, {3}, "bad"));
  b.output(b.node("If", {cond}, "y", DType::kFloat, {3}, "choose"));
  b.graph_attr("then_branch", then_b.shared());
  b.graph_attr("else_branch", then_b.shared());
  auto exe = Executable::compile(b.shared(), host_only());
  HostTensor yes = bools({}, {1}), xt = floats({3}, {1, 2, 3});
  const std::array<TensorRef, 2> in{yes.ref(), xt.ref()};
  const std::array<int, 1> outs{0};
  try {
    exe->run(in, outs);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kOutOfRange);
    EXPECT_EQ(std::string(e.what()), "node 'choose' (If): node 'bad' (Fail): boom");
  }
}

}  // namespace
}  // namespace geon
