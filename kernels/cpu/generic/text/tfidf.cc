// TfIdfVectorizer: counts the pool's n-grams (lengths min..max, items max_skip_count apart at
// most) in each row of int32 / int64 / string tokens, then weighs the counts (TF, IDF, TFIDF).
// The reference evaluator's reading: each skip distance 1..max_skip+1 is walked from every
// start, and 1-grams are counted on the first distance only.
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "core/base/error.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {
namespace {

enum class Weighting { kTf, kIdf, kTfIdf };

struct Vectorizer {
  int64_t min_gram = 1, max_gram = 1, max_skip = 0, out_size = 0;
  Weighting mode = Weighting::kTf;
  std::vector<float> weights;
  // An n-gram's key (each token's length then its bytes) to its output position.
  std::unordered_map<std::string, int64_t> grams;
  bool strings = false;
};

void append_token(std::string& key, std::string_view token) {
  const uint64_t n = token.size();
  key.append(reinterpret_cast<const char*>(&n), sizeof n);
  key.append(token);
}

std::string int_token(int64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }

std::shared_ptr<Vectorizer> build(const Node& n) {
  auto v = std::make_shared<Vectorizer>();
  v->min_gram = attr_int(n, "min_gram_length", 1);
  v->max_gram = attr_int(n, "max_gram_length", 1);
  v->max_skip = attr_int(n, "max_skip_count", 0);
  require(v->min_gram >= 1 && v->max_gram >= v->min_gram,
          "attributes 'min_gram_length' and 'max_gram_length' must satisfy 1 <= min <= max");
  require(v->max_skip >= 0 && v->max_skip <= (int64_t{1} << 20),
          "attribute 'max_skip_count' must be 0 to 2^20");
  const std::string mode = attr_string(n, "mode", "");
  require(mode == "TF" || mode == "IDF" || mode == "TFIDF",
          [&] { return "attribute 'mode' must be TF, IDF or TFIDF, got '" + mode + "'"; });
  v->mode = mode == "TF" ? Weighting::kTf : mode == "IDF" ? Weighting::kIdf : Weighting::kTfIdf;
  const Attribute* counts = n.attr("ngram_counts");
  const Attribute* indexes = n.attr("ngram_indexes");
  require(counts && indexes, "attributes 'ngram_counts' and 'ngram_indexes' are required");
  std::vector<std::string> pool;
  if (const Attribute* s = n.attr("pool_strings")) {
    v->strings = true;
    pool = s->strings;
  } else if (const Attribute* i = n.attr("pool_int64s")) {
    for (int64_t t : i->ints) pool.push_back(int_token(t));
  } else {
    fail(ErrorCode::kInvalidArgument, "one of 'pool_strings' and 'pool_int64s' is required");
  }
  if (const Attribute* w = n.attr("weights")) v->weights = w->floats;
  for (int64_t i : indexes->ints) {
    require(i >= 0 && i < (int64_t{1} << 32),
            [&] { return "ngram_indexes entry " + std::to_string(i) + " is out of range"; });
    v->out_size = std::max(v->out_size, i + 1);
  }
  require(v->weights.empty() || static_cast<int64_t>(v->weights.size()) >= v->out_size, [&] {
    return "attribute 'weights' has " + std::to_string(v->weights.size()) +
           " entries for an output of " + std::to_string(v->out_size);
  });
  const std::vector<int64_t>& c = counts->ints;
  const auto total = static_cast<int64_t>(pool.size());
  int64_t id = 0;  // the n-gram's position in pool order, over every length
  for (size_t k = 0; k < c.size(); ++k) {
    const int64_t size = static_cast<int64_t>(k) + 1;
    const int64_t start = c[k], end = k + 1 < c.size() ? c[k + 1] : total;
    require(start >= 0 && start <= end && end <= total,
            "attribute 'ngram_counts' must be non-decreasing starts within the pool");
    require((end - start) % size == 0, [&] {
      return "the pool's " + std::to_string(size) + "-grams take " + std::to_string(end - start) +
             " items, not a multiple "
             "of " +
             std::to_string(size);
    });
    for (int64_t g = start; g < end; g += size, ++id) {
      if (size < v->min_gram || size > v->max_gram) continue;
      require(id < static_cast<int64_t>(indexes->ints.size()),
              "attribute 'ngram_indexes' has fewer entries than the pool has n-grams");
      std::string key;
      for (int64_t t = g; t < g + size; ++t) append_token(key, pool[static_cast<size_t>(t)]);
      v->grams.emplace(std::move(key), indexes->ints[static_cast<size_t>(id)]);
    }
  }
  return v;
}

void count_row(const Vectorizer& v, const std::vector<std::string>& tokens, int64_t begin,
               int64_t end, float* freq) {
  int64_t first = v.min_gram;
  for (int64_t skip = 1; skip <= v.max_skip + 1; ++skip) {
    for (int64_t start = begin; start < end; ++start) {
      if (start + skip * (first - 1) >= end) break;
      std::string key;
      for (int64_t size = 1, item = start; size <= v.max_gram && item < end; ++size, item += skip) {
        append_token(key, tokens[static_cast<size_t>(item)]);
        if (size < first) continue;
        if (auto it = v.grams.find(key); it != v.grams.end()) freq[it->second] += 1;
      }
    }
    if (first == 1) {  // 1-grams are counted once, not once per distance
      ++first;
      if (first > v.max_gram) break;
    }
  }
}

}  // namespace

Reason supports_tfidf_vectorizer(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  if (t != DType::kString && t != DType::kInt32 && t != DType::kInt64)
    return "input 0 is " + std::string(dtype_name(t)) + "; it must be string, int32 or int64";
  try {
    const auto v = build(n);
    if (v->strings != (t == DType::kString)) return "the pool's type differs from the input's";
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

std::unique_ptr<Kernel> create_tfidf_vectorizer(const Graph&, const Node& n) {
  std::shared_ptr<const Vectorizer> v = build(n);
  return make_node_kernel(n, [v](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const int rank = x.desc.rank();
    require(rank == 1 || rank == 2,
            [&] { return "input 0 must be [C] or [N, C], got " + to_string(x.desc); });
    const int64_t rows = rank == 2 ? x.desc.shape[0] : 1;
    const int64_t cols = x.desc.shape.back();
    const Dims shape = rank == 2 ? Dims{rows, v->out_size} : Dims{v->out_size};
    check_output_size(DType::kFloat, shape, "the output");
    const TensorRef& dst = ctx.output(0, shape);
    std::vector<std::string> tokens;
    if (x.desc.dtype == DType::kString) {
      for (std::string_view s : read_strings(x)) tokens.emplace_back(s);
    } else {
      for (int64_t t : read_int64s(x)) tokens.push_back(int_token(t));
    }
    std::vector<float> y(static_cast<size_t>(rows * v->out_size), 0.0f);
    // The work per row as a hint, in double: attribute values may make the product overflow.
    const double work = static_cast<double>(cols) * (static_cast<double>(v->max_skip) + 1.0) *
                        static_cast<double>(v->max_gram);
    const auto cost = static_cast<int64_t>(std::min(work, 1e15)) + 1;
    parallel_rows(rows, cost, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r)
        count_row(*v, tokens, r * cols, (r + 1) * cols, y.data() + r * v->out_size);
    });
    for (size_t p = 0; p < y.size(); ++p) {
      const float w = v->weights.empty() ? 1.0f : v->weights[p % static_cast<size_t>(v->out_size)];
      if (v->mode == Weighting::kIdf)
        y[p] = y[p] > 0 ? w : 0.0f;
      else if (v->mode == Weighting::kTfIdf)
        y[p] = y[p] * w;
    }
    if (!y.empty()) assign(dst_of(dst), ConstOperand(row_major(DType::kFloat, shape), y.data()));
  });
}

}  // namespace geon::cpu
