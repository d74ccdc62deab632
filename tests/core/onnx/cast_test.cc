// core/onnx/cast: Cast's attributes with their ONNX defaults, each round_mode, and the refusal
// of an unknown round_mode naming it.
#include "core/onnx/cast.h"

#include <gtest/gtest.h>

#include "tests/core/onnx/one_node.h"

namespace geon::onnx {
namespace {

using testing::OneNode;

TEST(OnnxCast, DefaultsAreSaturateAndRoundUp) {
  OneNode c("Cast", 21);
  c.in(DType::kFloat).out(DType::kFloat8E4M3FN).attr_i("to", 17);
  CastOptions opt;
  opt.saturate = false;
  opt.e8m0_round = E8M0Round::kNearest;
  EXPECT_EQ(cast_options(c.n, opt), std::nullopt);
  EXPECT_TRUE(opt.saturate);
  EXPECT_EQ(opt.e8m0_round, E8M0Round::kUp);
}

TEST(OnnxCast, ReadsSaturateAndEachRoundMode) {
  const std::pair<const char*, E8M0Round> modes[] = {
      {"up", E8M0Round::kUp}, {"down", E8M0Round::kDown}, {"nearest", E8M0Round::kNearest}};
  for (const auto& [name, mode] : modes) {
    OneNode c("Cast", 24);
    c.in(DType::kFloat).out(DType::kFloat8E8M0).attr_i("saturate", 0).attr_s("round_mode", name);
    CastOptions opt;
    EXPECT_EQ(cast_options(c.n, opt), std::nullopt) << name;
    EXPECT_FALSE(opt.saturate) << name;
    EXPECT_EQ(opt.e8m0_round, mode) << name;
  }
}

TEST(OnnxCast, UnknownRoundModeIsRefusedByName) {
  OneNode c("Cast", 24);
  c.in(DType::kFloat).out(DType::kFloat8E8M0).attr_s("round_mode", "sideways");
  CastOptions opt;
  const Reason r = cast_options(c.n, opt);
  ASSERT_TRUE(r.has_value());
  EXPECT_NE(r->find("round_mode 'sideways'"), std::string::npos) << *r;
}

}  // namespace
}  // namespace geon::onnx
