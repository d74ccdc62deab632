// Operand checks shared by the CPU and CUDA engines.
#include "core/engine/checks.h"

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "core/base/error.h"

namespace geon {

void check_operand(const TensorDesc& d, const void* data, const std::string& what) {
  // Messages are built only on failure: this runs on every engine call.
  if (d.strides.size() != d.shape.size())
    fail(ErrorCode::kInvalidArgument, what + ": " + std::to_string(d.shape.size()) + " dims but " +
                                          std::to_string(d.strides.size()) + " strides");
  for (int64_t len : d.shape)
    if (len < 0) fail(ErrorCode::kInvalidArgument, what + ": negative length in " + to_string(d));
  if (data == nullptr && element_count(d) != 0)
    fail(ErrorCode::kInvalidArgument, what + ": no data");
  if (d.offset < 0 && element_span(d).first < 0 && element_count(d) != 0)
    fail(ErrorCode::kInvalidArgument,
         what + ": the view reaches before its storage: " + to_string(d));
}

void check_not_self_overlapping(const TensorDesc& d) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // |stride|, length
  for (int i = 0; i < d.rank(); ++i)
    if (d.shape[i] > 1) dims.emplace_back(std::abs(d.strides[i]), d.shape[i]);
  std::sort(dims.begin(), dims.end());
  int64_t reach = 0;  // largest offset the inner dims span
  for (auto [stride, len] : dims) {
    if (stride <= reach)
      fail(ErrorCode::kInvalidArgument, "destination " + to_string(d) +
                                            " has elements that alias each other (broadcast or "
                                            "overlapping strides); it cannot be written");
    reach += stride * (len - 1);
  }
}

bool ranges_intersect(const void* a, const TensorDesc& da, const void* b, const TensorDesc& db) {
  if (element_count(da) == 0 || element_count(db) == 0) return false;
  const ByteSpan sa = byte_span(da), sb = byte_span(db);
  const auto* pa = static_cast<const char*>(a);
  const auto* pb = static_cast<const char*>(b);
  return pa + sa.begin < pb + sb.end && pb + sb.begin < pa + sa.end;
}

}  // namespace geon
