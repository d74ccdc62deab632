// cpu.generic ai.onnx.ml LabelEncoder against a naive linear search of the keys: opset 1's
// classes (both directions), opset 2's attribute lists with their defaults, opset 4's tensor
// forms of other types, NaN and -0 float keys, strided inputs; a key/value count mismatch is
// refused.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/generic/text/text_harness.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

NodeGraph& ml(NodeGraph& ng) {
  ng.node->domain = "ai.onnx.ml";
  return ng;
}

TEST(TextLabelEncoder, StringsToInt64WithDefault) {
  const std::vector<std::string> keys{"a", "b", "c"};
  const std::vector<int64_t> values{10, 20, 30};
  const std::vector<std::string> in{"c", "z", "a", "b", "", "a"};
  NodeGraph ng("LabelEncoder", 2);
  ml(ng).in(transposed_strings({3, 2}, in)).out(DType::kInt64, {3, 2});
  attr_strings(ng, "keys_strings", keys);
  ng.attr_ints("values_int64s", values);
  ng.attr_i("default_int64", -5);
  const Host y = ng.run(gen())[0];
  for (int64_t i = 0; i < 6; ++i) {
    int64_t want = -5;
    for (size_t k = 0; k < keys.size(); ++k)
      if (keys[k] == in[i]) want = values[k];
    EXPECT_EQ(y.at(i), want) << in[i];
  }
}

TEST(TextLabelEncoder, FloatKeysToStringsWithNaNAndNegativeZero) {
  NodeGraph ng("LabelEncoder", 4);
  ml(ng).in(Host::of(DType::kFloat, {4}, {NAN, -0.0, 2.5, 7})).out(DType::kString, {4});
  attr_floats(ng, "keys_floats", {0.0f, NAN, 2.5f});
  attr_strings(ng, "values_strings", {"zero", "nan", "two"});
  EXPECT_EQ(all_strings(ng.run(gen())[0]),
            (std::vector<std::string>{"nan", "zero", "two", "_Unused"}));
}

TEST(TextLabelEncoder, TensorFormsOfOtherTypes) {
  NodeGraph ng("LabelEncoder", 4);
  ml(ng).in(Host::of(DType::kInt32, {4}, {3, 1, 2, 9})).out(DType::kDouble, {4});
  attr_tensor(ng, "keys_tensor", DType::kInt32, {1, 2, 3});
  attr_tensor(ng, "values_tensor", DType::kDouble, {0.5, 1.5, 2.5});
  attr_tensor(ng, "default_tensor", DType::kDouble, {-1.25});
  const Host y = ng.run(gen())[0];
  const std::vector<double> want{2.5, 0.5, 1.5, -1.25};
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(y.at(i), want[i]);
}

TEST(TextLabelEncoder, Opset1ClassesBothWays) {
  NodeGraph s("LabelEncoder", 1);
  ml(s).in(strings({3}, {"b", "q", "a"})).out(DType::kInt64, {3});
  attr_strings(s, "classes_strings", {"a", "b"});
  s.attr_i("default_int64", 42);
  const Host y = s.run(gen())[0];
  EXPECT_EQ(y.at(0), 1);
  EXPECT_EQ(y.at(1), 42);  // not a class: default_int64
  EXPECT_EQ(y.at(2), 0);
  NodeGraph i("LabelEncoder", 1);
  ml(i).in(Host::of(DType::kInt64, {3}, {1, 5, 0})).out(DType::kString, {3});
  attr_strings(i, "classes_strings", {"a", "b"});
  i.attr_s("default_string", "?");
  EXPECT_EQ(all_strings(i.run(gen())[0]), (std::vector<std::string>{"b", "?", "a"}));
}

TEST(TextLabelEncoder, RefusesMismatchedKeysAndValues) {
  NodeGraph ng("LabelEncoder", 2);
  ml(ng).in(strings({1}, {"a"})).out(DType::kInt64, {1});
  attr_strings(ng, "keys_strings", {"a", "b"});
  ng.attr_ints("values_int64s", {1});
  const auto why = ng.supports(gen());
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("values have 1"), std::string::npos) << *why;
}

}  // namespace
}  // namespace geon::cpu::testing
