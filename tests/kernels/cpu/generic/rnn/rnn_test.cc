// cpu.generic RNN, GRU and LSTM against a naive per-step reference written from the ONNX
// equations: every direction, both layouts, unequal sequence_lens, initial states, biases,
// LSTM peepholes and input_forget, GRU linear_before_reset, custom activations with
// alpha/beta, clip, strided inputs, double and half types, constant (prepacked) weights,
// omitted optional inputs and outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "kernels/cpu/generic/rnn/rnn.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Act {
  std::string name;
  double alpha = 0, beta = 0;
};

double act(const Act& a, double x) {
  const std::string& n = a.name;
  if (n == "Relu") return std::max(x, 0.0);
  if (n == "Tanh") return std::tanh(x);
  if (n == "Sigmoid") return 1 / (1 + std::exp(-x));
  if (n == "Affine") return a.alpha * x + a.beta;
  if (n == "LeakyRelu") return x >= 0 ? x : a.alpha * x;
  if (n == "ThresholdedRelu") return x > a.alpha ? x : 0;
  if (n == "ScaledTanh") return a.alpha * std::tanh(a.beta * x);
  if (n == "HardSigmoid") return std::min(std::max(a.alpha * x + a.beta, 0.0), 1.0);
  if (n == "Elu") return x >= 0 ? x : a.alpha * (std::exp(x) - 1);
  if (n == "Softsign") return x / (1 + std::abs(x));
  if (n == "Softplus") return std::log(1 + std::exp(x));
  ADD_FAILURE() << "unknown activation " << n;
  return 0;
}

// One test case: the op's configuration and its inputs (in ONNX layouts).
struct Case {
  std::string op = "LSTM";  // RNN, GRU, LSTM
  std::string direction = "forward";
  int layout = 0;
  int64_t S = 3, B = 2, I = 3, H = 4;
  double clip = 0;
  bool lbr = false, input_forget = false;
  bool bias = true, lens = false, init_h = false, init_c = false, peep = false;
  std::vector<Act> acts;  // empty: the defaults
  std::vector<int64_t> seq_lens;
  DType dtype = DType::kFloat;
  bool strided = false;
  bool hidden_attr = true;        // false: hidden_size comes from R
  bool constant_weights = false;  // W and R constants: prepacked when the kernel is made
  int opset = 0;                  // 0: 7, or 14 for layout 1

  int gates() const { return op == "RNN" ? 1 : op == "GRU" ? 3 : 4; }
  int64_t dirs() const { return direction == "bidirectional" ? 2 : 1; }
  int per_dir() const { return op == "RNN" ? 1 : op == "GRU" ? 2 : 3; }
};

struct Inputs {
  Host X, W, R, Bias, lens, h0, c0, P;
};

Inputs make_inputs(Case& c, std::mt19937& rng) {
  const int64_t D = c.dirs(), G = c.gates() * c.H;
  Inputs in;
  const Dims xs = c.layout == 0 ? Dims{c.S, c.B, c.I} : Dims{c.B, c.S, c.I};
  const Dims hs = c.layout == 0 ? Dims{D, c.B, c.H} : Dims{c.B, D, c.H};
  in.X = Host::random(c.dtype, xs, rng, -1, 1);
  in.W = Host::random(c.dtype, {D, G, c.I}, rng, -0.6, 0.6);
  in.R = Host::random(c.dtype, {D, G, c.H}, rng, -0.6, 0.6);
  if (c.bias) in.Bias = Host::random(c.dtype, {D, 2 * G}, rng, -0.5, 0.5);
  if (c.lens) {
    if (c.seq_lens.empty())
      for (int64_t b = 0; b < c.B; ++b)
        c.seq_lens.push_back(std::uniform_int_distribution<int64_t>(1, c.S)(rng));
    in.lens =
        Host::of(DType::kInt32, {c.B}, std::vector<double>(c.seq_lens.begin(), c.seq_lens.end()));
  }
  if (c.init_h) in.h0 = Host::random(c.dtype, hs, rng, -1, 1);
  if (c.init_c) in.c0 = Host::random(c.dtype, hs, rng, -1, 1);
  if (c.peep) in.P = Host::random(c.dtype, {D, 3 * c.H}, rng, -0.5, 0.5);
  if (c.strided) {
    in.X = in.X.strided({2, 0, 1});
    in.W = in.W.strided({1, 2, 0});
    in.R = in.R.strided({2, 1, 0});
    if (c.init_h) in.h0 = in.h0.strided({2, 1, 0});
  }
  return in;
}

// The reference outputs in layout 0: Y (S, D, B, H), Y_h and Y_c (D, B, H).
struct Outs {
  std::vector<double> y, yh, yc;
};

Outs reference(const Case& c, const Inputs& in) {
  const int64_t S = c.S, Bn = c.B, I = c.I, H = c.H, D = c.dirs(), G = c.gates() * H;
  auto x = [&](int64_t t, int64_t b, int64_t k) {
    return c.layout == 0 ? in.X.at((t * Bn + b) * I + k) : in.X.at((b * S + t) * I + k);
  };
  auto state0 = [&](const Host& h, bool given, int64_t d, int64_t b, int64_t j) {
    if (!given) return 0.0;
    return c.layout == 0 ? h.at((d * Bn + b) * H + j) : h.at((b * D + d) * H + j);
  };
  std::vector<Act> acts = c.acts;
  if (acts.empty())
    for (int64_t d = 0; d < D; ++d) {
      if (c.op == "RNN") acts.push_back({"Tanh"});
      if (c.op != "RNN") acts.push_back({"Sigmoid"}), acts.push_back({"Tanh"});
      if (c.op == "LSTM") acts.push_back({"Tanh"});
    }
  auto clipped = [&](double v) { return c.clip > 0 ? std::min(std::max(v, -c.clip), c.clip) : v; };
  Outs o;
  o.y.assign(S * D * Bn * H, 0.0);
  o.yh.assign(D * Bn * H, 0.0);
  o.yc.assign(D * Bn * H, 0.0);
  for (int64_t d = 0; d < D; ++d) {
    const Act* a = acts.data() + d * c.per_dir();
    const bool rev = c.direction == "reverse" || d == 1;
    auto w = [&](int64_t gate, int64_t j, int64_t k) {
      return in.W.at((d * G + gate * H + j) * I + k);
    };
    auto r = [&](int64_t gate, int64_t j, int64_t k) {
      return in.R.at((d * G + gate * H + j) * H + k);
    };
    auto wb = [&](int64_t gate, int64_t j) {
      return c.bias ? in.Bias.at(d * 2 * G + gate * H + j) : 0.0;
    };
    auto rb = [&](int64_t gate, int64_t j) {
      return c.bias ? in.Bias.at(d * 2 * G + G + gate * H + j) : 0.0;
    };
    auto p = [&](int64_t which, int64_t j) {
      return c.peep ? in.P.at(d * 3 * H + which * H + j) : 0.0;
    };
    for (int64_t b = 0; b < Bn; ++b) {
      const int64_t len = c.lens ? c.seq_lens[b] : S;
      std::vector<double> h(H), cs(H);
      for (int64_t j = 0; j < H; ++j)
        h[j] = state0(in.h0, c.init_h, d, b, j), cs[j] = state0(in.c0, c.init_c, d, b, j);
      for (int64_t step = 0; step < len; ++step) {
        const int64_t t = rev ? len - 1 - step : step;
        // xg(gate, j) = Xt·Wgate^T, hg(gate, j, hv) = hv·Rgate^T
        auto xg = [&](int64_t gate, int64_t j) {
          double s = 0;
          for (int64_t k = 0; k < I; ++k) s += x(t, b, k) * w(gate, j, k);
          return s;
        };
        auto hg = [&](int64_t gate, int64_t j, const std::vector<double>& hv) {
          double s = 0;
          for (int64_t k = 0; k < H; ++k) s += hv[k] * r(gate, j, k);
          return s;
        };
        std::vector<double> hn(H), cn(H);
        if (c.op == "RNN") {
          for (int64_t j = 0; j < H; ++j)
            hn[j] = act(a[0], clipped(xg(0, j) + hg(0, j, h) + wb(0, j) + rb(0, j)));
        } else if (c.op == "GRU") {
          std::vector<double> z(H), rr(H), rh(H);
          for (int64_t j = 0; j < H; ++j) {
            z[j] = act(a[0], clipped(xg(0, j) + hg(0, j, h) + wb(0, j) + rb(0, j)));
            rr[j] = act(a[0], clipped(xg(1, j) + hg(1, j, h) + wb(1, j) + rb(1, j)));
            rh[j] = rr[j] * h[j];
          }
          for (int64_t j = 0; j < H; ++j) {
            const double pre = c.lbr ? xg(2, j) + rr[j] * (hg(2, j, h) + rb(2, j)) + wb(2, j)
                                     : xg(2, j) + hg(2, j, rh) + rb(2, j) + wb(2, j);
            const double ht = act(a[1], clipped(pre));
            hn[j] = (1 - z[j]) * ht + z[j] * h[j];
          }
        } else {  // LSTM, gates i o f c
          for (int64_t j = 0; j < H; ++j) {
            const double i =
                act(a[0], clipped(xg(0, j) + hg(0, j, h) + p(0, j) * cs[j] + wb(0, j) + rb(0, j)));
            const double f = c.input_forget
                                 ? 1 - i
                                 : act(a[0], clipped(xg(2, j) + hg(2, j, h) + p(2, j) * cs[j] +
                                                     wb(2, j) + rb(2, j)));
            const double g = act(a[1], clipped(xg(3, j) + hg(3, j, h) + wb(3, j) + rb(3, j)));
            cn[j] = f * cs[j] + i * g;
            const double og =
                act(a[0], clipped(xg(1, j) + hg(1, j, h) + p(1, j) * cn[j] + wb(1, j) + rb(1, j)));
            hn[j] = og * act(a[2], cn[j]);
          }
        }
        h = hn;
        if (c.op == "LSTM") cs = cn;
        for (int64_t j = 0; j < H; ++j) o.y[((t * D + d) * Bn + b) * H + j] = h[j];
      }
      // A sequence of length 0 leaves zero states (ONNX Runtime's answer; the spec is silent).
      for (int64_t j = 0; j < H; ++j)
        o.yh[(d * Bn + b) * H + j] = len ? h[j] : 0, o.yc[(d * Bn + b) * H + j] = len ? cs[j] : 0;
    }
  }
  return o;
}

// Runs the case through cpu.generic and compares every requested output with the reference.
// The node of the case over its inputs, with its first `outputs` outputs.
void build(const Case& c, const Inputs& in, int outputs, NodeGraph& ng) {
  const int64_t S = c.S, Bn = c.B, D = c.dirs(), H = c.H;
  ng.in(in.X).in(in.W, c.constant_weights).in(in.R, c.constant_weights);
  const bool lstm = c.op == "LSTM";
  const int num_in = lstm ? 8 : 6;
  const Host* opt[] = {&in.Bias, &in.lens, &in.h0, &in.c0, &in.P};
  const bool given[] = {c.bias, c.lens, c.init_h, c.init_c, c.peep};
  int last = 2;
  for (int i = 3; i < num_in; ++i)
    if (given[i - 3]) last = i;
  for (int i = 3; i <= last; ++i) {
    if (given[i - 3])
      ng.in(*opt[i - 3]);
    else
      ng.omitted();
  }
  const Dims ys = c.layout == 0 ? Dims{S, D, Bn, H} : Dims{Bn, S, D, H};
  const Dims hs = c.layout == 0 ? Dims{D, Bn, H} : Dims{Bn, D, H};
  const int nout = std::min(outputs, lstm ? 3 : 2);
  ng.out(c.dtype, ys);
  if (nout > 1) ng.out(c.dtype, hs);
  if (nout > 2) ng.out(c.dtype, hs);
  if (c.hidden_attr) ng.attr_i("hidden_size", H);
  ng.attr_s("direction", c.direction);
  if (c.layout) ng.attr_i("layout", c.layout);
  if (c.clip > 0) ng.attr_f("clip", static_cast<float>(c.clip));
  if (c.lbr) ng.attr_i("linear_before_reset", 1);
  if (c.input_forget) ng.attr_i("input_forget", 1);
  if (!c.acts.empty()) {
    Attribute names, alphas, betas;
    names.kind = Attribute::Kind::kStrings;
    alphas.kind = betas.kind = Attribute::Kind::kFloats;
    for (const Act& a : c.acts) {
      names.strings.push_back(a.name);
      // The lists carry values only for the activations that take them, in order.
      const std::string& n = a.name;
      if (n == "Affine" || n == "LeakyRelu" || n == "ThresholdedRelu" || n == "ScaledTanh" ||
          n == "HardSigmoid" || n == "Elu")
        alphas.floats.push_back(static_cast<float>(a.alpha));
      if (n == "Affine" || n == "ScaledTanh" || n == "HardSigmoid")
        betas.floats.push_back(static_cast<float>(a.beta));
    }
    ng.node->attrs["activations"] = names;
    if (!alphas.floats.empty()) ng.node->attrs["activation_alpha"] = alphas;
    if (!betas.floats.empty()) ng.node->attrs["activation_beta"] = betas;
  }
}

int opset_of(const Case& c) { return c.opset ? c.opset : c.layout ? 14 : 7; }

void check(Case c, uint32_t seed, int outputs = 3) {
  std::mt19937 rng(seed);
  const Inputs in = make_inputs(c, rng);
  const int64_t S = c.S, Bn = c.B, D = c.dirs(), H = c.H;
  NodeGraph ng(c.op, opset_of(c));
  build(c, in, outputs, ng);
  const int nout = static_cast<int>(ng.node->outputs.size());
  const Dims ys = c.layout == 0 ? Dims{S, D, Bn, H} : Dims{Bn, S, D, H};
  const Dims hs = c.layout == 0 ? Dims{D, Bn, H} : Dims{Bn, D, H};
  const std::vector<Host> got = ng.run(gen());
  const Outs want = reference(c, in);
  const double tol = c.dtype == DType::kDouble ? 1e-9 : c.dtype == DType::kFloat ? 1e-4 : 3e-3;
  // Layout 1 positions mapped back to the reference's layout-0 index.
  auto y_at = [&](int64_t i) {
    if (c.layout == 0) return want.y[i];
    const int64_t h = i % H, d = i / H % D, t = i / (H * D) % S, b = i / (H * D * S);
    return want.y[((t * D + d) * Bn + b) * H + h];
  };
  auto state_at = [&](const std::vector<double>& v, int64_t i) {
    if (c.layout == 0) return v[i];
    const int64_t h = i % H, d = i / H % D, b = i / (H * D);
    return v[(d * Bn + b) * H + h];
  };
  SCOPED_TRACE(c.op + " " + c.direction + " layout " + std::to_string(c.layout));
  expect_values(got[0], ys, y_at, tol);
  if (nout > 1)
    expect_values(
        got[1], hs, [&](int64_t i) { return state_at(want.yh, i); }, tol);
  if (nout > 2)
    expect_values(
        got[2], hs, [&](int64_t i) { return state_at(want.yc, i); }, tol);
}

const char* const kOps[] = {"RNN", "GRU", "LSTM"};
const char* const kDirs[] = {"forward", "reverse", "bidirectional"};

TEST(CpuGenericRnn, EveryOpDirectionAndLayoutMatchesTheEquations) {
  uint32_t seed = 1;
  for (const char* op : kOps)
    for (const char* dir : kDirs)
      for (int layout : {0, 1}) {
        Case c;
        c.op = op;
        c.direction = dir;
        c.layout = layout;
        c.S = 4, c.B = 3, c.I = 5, c.H = 3;
        c.init_h = true;
        c.init_c = std::string(op) == "LSTM";
        c.constant_weights = layout == 1;
        check(c, seed++);
      }
}

TEST(CpuGenericRnn, UnequalSequenceLensZeroTheTailAndKeepTheLastValidState) {
  uint32_t seed = 100;
  for (const char* op : kOps)
    for (const char* dir : kDirs)
      for (int layout : {0, 1}) {
        Case c;
        c.op = op;
        c.direction = dir;
        c.layout = layout;
        c.S = 5, c.B = 4, c.I = 2, c.H = 3;
        c.lens = true;
        c.seq_lens = {5, 2, 1, 3};
        c.init_h = layout == 1;
        check(c, seed++);
      }
  // A zero length leaves Y and the states zero, whatever the initial state.
  for (const char* op : kOps) {
    Case z;
    z.op = op;
    z.direction = "bidirectional";
    z.lens = true;
    z.seq_lens = {0, 3};
    z.init_h = z.init_c = true;
    check(z, 7);
  }
}

TEST(CpuGenericRnn, OmittedBiasAndInitialStatesAreZero) {
  uint32_t seed = 200;
  for (const char* op : kOps) {
    Case c;
    c.op = op;
    c.bias = false;
    check(c, seed++);
  }
}

TEST(CpuGenericRnn, LstmPeepholesInputForgetAndClip) {
  uint32_t seed = 300;
  for (bool forget : {false, true})
    for (const char* dir : kDirs) {
      Case c;
      c.direction = dir;
      c.peep = true;
      c.input_forget = forget;
      c.init_h = c.init_c = true;
      c.clip = forget ? 0.7 : 0;
      c.lens = true;
      check(c, seed++);
    }
}

TEST(CpuGenericRnn, GruLinearBeforeResetBothWays) {
  uint32_t seed = 400;
  for (bool lbr : {false, true})
    for (const char* dir : kDirs) {
      Case c;
      c.op = "GRU";
      c.direction = dir;
      c.lbr = lbr;
      c.init_h = true;
      c.S = 6, c.B = 5, c.I = 4, c.H = 7;
      check(c, seed++);
    }
}

TEST(CpuGenericRnn, CustomActivationsWithAlphaAndBeta) {
  Case r;
  r.op = "RNN";
  r.direction = "bidirectional";
  r.acts = {{"LeakyRelu", 0.2}, {"Affine", 0.5, -0.1}};
  check(r, 501);
  Case g;
  g.op = "GRU";
  g.direction = "bidirectional";
  g.acts = {{"HardSigmoid", 0.3, 0.4}, {"Softsign"}, {"Sigmoid"}, {"Elu", 0.8}};
  check(g, 502);
  Case l;
  l.direction = "bidirectional";
  l.clip = 1.5;
  l.acts = {{"Sigmoid"}, {"ScaledTanh", 0.9, 1.2}, {"Softplus"}, {"HardSigmoid", 0.25, 0.45},
            {"Relu"},    {"ThresholdedRelu", 0.1}};
  check(l, 503);
  Case t;
  t.op = "RNN";
  t.acts = {{"Tanh"}};
  t.clip = 0.3;
  check(t, 504);
}

TEST(CpuGenericRnn, ReluActivationKeepsNaN) {
  // ONNX's Relu is max(0, x), NaN for NaN (as the Relu op; `x > 0 ? x : 0` gave 0).
  rnn::Activation relu;
  relu.kind = rnn::Activation::Kind::kRelu;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {nan, -1.5f, 2.0f};
  rnn::activate(relu, 0.0f, x.data(), 3);
  EXPECT_TRUE(std::isnan(x[0]));
  EXPECT_EQ(x[1], 0.0f);
  EXPECT_EQ(x[2], 2.0f);
  std::vector<double> xd = {double(nan), -1.0};
  rnn::activate(relu, 0.0f, xd.data(), 2);
  EXPECT_TRUE(std::isnan(xd[0]));
  EXPECT_EQ(xd[1], 0.0);
}

TEST(CpuGenericRnn, StridedInputsAndDoubles) {
  uint32_t seed = 600;
  for (const char* op : kOps)
    for (DType dt : {DType::kFloat, DType::kDouble}) {
      Case c;
      c.op = op;
      c.constant_weights = dt == DType::kDouble;
      c.direction = "bidirectional";
      c.strided = true;
      c.init_h = true;
      c.dtype = dt;
      c.layout = dt == DType::kDouble;
      check(c, seed++);
    }
}

TEST(CpuGenericRnn, HalfPrecisionComputesInFloat) {
  uint32_t seed = 650;
  for (const char* op : kOps)
    for (DType dt : {DType::kFloat16, DType::kBFloat16}) {
      Case c;
      c.op = op;
      c.constant_weights = dt == DType::kFloat16;
      c.dtype = dt;
      c.init_h = true;
      check(c, seed++);
    }
}

TEST(CpuGenericRnn, EarlyOpsetsAndHiddenSizeFromR) {
  Case g;
  g.op = "GRU";
  g.opset = 3;
  g.lbr = true;
  g.hidden_attr = false;
  check(g, 660);
  Case l;
  l.opset = 1;
  l.peep = true;
  l.hidden_attr = false;
  check(l, 661);
  Case r;
  r.op = "RNN";
  r.opset = 1;
  r.direction = "reverse";
  check(r, 662);
}

TEST(CpuGenericRnn, LargerShapesUseTheThreadedGemm) {
  Case c;
  c.S = 7, c.B = 9, c.I = 33, c.H = 40;
  c.direction = "bidirectional";
  c.lens = true;
  c.init_h = c.init_c = true;
  check(c, 700);
  Case g = c;
  g.op = "GRU";
  g.seq_lens.clear();
  check(g, 701);
}

// 8192 rows x 8 gate columns leave room for 64 steps per projection window (rnn.cc), so 66
// steps need two windows in each direction.
TEST(CpuGenericRnn, LongSequencesAreProjectedInWindows) {
  Case c;
  c.S = 66, c.B = 8192, c.I = 2, c.H = 2;
  c.direction = "bidirectional";
  c.lens = true;
  check(c, 750);
}

TEST(CpuGenericRnn, TrailingOutputsMayBeOmitted) {
  Case c;
  c.direction = "reverse";
  check(c, 800, 1);  // Y only
  check(c, 801, 2);  // Y and Y_h, no Y_c
}

// One kernel (its weights prepacked once) computing on four threads at once: every thread gets
// the result of a run on its own.
TEST(CpuGenericRnn, OneKernelComputesOnSeveralThreadsAtOnce) {
  Case c;
  c.S = 6, c.B = 5, c.I = 24, c.H = 40;
  c.direction = "bidirectional";
  c.lens = c.init_h = c.init_c = c.peep = c.constant_weights = true;
  std::mt19937 rng(950);
  const Inputs in = make_inputs(c, rng);
  NodeGraph ng(c.op, opset_of(c));
  build(c, in, 3, ng);
  const std::vector<Host> want = ng.run(gen());
  const auto kernel = find_kernel(gen(), *ng.node)->create(ng.g, *ng.node);
  constexpr int kThreads = 4;
  std::vector<std::vector<Host>> got(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int round = 0; round < 5; ++round) {
          FakeContext ctx(ng.inputs, {DType::kFloat, DType::kFloat, DType::kFloat});
          for (int o = 0; o < 3; ++o) ctx.plan(o, want[o].shape());
          kernel->compute(ctx);
          got[t] = {ctx.result(0), ctx.result(1), ctx.result(2)};
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(errors[t], "") << "thread " << t;
    for (int o = 0; o < 3; ++o)
      expect_values(
          got[t][o], want[o].shape(), [&](int64_t i) { return want[o].at(i); }, 0);
  }
}

TEST(CpuGenericRnn, RefusesUnknownActivationAndRejectsBadSequenceLens) {
  std::mt19937 rng(900);
  NodeGraph ng("RNN", 7);
  ng.in(Host::random(DType::kFloat, {2, 1, 2}, rng))
      .in(Host::random(DType::kFloat, {1, 3, 2}, rng))
      .in(Host::random(DType::kFloat, {1, 3, 3}, rng))
      .out(DType::kFloat, {2, 1, 1, 3});
  Attribute names;
  names.kind = Attribute::Kind::kStrings;
  names.strings = {"Gelu"};
  ng.node->attrs["activations"] = names;
  const auto why = ng.supports(gen());
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("Gelu"), std::string::npos) << *why;

  NodeGraph bad("GRU", 7);
  bad.in(Host::random(DType::kFloat, {2, 1, 2}, rng))
      .in(Host::random(DType::kFloat, {1, 9, 2}, rng))
      .in(Host::random(DType::kFloat, {1, 9, 3}, rng))
      .omitted()
      .in(Host::of(DType::kInt32, {1}, {3}))
      .out(DType::kFloat, {2, 1, 1, 3});
  expect_error(bad, gen(), ErrorCode::kInvalidArgument, {"GRU", "sequence_lens", "3"});
}

}  // namespace
}  // namespace geon::cpu::testing
