// SplitToSequence and ConcatFromSequence (opset 11): between one tensor and a sequence of its
// pieces along an axis. Pieces are slices of the input's description, copied into the list;
// the concatenation assigns each element into its slice of the output.
#include <numeric>
#include <string>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/sequence/lists.h"
#include "kernels/cpu/generic/sequence/ops.h"

namespace geon::cpu {
namespace {

int64_t checked_axis(int64_t axis, int64_t rank, std::string_view what) {
  if (axis < -rank || axis >= rank)
    fail(ErrorCode::kInvalidArgument, std::string(what) + " " + std::to_string(axis) +
                                          " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

// A sequence holds at most this many elements: an axis of an empty tensor may be longer than
// memory could hold pieces of it.
constexpr int64_t kMaxPieces = int64_t{1} << 24;

void check_piece_count(int64_t n) {
  if (n > kMaxPieces)
    fail(ErrorCode::kResourceExhausted, "the split makes " + std::to_string(n) +
                                            " pieces, more than the " + std::to_string(kMaxPieces) +
                                            " a sequence may hold");
}

// The lengths of the pieces along an axis of length `dim`.
std::vector<int64_t> piece_lengths(const KernelContext& ctx, int64_t dim) {
  if (ctx.num_inputs() < 2 || !ctx.input(1).data) {
    check_piece_count(dim);
    return std::vector<int64_t>(dim, 1);
  }
  const TensorRef& split = ctx.input(1);
  const std::vector<int64_t> v = read_ints(split, "split");
  std::vector<int64_t> out;
  if (split.desc.shape.empty()) {
    if (v[0] <= 0)
      fail(ErrorCode::kInvalidArgument, "split must be positive, got " + std::to_string(v[0]));
    check_piece_count(dim / v[0] + 1);
    for (int64_t at = 0; at < dim; at += std::min(v[0], dim - at))
      out.push_back(std::min(v[0], dim - at));
    return out;
  }
  int64_t sum = 0;
  for (int64_t s : v) {
    if (s < 0) fail(ErrorCode::kInvalidArgument, "split lengths must not be negative");
    if (s > dim - sum)  // checked before adding, so the sum cannot overflow
      fail(ErrorCode::kInvalidArgument,
           "split lengths add up to more than the axis length " + std::to_string(dim));
    sum += s;
  }
  if (sum != dim)
    fail(ErrorCode::kInvalidArgument, "split lengths add up to " + std::to_string(sum) +
                                          ", but the axis has length " + std::to_string(dim));
  return v;
}

}  // namespace

Reason supports_split_to_sequence(const Graph& g, const Node& n) {
  if (Reason r = require_arity(n, 1)) return r;
  if (Reason r = require_kind(g, n.outputs[0], true, "output")) return r;
  if (Reason r = require_kind(g, n.inputs.at(0), false, "input")) return r;
  if (has_input(n, 1))
    if (Reason r = check_ints_input(g, n, 1, "split")) return r;
  return std::nullopt;
}
std::unique_ptr<Kernel> create_split_to_sequence(const Graph&, const Node& n) {
  const int64_t axis_attr = attr_int(n, "axis", 0);
  const bool keepdims = attr_int(n, "keepdims", 1) != 0;
  return make_node_kernel(n, [=](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const auto rank = static_cast<int64_t>(x.desc.shape.size());
    if (rank == 0) fail(ErrorCode::kInvalidArgument, "the input must have rank >= 1");
    const int64_t axis = checked_axis(axis_attr, rank, "axis");
    const bool split_given = ctx.num_inputs() > 1 && ctx.input(1).data;
    const std::vector<int64_t> lengths = piece_lengths(ctx, x.desc.shape[axis]);
    auto list = std::make_shared<ListValue>();
    int64_t at = 0;
    for (int64_t len : lengths) {
      TensorDesc piece = x.desc;
      piece.offset += at * piece.strides[axis];
      piece.shape[axis] = len;
      at += len;
      if (!split_given && !keepdims) {
        piece.shape.erase(piece.shape.begin() + axis);
        piece.strides.erase(piece.strides.begin() + axis);
      }
      list->items.push_back(owned_copy({piece, x.data, x.device}));
    }
    ctx.set_output_list(0, std::move(list));
  });
}

Reason supports_concat_from_sequence(const Graph& g, const Node& n) {
  if (Reason r = require_arity(n, 1)) return r;
  if (Reason r = require_kind(g, n.outputs[0], false, "output")) return r;
  return require_kind(g, n.inputs.at(0), true, "input_sequence");
}
std::unique_ptr<Kernel> create_concat_from_sequence(const Graph&, const Node& n) {
  const int64_t axis_attr = attr_int(n, "axis", 0);
  const bool new_axis = attr_int(n, "new_axis", 0) != 0;
  return make_node_kernel(n, [=](KernelContext& ctx) {
    const ListRef in = ctx.input_list(0);
    if (in->items.empty()) fail(ErrorCode::kInvalidArgument, "the sequence is empty");
    const Dims& first = in->items[0].desc.shape;
    const auto rank = static_cast<int64_t>(first.size());
    const int64_t axis = checked_axis(axis_attr, new_axis ? rank + 1 : rank, "axis");
    Dims out_shape = first;
    if (new_axis) {
      out_shape.insert(out_shape.begin() + axis, static_cast<int64_t>(in->items.size()));
    } else {
      out_shape[axis] = 0;
    }
    for (size_t k = 0; k < in->items.size(); ++k) {
      const Dims& s = in->items[k].desc.shape;
      bool ok = static_cast<int64_t>(s.size()) == rank;
      for (int64_t d = 0; ok && d < rank; ++d) ok = (!new_axis && d == axis) || s[d] == first[d];
      if (!ok)
        fail(ErrorCode::kInvalidArgument, "element " + std::to_string(k) + " has shape " +
                                              to_string(in->items[k].desc) +
                                              ", which does not concatenate with element 0's");
      if (!new_axis) out_shape[axis] += s[axis];
    }
    TensorRef& out = ctx.output(0, out_shape);
    int64_t at = 0;
    for (const OwnedTensor& t : in->items) {
      TensorDesc part = out.desc;
      part.offset += at * part.strides[axis];
      if (new_axis) {
        part.shape.erase(part.shape.begin() + axis);
        part.strides.erase(part.strides.begin() + axis);
        at += 1;
      } else {
        part.shape[axis] = t.desc.shape[axis];
        at += t.desc.shape[axis];
      }
      if (element_count(part) > 0) assign(Operand{part, out.data}, src_of(ref_of(t)));
    }
  });
}

}  // namespace geon::cpu
