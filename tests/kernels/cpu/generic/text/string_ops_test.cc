// cpu.generic StringConcat, StringSplit and StringNormalizer against naive references:
// broadcasting and transposed (strided) inputs, Python's split rules (a delimiter, runs of
// whitespace, maxsplit), stopwords with and without case, non-ASCII case changes, and the
// errors for inputs of the wrong rank.
#include <gtest/gtest.h>

#include <random>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/text/text_harness.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

std::string random_word(std::mt19937& rng, const std::string& alphabet, int max_len) {
  std::string s;
  for (int k = static_cast<int>(rng() % (max_len + 1)); k > 0; --k)
    s.push_back(alphabet[rng() % alphabet.size()]);
  return s;
}

TEST(TextStringConcat, BroadcastsAndReadsStridedInputs) {
  std::mt19937 rng(7);
  std::vector<std::string> a(12), b(3);
  for (auto& s : a) s = random_word(rng, "abcé", 4);
  for (auto& s : b) s = random_word(rng, "xyz", 3);
  // a is [4, 3] stored transposed; b is [3], broadcast over the rows.
  NodeGraph ng("StringConcat", 20);
  ng.in(transposed_strings({4, 3}, a)).in(strings({3}, b)).out(DType::kString, {4, 3});
  const Host y = ng.run(gen())[0];
  ASSERT_EQ(y.shape(), (Dims{4, 3}));
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(string_at(y, i), a[i] + b[i % 3]) << i;
}

TEST(TextStringConcat, ABroadcastPastTheTextLimitIsRefusedBeforeItIsMade) {
  // A 1 MiB string broadcast over 1100 elements: over kMaxStringOutputBytes (1 GiB).
  NodeGraph ng("StringConcat", 20);
  ng.in(strings({}, {std::string(size_t{1} << 20, 'x')}))
      .in(strings({1100}, std::vector<std::string>(1100)))
      .out(DType::kString, {1100});
  expect_error(ng, gen(), ErrorCode::kResourceExhausted, {"concatenated strings"});
}

TEST(TextStringConcat, ScalarsAndEmptyTensors) {
  NodeGraph s("StringConcat", 20);
  s.in(strings({}, {"ab"})).in(strings({}, {""})).out(DType::kString, {});
  EXPECT_EQ(all_strings(s.run(gen())[0]), std::vector<std::string>{"ab"});
  NodeGraph e("StringConcat", 20);
  e.in(strings({0}, {})).in(strings({1}, {"x"})).out(DType::kString, {0});
  EXPECT_EQ(e.run(gen())[0].shape(), (Dims{0}));
}

// Python's str.split, written out character by character.
std::vector<std::string> py_split(const std::string& s, const std::string& sep, int64_t maxsplit) {
  std::vector<std::string> out;
  if (sep.empty()) {
    std::string cur;
    size_t i = 0;
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n'; };
    while (i < s.size() && space(s[i])) ++i;
    while (i < s.size()) {
      if (maxsplit >= 0 && static_cast<int64_t>(out.size()) == maxsplit) {
        out.push_back(s.substr(i));
        return out;
      }
      cur.clear();
      while (i < s.size() && !space(s[i])) cur += s[i++];
      out.push_back(cur);
      while (i < s.size() && space(s[i])) ++i;
    }
    return out;
  }
  std::string cur;
  for (size_t i = 0; i < s.size();) {
    if ((maxsplit < 0 || static_cast<int64_t>(out.size()) < maxsplit) &&
        s.compare(i, sep.size(), sep) == 0) {
      out.push_back(cur);
      cur.clear();
      i += sep.size();
    } else {
      cur += s[i++];
    }
  }
  out.push_back(cur);
  return out;
}

TEST(TextStringSplit, MatchesPythonSplitForEveryDelimiterAndMaxsplit) {
  std::mt19937 rng(3);
  for (const std::string sep : {"", ",", "ab"}) {
    for (int64_t maxsplit : {-1, 0, 1, 3}) {
      std::vector<std::string> in(6);
      for (auto& s : in) s = random_word(rng, sep.empty() ? "a b\t" : "a,b", 9);
      NodeGraph ng("StringSplit", 20);
      ng.in(transposed_strings({2, 3}, in)).out(DType::kString).out(DType::kInt64, {2, 3});
      if (!sep.empty()) ng.attr_s("delimiter", sep);
      if (maxsplit >= 0) ng.attr_i("maxsplit", maxsplit);
      const auto outs = ng.run(gen());
      int64_t most = 0;
      std::vector<std::vector<std::string>> want;
      for (const auto& s : in) {
        want.push_back(py_split(s, sep, maxsplit));
        most = std::max<int64_t>(most, static_cast<int64_t>(want.back().size()));
      }
      ASSERT_EQ(outs[0].shape(), (Dims{2, 3, most}));
      for (int64_t i = 0; i < 6; ++i) {
        EXPECT_EQ(outs[1].at(i), static_cast<double>(want[i].size()));
        for (int64_t k = 0; k < most; ++k)
          EXPECT_EQ(string_at(outs[0], i * most + k),
                    k < static_cast<int64_t>(want[i].size()) ? want[i][k] : "")
              << "'" << in[i] << "' sep '" << sep << "' maxsplit " << maxsplit;
      }
    }
  }
}

TEST(TextStringNormalizer, RemovesStopwordsThenChangesCase) {
  NodeGraph ng("StringNormalizer", 10);
  ng.in(strings({1, 5}, {"Monday", "monday", "Été", "and", "AND"})).out(DType::kString);
  attr_strings(ng, "stopwords", {"monday", "and"});
  ng.attr_s("case_change_action", "UPPER");
  const Host y = ng.run(gen())[0];
  EXPECT_EQ(y.shape(), (Dims{1, 1}));
  EXPECT_EQ(all_strings(y), std::vector<std::string>{"ÉTÉ"});  // case-insensitive by default

  NodeGraph cs("StringNormalizer", 10);
  cs.in(strings({4}, {"Monday", "monday", "ÉTÉ", "x"})).out(DType::kString);
  attr_strings(cs, "stopwords", {"monday"});
  cs.attr_i("is_case_sensitive", 1);
  cs.attr_s("case_change_action", "LOWER");
  EXPECT_EQ(all_strings(cs.run(gen())[0]), (std::vector<std::string>{"monday", "été", "x"}));
}

TEST(TextStringNormalizer, AllRemovedGivesOneEmptyString) {
  NodeGraph ng("StringNormalizer", 10);
  ng.in(strings({2}, {"a", "A"})).out(DType::kString);
  attr_strings(ng, "stopwords", {"a"});
  const Host y = ng.run(gen())[0];
  EXPECT_EQ(y.shape(), (Dims{1}));
  EXPECT_EQ(all_strings(y), std::vector<std::string>{""});
}

TEST(TextStringNormalizer, RefusesRowsOtherThanOne) {
  NodeGraph ng("StringNormalizer", 10);
  ng.in(strings({2, 2}, {"a", "b", "c", "d"})).out(DType::kString);
  expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"[C] or [1, C]"});
}

TEST(TextStringOps, RefuseNonStringInputs) {
  NodeGraph ng("StringConcat", 20);
  ng.in(Host::dense(DType::kFloat, {2})).in(strings({2}, {"a", "b"})).out(DType::kString, {2});
  const auto why = ng.supports(gen());
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("must be string"), std::string::npos) << *why;
}

}  // namespace
}  // namespace geon::cpu::testing
