// Shared by the nn family's files: the float dtype check, the spatial window arithmetic of
// convolution and pooling (ONNX's output-size formulas), and each part's span of rules.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "importer/rule.h"

namespace geon::importer {

// ---- the parts, joined by nn_rules() in nn.cc ----
std::span<const RuleEntry> nn_conv_rules();  // Conv, ConvTranspose, DeformConv, CausalConvWithState
std::span<const RuleEntry> nn_pool_rules();  // *Pool, Global*Pool, MaxUnpool, RoiAlign
std::span<const RuleEntry> nn_norm_rules();  // *Normalization, LRN, Dropout
std::span<const RuleEntry> nn_rnn_rules();   // RNN, GRU, LSTM
std::span<const RuleEntry> nn_attention_rules();  // Attention, RotaryEmbedding, LinearAttention
std::span<const RuleEntry> nn_misc_rules();  // NonMaxSuppression, GridSample, AffineGrid, losses

// ---- dtypes ----
// Requires input i to be float, double or float16, or bfloat16 from opset `bf16_since` on (the
// version whose type list added it), naming the input as `what`.
void require_nn_float(RuleContext& c, int i, int bf16_since, const std::string& what);
// Requires input i to have dtype t (the one an earlier input fixed), naming both.
void require_same_dtype(RuleContext& c, int i, const std::string& what, DType t,
                        const std::string& other);

// Fails when the node has more inputs or outputs than this op version defines.
void require_arity(RuleContext& c, int max_inputs, int max_outputs);

// ---- ranks ----
// The rank of input i, or nullopt when unknown.
std::optional<int> known_rank(RuleContext& c, int i);
// Fails unless input i (when its rank is known) has exactly `rank` dims.
void require_rank(RuleContext& c, int i, const std::string& what, int rank);
// Fails unless a present, ranked input i is a vector whose length may equal n.
void require_vector_of(RuleContext& c, int i, const std::string& what, const Length& n,
                       const std::string& n_what);

// ---- spatial windows (conv and pooling) ----
enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// A sliding window over the spatial dims: kernel sizes (-1 where not known at import), strides,
// dilations and pads (all begins, then all ends, as ONNX orders them).
struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;
  int spatial() const { return static_cast<int>(strides.size()); }
};

// Which attributes an op version has (those it lacks are refused when present).
struct WindowAttrs {
  bool auto_pad = true;
  bool dilations = true;
  bool ceil_mode = false;
};

// The 'kernel_shape' attribute: `spatial` values, each >= 1.
std::vector<int64_t> read_kernel_shape(RuleContext& c, int spatial);
// Reads and checks strides, dilations, pads, auto_pad and ceil_mode around `kernel`.
Window read_window(RuleContext& c, std::vector<int64_t> kernel, const WindowAttrs& which);
// Reads a list attribute of `spatial` values in [lo, hi] (default `fallback` for each).
std::vector<int64_t> read_spatial_ints(RuleContext& c, const std::string& name, int count,
                                       int64_t fallback, int64_t lo, int64_t hi);

// The output axis of spatial dim i for a forward window (Conv, pooling) over input axis `in`,
// by ONNX's formulas: floor (or ceil with ceil_mode, dropping a last window that would start
// in the end padding) of (in + pads - effective kernel) / stride + 1 with explicit pads,
// ceil(in / stride) for SAME_*, and pads 0 for VALID. The input axis itself when the length
// provably stays (stride 1 and padding that exactly covers the window), a new axis of its class
// otherwise (unknown length when `in` is not static). A window larger than the padded input
// fails naming the dim.
Axis window_output_axis(RuleContext& c, const Window& w, int i, const Axis& in);

// Spatial output axes for every dim of a (N, C, D1, ...) input.
std::vector<Axis> window_output_axes(RuleContext& c, const Window& w, const Axes& x);

// Checked int64 arithmetic for shape formulas: nullopt on overflow.
std::optional<int64_t> checked_mul(int64_t a, int64_t b);
std::optional<int64_t> checked_add(int64_t a, int64_t b);

// A new axis of `source`'s class with length `len` (a sliced, padded or pooled dim).
Axis axis_like(RuleContext& c, const Axis& source, const Length& len);
// Length n * k when n is static (overflow fails), unknown otherwise.
Length scaled_length(RuleContext& c, const Length& n, int64_t k);

}  // namespace geon::importer
