// The recurrent layers RNN, GRU and LSTM on cpu.generic: attributes, the driver shared by the
// three (inputs made dense in the compute type, weights transposed once, the input projection
// of many time steps in one GEMM, then the recurrence step by step per direction,
// sequence_lens, both layouts) and RNN's own step. GRU's and LSTM's steps: gru.cc, lstm.cc.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <type_traits>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/rnn/rnn.h"

namespace geon::cpu {
namespace rnn {

template <class T>
void rnn_step(const Step<T>& s) {
  // Ht = f(Xt·Wi^T + Ht-1·Ri^T + Wbi + Rbi)
  const int64_t B = s.batch, H = s.hidden;
  std::copy(s.xw, s.xw + B * H, s.h_new);
  gemm(B, H, H, s.h, H, s.rt, s.ldr, s.h_new, H);
  activate(s.acts[0], s.spec->clip, s.h_new, B * H);
}

namespace {

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// The kind, and how many of alpha and beta it takes with their ONNX defaults.
struct ActInfo {
  const char* name;
  Activation::Kind kind;
  int params;  // 0: none, 1: alpha, 2: alpha and beta
  float alpha, beta;
};
const ActInfo kActs[] = {
    {"relu", Activation::Kind::kRelu, 0, 0, 0},
    {"tanh", Activation::Kind::kTanh, 0, 0, 0},
    {"sigmoid", Activation::Kind::kSigmoid, 0, 0, 0},
    {"affine", Activation::Kind::kAffine, 2, 1.f, 0.f},
    {"leakyrelu", Activation::Kind::kLeakyRelu, 1, 0.01f, 0},
    {"thresholdedrelu", Activation::Kind::kThresholdedRelu, 1, 1.f, 0},
    {"scaledtanh", Activation::Kind::kScaledTanh, 2, 1.f, 1.f},
    {"hardsigmoid", Activation::Kind::kHardSigmoid, 2, 0.2f, 0.5f},
    {"elu", Activation::Kind::kElu, 1, 1.f, 0},
    {"softsign", Activation::Kind::kSoftsign, 0, 0, 0},
    {"softplus", Activation::Kind::kSoftplus, 0, 0, 0},
};

// activations with activation_alpha / activation_beta. The lists hold values only for the
// activations that take them, in order (as ONNX Runtime reads them); a missing value is the
// activation's ONNX default.
Reason read_activations(const Node& n, int per_dir, int dirs, std::vector<Activation>& acts) {
  std::vector<std::string> names;
  if (const Attribute* a = n.attr("activations")) names = a->strings;
  if (names.empty()) {
    const char* dflt[] = {"sigmoid", "tanh", "tanh"};  // GRU f, g; LSTM f, g, h
    for (int d = 0; d < dirs; ++d)
      for (int k = 0; k < per_dir; ++k) names.push_back(per_dir == 1 ? "tanh" : dflt[k]);
  }
  if (names.size() != static_cast<size_t>(per_dir * dirs))
    return n.op + ": 'activations' has " + std::to_string(names.size()) + " entries, expected " +
           std::to_string(per_dir * dirs);
  std::vector<float> alphas, betas;
  if (const Attribute* a = n.attr("activation_alpha")) alphas = a->floats;
  if (const Attribute* a = n.attr("activation_beta")) betas = a->floats;
  size_t ai = 0, bi = 0;
  for (const std::string& name : names) {
    const ActInfo* info = nullptr;
    for (const ActInfo& x : kActs)
      if (lower(name) == x.name) info = &x;
    if (!info) return n.op + ": activation function '" + name + "' is not supported";
    Activation act{info->kind, info->alpha, info->beta};
    if (info->params >= 1 && ai < alphas.size()) act.alpha = alphas[ai++];
    if (info->params >= 2 && bi < betas.size()) act.beta = betas[bi++];
    acts.push_back(act);
  }
  return std::nullopt;
}

template <class T>
constexpr DType dtype_of() {
  return std::is_same_v<T, double> ? DType::kDouble : DType::kFloat;
}

// A dense row-major copy of `view` (any strides, any float dtype) in the compute type.
template <class T>
std::vector<T> dense(const TensorDesc& view, const void* data) {
  std::vector<T> out(static_cast<size_t>(element_count(view)));
  if (!out.empty())
    assign(Operand{row_major(dtype_of<T>(), view.shape), out.data()}, ConstOperand(view, data));
  return out;
}

// Input i of the run, or null when omitted.
const TensorRef* given(const KernelContext& ctx, int i) {
  if (i >= ctx.num_inputs()) return nullptr;
  const TensorRef& t = ctx.input(i);
  return t.data ? &t : nullptr;
}

void check_shape(const std::string& op, const TensorDesc& d, const Dims& want, const char* what) {
  if (d.shape != want)
    fail(ErrorCode::kInvalidArgument, op + ": " + what + " has shape " + to_string(d) +
                                          ", expected " + to_string(row_major(d.dtype, want)));
}

// dst (cols, rows; rows ld apart) = src (rows, cols)^T, in square blocks so both sides stay in
// cache.
template <class T>
void transpose(const T* src, int64_t rows, int64_t cols, T* dst, int64_t ld) {
  constexpr int64_t kBlock = 32;
  for (int64_t r0 = 0; r0 < rows; r0 += kBlock)
    for (int64_t c0 = 0; c0 < cols; c0 += kBlock)
      for (int64_t r = r0; r < std::min(rows, r0 + kBlock); ++r)
        for (int64_t c = c0; c < std::min(cols, c0 + kBlock); ++c)
          dst[c * ld + r] = src[r * cols + c];
}

// W^T and R^T of every direction ((I, G) and (H, G) each, rows weights_ld(G) apart). Made once
// in create() when W and R are constants, so a run on short sequences does not spend its time
// transposing weights; else at every run.
template <class T>
struct Packed {
  Dims w_shape, r_shape;
  std::vector<T> wt, rt;
};

// W (D, G, I) and R (D, G, H), already checked to agree, packed.
template <class T>
Packed<T> pack(const TensorDesc& wd, const void* w, const TensorDesc& rd, const void* r) {
  const int64_t D = wd.shape[0], G = wd.shape[1], I = wd.shape[2], H = rd.shape[2];
  const int64_t ld = weights_ld(G);
  Packed<T> p{wd.shape, rd.shape, {}, {}};
  const std::vector<T> ws = dense<T>(wd, w);
  const std::vector<T> rs = dense<T>(rd, r);
  p.wt.resize(static_cast<size_t>(D * I * ld));
  p.rt.resize(static_cast<size_t>(D * H * ld));
  for (int64_t d = 0; d < D; ++d) {
    transpose(ws.data() + d * G * I, G, I, p.wt.data() + d * I * ld, ld);
    transpose(rs.data() + d * G * H, G, H, p.rt.data() + d * H * ld, ld);
  }
  return p;
}

template <class T>
std::shared_ptr<const Packed<T>> pack_constants(const Graph& g, const Node& n) {
  auto constant = [&](int i) -> const TensorData* {
    if (!has_input(n, i)) return nullptr;
    const Value& v = g.value(n.inputs[i]);
    if (v.kind != ValueKind::kConstant || v.overridable || !v.data) return nullptr;
    return v.data->desc.rank() == 3 ? v.data.get() : nullptr;
  };
  const TensorData* w = constant(1);
  const TensorData* r = constant(2);
  if (!w || !r) return nullptr;
  const Dims& ws = w->desc.shape;
  // Shapes that disagree are left for the run to report.
  if (r->desc.shape != Dims{ws[0], ws[1], r->desc.shape[2]}) return nullptr;
  return std::make_shared<const Packed<T>>(pack<T>(w->desc, w->bytes(), r->desc, r->bytes()));
}

// Runs one node: the inputs made dense in the compute type (layout 1 seen as layout 0), per
// direction the input projection and then the recurrence, and the outputs written in the
// node's layout. Inside, Y is (seq, dirs, batch, H) and the states (dirs, batch, H).
template <class T>
void run_recurrent(const std::string& op, const Spec& s, const Packed<T>* packed,
                   KernelContext& ctx) {
  const TensorRef& x = ctx.input(0);
  const TensorRef& w = ctx.input(1);
  const TensorRef& r = ctx.input(2);
  require(x.desc.rank() == 3 && w.desc.rank() == 3 && r.desc.rank() == 3,
          [&] { return op + ": X, W and R must have rank 3"; });
  const int64_t S = x.desc.shape[s.layout == 0 ? 0 : 1], Bn = x.desc.shape[s.layout == 0 ? 1 : 0];
  const int64_t I = x.desc.shape[2], H = r.desc.shape[2], D = s.dirs, G = s.gates * H;
  if (s.hidden >= 0 && s.hidden != H)
    fail(ErrorCode::kInvalidArgument, op + ": hidden_size is " + std::to_string(s.hidden) +
                                          " but R's last dim is " + std::to_string(H));
  check_shape(op, w.desc, {D, G, I}, "W");
  check_shape(op, r.desc, {D, G, H}, "R");
  // The state inputs and outputs of layout 1 are (batch, dirs, H): seen as (dirs, batch, H).
  const std::vector<int64_t> swap01 = {1, 0, 2};
  auto state_view = [&](const TensorDesc& d) { return s.layout == 0 ? d : permute(d, swap01); };

  const std::vector<T> xs = dense<T>(s.layout == 0 ? x.desc : permute(x.desc, swap01), x.data);
  // The weights transposed per direction: prepacked, or made here from this run's W and R.
  if (packed && (w.desc.shape != packed->w_shape || r.desc.shape != packed->r_shape))
    packed = nullptr;
  Packed<T> local;
  if (!packed) {
    local = pack<T>(w.desc, w.data, r.desc, r.data);
    packed = &local;
  }
  const int64_t ld = weights_ld(G);
  std::vector<T> bias(static_cast<size_t>(D * 2 * G), T(0));
  if (const TensorRef* b = given(ctx, 3)) {
    check_shape(op, b->desc, {D, 2 * G}, "B");
    bias = dense<T>(b->desc, b->data);
  }
  std::vector<int64_t> lens(static_cast<size_t>(Bn), S);
  if (const TensorRef* l = given(ctx, 4)) {
    check_shape(op, l->desc, {Bn}, "sequence_lens");
    std::vector<int64_t> v(static_cast<size_t>(Bn));
    if (Bn > 0) assign(Operand{row_major(DType::kInt64, l->desc.shape), v.data()}, src_of(*l));
    for (int64_t len : v)
      if (len < 0 || len > S)
        fail(ErrorCode::kInvalidArgument, op + ": sequence_lens holds " + std::to_string(len) +
                                              ", outside [0, " + std::to_string(S) + "]");
    lens = v;
  }
  auto state = [&](int i, const char* what) {
    std::vector<T> v(static_cast<size_t>(D * Bn * H), T(0));
    if (const TensorRef* t = given(ctx, i)) {
      const TensorDesc d = state_view(t->desc);
      check_shape(op, d, {D, Bn, H}, what);
      v = dense<T>(d, t->data);
    }
    return v;
  };
  const bool lstm = s.cell == Cell::kLstm;
  std::vector<T> yh = state(5, "initial_h");
  std::vector<T> yc = lstm ? state(6, "initial_c") : std::vector<T>();
  std::vector<T> peep;
  if (lstm)
    if (const TensorRef* p = given(ctx, 7)) {
      check_shape(op, p->desc, {D, 3 * H}, "P");
      peep = dense<T>(p->desc, p->data);
    }

  std::vector<T> y(static_cast<size_t>(s.want[0] ? S * D * Bn * H : 0), T(0));
  // X·W^T is computed for a window of up to `chunk` steps at once (all of them unless that
  // would pass 16 MiB of floats), so one GEMM covers many steps without unbounded scratch.
  const int64_t chunk = std::clamp<int64_t>((int64_t{1} << 22) / std::max<int64_t>(1, Bn * G), 1,
                                            std::max<int64_t>(S, 1));
  std::vector<T> xw(static_cast<size_t>(chunk * Bn * G)), bx(static_cast<size_t>(G)), rbh;
  std::vector<T> h_new(static_cast<size_t>(Bn * H)), c_new(lstm ? h_new.size() : 0);
  std::vector<T> scratch(static_cast<size_t>(2 * Bn * G));
  const int per_dir = static_cast<int>(s.acts.size()) / s.dirs;
  const bool lbr = s.cell == Cell::kGru && s.linear_before_reset;
  for (int64_t d = 0; d < D; ++d) {
    // W^T and R^T, so the GEMMs run along contiguous rows of gate outputs.
    const T* wt = packed->wt.data() + d * I * ld;
    const T* rt = packed->rt.data() + d * H * ld;
    // Wb + Rb go into the projection, except GRU's Rbh under linear_before_reset (inside r).
    const T* wb = bias.data() + d * 2 * G;
    const T* rb = wb + G;
    for (int64_t gi = 0; gi < G; ++gi) bx[gi] = wb[gi] + rb[gi];
    if (lbr) {
      rbh.assign(rb + 2 * H, rb + 3 * H);
      for (int64_t j = 0; j < H; ++j) bx[2 * H + j] = wb[2 * H + j];
    }
    int64_t w0 = 0, w1 = 0;  // the steps [w0, w1) whose projection xw holds
    auto project = [&](int64_t t0, int64_t t1) {
      for (int64_t row = 0; row < (t1 - t0) * Bn; ++row)
        std::copy(bx.begin(), bx.end(), xw.begin() + row * G);
      gemm((t1 - t0) * Bn, G, I, xs.data() + t0 * Bn * I, I, wt, ld, xw.data(), G);
      w0 = t0, w1 = t1;
    };

    Step<T> st;
    st.spec = &s;
    st.acts = s.acts.data() + d * per_dir;
    st.batch = Bn;
    st.hidden = H;
    st.rt = rt;
    st.ldr = ld;
    st.rbh = lbr ? rbh.data() : nullptr;
    st.p = peep.empty() ? nullptr : peep.data() + d * 3 * H;
    T* h = yh.data() + d * Bn * H;
    T* c = lstm ? yc.data() + d * Bn * H : nullptr;
    st.h = h;
    st.c = c;
    st.h_new = h_new.data();
    st.c_new = lstm ? c_new.data() : nullptr;
    st.scratch = scratch.data();
    const bool reverse = s.reverse || d == 1;
    for (int64_t k = 0; k < S; ++k) {
      const int64_t t = reverse ? S - 1 - k : k;
      // Row b runs steps t < lens[b]: forward it stops early, reverse it starts late.
      bool any = false;
      for (int64_t b = 0; b < Bn; ++b) any = any || t < lens[b];
      if (!any) continue;
      if (t < w0 || t >= w1)
        reverse ? project(std::max<int64_t>(0, t + 1 - chunk), t + 1)
                : project(t, std::min(S, t + chunk));
      st.xw = xw.data() + (t - w0) * Bn * G;
      if (s.cell == Cell::kRnn)
        rnn_step(st);
      else if (s.cell == Cell::kGru)
        gru_step(st);
      else
        lstm_step(st);
      for (int64_t b = 0; b < Bn; ++b) {
        if (t >= lens[b]) continue;  // state kept, Y stays zero
        std::copy(h_new.begin() + b * H, h_new.begin() + (b + 1) * H, h + b * H);
        if (lstm) std::copy(c_new.begin() + b * H, c_new.begin() + (b + 1) * H, c + b * H);
        if (s.want[0])
          std::copy(h_new.begin() + b * H, h_new.begin() + (b + 1) * H,
                    y.begin() + ((t * D + d) * Bn + b) * H);
      }
    }
  }

  // A row of length 0 has no last step: its Y_h and Y_c are zero (as ONNX Runtime gives them;
  // the spec leaves it open), not the initial state.
  for (int64_t b = 0; b < Bn; ++b)
    if (lens[b] == 0)
      for (int64_t d = 0; d < D; ++d) {
        std::fill_n(yh.begin() + (d * Bn + b) * H, H, T(0));
        if (lstm) std::fill_n(yc.begin() + (d * Bn + b) * H, H, T(0));
      }

  // Outputs, converted to their dtype; layout 1 sees the dense results through permutations.
  auto write = [&](int i, const std::vector<T>& v, const Dims& shape,
                   const std::vector<int64_t>& perm) {
    const TensorDesc src = row_major(dtype_of<T>(), shape);
    const TensorDesc view = s.layout == 0 ? src : permute(src, perm);
    TensorRef& dst = ctx.output(i, view.shape);
    if (element_count(view) > 0) assign(dst_of(dst), ConstOperand(view, v.data()));
  };
  if (s.want[0]) write(0, y, {S, D, Bn, H}, {2, 0, 1, 3});
  if (s.want[1]) write(1, yh, {D, Bn, H}, swap01);
  if (s.want[2] && lstm) write(2, yc, {D, Bn, H}, swap01);
}

Reason supports_cell(const Graph& g, const Node& n, Cell cell) {
  const DType t = input_dtype(g, n, 0);
  if (t != DType::kFloat && t != DType::kDouble && t != DType::kFloat16 && t != DType::kBFloat16)
    return n.op + ": X has dtype " + std::string(dtype_name(t)) +
           "; float32, float64, float16 and bfloat16 are supported";
  Spec s;
  return read_spec(g, n, cell, s);
}

std::unique_ptr<Kernel> create_cell(const Graph& g, const Node& n, Cell cell) {
  Spec s;
  if (Reason r = read_spec(g, n, cell, s)) fail(ErrorCode::kNotSupported, *r);
  if (input_dtype(g, n, 0) == DType::kDouble)
    return make_kernel([s, op = n.op, p = pack_constants<double>(g, n)](KernelContext& ctx) {
      run_recurrent<double>(op, s, p.get(), ctx);
    });
  return make_kernel([s, op = n.op, p = pack_constants<float>(g, n)](KernelContext& ctx) {
    run_recurrent<float>(op, s, p.get(), ctx);
  });
}

}  // namespace

Reason read_spec(const Graph&, const Node& n, Cell cell, Spec& s) {
  s.cell = cell;
  s.gates = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 3 : 4;
  const std::string dir = attr_string(n, "direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    return n.op + ": direction '" + dir + "' is not forward, reverse or bidirectional";
  s.dirs = dir == "bidirectional" ? 2 : 1;
  s.reverse = dir == "reverse";
  s.hidden = attr_int(n, "hidden_size", -1);
  s.layout = static_cast<int>(attr_int(n, "layout", 0));
  if (s.layout != 0 && s.layout != 1)
    return n.op + ": layout " + std::to_string(s.layout) + " is not 0 or 1";
  s.clip = n.attr("clip") ? attr_float(n, "clip", 0) : 0.f;
  if (s.clip < 0) return n.op + ": clip must be positive";
  s.linear_before_reset = attr_int(n, "linear_before_reset", 0) != 0;
  s.input_forget = attr_int(n, "input_forget", 0) != 0;
  const int per_dir = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 2 : 3;
  if (Reason r = read_activations(n, per_dir, s.dirs, s.acts)) return r;
  for (int i = 0; i < 3; ++i)
    s.want[i] = i < static_cast<int>(n.outputs.size()) && n.outputs[i] >= 0;
  return std::nullopt;
}

template void rnn_step<float>(const Step<float>&);
template void rnn_step<double>(const Step<double>&);

}  // namespace rnn

Reason supports_rnn(const Graph& g, const Node& n) {
  return rnn::supports_cell(g, n, rnn::Cell::kRnn);
}
std::unique_ptr<Kernel> create_rnn(const Graph& g, const Node& n) {
  return rnn::create_cell(g, n, rnn::Cell::kRnn);
}
Reason supports_gru(const Graph& g, const Node& n) {
  return rnn::supports_cell(g, n, rnn::Cell::kGru);
}
std::unique_ptr<Kernel> create_gru(const Graph& g, const Node& n) {
  return rnn::create_cell(g, n, rnn::Cell::kGru);
}
Reason supports_lstm(const Graph& g, const Node& n) {
  return rnn::supports_cell(g, n, rnn::Cell::kLstm);
}
std::unique_ptr<Kernel> create_lstm(const Graph& g, const Node& n) {
  return rnn::create_cell(g, n, rnn::Cell::kLstm);
}

}  // namespace geon::cpu
