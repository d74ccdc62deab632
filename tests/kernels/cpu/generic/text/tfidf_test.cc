// cpu.generic TfIdfVectorizer against a brute-force count over every (length, skip, start) of
// each row: int64, int32 and string tokens, 1-D and 2-D inputs, min/max gram lengths, skips,
// and the TF / IDF / TFIDF weightings; malformed pools are refused.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/generic/text/text_harness.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Pool {
  std::vector<int64_t> tokens, counts, indexes;
  std::map<std::vector<int64_t>, std::pair<int64_t, int64_t>> grams;  // -> (length, out index)
};

// 1-grams, 2-grams and 3-grams over tokens 0..4, output positions shuffled.
Pool random_pool(std::mt19937& rng) {
  Pool p;
  int64_t id = 0;
  std::vector<int64_t> outs(9);
  for (int64_t i = 0; i < 9; ++i) outs[i] = i;
  std::shuffle(outs.begin(), outs.end(), rng);
  for (int64_t len = 1; len <= 3; ++len) {
    p.counts.push_back(static_cast<int64_t>(p.tokens.size()));
    for (int g = 0; g < 3; ++g) {
      std::vector<int64_t> gram;
      for (int64_t k = 0; k < len; ++k) gram.push_back(rng() % 5);
      if (p.grams.count(gram)) gram.assign(len, 5 + g);  // keep pooled n-grams distinct
      p.tokens.insert(p.tokens.end(), gram.begin(), gram.end());
      p.grams[gram] = {len, outs[id]};
      p.indexes.push_back(outs[id++]);
    }
  }
  return p;
}

std::vector<double> brute_force(const Pool& p, const std::vector<int64_t>& x, int64_t rows,
                                int64_t cols, int64_t lo, int64_t hi, int64_t skip,
                                const std::string& mode, const std::vector<float>& w) {
  std::vector<double> out(rows * 9, 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t n = lo; n <= hi; ++n)
      for (int64_t d = 1; d <= (n == 1 ? 1 : skip + 1); ++d)
        for (int64_t s = 0; s + (n - 1) * d < cols; ++s) {
          std::vector<int64_t> gram;
          for (int64_t k = 0; k < n; ++k) gram.push_back(x[r * cols + s + k * d]);
          auto it = p.grams.find(gram);
          if (it != p.grams.end() && it->second.first == n) out[r * 9 + it->second.second] += 1;
        }
  for (size_t i = 0; i < out.size(); ++i) {
    const double wi = w.empty() ? 1.0 : w[i % 9];
    if (mode == "IDF") out[i] = out[i] > 0 ? wi : 0;
    if (mode == "TFIDF") out[i] *= wi;
  }
  return out;
}

TEST(TextTfIdfVectorizer, MatchesABruteForceCount) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 24; ++trial) {
    const Pool p = random_pool(rng);
    const int64_t lo = 1 + rng() % 3, hi = lo + rng() % (4 - lo), skip = rng() % 3;
    const std::string mode = trial % 3 == 0 ? "TF" : trial % 3 == 1 ? "IDF" : "TFIDF";
    std::vector<float> w;
    if (trial % 2)
      for (int i = 0; i < 9; ++i) w.push_back(0.5f + i);
    const bool batch = trial % 4 < 2;
    const int64_t rows = batch ? 3 : 1, cols = 7;
    std::vector<double> xd;
    std::vector<int64_t> x;
    for (int64_t i = 0; i < rows * cols; ++i) {
      x.push_back(rng() % 6);
      xd.push_back(static_cast<double>(x.back()));
    }
    const DType t = trial % 5 == 0 ? DType::kInt32 : DType::kInt64;
    NodeGraph ng("TfIdfVectorizer", 9);
    ng.in(Host::of(t, batch ? Dims{rows, cols} : Dims{cols}, xd))
        .out(DType::kFloat, batch ? Dims{rows, 9} : Dims{9});
    ng.attr_i("min_gram_length", lo).attr_i("max_gram_length", hi).attr_i("max_skip_count", skip);
    ng.attr_s("mode", mode)
        .attr_ints("ngram_counts", p.counts)
        .attr_ints("ngram_indexes", p.indexes);
    ng.attr_ints("pool_int64s", p.tokens);
    if (!w.empty()) attr_floats(ng, "weights", w);
    const Host y = ng.run(gen())[0];
    const auto want = brute_force(p, x, rows, cols, lo, hi, skip, mode, w);
    ASSERT_EQ(y.shape(), batch ? (Dims{rows, 9}) : (Dims{9}));
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_FLOAT_EQ(y.at(static_cast<int64_t>(i)), want[i])
          << "trial " << trial << " min " << lo << " max " << hi << " skip " << skip;
  }
}

TEST(TextTfIdfVectorizer, StringTokens) {
  NodeGraph ng("TfIdfVectorizer", 9);
  ng.in(transposed_strings({2, 3}, {"a", "b", "a", "b", "a", "b"})).out(DType::kFloat, {2, 2});
  ng.attr_i("min_gram_length", 1).attr_i("max_gram_length", 2).attr_i("max_skip_count", 0);
  ng.attr_s("mode", "TF").attr_ints("ngram_counts", {0, 1}).attr_ints("ngram_indexes", {0, 1});
  attr_strings(ng, "pool_strings", {"a", "a", "b"});
  const Host y = ng.run(gen())[0];
  EXPECT_EQ(y.at(0), 2);  // row 0 "a b a": two "a"
  EXPECT_EQ(y.at(1), 1);  // one "a b"
  EXPECT_EQ(y.at(2), 1);  // row 1 "b a b"
  EXPECT_EQ(y.at(3), 1);
}

TEST(TextTfIdfVectorizer, RefusesAMalformedPool) {
  NodeGraph ng("TfIdfVectorizer", 9);
  ng.in(Host::dense(DType::kInt64, {3})).out(DType::kFloat, {2});
  ng.attr_i("min_gram_length", 2).attr_i("max_gram_length", 2).attr_i("max_skip_count", 0);
  ng.attr_s("mode", "TF").attr_ints("ngram_counts", {0, 1}).attr_ints("ngram_indexes", {0, 1});
  ng.attr_ints("pool_int64s", {1, 2, 3, 4});  // 3 items of 2-grams
  const auto why = ng.supports(gen());
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("not a multiple"), std::string::npos) << *why;
}

}  // namespace
}  // namespace geon::cpu::testing
