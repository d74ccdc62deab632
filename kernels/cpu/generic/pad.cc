// Pad (constant, reflect, edge, wrap; negative pads crop), for every dtype the engine moves,
// strings included (their constant is the string constant_value, else ""). Along each axis every
// output position reads one input position (the mode's index rule on the cropped input) or the
// constant, so the output is one gather (gather_rows.h). Packed dtypes go through assigns
// between views instead: the cropped input into the output's interior, then axis by axis the pad
// slabs, from the constant or from the interior in runs where the source index moves by +1, -1
// or 0. Strings take that second route too, as 16-byte handles.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/strings/strings.h"
#include "kernels/cpu/generic/gather_rows.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

using Ints = std::vector<int64_t>;

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

std::optional<PadMode> mode_of(const std::string& m) {
  if (m == "constant") return PadMode::kConstant;
  if (m == "reflect") return PadMode::kReflect;
  if (m == "edge") return PadMode::kEdge;
  if (m == "wrap") return PadMode::kWrap;
  return std::nullopt;
}

// The source position (in [0, len)) that position `rel` of the padded axis copies; rel counts
// from the first interior element, so pads before it are negative. len > 0.
int64_t source_index(PadMode mode, int64_t rel, int64_t len) {
  if (mode == PadMode::kEdge) return std::clamp<int64_t>(rel, 0, len - 1);
  if (mode == PadMode::kWrap) return (rel % len + len) % len;
  // Reflect without repeating the edge: period 2 (len - 1), as numpy's pad (ONNX's reference).
  if (len == 1) return 0;
  const int64_t period = 2 * (len - 1);
  const int64_t m = (rel % period + period) % period;
  return m < len ? m : period - m;
}

// Fills positions [from, from + count) of `region` along `axis` from its interior, which starts
// at `lead` and holds `len` elements.
void fill_from_interior(const Operand& region, int axis, int64_t from, int64_t count, int64_t lead,
                        int64_t len, PadMode mode) {
  auto at = [&](int64_t x) { return source_index(mode, x - lead, len); };
  int64_t x = from;
  const int64_t end = from + count;
  while (x < end) {
    const int64_t first = at(x);
    int64_t step = 0, run = 1;
    if (x + 1 < end && at(x + 1) - first >= -1 && at(x + 1) - first <= 1) {
      step = at(x + 1) - first;
      run = 2;
      while (x + run < end && at(x + run) == first + step * run) ++run;
    }
    TensorDesc src = region.desc;
    src.offset += (lead + first) * src.strides[axis];
    src.shape[axis] = run;
    src.strides[axis] *= step;
    assign(Operand{narrow(region.desc, axis, x, run), region.data}, ConstOperand(src, region.data));
    x += run;
  }
}

struct PadParams {
  PadMode mode = PadMode::kConstant;
  Ints attr_pads;         // opsets 1 and 2
  IntsInput pads;         // from opset 11
  IntsInput axes;         // from opset 18
  int value_at = -1;      // constant_value input (from opset 11), -1 when omitted
  double attr_value = 0;  // the `value` attribute before opset 11
};

void pad(KernelContext& ctx, const PadParams& p) {
  const TensorRef& src = ctx.input(0);
  const int r = src.desc.rank();
  const Ints pads = p.pads.present() ? p.pads.read(ctx, "pads") : p.attr_pads;
  Ints axes = p.axes.read(ctx, "axes");
  if (!p.axes.present())
    for (int k = 0; k < r; ++k) axes.push_back(k);
  const size_t n = axes.size();
  require(pads.size() == 2 * n, [&] {
    return "pads has " + std::to_string(pads.size()) + " entries; expected 2 * " +
           std::to_string(n);
  });
  Ints before(r, 0), after(r, 0);
  std::vector<bool> seen(r, false);
  for (size_t i = 0; i < n; ++i) {
    const int a = normalize_axis(axes[i], r);
    require(!seen[a], [&] { return "axis " + std::to_string(a) + " is padded twice"; });
    seen[a] = true;
    before[a] = pads[i];
    after[a] = pads[i + n];
  }
  // Crop what negative pads remove, then lay out the output.
  TensorDesc from = src.desc;
  Dims shape(r);
  Ints lead(r), kept(r), first(r);
  for (int k = 0; k < r; ++k) {
    const int64_t len = src.desc.shape[k];
    // -pad would overflow for INT64_MIN: compare with -len (len >= 0) instead.
    const int64_t cut_front = before[k] >= 0 ? 0 : before[k] <= -len ? len : -before[k];
    const int64_t rest = len - cut_front;
    const int64_t cut_back = after[k] >= 0 ? 0 : after[k] <= -rest ? rest : -after[k];
    kept[k] = len - cut_front - cut_back;
    first[k] = cut_front;
    lead[k] = std::max<int64_t>(before[k], 0);
    int64_t total = 0;
    require(!__builtin_add_overflow(len, before[k], &total) &&
                !__builtin_add_overflow(total, after[k], &total),
            [&] { return "pads overflow the length of axis " + std::to_string(k); });
    require(total >= 0, [&] {
      return "pads make axis " + std::to_string(k) + " of length " + std::to_string(len) +
             " negative (" + std::to_string(before[k]) + ", " + std::to_string(after[k]) + ")";
    });
    shape[k] = total;
    from = narrow(from, k, cut_front, kept[k]);
  }
  check_output_size(src.desc.dtype, shape, "the padded output");
  const TensorRef& out = ctx.output(0, shape);
  if (element_count(shape) == 0) return;
  // A string's default constant is the empty string (a null handle of size 0).
  static const StringElem kEmpty{};
  const bool strings = src.desc.dtype == DType::kString;
  ConstOperand value = strings ? ConstOperand(row_major(DType::kString, {}), &kEmpty)
                               : ConstOperand::scalar(p.attr_value, DType::kDouble);
  if (p.value_at >= 0 && p.value_at < ctx.num_inputs() && ctx.input(p.value_at).data) {
    const TensorRef& v = ctx.input(p.value_at);
    require(element_count(v.desc) == 1, "constant_value must hold one value");
    require((v.desc.dtype == DType::kString) == strings, [&] {
      return "constant_value is " + std::string(dtype_name(v.desc.dtype)) + " but the input is " +
             std::string(dtype_name(src.desc.dtype));
    });
    if (v.device.kind != DeviceKind::kHost)
      fail(ErrorCode::kNotSupported, "constant_value must be in host memory");
    value = ConstOperand(TensorDesc{v.desc.dtype, {}, {}, v.desc.offset, {}}, v.data);
  }
  for (int k = 0; k < r && p.mode != PadMode::kConstant; ++k)
    require(kept[k] > 0 || shape[k] == 0, [&] {
      return "axis " + std::to_string(k) +
             " has no elements left to extend in this mode (only constant padding can grow "
             "an empty axis)";
    });
  if (r > 0 && gather_width_ok(src.desc.dtype)) {
    // Every output element is one source element or the constant: one gather.
    std::vector<AxisMap> maps(r);
    for (int k = 0; k < r; ++k) {
      AxisMap& m = maps[k];
      for (int64_t o = 0; o < shape[k]; ++o) {
        const int64_t rel = o - lead[k];
        const bool inside = rel >= 0 && rel < kept[k];
        if (!inside && p.mode == PadMode::kConstant) {
          if (m.fill.empty()) m.fill.assign(static_cast<size_t>(shape[k]), 0);
          m.fill[o] = 1;
          m.offset.push_back(0);
          continue;
        }
        const int64_t at = inside ? rel : source_index(p.mode, rel, kept[k]);
        m.offset.push_back((first[k] + at) * src.desc.strides[k]);
      }
    }
    alignas(8) std::byte fill[16] = {};
    assign(Operand{TensorDesc{src.desc.dtype, {}, {}, 0, {}}, fill}, value);
    gather_rows(src, out, maps, fill);
    return;
  }
  // Packed dtypes: assigns between views.
  TensorDesc interior = out.desc;
  for (int k = 0; k < r; ++k) interior = narrow(interior, k, lead[k], kept[k]);
  if (element_count(interior) > 0)
    assign(Operand{interior, out.data}, ConstOperand(from, src.data));
  // Axis k's slabs span every position of the axes before k (already padded) and only the
  // interior of the axes after it, so each padded element is written once.
  for (int k = 0; k < r; ++k) {
    const int64_t tail = shape[k] - lead[k] - kept[k];
    if (lead[k] == 0 && tail == 0) continue;
    TensorDesc region = out.desc;
    for (int j = k + 1; j < r; ++j) region = narrow(region, j, lead[j], kept[j]);
    if (element_count(region) == 0) continue;
    const Operand reg{region, out.data};
    if (p.mode == PadMode::kConstant) {
      if (lead[k] > 0) assign(Operand{narrow(region, k, 0, lead[k]), out.data}, value);
      if (tail > 0) assign(Operand{narrow(region, k, lead[k] + kept[k], tail), out.data}, value);
      continue;
    }
    fill_from_interior(reg, k, 0, lead[k], lead[k], kept[k], p.mode);
    fill_from_interior(reg, k, lead[k] + kept[k], tail, lead[k], kept[k], p.mode);
  }
}

}  // namespace

Reason supports_pad(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  if (t != DType::kString)
    if (Reason r = engine_dtype_reason(t, "the input")) return r;
  if (t == DType::kString && n.opset >= 11 && has_input(n, 2) && is_numeric(input_dtype(g, n, 2)))
    return "constant_value (input 2) is " + std::string(dtype_name(input_dtype(g, n, 2))) +
           " but the input is string";
  const std::string mode = attr_string(n, "mode", "constant");
  if (!mode_of(mode) || (mode == "wrap" && n.opset < 19))
    return "mode '" + mode + "' is not a Pad mode of opset " + std::to_string(n.opset);
  if (n.opset < 11) {
    if (!attr_ints(n, n.opset < 2 ? "paddings" : "pads")) return "Pad needs its pads attribute";
    return std::nullopt;
  }
  if (!has_input(n, 1)) return "Pad needs a pads input";
  if (Reason r = check_ints_input(g, n, 1, "pads")) return r;
  if (n.opset >= 18)
    if (Reason r = check_ints_input(g, n, 3, "axes")) return r;
  return std::nullopt;
}

std::unique_ptr<Kernel> create_pad(const Graph& g, const Node& n) {
  PadParams p;
  p.mode = *mode_of(attr_string(n, "mode", "constant"));
  if (n.opset < 11) {
    p.attr_pads = attr_ints(n, n.opset < 2 ? "paddings" : "pads").value_or(Ints{});
    p.attr_value = attr_float(n, "value", 0.0f);
  } else {
    p.pads = ints_input(g, n, 1);
    if (has_input(n, 2)) p.value_at = 2;
    if (n.opset >= 18) p.axes = ints_input(g, n, 3);
  }
  return make_node_kernel(n, [p](KernelContext& ctx) { pad(ctx, p); });
}

}  // namespace geon::cpu
