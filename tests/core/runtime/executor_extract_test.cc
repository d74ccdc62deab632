// extract_subgraph and profiling: each partition subgraph compiled and run alone, chained by
// value names, gives what the whole graph gives; profile events name each node, its set and
// its input shapes, in start order, and are drained by take_profile.
#include <gtest/gtest.h>

#include <array>
#include <map>

#include "tests/core/runtime/executor_fixture.h"

namespace geon {
namespace {

using namespace geon::testing;  // NOLINT

std::span<const KernelSet* const> dev_first() {
  static const std::array<const KernelSet*, 2> sets{&dev_set(), &host_set()};
  return sets;
}

// a = relu(x @ w) (dev), c = Identity(a) (host), d = c + a (dev), neg = Less(d, zero) (host).
std::shared_ptr<Graph> mixed() {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {"N", 3});
  const int w = b.constant("w", float_data({3, 2}, {1, -2, 3, 4, -5, 6}));
  const int m = b.node("MatMul", {x, w}, "m", DType::kFloat, {"N", 2});
  const int a = b.node("Relu", {m}, "a", DType::kFloat, {"N", 2});
  const int c = b.node("Identity", {a}, "c", DType::kFloat, {"N", 2});
  const int d = b.node("Add", {c, a}, "d", DType::kFloat, {"N", 2});
  const int zero = b.constant("zero", float_data({}, {4}));
  b.output(b.node("Less", {d, zero}, "neg", DType::kBool, {"N", 2}));
  b.output(d);
  return b.shared();
}

TEST(ExecutorExtract, SubgraphsRunAloneMatchTheWholeGraph) {
  std::shared_ptr<Graph> g = mixed();
  auto whole = Executable::compile(g, dev_first());
  HostTensor x = floats({2, 3}, {1, 0, 1, 0, 1, 2});
  const std::array<TensorRef, 1> in{x.ref()};
  const std::array<int, 2> outs{0, 1};
  const std::vector<OwnedTensor> expected = whole->run(in, outs);

  const Placement p = partition(*g, dev_first());
  // {MatMul, Relu} and {Add} on the device, {Identity} and {Less} on the host: no merging
  // across the device without a cycle.
  ASSERT_EQ(p.subgraphs.size(), 4u);
  std::map<std::string, OwnedTensor> by_name;
  by_name["x"] = {x.desc, std::make_shared<Storage>(host_allocator(), x.bytes.size())};
  std::memcpy(by_name["x"].data(), x.bytes.data(), x.bytes.size());
  for (const Subgraph& s : p.subgraphs) {
    std::shared_ptr<Graph> sub = extract_subgraph(*g, s);
    ASSERT_EQ(sub->outputs.size(), s.outputs.size());
    // Constants stay constants; everything else read from outside becomes an input.
    for (int v : sub->inputs) EXPECT_NE(sub->values[v].kind, ValueKind::kConstant);
    for (const Value& v : sub->values)
      if (v.name == "w" || v.name == "zero") {
        EXPECT_EQ(v.kind, ValueKind::kConstant);
        EXPECT_NE(v.data, nullptr);
      }
    const std::array<const KernelSet*, 1> one{dev_first()[s.set]};
    auto exe = Executable::compile(sub, one);
    std::vector<TensorRef> sub_in;
    for (int v : sub->inputs) {
      const OwnedTensor& t = by_name.at(sub->values[v].name);
      sub_in.push_back({t.desc, t.data(), Device{}});
    }
    std::vector<int> all(sub->outputs.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    std::vector<OwnedTensor> r = exe->run(sub_in, all);
    for (size_t i = 0; i < r.size(); ++i) by_name[sub->values[sub->outputs[i]].name] = r[i];
  }
  EXPECT_EQ(values_of<uint8_t>(by_name.at("neg")), values_of<uint8_t>(expected[0]));
  EXPECT_EQ(values_of<float>(by_name.at("d")), values_of<float>(expected[1]));
  EXPECT_EQ(values_of<float>(expected[1]), (std::vector<float>{0, 8, 0, 32}));
}

TEST(ExecutorExtract, ProfileNamesEachNodeItsSetAndShapes) {
  ExecutorOptions opt;
  opt.profile = true;
  auto exe = Executable::compile(mixed(), dev_first(), opt);
  HostTensor x = floats({2, 3}, {1, 0, 1, 0, 1, 2});
  const std::array<TensorRef, 1> in{x.ref()};
  const std::array<int, 1> outs{1};  // d only: Less does not run
  exe->run(in, outs);
  exe->run(in, outs);
  const std::vector<ProfileEvent> events = exe->take_profile();
  ASSERT_EQ(events.size(), 8u);
  std::map<std::string, int> count;
  for (size_t i = 0; i < events.size(); ++i) {
    const ProfileEvent& e = events[i];
    ++count[e.node];
    if (i) {
      EXPECT_GE(e.start_ns, events[i - 1].start_ns);
    }
    EXPECT_GE(e.duration_ns, 0);
    EXPECT_EQ(e.thread, events[0].thread);
    if (e.node == "m") {
      EXPECT_EQ(e.op, "MatMul");
      EXPECT_EQ(e.set, "test.dev");
      EXPECT_EQ(e.input_shapes, (std::vector<Dims>{{2, 3}, {3, 2}}));
    }
    if (e.node == "c") {
      EXPECT_EQ(e.set, "test.host");
    }
  }
  EXPECT_EQ(count, (std::map<std::string, int>{{"m", 2}, {"a", 2}, {"c", 2}, {"d", 2}}));
  EXPECT_TRUE(exe->take_profile().empty());

  auto quiet = Executable::compile(mixed(), dev_first());
  quiet->run(in, outs);
  EXPECT_TRUE(quiet->take_profile().empty());
}

}  // namespace
}  // namespace geon
