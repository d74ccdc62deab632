// ai.onnx.ml DictVectorizer: one map to a [1, V] row (onnxruntime's shape), entry j holding the
// value of the key vocabulary[j]. Vocabulary words the map lacks give 0 (strings: ""); map keys
// outside the vocabulary are dropped; a word listed twice gets the value in both places; a key
// repeated in the map gives its later value.
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/base/error.h"
#include "kernels/cpu/generic/maps/map_io.h"
#include "kernels/cpu/generic/maps/ops.h"

namespace geon::cpu {
namespace {

// Looks string keys up by view: a run does not copy every key of the map into a std::string.
struct TextHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct Vocabulary {
  size_t size = 0;
  std::unordered_map<std::string, std::vector<size_t>, TextHash, std::equal_to<>>
      words;                                             // string keys
  std::unordered_map<int64_t, std::vector<size_t>> ids;  // int64 keys
};

bool allowed(DType key, DType value) {
  if (key == DType::kString)
    return value == DType::kInt64 || value == DType::kFloat || value == DType::kDouble;
  if (key == DType::kInt64)
    return value == DType::kString || value == DType::kFloat || value == DType::kDouble;
  return false;
}

Reason vocabulary_reason(const Node& n, DType key) {
  const Attribute* s = n.attr("string_vocabulary");
  const Attribute* i = n.attr("int64_vocabulary");
  if ((s != nullptr) == (i != nullptr))
    return std::string("needs exactly one of 'string_vocabulary' and 'int64_vocabulary'");
  if ((s != nullptr) != (key == DType::kString))
    return "the map's keys are " + std::string(dtype_name(key)) + " but the vocabulary is not";
  return std::nullopt;
}

}  // namespace

Reason supports_dict_vectorizer(const Graph& g, const Node& n) {
  if (n.inputs.size() != 1 || n.inputs[0] < 0 || n.outputs.size() != 1)
    return std::string("takes one input and gives one output");
  const ValueType& x = g.value(n.inputs[0]).type;
  if (x.kind != TypeKind::kMap || !allowed(x.key, x.dtype))
    return "input 0 must be a map(string, int64|float|double) or map(int64, string|float|double), "
           "got " +
           to_string(x);
  if (output_dtype(g, n, 0) != x.dtype)
    return "the output must be " + std::string(dtype_name(x.dtype)) + ", the map's value type";
  return vocabulary_reason(n, x.key);
}

std::unique_ptr<Kernel> create_dict_vectorizer(const Graph& g, const Node& n) {
  const ValueType type = g.value(n.inputs[0]).type;
  if (Reason r = vocabulary_reason(n, type.key)) fail(ErrorCode::kInvalidArgument, *r);
  auto vocab = std::make_shared<Vocabulary>();
  if (type.key == DType::kString) {
    const auto& w = n.attr("string_vocabulary")->strings;
    vocab->size = w.size();
    for (size_t j = 0; j < w.size(); ++j) vocab->words[w[j]].push_back(j);
  } else {
    const auto& w = n.attr("int64_vocabulary")->ints;
    vocab->size = w.size();
    for (size_t j = 0; j < w.size(); ++j) vocab->ids[w[j]].push_back(j);
  }
  return make_kernel([vocab, type](KernelContext& ctx) {
    const MapEntries m = read_map(ctx, 0, type.key, type.dtype, "DictVectorizer");
    const auto esize = static_cast<size_t>(dtype_bytes_for(type.dtype, 1));
    std::vector<std::byte> row(vocab->size * esize);  // zero bytes: 0, or an empty string
    for (size_t k = 0; k < m.size; ++k) {
      const std::vector<size_t>* at = nullptr;
      if (type.key == DType::kString) {
        auto it = vocab->words.find(m.str_keys[k]);
        if (it != vocab->words.end()) at = &it->second;
      } else {
        auto it = vocab->ids.find(m.int_keys[k]);
        if (it != vocab->ids.end()) at = &it->second;
      }
      if (at)
        for (size_t j : *at) std::memcpy(row.data() + j * esize, m.value(k), esize);
    }
    const Dims shape{1, static_cast<int64_t>(vocab->size)};
    const TensorRef& out = ctx.output(0, shape);
    // String handles copied point at the input map's bytes, which outlive the run step.
    if (!row.empty()) assign(dst_of(out), ConstOperand(row_major(type.dtype, shape), row.data()));
  });
}

}  // namespace geon::cpu
