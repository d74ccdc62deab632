// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss on cpu.generic. The input (N, C, d1..dk)
// is seen as [N, C, D] with D = d1*...*dk and the targets as [N, D]. SoftmaxCrossEntropyLoss
// first takes the log-softmax over C (its optional second output); both then pick, per (n, d),
// -weight[t] * logp[n, t, d] for the target class t. Targets equal to ignore_index contribute
// nothing and weigh 0, so 'mean' divides by the summed weights of the other targets (ONNX:
// sum(loss) / sum(weight[target])). Inputs are staged as dense float (double for double) and the
// sums run in double, so float16 and bfloat16 lose nothing in the reduction.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/training/ops.h"

namespace geon::cpu {
namespace {

enum class Reduction { kNone, kSum, kMean };

struct LossSpec {
  bool softmax = false;  // SoftmaxCrossEntropyLoss
  Reduction reduction = Reduction::kMean;
  std::optional<int64_t> ignore_index;
  bool weighted = false;  // input 2 given
  bool log_prob = false;  // output 1 requested
};

std::optional<Reduction> reduction_of(const std::string& r) {
  if (r == "none") return Reduction::kNone;
  if (r == "sum") return Reduction::kSum;
  if (r == "mean") return Reduction::kMean;
  return std::nullopt;
}

// The names ONNX gives the inputs, for the messages.
const char* input_name(bool softmax, int i) {
  static const char* const kNll[] = {"input", "target", "weight"};
  static const char* const kSce[] = {"scores", "labels", "weights"};
  return (softmax ? kSce : kNll)[i];
}

std::string in_text(bool softmax, int i) {
  return "input " + std::to_string(i) + " (" + input_name(softmax, i) + ")";
}

// Coordinates of flat row-major position i of `shape`, for naming an element in a message.
Dims coords_of(int64_t i, const Dims& shape) {
  Dims c(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    c[k] = shape[k] == 0 ? 0 : i % shape[k];
    i = shape[k] == 0 ? 0 : i / shape[k];
  }
  return c;
}

// log-softmax over C of x ([N, C, D], dense) into lp (same layout), per (n, d); max subtracted
// first, sums in double.
template <class T>
void log_softmax(const T* x, T* lp, int64_t N, int64_t C, int64_t D) {
  parallel_rows(N, C * D, [&](int64_t lo, int64_t hi) {
    std::vector<double> best(static_cast<size_t>(D)), sum(static_cast<size_t>(D));
    for (int64_t n = lo; n < hi; ++n) {
      const T* xn = x + n * C * D;
      T* ln = lp + n * C * D;
      std::fill(best.begin(), best.end(), -std::numeric_limits<double>::infinity());
      std::fill(sum.begin(), sum.end(), 0.0);
      for (int64_t c = 0; c < C; ++c)
        for (int64_t d = 0; d < D; ++d) best[d] = std::max(best[d], double(xn[c * D + d]));
      for (int64_t c = 0; c < C; ++c)
        for (int64_t d = 0; d < D; ++d) sum[d] += std::exp(double(xn[c * D + d]) - best[d]);
      for (int64_t d = 0; d < D; ++d) sum[d] = best[d] + std::log(sum[d]);
      for (int64_t c = 0; c < C; ++c)
        for (int64_t d = 0; d < D; ++d)
          ln[c * D + d] = static_cast<T>(double(xn[c * D + d]) - sum[d]);
    }
  });
}

template <class T>
void loss_run(KernelContext& ctx, const LossSpec& s) {
  constexpr DType compute = std::is_same_v<T, double> ? DType::kDouble : DType::kFloat;
  const TensorRef& x = ctx.input(0);
  const TensorRef& target = ctx.input(1);
  const Dims& xs = x.desc.shape;
  require(xs.size() >= 2, [&] {
    return in_text(s.softmax, 0) + " has shape " + training_dims_text(xs) +
           "; it must be (N, C) or (N, C, d1, ...)";
  });
  const int64_t N = xs[0], C = xs[1];
  Dims ts = {N};
  ts.insert(ts.end(), xs.begin() + 2, xs.end());
  require(target.desc.shape == ts, [&] {
    return in_text(s.softmax, 1) + " has shape " + training_dims_text(target.desc.shape) + " but " +
           in_text(s.softmax, 0) + " of shape " + training_dims_text(xs) + " needs " +
           training_dims_text(ts);
  });
  const int64_t D = element_count(Dims(xs.begin() + 2, xs.end()));
  const int64_t count = N * D;

  std::vector<std::byte> xscratch, wscratch, lscratch;
  const T* xp = static_cast<const T*>(stage_input(x, {}, compute, xscratch));
  const T* wp = nullptr;
  if (s.weighted) {
    const TensorRef& w = ctx.input(2);
    require(w.desc.shape == Dims{C}, [&] {
      return in_text(s.softmax, 2) + " has shape " + training_dims_text(w.desc.shape) +
             "; it must be (" + std::to_string(C) + "), one weight per class";
    });
    wp = static_cast<const T*>(stage_input(w, {}, compute, wscratch));
  }
  std::vector<int64_t> tgt(static_cast<size_t>(count));
  if (count > 0) assign(Operand{row_major(DType::kInt64, ts), tgt.data()}, src_of(target));

  // The log-probabilities: output 1 when requested, else scratch; NLL reads its input as they.
  const T* lp = xp;
  std::vector<T> own;
  TensorRef* log_prob = s.log_prob ? &ctx.output(1, xs) : nullptr;
  if (s.softmax) {
    T* out = nullptr;
    if (log_prob) {
      out = static_cast<T*>(stage_output(*log_prob, {}, compute, lscratch));
    } else {
      own.resize(static_cast<size_t>(element_count(xs)));
      out = own.data();
    }
    log_softmax(xp, out, N, C, D);
    lp = out;
  }

  std::vector<double> loss(static_cast<size_t>(count));
  double total = 0, weight_sum = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t t = tgt[i];
    if (s.ignore_index && t == *s.ignore_index) continue;  // loss 0, weight 0
    if (t < 0 || t >= C)
      fail(ErrorCode::kInvalidArgument,
           in_text(s.softmax, 1) + " holds class " + std::to_string(t) + " at " +
               training_dims_text(coords_of(i, ts)) + ", outside [0, " + std::to_string(C) +
               ") for the " + std::to_string(C) + " classes of " + in_text(s.softmax, 0) +
               (s.ignore_index ? " (ignore_index is " + std::to_string(*s.ignore_index) + ")"
                               : std::string()));
    const double w = wp ? double(wp[t]) : 1.0;
    const int64_t n = i / D, d = i % D;
    loss[i] = -w * double(lp[(n * C + t) * D + d]);
    total += loss[i];
    weight_sum += w;
  }
  if (log_prob) store_output(*log_prob, {}, compute, lscratch);

  if (s.reduction == Reduction::kNone) {
    const TensorRef& out = ctx.output(0, ts);
    if (count > 0)
      assign(Operand{out.desc, out.data}, ConstOperand(row_major(DType::kDouble, ts), loss.data()));
    return;
  }
  // 'mean' over no (or only ignored) targets is 0 / 0, NaN, as in the ONNX reference.
  const double value = s.reduction == Reduction::kSum ? total : total / weight_sum;
  const TensorRef& out = ctx.output(0, Dims{});
  assign(Operand{out.desc, out.data}, ConstOperand(row_major(DType::kDouble, Dims{}), &value));
}

}  // namespace

Reason supports_loss(const Graph& g, const Node& n) {
  const bool softmax = n.op == "SoftmaxCrossEntropyLoss";
  if (Reason r = norm_dtype_reason(input_dtype(g, n, 0), in_text(softmax, 0))) return r;
  const DType t = input_dtype(g, n, 1);
  if (t != DType::kInt32 && t != DType::kInt64)
    return in_text(softmax, 1) + " has dtype " + std::string(dtype_name(t)) +
           "; it must be int32 or int64";
  if (has_input(n, 2) && input_dtype(g, n, 2) != input_dtype(g, n, 0))
    return in_text(softmax, 2) + " has dtype " + std::string(dtype_name(input_dtype(g, n, 2))) +
           " but " + in_text(softmax, 0) + " has " + std::string(dtype_name(input_dtype(g, n, 0)));
  const std::string red = attr_string(n, "reduction", "mean");
  if (!reduction_of(red))
    return "attribute 'reduction' is '" + red + "'; it must be none, sum or mean";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_loss(const Graph&, const Node& n) {
  LossSpec s;
  s.softmax = n.op == "SoftmaxCrossEntropyLoss";
  s.reduction = *reduction_of(attr_string(n, "reduction", "mean"));
  if (n.attr("ignore_index")) s.ignore_index = attr_int(n, "ignore_index", 0);
  s.weighted = has_input(n, 2);
  s.log_prob = s.softmax && n.outputs.size() > 1 && n.outputs[1] >= 0;
  return make_node_kernel(n, [s](KernelContext& ctx) {
    if (norm_compute_dtype(ctx.input(0).desc.dtype) == DType::kDouble)
      loss_run<double>(ctx, s);
    else
      loss_run<float>(ctx, s);
  });
}

}  // namespace geon::cpu
