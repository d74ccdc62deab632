// core/onnx/node: engine_io_reason accepts a node whose inputs and outputs are tensors of engine
// dtypes and names the first operand that is not (a sequence or optional carries its elements'
// dtype, so the dtype alone does not tell).
#include "core/onnx/node.h"

#include <gtest/gtest.h>

#include "tests/core/onnx/one_node.h"

namespace geon::onnx {
namespace {

using testing::contains;
using testing::OneNode;

TEST(OnnxNode, EngineIoTakesTensorsOfEngineDtypes) {
  OneNode one("Identity");
  one.in(DType::kFloat).out(DType::kFloat);
  EXPECT_EQ(engine_io_reason(one.g, one.n), std::nullopt);
}

TEST(OnnxNode, EngineIoRefusesSequencesOptionalsAndMapsNamingTheOperand) {
  const struct {
    TypeKind kind;
    TypeKind element;
    const char* shown;
  } cases[] = {{TypeKind::kSequence, TypeKind::kTensor, "seq(float)"},
               {TypeKind::kOptional, TypeKind::kTensor, "optional(float)"},
               {TypeKind::kOptional, TypeKind::kSequence, "optional(seq(float))"},
               {TypeKind::kMap, TypeKind::kTensor, "map("}};
  for (const auto& c : cases) {
    for (const bool on_output : {false, true}) {
      OneNode one("Identity");
      one.in(DType::kFloat).out(DType::kFloat);
      Value& v = one.g.value(on_output ? one.n.outputs[0] : one.n.inputs[0]);
      v.type.kind = c.kind;
      v.type.element = c.element;
      const Reason r = engine_io_reason(one.g, one.n);
      SCOPED_TRACE(c.shown);
      EXPECT_TRUE(contains(r, on_output ? "output 0" : "input 0")) << r.value_or("accepted");
      EXPECT_TRUE(contains(r, c.shown)) << r.value_or("accepted");
      EXPECT_TRUE(contains(r, "not a tensor")) << r.value_or("accepted");
    }
  }
}

TEST(OnnxNode, EngineIoStillRefusesStringsAndUnknownDtypes) {
  OneNode strings("Identity");
  strings.in(DType::kString).out(DType::kString);
  EXPECT_TRUE(contains(engine_io_reason(strings.g, strings.n), "input 0"));
  OneNode unknown("Identity");
  unknown.in(DType::kFloat).out(DType::kUndefined);
  EXPECT_TRUE(contains(engine_io_reason(unknown.g, unknown.n), "output 0"));
}

}  // namespace
}  // namespace geon::onnx
