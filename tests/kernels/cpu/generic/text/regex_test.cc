// cpu.generic RegexFullMatch (RE2): whole-string matches only, over a strided input, against
// std::regex as the independent reference for patterns both syntaxes read alike; an invalid
// pattern is refused with RE2's reason.
#include <gtest/gtest.h>

#include <regex>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/generic/text/text_harness.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

TEST(TextRegexFullMatch, MatchesWholeStringsOnly) {
  const std::vector<std::string> in{"www.google.com", "google.com", "www.x.org", "",
                                    "www.a.com.",     "wwwXcom"};
  const std::string pattern = R"(www\.[\w.-]+\.\bcom\b)";
  NodeGraph ng("RegexFullMatch", 20);
  ng.in(transposed_strings({3, 2}, in)).out(DType::kBool, {3, 2}).attr_s("pattern", pattern);
  if (auto why = ng.supports(gen()); why && why->find("RE2") != std::string::npos)
    GTEST_SKIP() << *why;
  const Host y = ng.run(gen())[0];
  const std::regex re(pattern);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(y.at(i), std::regex_match(in[i], re) ? 1 : 0) << in[i];
}

TEST(TextRegexFullMatch, RefusesAnInvalidPattern) {
  NodeGraph ng("RegexFullMatch", 20);
  ng.in(strings({1}, {"a"})).out(DType::kBool, {1}).attr_s("pattern", "(a");
  const auto why = ng.supports(gen());
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("pattern"), std::string::npos) << *why;
}

}  // namespace
}  // namespace geon::cpu::testing
