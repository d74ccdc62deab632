// Split: each output is a narrow() slice of the input along the axis, assigned into the output
// (only output 0 of a kernel may be a view, so every part is copied). The part lengths come from
// the split list (attribute before opset 13, input in opset 1 and from 13) or, without one, from
// an even division (num_outputs from opset 18 allows a shorter last part).
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {
namespace {

using Ints = std::vector<int64_t>;

std::string list_text(const Ints& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// The parts' lengths for an axis of length `len` cut into `n` outputs.
Ints part_lengths(int64_t len, int n, const Ints& split, bool uneven_ok) {
  if (!split.empty()) {
    require(static_cast<int>(split.size()) == n, [&] {
      return "split " + list_text(split) + " has " + std::to_string(split.size()) +
             " entries for " + std::to_string(n) + " outputs";
    });
    int64_t sum = 0;
    for (int64_t s : split) {
      require(s >= 0, [&] { return "split " + list_text(split) + " has a negative entry"; });
      require(!__builtin_add_overflow(sum, s, &sum),
              [&] { return "split " + list_text(split) + " overflows"; });
    }
    require(sum == len, [&] {
      return "split " + list_text(split) + " sums to " + std::to_string(sum) +
             " but the axis has length " + std::to_string(len);
    });
    return split;
  }
  if (len % n == 0) return Ints(static_cast<size_t>(n), len / n);
  require(uneven_ok, [&] {
    return "the axis of length " + std::to_string(len) + " does not split evenly into " +
           std::to_string(n) + " outputs";
  });
  // ceil(len / n) each and what is left for the last (numpy's array_split differs: ONNX's rule).
  const int64_t chunk = len / n + 1;
  const int64_t last = len - chunk * (n - 1);
  require(last >= 0, [&] {
    return "the axis of length " + std::to_string(len) + " cannot give " + std::to_string(n) +
           " parts of " + std::to_string(chunk);
  });
  Ints parts(static_cast<size_t>(n), chunk);
  parts.back() = last;
  return parts;
}

}  // namespace

Reason supports_split(const Graph& g, const Node& n) {
  // Split assigns slices: strings (handles) too.
  if (Reason r = string_or_engine_reason(input_dtype(g, n, 0), "the input")) return r;
  if (n.outputs.empty()) return "Split has no outputs";
  if (n.opset >= 13 || n.opset < 2) return check_ints_input(g, n, 1, "split");
  return std::nullopt;
}

std::unique_ptr<Kernel> create_split(const Graph& g, const Node& n) {
  const int64_t axis_attr = attr_int(n, "axis", 0);
  const Ints split_attr = n.opset < 13 ? attr_ints(n, "split").value_or(Ints{}) : Ints{};
  const IntsInput split_in = (n.opset >= 13 || n.opset < 2) ? ints_input(g, n, 1) : IntsInput{};
  const bool uneven_ok = n.opset >= 18 && n.attr("num_outputs") != nullptr;
  std::vector<bool> wanted;
  for (int v : n.outputs) wanted.push_back(v >= 0);
  return make_node_kernel(n, [=](KernelContext& ctx) {
    const TensorRef& src = ctx.input(0);
    require(src.desc.rank() > 0, "the input is a scalar; Split needs rank >= 1");
    const int axis = normalize_axis(axis_attr, src.desc.rank());
    const Ints split = split_in.present() ? split_in.read(ctx, "split") : split_attr;
    const int count = static_cast<int>(wanted.size());
    const Ints parts = part_lengths(src.desc.shape[axis], count, split, uneven_ok);
    int64_t at = 0;
    for (int i = 0; i < count; ++i) {
      const int64_t len = parts[i];
      if (wanted[i]) {
        Dims shape = src.desc.shape;
        shape[axis] = len;
        const TensorRef& out = ctx.output(i, shape);
        if (element_count(shape) > 0)
          assign(dst_of(out), ConstOperand(narrow(src.desc, axis, at, len), src.data));
      }
      at += len;
    }
  });
}

}  // namespace geon::cpu
