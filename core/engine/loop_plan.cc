// Building loop plans: generalized broadcasting (modulo reads become split dims with stride 0),
// dim ordering and coalescing. Only the host builds plans; devices just read them.
#include "core/engine/loop_plan.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/base/error.h"

namespace geon {
namespace {

std::string shape_text(std::span<const int64_t> s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + ")";
}

std::string shapes_text(std::span<const TensorDesc* const> ops) {
  std::string out;
  for (size_t i = 0; i < ops.size(); ++i) out += (i ? " " : "") + shape_text(ops[i]->shape);
  return out;
}

// Length of operand `o` at loop dim d of a loop of rank r (1-extended on the left).
int64_t extended_length(const TensorDesc& o, int r, int d) {
  const int lead = r - o.rank();
  return d < lead ? 1 : o.shape[d - lead];
}

int64_t extended_stride(const TensorDesc& o, int r, int d) {
  const int lead = r - o.rank();
  return d < lead ? 0 : o.strides[d - lead];
}

struct LoopDim {
  int64_t length;
  int64_t stride[kMaxLoopOperands];
};

}  // namespace

Dims loop_shape(std::span<const TensorDesc* const> operands) {
  int r = 0;
  for (const TensorDesc* o : operands) r = std::max(r, o->rank());
  Dims shape(r, 1);
  for (int d = 0; d < r; ++d) {
    bool any_zero = false;
    for (const TensorDesc* o : operands) {
      const int64_t len = extended_length(*o, r, d);
      any_zero |= len == 0;
      shape[d] = std::max(shape[d], len);
    }
    if (any_zero) shape[d] = 0;
  }
  // Validate divisibility now so the error names every shape involved.
  for (int d = 0; d < r; ++d)
    for (const TensorDesc* o : operands) {
      const int64_t len = extended_length(*o, r, d);
      const bool ok = len == 1 || len == shape[d] || (len > 0 && shape[d] % len == 0);
      if (!ok)
        fail(ErrorCode::kInvalidArgument, "shapes " + shapes_text(operands) +
                                              " do not broadcast: length " + std::to_string(len) +
                                              " does not divide " + std::to_string(shape[d]) +
                                              " at dim " + std::to_string(d));
    }
  return shape;
}

LoopPlan make_loop_plan(std::span<const TensorDesc* const> operands,
                        std::span<const int64_t> shape) {
  const int n_ops = static_cast<int>(operands.size());
  // Messages are built only on failure: plans are made on every engine call.
  if (n_ops < 1 || n_ops > kMaxLoopOperands)
    fail(ErrorCode::kInvalidArgument,
         "loop plan: between 1 and " + std::to_string(kMaxLoopOperands) + " operands allowed");
  const int r = static_cast<int>(shape.size());
  for (const TensorDesc* o : operands)
    if (o->rank() > r)
      fail(ErrorCode::kInvalidArgument, "loop plan: operand " + shape_text(o->shape) +
                                            " has a higher rank than the loop " +
                                            shape_text(shape));

  LoopPlan plan;
  plan.operands = n_ops;
  for (int o = 0; o < n_ops; ++o) plan.offset[o] = operands[o]->offset;
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
    plan.rank = 1;  // an empty loop: one dim of length 0
    return plan;
  }

  std::vector<LoopDim> dims;
  dims.reserve(static_cast<size_t>(r) * 2);
  for (int d = 0; d < r; ++d) {
    const int64_t L = shape[d];
    // Distinct operand lengths strictly between 1 and L: each needs its own sub-dim.
    // Fixed-size: at most one length per operand, and no allocation per dim.
    int64_t ks[kMaxLoopOperands];
    int nk = 0;
    for (const TensorDesc* o : operands) {
      const int64_t len = extended_length(*o, r, d);
      if (!(len == 1 || len == L || (len > 1 && L % len == 0)))
        fail(ErrorCode::kInvalidArgument, "loop plan: length " + std::to_string(len) +
                                              " does not divide loop length " + std::to_string(L));
      if (len != 1 && len != L) ks[nk++] = len;
    }
    // Sorted and deduplicated by hand (at most kMaxLoopOperands entries).
    for (int i = 1; i < nk; ++i)
      for (int j = i; j > 0 && ks[j - 1] > ks[j]; --j) std::swap(ks[j - 1], ks[j]);
    int distinct = 0;
    for (int i = 0; i < nk; ++i)
      if (distinct == 0 || ks[distinct - 1] != ks[i]) ks[distinct++] = ks[i];
    nk = distinct;
    for (int i = 1; i < nk; ++i)
      if (ks[i] % ks[i - 1] != 0)
        fail(ErrorCode::kInvalidArgument,
             "shapes " + shapes_text(operands) + ": lengths " + std::to_string(ks[i - 1]) +
                 " and " + std::to_string(ks[i]) + " at dim " + std::to_string(d) +
                 " do not nest (one must divide the other)");
    // Sub-dim lengths, outermost first: L/k_n, k_n/k_{n-1}, ..., k_1.
    int64_t m[kMaxLoopOperands + 1];
    int nm = 0;
    int64_t prev = L;
    for (int i = nk - 1; i >= 0; --i) {
      m[nm++] = prev / ks[i];
      prev = ks[i];
    }
    m[nm++] = prev;
    // cum[t] = product of m[t..]; an operand of length len reads sub-dims with cum[t] <= len.
    int64_t cum[kMaxLoopOperands + 2];
    cum[nm] = 1;
    for (int t = nm - 1; t >= 0; --t) cum[t] = cum[t + 1] * m[t];
    for (int t = 0; t < nm; ++t) {
      LoopDim ld{m[t], {}};
      for (int o = 0; o < n_ops; ++o) {
        const int64_t len = extended_length(*operands[o], r, d);
        const int64_t s = extended_stride(*operands[o], r, d);
        ld.stride[o] = (len != 1 && cum[t] <= len) ? s * cum[t + 1] : 0;
      }
      if (ld.length != 1) dims.push_back(ld);
    }
  }

  // Innermost = densest: order by the destination's stride, or in a reduction (the destination
  // has stride 0 along some dim) by the largest input stride on every dim. Mixing the two in a
  // reduction interleaved them: NCHW reduced over H and W put C between H and W (the
  // destination's stride 1 beside the input's 1), leaving rows of W elements, not H x W.
  bool reduces = false;
  for (const LoopDim& ld : dims) reduces |= ld.stride[0] == 0;
  auto key = [&](const LoopDim& ld) {
    if (ld.stride[0] != 0 && !reduces) return std::abs(ld.stride[0]);
    int64_t k = 0;
    for (int o = 1; o < n_ops; ++o) k = std::max(k, std::abs(ld.stride[o]));
    return k;
  };
  // Stable insertion sort: few dims, and std::stable_sort would allocate a buffer.
  for (size_t i = 1; i < dims.size(); ++i) {
    const LoopDim ld = dims[i];
    const int64_t k = key(ld);
    size_t j = i;
    for (; j > 0 && key(dims[j - 1]) < k; --j) dims[j] = dims[j - 1];
    dims[j] = ld;
  }

  // Merge an outer dim into its inner neighbour when every operand steps through both as one.
  // In place: the merged list is never longer than the part of dims already read.
  size_t kept = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    const LoopDim ld = dims[i];
    if (kept > 0) {
      LoopDim& outer = dims[kept - 1];
      bool ok = true;
      for (int o = 0; o < n_ops && ok; ++o) ok = outer.stride[o] == ld.stride[o] * ld.length;
      if (ok) {
        outer.length *= ld.length;
        for (int o = 0; o < n_ops; ++o) outer.stride[o] = ld.stride[o];
        continue;
      }
    }
    dims[kept++] = ld;
  }
  dims.resize(kept);
  // An elementwise pass whose densest dim is a handful of elements (DepthToSpace's block of 2,
  // a transpose into a short last dim) would run one chunk per handful: the longest dim that an
  // operand steps through with unit stride goes innermost instead.
  constexpr int64_t kShortInner = 16;
  if (!reduces && dims.size() >= 2 && dims.back().length < kShortInner) {
    size_t best = dims.size() - 1;
    for (size_t i = 0; i + 1 < dims.size(); ++i) {
      bool unit = false;
      for (int o = 0; o < n_ops; ++o) unit |= std::abs(dims[i].stride[o]) == 1;
      if (unit && dims[i].length >= kShortInner && dims[i].length > dims[best].length) best = i;
    }
    std::rotate(dims.begin() + static_cast<std::ptrdiff_t>(best),
                dims.begin() + static_cast<std::ptrdiff_t>(best) + 1, dims.end());
  }
  const std::vector<LoopDim>& merged = dims;
  if (static_cast<int>(merged.size()) > kMaxLoopRank)
    fail(ErrorCode::kInvalidArgument,
         "loop plan: more than " + std::to_string(kMaxLoopRank) + " dims after coalescing");
  plan.rank = static_cast<int>(merged.size());
  for (int d = 0; d < plan.rank; ++d) {
    plan.length[d] = merged[d].length;
    for (int o = 0; o < n_ops; ++o) plan.stride[o][d] = merged[d].stride[o];
  }
  return plan;
}

}  // namespace geon
