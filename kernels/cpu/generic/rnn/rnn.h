// The parts the recurrent layers (RNN, GRU, LSTM) share: their attributes read once, the
// activation functions with alpha/beta and clip, a dense GEMM for the input projection and the
// per-step recurrence, and the per-step gate math of each op (rnn.cc, gru.cc, lstm.cc).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "kernels/cpu/common.h"

namespace geon::cpu::rnn {

enum class Cell { kRnn, kGru, kLstm };

struct Activation {
  enum class Kind {
    kRelu,
    kTanh,
    kSigmoid,
    kAffine,
    kLeakyRelu,
    kThresholdedRelu,
    kScaledTanh,
    kHardSigmoid,
    kElu,
    kSoftsign,
    kSoftplus
  };
  Kind kind = Kind::kTanh;
  float alpha = 0, beta = 0;
};

// Applies `a` to x[0, n) in place; with clip > 0 the inputs are first bounded to [-clip, clip]
// (ONNX clips the input of the gate activations).
template <class T>
void activate(const Activation& a, float clip, T* x, int64_t n);

// What create() reads from the node.
struct Spec {
  Cell cell = Cell::kRnn;
  int gates = 1;                     // weight blocks per direction: RNN 1, GRU 3, LSTM 4
  int dirs = 1;                      // 2 for bidirectional
  bool reverse = false;              // direction == reverse (single direction)
  int64_t hidden = -1;               // hidden_size, -1 when absent (R's last dim gives it)
  int layout = 0;                    // 0: X is (seq, batch, input); 1: (batch, seq, input)
  float clip = 0;                    // 0: no clip
  bool linear_before_reset = false;  // GRU
  bool input_forget = false;         // LSTM: f = 1 - i
  std::vector<Activation> acts;      // per direction: RNN f; GRU f, g; LSTM f, g, h
  std::array<bool, 3> want{};        // outputs Y, Y_h, Y_c requested
};

// The spec of the node, or the reason the generic kernel cannot run it.
Reason read_spec(const Graph& g, const Node& n, Cell cell, Spec& spec);

// c[m*ldc + j] += sum_k a[m*lda + k] * b[k*ldb + j] for m < M, j < N, on the engine's threads
// when the product is large enough to pay for them.
template <class T>
void gemm(int64_t M, int64_t N, int64_t K, const T* a, int64_t lda, const T* b, int64_t ldb, T* c,
          int64_t ldc);

// The row stride of the transposed weights W^T and R^T for G*H gate columns: padded so that
// rows are not a multiple of 4 KiB apart, where every row of a GEMM panel would fall in the
// same L1 cache set.
inline int64_t weights_ld(int64_t gate_cols) { return gate_cols + 16; }

// One time step of one direction over every batch row; the driver keeps the new state only for
// the rows whose sequence is still running.
template <class T>
struct Step {
  const Spec* spec = nullptr;
  const Activation* acts = nullptr;  // this direction's activations
  int64_t batch = 0, hidden = 0;
  const T* xw = nullptr;  // (batch, G*H): this step's X·W^T plus the biases folded into it
  const T* rt = nullptr;  // R^T, (H, G*H) with rows ldr apart
  int64_t ldr = 0;
  const T* rbh = nullptr;  // GRU with linear_before_reset: Rbh (H), kept inside r (.) (...)
  const T* p = nullptr;    // LSTM peepholes (3H, order i, o, f), or null
  const T* h = nullptr;    // previous hidden state (batch, H)
  const T* c = nullptr;    // LSTM: previous cell state (batch, H)
  T* h_new = nullptr;      // (batch, H)
  T* c_new = nullptr;      // LSTM: (batch, H)
  T* scratch = nullptr;    // 2 * batch * G*H elements
};

template <class T>
void rnn_step(const Step<T>& s);
template <class T>
void gru_step(const Step<T>& s);
template <class T>
void lstm_step(const Step<T>& s);

}  // namespace geon::cpu::rnn
