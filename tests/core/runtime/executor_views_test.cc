// View kernels through the executor: their outputs take no memory of their own (the output is
// bound to the input's memory with the kernel's description), consumers read the strided
// view, and everything that must be dense (graph outputs, device copies, nested runs) gets a
// dense copy. In-place outputs and poison mode respect a base whose views are still alive.
#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "core/runtime/memory_plan.h"
#include "tests/core/runtime/executor_fixture.h"

namespace geon {
namespace {

using namespace geon::testing;  // NOLINT

std::vector<float> values(int n, int seed) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<float>((i * 7 + seed * 5) % 23) - 11.0f);
  return v;
}

// The r x c row-major matrix m transposed.
std::vector<float> transposed(const std::vector<float>& m, int r, int c) {
  std::vector<float> t(m.size());
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < c; ++j) t[j * r + i] = m[i * c + j];
  return t;
}
std::vector<float> relu(std::vector<float> v) {
  for (float& e : v) e = std::max(e, 0.0f);
  return v;
}

std::vector<float> run_one(const Executable& exe, HostTensor& x) {
  const std::array<TensorRef, 1> in{x.ref()};
  const std::array<int, 1> outs{0};
  return values_of<float>(exe.run(in, outs)[0]);
}

// y = Relu(transpose_op(Relu(x))) for x [rows, cols].
std::shared_ptr<Graph> relu_transpose_relu(const char* transpose_op, Dim rows, int cols) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {rows, cols});
  const int a = b.node("Relu", {x}, "a", DType::kFloat, {rows, cols});
  const int t = b.node(transpose_op, {a}, "t", DType::kFloat, {cols, rows});
  b.output(b.node("Relu", {t}, "y", DType::kFloat, {cols, rows}));
  return b.shared();
}

TEST(ExecutorViews, AViewTakesNoMemoryAndIsNotCopied) {
  auto view = Executable::compile(relu_transpose_relu("Transpose", 32, 16), host_only());
  auto copy = Executable::compile(relu_transpose_relu("TransposeCopy", 32, 16), host_only());
  const MemoryStats v = view->memory().at(0), c = copy->memory().at(0);
  constexpr size_t kBytes = 32 * 16 * sizeof(float);
  EXPECT_EQ(c.intermediate_bytes, 2 * kBytes);  // a and t
  EXPECT_EQ(v.intermediate_bytes, kBytes);      // a only: t is a view of it
  EXPECT_LT(v.peak_bytes, c.peak_bytes);

  HostTensor x = floats({32, 16}, values(512, 1));
  const int64_t copies = view_copies();
  const std::vector<float> expected = transposed(relu(values(512, 1)), 32, 16);
  EXPECT_EQ(run_one(*view, x), expected);
  EXPECT_EQ(run_one(*copy, x), expected);
  EXPECT_EQ(view_copies(), copies);  // the view kernel's compute() never ran
}

TEST(ExecutorViews, PoisonModeAndSymbolicShapesGiveTheSameResults) {
  for (const bool symbolic : {false, true}) {
    auto graph = relu_transpose_relu("Transpose", symbolic ? Dim("N") : Dim(8), 6);
    ExecutorOptions poison;
    poison.poison_freed = true;
    auto plain = Executable::compile(graph, host_only());
    auto checked = Executable::compile(graph, host_only(), poison);
    for (int seed = 0; seed < 3; ++seed) {  // the first symbolic run records, later ones plan
      HostTensor x = floats({8, 6}, values(48, seed));
      const std::vector<float> expected = transposed(relu(values(48, seed)), 8, 6);
      EXPECT_EQ(run_one(*plain, x), expected) << "symbolic " << symbolic;
      EXPECT_EQ(run_one(*checked, x), expected) << "symbolic " << symbolic;
    }
  }
}

TEST(ExecutorViews, AViewThatIsAGraphOutputIsDeliveredDense) {
  // t = Transpose(Relu(x)) is an output, to caller memory or returned; u = Transpose(x) of a
  // graph input is one too, and s = Transpose(t) feeds a third output through a Relu.
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {3, 5});
  const int a = b.node("Relu", {x}, "a", DType::kFloat, {3, 5});
  const int t = b.node("Transpose", {a}, "t", DType::kFloat, {5, 3});
  const int u = b.node("Transpose", {x}, "u", DType::kFloat, {5, 3});
  const int s = b.node("Transpose", {t}, "s", DType::kFloat, {3, 5});
  b.output(t);
  b.output(u);
  b.output(b.node("Relu", {s}, "y", DType::kFloat, {3, 5}));
  auto exe = Executable::compile(b.shared(), host_only());
  const std::vector<float> xs = values(15, 2);
  HostTensor xt = floats({3, 5}, xs);
  HostTensor dst = floats({5, 3}, std::vector<float>(15, 99.0f));
  const std::array<TensorRef, 1> in{xt.ref()};
  const std::array<int, 3> outs{0, 1, 2};
  for (const bool caller : {false, true}) {
    const std::array<TensorRef, 3> callers{caller ? dst.ref() : TensorRef{}, TensorRef{},
                                           TensorRef{}};
    const std::vector<OwnedTensor> got = exe->run(in, outs, callers);
    std::vector<float> t_got(15);
    if (caller)
      std::memcpy(t_got.data(), dst.bytes.data(), 15 * sizeof(float));
    else
      t_got = values_of<float>(got[0]);
    EXPECT_EQ(t_got, transposed(relu(xs), 3, 5));
    EXPECT_EQ(got[1].desc, row_major(DType::kFloat, Dims{5, 3}));
    EXPECT_EQ(values_of<float>(got[1]), transposed(xs, 3, 5));
    EXPECT_EQ(values_of<float>(got[2]), relu(xs));
  }
  EXPECT_EQ(HostTensor::of<float>(DType::kFloat, {3, 5}, xs).bytes, xt.bytes);
}

TEST(ExecutorViews, AViewOfAGraphInputLeavesTheInputUnmodified) {
  // n = Neg(Transpose(x)) may run in place only into arena intermediates; t is a view of x.
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {4, 6});
  const int t = b.node("Transpose", {x}, "t", DType::kFloat, {6, 4});
  const int n = b.node("Neg", {t}, "n", DType::kFloat, {6, 4});
  b.output(b.node("Neg", {n}, "y", DType::kFloat, {6, 4}));
  ExecutorOptions opt;
  opt.poison_freed = true;
  auto exe = Executable::compile(b.shared(), host_only(), opt);
  const std::vector<float> xs = values(24, 3);
  HostTensor xt = floats({4, 6}, xs);
  EXPECT_EQ(run_one(*exe, xt), transposed(xs, 4, 6));
  EXPECT_EQ(HostTensor::of<float>(DType::kFloat, {4, 6}, xs).bytes, xt.bytes);
}

TEST(ExecutorViews, InPlaceNeverOverwritesABaseWhoseViewIsReadLater) {
  // a = Relu(x); t = Transpose(a) (a view of a); n = Neg(a) is a's last direct reader and may
  // run in place, but t still reads a's memory afterwards: y = n - t = -a - a^T.
  for (const bool poison : {false, true}) {
    ExecBuilder b;
    const int x = b.input("x", DType::kFloat, {4, 4});
    const int a = b.node("Relu", {x}, "a", DType::kFloat, {4, 4});
    const int t = b.node("Transpose", {a}, "t", DType::kFloat, {4, 4});
    const int n = b.node("Neg", {a}, "n", DType::kFloat, {4, 4});
    b.output(b.node("Sub", {n, t}, "y", DType::kFloat, {4, 4}));
    ExecutorOptions opt;
    opt.poison_freed = poison;
    auto exe = Executable::compile(b.shared(), host_only(), opt);
    const std::vector<float> as = relu(values(16, 4));
    const std::vector<float> at = transposed(as, 4, 4);
    std::vector<float> expected(16);
    for (int i = 0; i < 16; ++i) expected[i] = -as[i] - at[i];
    HostTensor xt = floats({4, 4}, values(16, 4));
    for (int run = 0; run < 2; ++run) EXPECT_EQ(run_one(*exe, xt), expected) << poison;
  }
}

TEST(ExecutorViews, InPlaceSkipsAnInputWhoseViewTheSameNodeReads) {
  // y = Sub(a, Transpose(a)): a dies at the Sub, which allows in place into input 0, but it
  // reads a's memory through the view too, so writing a would change what it reads.
  for (const bool poison : {false, true}) {
    ExecBuilder b;
    const int x = b.input("x", DType::kFloat, {8, 8});
    const int a = b.node("Relu", {x}, "a", DType::kFloat, {8, 8});
    const int t = b.node("Transpose", {a}, "t", DType::kFloat, {8, 8});
    const int d = b.node("Sub", {a, t}, "d", DType::kFloat, {8, 8});
    b.output(b.node("Relu", {d}, "y", DType::kFloat, {8, 8}));
    ExecutorOptions opt;
    opt.poison_freed = poison;
    auto exe = Executable::compile(b.shared(), host_only(), opt);
    const std::vector<float> as = relu(values(64, 5));
    const std::vector<float> at = transposed(as, 8, 8);
    std::vector<float> expected(64);
    for (int i = 0; i < 64; ++i) expected[i] = std::max(as[i] - at[i], 0.0f);
    HostTensor xt = floats({8, 8}, values(64, 5));
    for (int run = 0; run < 2; ++run) EXPECT_EQ(run_one(*exe, xt), expected) << poison;
  }
}

TEST(ExecutorViews, AViewTheStridesDoNotAllowIsComputedInstead) {
  // Flat of a transpose cannot be a view: the executor calls compute(), into run-time memory.
  for (const bool poison : {false, true}) {
    ExecBuilder b;
    const int x = b.input("x", DType::kFloat, {3, 4});
    const int a = b.node("Relu", {x}, "a", DType::kFloat, {3, 4});
    const int t = b.node("Transpose", {a}, "t", DType::kFloat, {4, 3});
    const int f = b.node("Flat", {t}, "f", DType::kFloat, {12});
    const int g = b.node("Flat", {a}, "g", DType::kFloat, {12});  // a view: a is dense
    b.output(b.node("Add", {f, g}, "y", DType::kFloat, {12}));
    ExecutorOptions opt;
    opt.poison_freed = poison;
    auto exe = Executable::compile(b.shared(), host_only(), opt);
    const std::vector<float> as = relu(values(12, 6));
    const std::vector<float> at = transposed(as, 3, 4);
    std::vector<float> expected(12);
    for (int i = 0; i < 12; ++i) expected[i] = at[i] + as[i];
    HostTensor xt = floats({3, 4}, values(12, 6));
    const int64_t copies = view_copies();
    EXPECT_EQ(run_one(*exe, xt), expected);
    EXPECT_EQ(view_copies(), copies + 1);  // f only
  }
}

TEST(ExecutorViews, AViewReadOnAnotherDeviceIsCopiedThereDense) {
  // a = Relu(x) runs on the fake device; t = Transpose(a) on the host is a view of a's host
  // copy; y = Relu(t) on the device reads a dense copy of the view.
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {5, 7});
  const int a = b.node("Relu", {x}, "a", DType::kFloat, {5, 7});
  const int t = b.node("Transpose", {a}, "t", DType::kFloat, {7, 5});
  b.output(b.node("Relu", {t}, "y", DType::kFloat, {7, 5}));
  const std::array<const KernelSet*, 2> sets{&dev_set(), &host_set()};
  ExecutorOptions opt;
  opt.poison_freed = true;
  auto exe = Executable::compile(b.shared(), sets, opt);
  ASSERT_EQ(exe->placement().nodes.at(1).set, 1);  // Transpose on the host
  HostTensor xt = floats({5, 7}, values(35, 7));
  const int64_t copies = view_copies();
  for (int run = 0; run < 2; ++run)
    EXPECT_EQ(run_one(*exe, xt), transposed(relu(values(35, 7)), 5, 7));
  EXPECT_EQ(view_copies(), copies);
}

TEST(ExecutorViews, IfBranchesReadAndReturnCapturedViews) {
  // The branches capture t = Transpose(a), a view, from the enclosing graph: one returns it as
  // it is (delivered dense), the other reads it through a Relu.
  ExecBuilder b;
  const int cond = b.input("cond", DType::kBool, {});
  const int x = b.input("x", DType::kFloat, {2, 3});
  const int a = b.node("Neg", {x}, "a", DType::kFloat, {2, 3});
  const int t = b.node("Transpose", {a}, "t", DType::kFloat, {3, 2});
  ExecBuilder then_b(b.graph()), else_b(b.graph());
  then_b.output(then_b.outer(b.graph().values[t]));
  const int et = else_b.outer(b.graph().values[t]);
  else_b.output(else_b.node("Relu", {et}, "e", DType::kFloat, {3, 2}));
  b.output(b.node("If", {cond}, "y", DType::kFloat, {3, 2}, "choose"));
  b.graph_attr("then_branch", then_b.shared());
  b.graph_attr("else_branch", else_b.shared());
  ExecutorOptions opt;
  opt.poison_freed = true;
  auto exe = Executable::compile(b.shared(), host_only(), opt);
  std::vector<float> as = values(6, 8);
  for (float& e : as) e = -e;
  HostTensor xt = floats({2, 3}, values(6, 8));
  HostTensor yes = bools({}, {1}), no = bools({}, {0});
  const std::array<int, 1> outs{0};
  const std::array<TensorRef, 2> in_yes{yes.ref(), xt.ref()}, in_no{no.ref(), xt.ref()};
  EXPECT_EQ(values_of<float>(exe->run(in_yes, outs)[0]), transposed(as, 2, 3));
  EXPECT_EQ(values_of<float>(exe->run(in_no, outs)[0]), relu(transposed(as, 2, 3)));
}

TEST(ExecutorViews, LoopStatesThatAreViewsArePassedDense) {
  // s0 = Transpose(a) enters a Loop of M iterations whose body doubles it: nested runs take
  // dense inputs, so the executor hands the Loop a dense copy of the view.
  ExecBuilder b;
  const int m = b.input("M", DType::kInt64, {});
  const int x = b.input("x", DType::kFloat, {2, 3});
  const int a = b.node("Neg", {x}, "a", DType::kFloat, {2, 3});
  const int s0 = b.node("Transpose", {a}, "s0", DType::kFloat, {3, 2});
  ExecBuilder body(b.graph());
  body.input("i", DType::kInt64, {});
  const int c_in = body.input("c_in", DType::kBool, {});
  const int s = body.input("s", DType::kFloat, {3, 2});
  body.output(body.node("Identity", {c_in}, "c_out", DType::kBool, {}));
  body.output(body.node("Add", {s, s}, "s_next", DType::kFloat, {3, 2}));
  b.output(b.node("Loop", {m, -1, s0}, "s_final", DType::kFloat, {3, 2}, "loop"));
  b.graph_attr("body", body.shared());
  auto exe = Executable::compile(b.shared(), host_only());
  HostTensor mt = int64s({}, {2});
  HostTensor xt = floats({2, 3}, values(6, 9));
  const std::array<TensorRef, 2> in{mt.ref(), xt.ref()};
  const std::array<int, 1> outs{0};
  std::vector<float> expected = transposed(values(6, 9), 2, 3);
  for (float& e : expected) e = -4 * e;
  EXPECT_EQ(values_of<float>(exe->run(in, outs)[0]), expected);
}

}  // namespace
}  // namespace geon
