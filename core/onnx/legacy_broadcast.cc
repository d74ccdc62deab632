// ONNX's pre-opset-7 broadcast as a view of the second operand (see legacy_broadcast.h).
#include "core/onnx/legacy_broadcast.h"

#include <numeric>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"

namespace geon::onnx {
namespace {

std::string dims_text(const Dims& d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + ")";
}

int64_t numel(const Dims& d) {
  return std::accumulate(d.begin(), d.end(), int64_t{1}, std::multiplies<>());
}

}  // namespace

LegacyBroadcast legacy_broadcast(const Node& n) {
  LegacyBroadcast lb;
  if (!n.domain.empty() && n.domain != "ai.onnx") return lb;
  const bool arith =
      n.op == "Add" || n.op == "Sub" || n.op == "Mul" || n.op == "Div" || n.op == "Pow";
  if (n.opset >= 7 || !(arith || n.op == "PRelu")) return lb;
  lb.on = true;
  lb.op = n.op;
  if (n.op == "PRelu") {
    lb.broadcast = true;
    lb.channel = true;
    return lb;
  }
  lb.broadcast = attr_int(n, "broadcast", 0) != 0;
  lb.has_axis = n.attrs.count("axis") != 0;
  if (lb.has_axis) lb.axis = attr_int(n, "axis", 0);
  return lb;
}

TensorDesc legacy_operand(const LegacyBroadcast& lb, const TensorDesc& a, const TensorDesc& b) {
  if (!lb.on) return b;
  const int ra = a.rank(), rb = b.rank();
  if (lb.channel) {
    // PRelu-1/6: a one-element slope is shared; a vector of A's channel count is per channel.
    if (numel(b.shape) == 1 || rb != 1 || ra < 2 || b.shape[0] != a.shape[1]) return b;
    std::vector<int64_t> axes;
    for (int i = 0; i < ra - 2; ++i) axes.push_back(1 + i);
    return unsqueeze(b, axes);
  }
  if (!lb.broadcast) {
    require(a.shape == b.shape, lb.op + " (opset < 7) without broadcast=1 needs B of A's shape " +
                                    dims_text(a.shape) + ", got " + dims_text(b.shape));
    return b;
  }
  require(rb <= ra, lb.op + " (opset < 7) broadcast: B " + dims_text(b.shape) +
                        " has more dims than A " + dims_text(a.shape));
  const int64_t axis = lb.has_axis ? (lb.axis < 0 ? lb.axis + ra : lb.axis) : ra - rb;
  require(axis >= 0 && axis + rb <= ra, lb.op + " (opset < 7) broadcast: B " + dims_text(b.shape) +
                                            " does not fit A " + dims_text(a.shape) +
                                            " from axis " + std::to_string(lb.axis));
  for (int i = 0; i < rb; ++i)
    require(b.shape[i] == a.shape[axis + i] || b.shape[i] == 1,
            lb.op + " (opset < 7) broadcast: B " + dims_text(b.shape) + " does not match A " +
                dims_text(a.shape) + " from axis " + std::to_string(axis));
  std::vector<int64_t> axes;
  for (int64_t i = rb; i < ra - axis; ++i) axes.push_back(i);
  return axes.empty() ? b : unsqueeze(b, axes);
}

}  // namespace geon::onnx
