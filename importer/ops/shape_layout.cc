// Import rules for the ops that move elements between axes or mask them: DepthToSpace,
// SpaceToDepth, Trilu and Col2Im. The batch axis keeps its Axis object; rearranged axes are new
// axes of the source axis's class. Constant inputs fold as reshape-permute-reshape views.
#include <limits>
#include <vector>

#include "core/desc/views.h"
#include "core/dtype/scalar.h"
#include "importer/ops/common.h"
#include "importer/ops/shape_contents.h"
#include "importer/ops/shape_fold.h"
#include "importer/ops/shape_parts.h"

namespace geon::importer {
namespace {

// length * m as a length: static when it is, the same symbol for m == 1, unknown otherwise.
Length scaled(const Length& l, int64_t m) {
  int64_t v = 0;
  if (m == 1) return l;
  if (l.is_static() && !__builtin_mul_overflow(l.value, m, &v)) return Length::known(v);
  return Length::unknown();
}

// Folds output 0 as: input viewed with shape `split`, permuted by perm, read row-major.
void fold_rearranged(RuleContext& c, const Dims& split, const std::vector<int64_t>& perm) {
  const TensorData* data = constant_input(c, 0);
  if (!data || !c.has_output(0)) return;
  const auto shape = static_lengths(c.output(0).axes);
  if (!shape) return;
  const ReshapeResult v = reshape(data->desc, split);
  if (!v.view) return;
  auto res = materialize(c, *data, permute(*v.view, perm));
  if (res) c.set_output_data(0, reshaped_data(*res, *shape));
}

// Checks a 4-D (N, C, H, W) input; false when its rank is unknown (output set to 4 unknowns).
bool nchw_input(RuleContext& c) {
  const Value& in = c.input(0);
  if (!in.rank_known) {
    const Length u[4] = {Length::unknown(), Length::unknown(), Length::unknown(),
                         Length::unknown()};
    c.set_output(0, in.dtype(), u);
    return false;
  }
  if (in.rank() != 4)
    c.fail("input 0 must be 4-D (N, C, H, W), got rank " + std::to_string(in.rank()));
  return true;
}

int64_t blocksize(RuleContext& c) {
  const int64_t b = c.attr_int("blocksize");
  if (b <= 0 || b > (int64_t{1} << 20))
    c.fail("attribute 'blocksize' must be in [1, 2^20], got " + std::to_string(b));
  return b;
}

void depth_to_space(RuleContext& c) {
  const int64_t b = blocksize(c);
  const std::string mode = c.opset() >= 11 ? c.attr_string("mode", "DCR") : "DCR";
  if (mode != "DCR" && mode != "CRD")
    c.fail("attribute 'mode' is '" + mode + "'; expected DCR or CRD");
  if (!nchw_input(c)) return;
  const Value& in = c.input(0);
  const Length& C = in.axes[1].length;
  Length oc = Length::unknown();
  if (C.is_static()) {
    if (C.value % (b * b) != 0)
      c.fail("input 0 has " + std::to_string(C.value) + " channels, not a multiple of " +
             "blocksize^2 = " + std::to_string(b * b));
    oc = Length::known(C.value / (b * b));
  } else if (b == 1) {
    oc = C;
  }
  auto like = [&](int k, const Length& l) {
    return b == 1 ? in.axes[k] : make_axis_like(c.graph().factory(), in.axes[k], l);
  };
  c.set_output(0, in.dtype(),
               Axes({in.axes[0], like(1, oc), like(2, scaled(in.axes[2].length, b)),
                     like(3, scaled(in.axes[3].length, b))}));
  const auto s = c.static_shape(0);
  if (!s) return;
  const int64_t n = (*s)[0], ch = (*s)[1] / (b * b), h = (*s)[2], w = (*s)[3];
  if (mode == "DCR")
    fold_rearranged(c, {n, b, b, ch, h, w}, {0, 3, 4, 1, 5, 2});
  else
    fold_rearranged(c, {n, ch, b, b, h, w}, {0, 1, 4, 2, 5, 3});
}

void space_to_depth(RuleContext& c) {
  const int64_t b = blocksize(c);
  if (!nchw_input(c)) return;
  const Value& in = c.input(0);
  Length hw[2];
  for (int k : {2, 3}) {
    const Length& l = in.axes[k].length;
    hw[k - 2] = b == 1 ? l : Length::unknown();
    if (!l.is_static()) continue;
    if (l.value % b != 0)
      c.fail("input 0 dim " + std::to_string(k) + " has length " + std::to_string(l.value) +
             ", not a multiple of blocksize " + std::to_string(b));
    hw[k - 2] = Length::known(l.value / b);
  }
  auto like = [&](int k, const Length& l) {
    return b == 1 ? in.axes[k] : make_axis_like(c.graph().factory(), in.axes[k], l);
  };
  c.set_output(0, in.dtype(),
               Axes({in.axes[0], like(1, scaled(in.axes[1].length, b * b)), like(2, hw[0]),
                     like(3, hw[1])}));
  const auto s = c.static_shape(0);
  if (!s) return;
  const int64_t n = (*s)[0], ch = (*s)[1], h = (*s)[2] / b, w = (*s)[3] / b;
  fold_rearranged(c, {n, ch, h, b, w, b}, {0, 3, 5, 1, 2, 4});
}

// ---- Trilu -----------------------------------------------------------------------------------

void trilu(RuleContext& c) {
  const Value& in = c.input(0);
  if (in.rank_known && in.rank() < 2)
    c.fail("input 0 must have rank >= 2, got " + std::to_string(in.rank()));
  int64_t k = 0;
  bool k_known = true;
  if (c.has_input(1)) {
    require_dtype(c, 1, {DType::kInt64});
    const Value& kv = c.input(1);
    if (kv.rank_known && kv.rank() != 0 &&
        !(kv.rank() == 1 && kv.axes[0].length == Length::known(1)))
      c.fail("input 1 (k) must be a scalar, got " + to_string_with_lengths(kv.axes));
    const TensorData* kd = constant_input(c, 1);
    k_known = kd && kd->elements() == 1;
    if (k_known) k = element_as_int(*kd, 0);
  }
  const bool upper = c.attr_int("upper", 1) != 0;
  same_as_input(c);
  const TensorData* data = constant_input(c, 0);
  if (!data || !k_known || data->desc.dtype == DType::kString || !c.has_output(0)) return;
  auto res = materialize(c, *data, data->desc);
  if (!res) return;
  const int r = data->desc.rank();
  const int64_t rows = data->desc.shape[r - 2], cols = data->desc.shape[r - 1];
  const int64_t n = res->elements();
  for (int64_t e = 0; e < n; ++e) {
    const int64_t j = e % cols, i = (e / cols) % rows;
    const bool keep = upper ? j - i >= k : j - i <= k;
    if (!keep) store_scalar(res->desc.dtype, res->storage->data(), e, Scalar{});
  }
  c.set_output_data(0, res);
}

// ---- Col2Im ----------------------------------------------------------------------------------

void col2im(RuleContext& c) {
  const Value& in = c.input(0);
  const DType t = in.dtype();
  require_dtype(c, 1, {DType::kInt64});
  require_dtype(c, 2, {DType::kInt64});
  if (in.rank_known && in.rank() != 3)
    c.fail("input 0 must be 3-D (N, C * prod(block_shape), L), got rank " +
           std::to_string(in.rank()));
  const auto image = c.contents(1);
  const auto block = c.int_contents(2);
  std::optional<int64_t> n;
  if (image)
    n = static_cast<int64_t>(image->size());
  else if (auto s = c.static_shape(1); s && s->size() == 1 && (*s)[0] <= kMaxInferredRank)
    n = (*s)[0];
  if (block) {
    if (n && *n != static_cast<int64_t>(block->size()))
      c.fail("input 1 (image_shape) has " + std::to_string(*n) + " entries but input 2 " +
             "(block_shape) has " + std::to_string(block->size()));
    n = static_cast<int64_t>(block->size());
    for (int64_t b : *block)
      if (b <= 0) c.fail("input 2 (block_shape) " + list_string(*block) + " must be positive");
  }
  if (!n) return c.set_output_unknown_rank(0, t);
  const auto dil = c.attr_ints("dilations", std::vector<int64_t>(*n, 1));
  const auto strides = c.attr_ints("strides", std::vector<int64_t>(*n, 1));
  const auto pads = c.attr_ints("pads", std::vector<int64_t>(2 * *n, 0));
  if (static_cast<int64_t>(dil.size()) != *n || static_cast<int64_t>(strides.size()) != *n)
    c.fail("attributes 'dilations' and 'strides' need " + std::to_string(*n) + " entries");
  if (static_cast<int64_t>(pads.size()) != 2 * *n)
    c.fail("attribute 'pads' needs " + std::to_string(2 * *n) + " entries");
  for (int64_t k = 0; k < *n; ++k)
    if (dil[k] <= 0 || strides[k] <= 0 || pads[k] < 0 || pads[k + *n] < 0)
      c.fail("dilations and strides must be positive and pads non-negative");
  std::vector<Axis> out;
  out.push_back(in.rank_known ? in.axes[0] : c.new_axis(Length::unknown()));
  Length ch = Length::unknown();
  if (in.rank_known && block && in.axes[1].length.is_static()) {
    int64_t p = 1;
    for (int64_t b : *block)
      if (__builtin_mul_overflow(p, b, &p)) c.fail("input 2 (block_shape) overflows");
    if (in.axes[1].length.value % p != 0)
      c.fail("input 0 dim 1 has length " + std::to_string(in.axes[1].length.value) +
             ", not a multiple of prod(block_shape) = " + std::to_string(p));
    ch = Length::known(in.axes[1].length.value / p);
  }
  out.push_back(in.rank_known ? make_axis_like(c.graph().factory(), in.axes[1], ch)
                              : c.new_axis(ch));
  // The number of blocks the image holds must be L.
  if (image && block && all_static(*image) && in.rank_known && in.axes[2].length.is_static()) {
    int64_t blocks = 1;
    for (int64_t k = 0; k < *n; ++k) {
      using I = __int128;  // every term is an int64, so neither sum nor product overflows here
      const I span = I{dil[k]} * ((*block)[k] - 1) + 1;
      const I room = I{(*image)[k].value} + pads[k] + pads[k + *n] - span;
      if (room < 0)
        c.fail("block " + std::to_string(k) + " (" + std::to_string((*block)[k]) +
               " with dilation " + std::to_string(dil[k]) + ") does not fit image_shape " +
               to_string((*image)[k]) + " with pads");
      const I count = room / strides[k] + 1;
      if (count > std::numeric_limits<int64_t>::max() ||
          __builtin_mul_overflow(blocks, static_cast<int64_t>(count), &blocks))
        c.fail("the number of blocks overflows");
    }
    if (blocks != in.axes[2].length.value)
      c.fail("input 0 has " + std::to_string(in.axes[2].length.value) +
             " blocks (dim 2) but image_shape, block_shape, dilations, pads and strides give " +
             std::to_string(blocks));
  }
  for (int64_t k = 0; k < *n; ++k) {
    const Length l = image ? (*image)[k] : Length::unknown();
    if (l.is_static() && l.value < 0) c.fail("input 1 (image_shape) has a negative entry");
    out.push_back(c.new_axis(l));
  }
  c.set_output(0, t, Axes(std::move(out)));
}

}  // namespace

std::span<const RuleEntry> shape_layout_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "DepthToSpace", 1, depth_to_space},
      {"", "DepthToSpace", 11, depth_to_space},  // mode
      {"", "SpaceToDepth", 1, space_to_depth},
      {"", "Trilu", 14, trilu},
      {"", "Col2Im", 18, col2im},
  };
  return rules;
}

}  // namespace geon::importer
