// LSTM's gate math for one time step (ONNX LSTM, gates i, o, f, c; peepholes i, o, f):
//   i = f(Xt·Wi^T + Ht-1·Ri^T + Pi (.) Ct-1 + Wbi + Rbi)
//   f = f(Xt·Wf^T + Ht-1·Rf^T + Pf (.) Ct-1 + Wbf + Rbf)      (1 - i with input_forget)
//   c = g(Xt·Wc^T + Ht-1·Rc^T + Wbc + Rbc),  Ct = f (.) Ct-1 + i (.) c
//   o = f(Xt·Wo^T + Ht-1·Ro^T + Po (.) Ct + Wbo + Rbo),  Ht = o (.) h(Ct)
#include <algorithm>

#include "kernels/cpu/generic/rnn/rnn.h"

namespace geon::cpu::rnn {

template <class T>
void lstm_step(const Step<T>& s) {
  const int64_t B = s.batch, H = s.hidden, G = 4 * H;
  const float clip = s.spec->clip;
  const Activation &fa = s.acts[0], &ga = s.acts[1], &ha = s.acts[2];
  T* gates = s.scratch;  // (B, 4H)
  std::copy(s.xw, s.xw + B * G, gates);
  gemm(B, G, H, s.h, H, s.rt, s.ldr, gates, G);
  T* hc = s.scratch + B * G;  // one row: h(Ct)
  for (int64_t b = 0; b < B; ++b) {
    T* gi = gates + b * G;
    T* go = gi + H;
    T* gf = go + H;
    T* gc = gf + H;
    const T* cp = s.c + b * H;
    T* cn = s.c_new + b * H;
    if (s.p) {
      for (int64_t j = 0; j < H; ++j) gi[j] += s.p[j] * cp[j];
      for (int64_t j = 0; j < H; ++j) gf[j] += s.p[2 * H + j] * cp[j];
    }
    activate(fa, clip, gi, H);
    if (s.spec->input_forget)
      for (int64_t j = 0; j < H; ++j) gf[j] = T(1) - gi[j];
    else
      activate(fa, clip, gf, H);
    activate(ga, clip, gc, H);
    for (int64_t j = 0; j < H; ++j) cn[j] = gf[j] * cp[j] + gi[j] * gc[j];
    if (s.p)
      for (int64_t j = 0; j < H; ++j) go[j] += s.p[H + j] * cn[j];
    activate(fa, clip, go, H);
    // Clip bounds the gates' inputs only; the cell state itself is never clipped.
    std::copy(cn, cn + H, hc);
    activate(ha, 0.f, hc, H);
    T* hn = s.h_new + b * H;
    for (int64_t j = 0; j < H; ++j) hn[j] = go[j] * hc[j];
  }
}

template void lstm_step<float>(const Step<float>&);
template void lstm_step<double>(const Step<double>&);

}  // namespace geon::cpu::rnn
