// The text family of cpu.generic: string ops (StringConcat, StringSplit, StringNormalizer,
// RegexFullMatch, TfIdfVectorizer), Cast and Equal where strings are involved, and the
// ai.onnx.ml ops (LabelEncoder, TreeEnsemble, ArrayFeatureExtractor, Binarizer). String
// elements are handles (core/strings/strings.h); new strings go into the run's arena.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/strings/strings.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {

// The most text one string op may make in a run (StringConcat's broadcasting can multiply a
// long string); more is kResourceExhausted.
inline constexpr int64_t kMaxStringOutputBytes = int64_t{1} << 30;

// String tensors as kernels read and write them (text/string_io.cc).
// Every element of t (any strides), row-major; the views point at the strings' own bytes.
std::vector<std::string_view> read_strings(const TensorRef& t);
// t broadcast to `shape` (numpy rules), row-major.
std::vector<std::string_view> read_strings_as(const TensorRef& t, const Dims& shape);
// Stores `values` (row-major, one per element of dst) in the run's arena and writes their
// handles into dst (any strides).
void write_strings(const TensorRef& dst, std::span<const std::string> values);
void write_strings(const TensorRef& dst, std::span<const std::string_view> values);
// A reason unless the dtype is string, for `what`.
Reason require_string(DType t, std::string_view what);
// Reads dtype-switched numeric elements as double / int64 (dense copies through assign).
std::vector<double> read_doubles(const TensorRef& t);
std::vector<int64_t> read_int64s(const TensorRef& t);

// Hooks for rows that live elsewhere: Cast / CastLike from or to string (generic/cast_clip.cc
// calls these when either side is string), Equal on strings (generic/elementwise.cc).
GEON_CPU_FAMILY(cast_string);
GEON_CPU_FAMILY(equal_string);
// Identity, Reshape and the other ops that only move elements accept strings (handles): the
// engine's dtype reason, but strings allowed.
Reason string_or_engine_reason(DType t, std::string_view what);

// text/string_ops.cc
GEON_CPU_FAMILY(string_concat);
GEON_CPU_FAMILY(string_split);
GEON_CPU_FAMILY(string_normalizer);
GEON_CPU_FAMILY(regex_full_match);
// text/tfidf.cc
GEON_CPU_FAMILY(tfidf_vectorizer);
// text/label_encoder.cc
GEON_CPU_FAMILY(label_encoder);
// text/tree_ensemble.cc
GEON_CPU_FAMILY(tree_ensemble);
// text/ml_simple.cc
GEON_CPU_FAMILY(array_feature_extractor);
GEON_CPU_FAMILY(binarizer);
// text/image_decoder.cc
GEON_CPU_FAMILY(image_decoder);

}  // namespace geon::cpu
