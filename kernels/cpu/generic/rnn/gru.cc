// GRU's gate math for one time step (ONNX GRU, gates z, r, h):
//   z = f(Xt·Wz^T + Ht-1·Rz^T + Wbz + Rbz),  r = f(Xt·Wr^T + Ht-1·Rr^T + Wbr + Rbr)
//   h = g(Xt·Wh^T + (r (.) Ht-1)·Rh^T + Rbh + Wbh)          linear_before_reset = 0
//   h = g(Xt·Wh^T + r (.) (Ht-1·Rh^T + Rbh) + Wbh)          linear_before_reset != 0
//   Ht = (1 - z) (.) h + z (.) Ht-1
#include <algorithm>

#include "kernels/cpu/generic/rnn/rnn.h"

namespace geon::cpu::rnn {

template <class T>
void gru_step(const Step<T>& s) {
  const int64_t B = s.batch, H = s.hidden, G = 3 * H;
  const float clip = s.spec->clip;
  T* gates = s.scratch;  // (B, 3H): z, r, h pre-activations
  std::copy(s.xw, s.xw + B * G, gates);
  if (!s.spec->linear_before_reset) {
    // z and r first: the h gate's recurrence needs r.
    gemm(B, 2 * H, H, s.h, H, s.rt, s.ldr, gates, G);
    T* rh = s.scratch + B * G;  // (B, H): r (.) Ht-1
    for (int64_t b = 0; b < B; ++b) {
      T* zr = gates + b * G;
      activate(s.acts[0], clip, zr, 2 * H);
      for (int64_t j = 0; j < H; ++j) rh[b * H + j] = zr[H + j] * s.h[b * H + j];
    }
    gemm(B, H, H, rh, H, s.rt + 2 * H, s.ldr, gates + 2 * H, G);
  } else {
    T* hr = s.scratch + B * G;  // (B, 3H): Ht-1·R^T
    std::fill(hr, hr + B * G, T(0));
    gemm(B, G, H, s.h, H, s.rt, s.ldr, hr, G);
    for (int64_t b = 0; b < B; ++b) {
      T* g = gates + b * G;
      const T* r_ = hr + b * G;
      for (int64_t j = 0; j < 2 * H; ++j) g[j] += r_[j];
      activate(s.acts[0], clip, g, 2 * H);
      for (int64_t j = 0; j < H; ++j) g[2 * H + j] += g[H + j] * (r_[2 * H + j] + s.rbh[j]);
    }
  }
  for (int64_t b = 0; b < B; ++b) {
    T* g = gates + b * G;
    activate(s.acts[1], clip, g + 2 * H, H);
    const T* hp = s.h + b * H;
    T* hn = s.h_new + b * H;
    for (int64_t j = 0; j < H; ++j) hn[j] = (T(1) - g[j]) * g[2 * H + j] + g[j] * hp[j];
  }
}

template void gru_step<float>(const Step<float>&);
template void gru_step<double>(const Step<double>&);

}  // namespace geon::cpu::rnn
