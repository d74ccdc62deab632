// Import rules of the ai.onnx.ml ops on map values: ZipMap (a [N, C] or [C] float tensor to N
// maps, one key per column), DictVectorizer (one map to a [1, V] row over a vocabulary) and
// CastMap (one map(int64, _) to a [1, n] row, densely or over max_map slots).
#include <string>
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/misc.h"

namespace geon::importer {
namespace {

constexpr std::string_view kMl = "ai.onnx.ml";

std::string name_of(DType t) { return std::string(dtype_name(t)); }

// Input i as a map, or a failure saying what it is instead.
const Value& require_map(const RuleContext& c, int i) {
  const Value& v = c.input(i);
  if (v.type.kind != TypeKind::kMap)
    c.fail("input " + std::to_string(i) + " must be a map, got " + to_string(v.type));
  return v;
}

// The one of two alternative list attributes that is set: its key dtype. Exactly one must be.
DType one_of(const RuleContext& c, const char* strings, const char* ints) {
  const bool s = c.has_attr(strings), i = c.has_attr(ints);
  if (s && i) c.fail("attributes '" + std::string(strings) + "' and '" + ints + "' are both set");
  if (!s && !i)
    c.fail("needs one of the attributes '" + std::string(strings) + "' and '" + ints + "'");
  return s ? DType::kString : DType::kInt64;
}

void zip_map(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  const Value& x = c.input(0);
  if (x.type.kind != TypeKind::kTensor && x.type.kind != TypeKind::kUnknown)
    c.fail("input 0 must be a tensor, got " + to_string(x.type));
  require_dtype_in(c, x.dtype(), {DType::kFloat}, "input 0");
  const DType key = one_of(c, "classlabels_strings", "classlabels_int64s");
  const size_t labels = key == DType::kString ? c.attr_strings("classlabels_strings").size()
                                              : c.attr_ints("classlabels_int64s").size();
  if (x.rank_known) {
    // onnxruntime takes a [C] tensor as one row.
    if (x.rank() != 1 && x.rank() != 2)
      c.fail("input 0 must be [N, C] or [C], got rank " + std::to_string(x.rank()));
    const Length& cols = x.axes[x.rank() - 1].length;
    if (cols.is_static() && cols.value != static_cast<int64_t>(labels))
      c.fail("input 0 has " + std::to_string(cols.value) + " columns but there are " +
             std::to_string(labels) + " class labels");
  }
  c.set_output_type(0, ValueType{TypeKind::kSequence, DType::kFloat, TypeKind::kMap, key});
}

void dict_vectorizer(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  const Value& x = require_map(c, 0);
  const DType key = x.type.key, value = x.dtype();
  // onnxruntime's six map types.
  if (key == DType::kString) {
    require_dtype_in(c, value, {DType::kInt64, DType::kFloat, DType::kDouble},
                     "the values of a map with string keys");
  } else if (key == DType::kInt64) {
    require_dtype_in(c, value, {DType::kString, DType::kFloat, DType::kDouble},
                     "the values of a map with int64 keys");
  } else {
    c.fail("input 0's keys must be string or int64, got " + name_of(key));
  }
  const DType vocab = one_of(c, "string_vocabulary", "int64_vocabulary");
  if (vocab != key)
    c.fail("input 0's keys are " + name_of(key) + " but the vocabulary is " + name_of(vocab) +
           " ('" + (key == DType::kString ? "string" : "int64") + "_vocabulary' is needed)");
  const size_t size = key == DType::kString ? c.attr_strings("string_vocabulary").size()
                                            : c.attr_ints("int64_vocabulary").size();
  // onnxruntime gives one row: [1, V].
  c.set_output(0, value, std::vector<int64_t>{1, static_cast<int64_t>(size)});
}

void cast_map(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  const Value& x = require_map(c, 0);
  if (x.type.key != DType::kInt64)
    c.fail("input 0's keys must be int64, got " + name_of(x.type.key));
  require_dtype_in(c, x.dtype(), {DType::kString, DType::kFloat}, "input 0's values");
  const std::string to = c.attr_string("cast_to", "TO_FLOAT");
  const DType out = to == "TO_FLOAT"    ? DType::kFloat
                    : to == "TO_STRING" ? DType::kString
                    : to == "TO_INT64"  ? DType::kInt64
                                        : DType::kUndefined;
  if (out == DType::kUndefined)
    c.fail("attribute 'cast_to' must be TO_FLOAT, TO_STRING or TO_INT64, got '" + to + "'");
  const std::string form = c.attr_string("map_form", "DENSE");
  if (form != "DENSE" && form != "SPARSE")
    c.fail("attribute 'map_form' must be DENSE or SPARSE, got '" + form + "'");
  const int64_t max_map = c.attr_int("max_map", 1);
  if (form == "SPARSE" && max_map < 1)
    c.fail("attribute 'max_map' must be at least 1 for SPARSE, got " + std::to_string(max_map));
  // One row, as onnxruntime gives it: the map's entries (DENSE) or max_map slots (SPARSE).
  const Length n = form == "SPARSE" ? Length::known(max_map) : Length::unknown();
  c.set_output(0, out, std::vector<Length>{Length::known(1), n});
}

}  // namespace

std::vector<RuleEntry> misc_maps_rules() {
  return {
      {kMl, "ZipMap", 1, zip_map},
      {kMl, "DictVectorizer", 1, dict_vectorizer},
      {kMl, "CastMap", 1, cast_map},
  };
}

}  // namespace geon::importer
