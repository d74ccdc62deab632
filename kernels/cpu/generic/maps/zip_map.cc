// ai.onnx.ml ZipMap: each row of X ([N, C], or [C] as one row, as onnxruntime takes it) becomes
// a map from the C class labels to the row's values. Like onnxruntime's std::map, a map's
// entries are in key order and a repeated label keeps its last column's value.
#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>

#include "core/base/error.h"
#include "kernels/cpu/generic/maps/map_io.h"
#include "kernels/cpu/generic/maps/ops.h"

namespace geon::cpu {
namespace {

// What create() settles once: the keys every map shares, and which column gives each value.
struct Plan {
  size_t labels = 0;         // C, duplicates included
  OwnedTensor keys;          // sorted and unique; shared by every map (values are immutable)
  std::vector<size_t> cols;  // per key: the last column with that label
};

template <typename K>
Plan plan_of(const std::vector<K>& labels) {
  std::map<K, size_t> last;
  for (size_t c = 0; c < labels.size(); ++c) last[labels[c]] = c;
  Plan p;
  p.labels = labels.size();
  std::vector<K> keys;
  for (const auto& [k, c] : last) {
    keys.push_back(k);
    p.cols.push_back(c);
  }
  if constexpr (std::is_same_v<K, std::string>) {
    p.keys = owned_strings(keys);
  } else {
    p.keys = owned_vector(DType::kInt64, keys.size());
    if (!keys.empty()) std::memcpy(p.keys.data(), keys.data(), keys.size() * sizeof(int64_t));
  }
  return p;
}

Reason labels_reason(const Node& n) {
  const bool s = n.attr("classlabels_strings") != nullptr;
  const bool i = n.attr("classlabels_int64s") != nullptr;
  if (s == i)
    return std::string("needs exactly one of 'classlabels_strings' and 'classlabels_int64s'");
  return std::nullopt;
}

}  // namespace

Reason supports_zip_map(const Graph& g, const Node& n) {
  if (n.inputs.size() != 1 || n.inputs[0] < 0 || n.outputs.size() != 1)
    return std::string("takes one input and gives one output");
  const Value& x = g.value(n.inputs[0]);
  if (x.type.kind != TypeKind::kTensor || x.dtype() != DType::kFloat)
    return "input 0 must be a float tensor, got " + to_string(x.type);
  const ValueType& out = g.value(n.outputs[0]).type;
  if (out.kind != TypeKind::kSequence || out.element != TypeKind::kMap)
    return "the output must be a sequence of maps, got " + to_string(out);
  return labels_reason(n);
}

std::unique_ptr<Kernel> create_zip_map(const Graph&, const Node& n) {
  if (Reason r = labels_reason(n)) fail(ErrorCode::kInvalidArgument, *r);
  const Attribute* s = n.attr("classlabels_strings");
  auto plan = std::make_shared<const Plan>(s ? plan_of(s->strings)
                                             : plan_of(n.attr("classlabels_int64s")->ints));
  return make_kernel([plan](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const int rank = x.desc.rank();
    if (rank != 1 && rank != 2)
      fail(ErrorCode::kInvalidArgument,
           "ZipMap's input must be [N, C] or [C], got rank " + std::to_string(rank));
    const int64_t cols = x.desc.shape[rank - 1];
    if (cols != static_cast<int64_t>(plan->labels))
      fail(ErrorCode::kInvalidArgument, "ZipMap's input has " + std::to_string(cols) +
                                            " columns but there are " +
                                            std::to_string(plan->labels) + " class labels");
    const int64_t rows = rank == 2 ? x.desc.shape[0] : 1;
    std::vector<float> v(static_cast<size_t>(element_count(x.desc)));
    if (!v.empty()) assign(Operand{row_major(DType::kFloat, x.desc.shape), v.data()}, src_of(x));
    auto list = std::make_shared<ListValue>();
    list->items.reserve(static_cast<size_t>(rows) * 2);
    for (int64_t r = 0; r < rows; ++r) {
      OwnedTensor values = owned_vector(DType::kFloat, plan->cols.size());
      auto* out = static_cast<float*>(values.data());
      for (size_t k = 0; k < plan->cols.size(); ++k)
        out[k] = v[static_cast<size_t>(r * cols) + plan->cols[k]];
      list->items.push_back(plan->keys);
      list->items.push_back(std::move(values));
    }
    ctx.set_output_list(0, std::move(list));
  });
}

}  // namespace geon::cpu
