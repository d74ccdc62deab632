// The misc family's parts and the helpers they share. misc.cc (random ops, BitCast) joins the
// rules of misc_signal.cc (windows, DFT, STFT, MelWeightMatrix), misc_text.cc (string ops,
// TfIdfVectorizer, ImageDecoder), misc_ml.cc (ai.onnx.ml, ai.onnx.preview.training,
// ai.onnx.preview) and misc_maps.cc (the ai.onnx.ml ops on maps) into misc_rules().
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "importer/rule.h"

namespace geon::importer {

std::vector<RuleEntry> misc_signal_rules();
std::vector<RuleEntry> misc_text_rules();
std::vector<RuleEntry> misc_ml_rules();
std::vector<RuleEntry> misc_maps_rules();  // misc_maps.cc: ZipMap, DictVectorizer, CastMap

// The dtype named by an int attribute (an ONNX TensorProto.DataType), nullopt when absent;
// a failure naming the attribute when the number is no ONNX type.
std::optional<DType> dtype_attr(const RuleContext& c, std::string_view name);
// Fails unless t is one of `allowed`; `what` names the value ("input 0", "attribute 'dtype'").
void require_dtype_in(const RuleContext& c, DType t, std::span<const DType> allowed,
                      const std::string& what);
inline void require_dtype_in(const RuleContext& c, DType t, std::initializer_list<DType> allowed,
                             const std::string& what) {
  require_dtype_in(c, t, std::span<const DType>(allowed.begin(), allowed.size()), what);
}
// The real floating types, with bfloat16 when `bf16`.
std::span<const DType> float_types(bool bf16);
// The numeric output types of the window ops, MelWeightMatrix and Bernoulli.
std::span<const DType> window_output_types();
// A one-element integer input (int32 or int64, as `role` says), its value when constant.
std::optional<int64_t> scalar_int_input(const RuleContext& c, int i, const std::string& role);
// Fails unless input i is a tensor of rank `rank` when its rank is known.
void require_rank(const RuleContext& c, int i, int rank, const std::string& role);
// Fails unless a 0/1 flag attribute is 0 or 1; returns it.
int64_t flag_attr(const RuleContext& c, std::string_view name, int64_t fallback);

}  // namespace geon::importer
