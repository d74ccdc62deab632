// The import rules, one family per file in importer/ops/. rule_table.cc joins these spans
// into the one table the importer looks rules up in.
#pragma once

#include <span>

#include "importer/rule.h"

namespace geon::importer {

std::span<const RuleEntry> elementwise_rules();  // math, activations, logic, comparisons, Cast
std::span<const RuleEntry> reduction_rules();  // Reduce*, ArgMax/Min, CumSum, TopK, Softmax family
std::span<const RuleEntry> linalg_rules();     // MatMul, Gemm, Einsum, Det, ...
std::span<const RuleEntry> nn_rules();         // Conv, pooling, normalization, RNNs, attention
std::span<const RuleEntry> shape_rules();      // Reshape, Transpose, Slice, Concat, Split, Pad, ...
std::span<const RuleEntry> indexing_rules();   // Gather*, Scatter*, NonZero, Unique, OneHot, ...
std::span<const RuleEntry> control_flow_rules();  // If, Loop, Scan, Identity, optionals
std::span<const RuleEntry> sequence_rules();      // Sequence*, SplitToSequence, ConcatFromSequence
std::span<const RuleEntry>
quantization_rules();  // QuantizeLinear, DequantizeLinear, QLinear*, *Integer
std::span<const RuleEntry>
misc_rules();  // random, windows, strings, images, ML and training domains

}  // namespace geon::importer
