// Import rules: string ops (StringConcat, StringNormalizer, StringSplit, RegexFullMatch),
// TfIdfVectorizer and ImageDecoder. Where an output's length depends on the strings or bytes
// themselves (removed stopwords, substrings, image sizes) it is unknown.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/misc.h"
#include "importer/ops/subgraph.h"

namespace geon::importer {
namespace {

void require_string(const RuleContext& c, int i) {
  const Value& v = c.input(i);
  if (v.type.kind != TypeKind::kTensor && v.type.kind != TypeKind::kUnknown)
    c.fail("input " + std::to_string(i) + " must be a string tensor, got " + to_string(v.type));
  require_dtype_in(c, v.dtype(), {DType::kString}, "input " + std::to_string(i));
}

void string_concat(RuleContext& c) {
  if (c.num_inputs() != 2) c.fail("takes two inputs, got " + std::to_string(c.num_inputs()));
  require_string(c, 0);
  require_string(c, 1);
  broadcast_output(c, DType::kString);
}

void regex_full_match(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  require_string(c, 0);
  if (!c.has_attr("pattern")) c.fail("attribute 'pattern' is required but missing");
  c.attr_string("pattern");  // checks its kind
  same_as_input(c, 0, 0, DType::kBool);
}

void string_normalizer(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  require_string(c, 0);
  const std::string action = c.attr_string("case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER")
    c.fail("attribute 'case_change_action' must be NONE, LOWER or UPPER, got '" + action + "'");
  flag_attr(c, "is_case_sensitive", 0);
  const bool removes = !c.attr_strings("stopwords", std::vector<std::string>{}).empty();
  const Value& x = c.input(0);
  if (!x.rank_known) {
    c.set_output_unknown_rank(0, DType::kString);
    return;
  }
  if (x.rank() != 1 && x.rank() != 2)
    c.fail("input 0 must be [C] or [1, C], got shape " + to_string_with_lengths(x.axes));
  if (x.rank() == 2 && x.axes[0].length.is_static() && x.axes[0].length.value != 1)
    c.fail("input 0 must be [C] or [1, C], got shape " + to_string_with_lengths(x.axes));
  if (!removes) {
    same_as_input(c, 0, 0, DType::kString);
    return;
  }
  // Stopwords removed: C shrinks to what is left (at least one, an empty string).
  std::vector<Axis> axes = x.axes.list();
  axes.back() = make_axis_like(c.graph().factory(), axes.back(), Length::unknown());
  c.set_output(0, DType::kString, Axes(std::move(axes)));
}

void string_split(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  require_string(c, 0);
  const int64_t maxsplit = c.attr_int("maxsplit", 0);
  if (c.has_attr("maxsplit") && maxsplit < 0)
    c.fail("attribute 'maxsplit' must not be negative, got " + std::to_string(maxsplit));
  c.attr_string("delimiter", "");
  const Value& x = c.input(0);
  if (!x.rank_known) {
    c.set_output_unknown_rank(0, DType::kString);
    c.set_output_unknown_rank(1, DType::kInt64);
    return;
  }
  // The substring dim is as long as the most substrings any element has: 0 without elements.
  Length most = Length::unknown();
  if (auto s = static_lengths(x.axes); s && element_count(*s) == 0) most = Length::known(0);
  std::vector<Axis> axes = x.axes.list();
  axes.push_back(c.new_axis(most));
  c.set_output(0, DType::kString, Axes(std::move(axes)));
  c.set_output(1, DType::kInt64, x.axes);
}

void tfidf_vectorizer(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  const Value& x = c.input(0);
  require_dtype_in(c, x.dtype(), {DType::kString, DType::kInt32, DType::kInt64}, "input 0");
  const std::string mode = c.attr_string("mode");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    c.fail("attribute 'mode' must be TF, IDF or TFIDF, got '" + mode + "'");
  const int64_t lo = c.attr_int("min_gram_length");
  const int64_t hi = c.attr_int("max_gram_length");
  if (lo < 1 || hi < lo)
    c.fail("attributes 'min_gram_length' (" + std::to_string(lo) + ") and 'max_gram_length' (" +
           std::to_string(hi) + ") must satisfy 1 <= min <= max");
  if (c.attr_int("max_skip_count") < 0) c.fail("attribute 'max_skip_count' must not be negative");
  const std::vector<int64_t> counts = c.attr_ints("ngram_counts");
  const std::vector<int64_t> indexes = c.attr_ints("ngram_indexes");
  const bool strings = c.has_attr("pool_strings");
  if (strings == c.has_attr("pool_int64s"))
    c.fail("exactly one of the attributes 'pool_strings' and 'pool_int64s' must be given");
  const int64_t pool = strings ? static_cast<int64_t>(c.attr_strings("pool_strings").size())
                               : static_cast<int64_t>(c.attr_ints("pool_int64s").size());
  if (strings != (x.dtype() == DType::kString) && x.dtype() != DType::kUndefined)
    c.fail(std::string("input 0 is ") + std::string(dtype_name(x.dtype())) + " but the pool is " +
           (strings ? "'pool_strings'" : "'pool_int64s'"));
  for (size_t k = 0; k < counts.size(); ++k)
    if (counts[k] < 0 || counts[k] > pool || (k > 0 && counts[k] < counts[k - 1]))
      c.fail("attribute 'ngram_counts' must be non-decreasing offsets into the pool of " +
             std::to_string(pool));
  if (indexes.empty()) c.fail("attribute 'ngram_indexes' must not be empty");
  for (int64_t i : indexes)
    if (i < 0) c.fail("attribute 'ngram_indexes' has the negative entry " + std::to_string(i));
  const auto weights = c.attr_floats("weights", std::vector<float>{});
  if (!weights.empty() && weights.size() != indexes.size())
    c.fail("attribute 'weights' has " + std::to_string(weights.size()) + " entries but " +
           "'ngram_indexes' has " + std::to_string(indexes.size()));
  const int64_t top = *std::max_element(indexes.begin(), indexes.end());
  if (top == INT64_MAX)
    c.fail("attribute 'ngram_indexes' has an entry too large for an output dim");
  const Length features = Length::known(top + 1);
  if (!x.rank_known) {
    c.set_output_unknown_rank(0, DType::kFloat);
    return;
  }
  if (x.rank() == 1) {
    c.set_output(0, DType::kFloat, Axes{c.new_axis(features)});
  } else if (x.rank() == 2) {
    c.set_output(0, DType::kFloat, Axes{x.axes[0], c.new_axis(features)});
  } else {
    c.fail("input 0 must be [C] or [N, C], got shape " + to_string_with_lengths(x.axes));
  }
}

void image_decoder(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  require_rank(c, 0, 1, "encoded_stream");
  require_dtype_in(c, c.input_dtype(0), {DType::kUInt8}, "input 0 (encoded_stream)");
  const std::string format = c.attr_string("pixel_format", "RGB");
  int64_t channels = 3;
  if (format == "Grayscale") {
    channels = 1;
  } else if (format != "RGB" && format != "BGR") {
    c.fail("attribute 'pixel_format' must be RGB, BGR or Grayscale, got '" + format + "'");
  }
  c.set_output(0, DType::kUInt8,
               std::vector<Length>{Length::unknown(), Length::unknown(), Length::known(channels)});
}

}  // namespace

std::vector<RuleEntry> misc_text_rules() {
  return {
      {"", "StringConcat", 20, string_concat},         {"", "RegexFullMatch", 20, regex_full_match},
      {"", "StringNormalizer", 10, string_normalizer}, {"", "StringSplit", 20, string_split},
      {"", "TfIdfVectorizer", 9, tfidf_vectorizer},    {"", "ImageDecoder", 20, image_decoder},
  };
}

}  // namespace geon::importer
