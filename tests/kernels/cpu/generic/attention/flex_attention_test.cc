// cpu.generic FlexAttention (ai.onnx.preview) against a naive softmax(scale Q K^T) V: GQA,
// different value head size, explicit scale (0 included), double and float16, strided inputs,
// and score_mod / prob_mod graphs built by hand (an elementwise graph with a constant), which
// the kernel compiles and runs on the whole score tensor; bad shapes are clear errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// A one-node modifier graph: out = op(in, constant), on float tensors of `shape`.
std::shared_ptr<Graph> modifier(const Graph& parent, const std::string& op, float constant,
                                const Dims& shape) {
  auto g = std::make_shared<Graph>();
  g->axis_factory = parent.axis_factory;
  g->parent = &parent;
  std::vector<Axis> axes;
  for (int64_t len : shape) axes.push_back(make_axis(*g->axis_factory, "", Length::known(len)));
  Value in;
  in.name = "mod_in";
  in.type.dtype = DType::kFloat;
  in.axes = Axes(axes);
  in.rank_known = true;
  in.kind = ValueKind::kInput;
  const int x = g->add_value(in);
  Value c;
  c.name = "mod_constant";
  c.type.dtype = DType::kFloat;
  c.rank_known = true;
  c.kind = ValueKind::kConstant;
  auto data = make_tensor_data(DType::kFloat, {});
  std::memcpy(data->storage->data(), &constant, sizeof constant);
  c.data = data;
  const int k = g->add_value(c);
  Value out;
  out.name = "mod_out";
  out.type.dtype = DType::kFloat;
  out.axes = Axes(axes);
  out.rank_known = true;
  out.producer = 0;
  const int y = g->add_value(out);
  Node n;
  n.op = op;
  n.opset = 13;
  n.inputs = {x, k};
  n.outputs = {y};
  g->nodes.push_back(n);
  g->inputs = {x};
  g->outputs = {y};
  return g;
}

void attach(NodeGraph& ng, const char* name, std::shared_ptr<Graph> g) {
  Attribute a;
  a.kind = Attribute::Kind::kGraph;
  a.g = std::move(g);
  ng.node->attrs[name] = a;
}

struct Case {
  int64_t B = 2, Hq = 4, Hkv = 2, L = 3, S = 5, E = 4, Ev = 6;
  std::optional<float> scale;
  DType t = DType::kFloat;
  bool strided = false;
  float score_add = 0, prob_mul = 0;  // nonzero: a score_mod Add / prob_mod Mul
};

void check(const Case& c, double tol = 1e-5) {
  std::mt19937 rng(static_cast<unsigned>(c.Hq * 11 + c.S));
  auto make = [&](const Dims& shape) {
    Host h = Host::random(c.t, shape, rng, -1, 1);
    return c.strided ? h.strided({0, 2, 1, 3}) : h;
  };
  const Host q = make({c.B, c.Hq, c.L, c.E}), k = make({c.B, c.Hkv, c.S, c.E});
  const Host v = make({c.B, c.Hkv, c.S, c.Ev});
  NodeGraph ng("FlexAttention", 1);
  ng.node->domain = "ai.onnx.preview";
  ng.in(q).in(k).in(v).out(c.t, {c.B, c.Hq, c.L, c.Ev});
  if (c.scale) ng.attr_f("scale", *c.scale);
  const Dims scores{c.B, c.Hq, c.L, c.S};
  if (c.score_add != 0) attach(ng, "score_mod", modifier(ng.g, "Add", c.score_add, scores));
  if (c.prob_mul != 0) attach(ng, "prob_mod", modifier(ng.g, "Mul", c.prob_mul, scores));
  ASSERT_FALSE(ng.supports(gen())) << *ng.supports(gen());
  const Host y = ng.run(gen())[0];
  // The reference pre-scales Q and K by sqrt(scale) computed in float.
  const double root = std::sqrt(static_cast<float>(c.scale ? *c.scale : 1 / std::sqrt(c.E)));
  const double scale = root * root;
  const int64_t G = c.Hq / c.Hkv;
  expect_values(
      y, {c.B, c.Hq, c.L, c.Ev},
      [&](int64_t i) {
        const int64_t e = i % c.Ev, l = (i / c.Ev) % c.L, h = (i / (c.Ev * c.L)) % c.Hq;
        const int64_t b = i / (c.Ev * c.L * c.Hq), kv = h / G;
        std::vector<double> s(c.S);
        double best = -INFINITY, sum = 0, out = 0;
        for (int64_t j = 0; j < c.S; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < c.E; ++d)
            dot += q.at(((b * c.Hq + h) * c.L + l) * c.E + d) *
                   k.at(((b * c.Hkv + kv) * c.S + j) * c.E + d);
          s[j] = dot * scale + c.score_add;
          best = std::max(best, s[j]);
        }
        for (double& x : s) sum += (x = std::exp(x - best));
        for (int64_t j = 0; j < c.S; ++j)
          out += s[j] / sum * (c.prob_mul != 0 ? c.prob_mul : 1) *
                 v.at(((b * c.Hkv + kv) * c.S + j) * c.Ev + e);
        return out;
      },
      tol);
}

TEST(CpuGenericFlexAttention, MatchesSoftmaxAttention) {
  check({});
  Case mha;
  mha.Hkv = 4, mha.Ev = 4, mha.strided = true;
  check(mha);
  Case scaled;
  scaled.scale = 0.1f;
  check(scaled);
  Case zero;  // an explicit 0 is a scale, not the default: uniform weights
  zero.scale = 0.0f;
  check(zero);
  Case dbl;
  dbl.t = DType::kDouble;
  check(dbl, 1e-9);
  Case half;
  half.t = DType::kFloat16;
  check(half, 3e-3);
  Case bf;
  bf.t = DType::kBFloat16, bf.Hkv = 1;
  check(bf, 3e-2);
}

TEST(CpuGenericFlexAttention, ModifierGraphsRunOnTheScoresAndProbabilities) {
  Case score;
  score.score_add = 0.5f;  // a constant shift: softmax is unchanged, the graph still runs
  check(score);
  Case prob;
  prob.prob_mul = 0.5f;
  check(prob);
  Case both;
  both.score_add = -1, both.prob_mul = 2, both.Hkv = 1;
  check(both);
}

TEST(CpuGenericFlexAttention, BadInputsAreClearErrors) {
  auto node = [](const Dims& q, const Dims& k, const Dims& v) {
    auto ng = std::make_unique<NodeGraph>("FlexAttention", 1);
    ng->node->domain = "ai.onnx.preview";
    ng->in(Host::of(DType::kFloat, q, {})).in(Host::of(DType::kFloat, k, {}));
    ng->in(Host::of(DType::kFloat, v, {})).out(DType::kFloat);
    return ng;
  };
  expect_error(*node({1, 3, 2, 4}, {1, 2, 2, 4}, {1, 2, 2, 4}), gen(), ErrorCode::kInvalidArgument,
               {"FlexAttention", "multiple"});
  expect_error(*node({1, 2, 2, 4}, {1, 2, 2, 3}, {1, 2, 2, 4}), gen(), ErrorCode::kInvalidArgument,
               {"head size"});
  expect_error(*node({1, 2, 2, 4}, {1, 2, 3, 4}, {1, 2, 2, 4}), gen(), ErrorCode::kInvalidArgument,
               {"sequence length"});
  expect_error(*node({1, 2, 4}, {1, 2, 4}, {1, 2, 4}), gen(), ErrorCode::kInvalidArgument,
               {"rank 4"});
  // A modifier graph whose input shape does not fit the scores.
  auto wrong = node({1, 2, 2, 4}, {1, 2, 3, 4}, {1, 2, 3, 4});
  attach(*wrong, "score_mod", modifier(wrong->g, "Add", 1, {1, 2, 2, 2}));
  expect_error(*wrong, gen(), ErrorCode::kInvalidArgument, {"score_mod"});
  // Empty head sizes with huge head and sequence counts: the scores are checked first.
  expect_error(*node({1, int64_t{1} << 30, int64_t{1} << 10, 0}, {1, 1, 5, 0}, {1, 1, 5, 0}), gen(),
               ErrorCode::kResourceExhausted, {"scores"});
  NodeGraph ints("FlexAttention", 1);
  ints.node->domain = "ai.onnx.preview";
  for (int i = 0; i < 3; ++i) ints.in(Host::of(DType::kInt32, {1, 1, 1, 1}, {}));
  ints.out(DType::kInt32);
  ASSERT_TRUE(ints.supports(gen()));
}

}  // namespace
}  // namespace geon::cpu::testing
