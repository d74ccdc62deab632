// Reading an ONNX node as every kernel set must: attributes with the ONNX defaults, which
// inputs are given, their dtypes, constant integer parameters (axes, perm), and whether a dtype
// is one the strided-view engines compute in. Shared by cpu.generic and cuda, so both sets
// refuse and accept the same nodes for the same reasons.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"

// A nested namespace, so that argument-dependent lookup on geon::Node never makes these
// ambiguous with a kernel folder's own helpers of the same names.
namespace geon::onnx {

using Reason = std::optional<std::string>;  // nullopt: supported; otherwise why not

int64_t attr_int(const Node& n, std::string_view name, int64_t dflt);
float attr_float(const Node& n, std::string_view name, float dflt);
std::string attr_string(const Node& n, std::string_view name, std::string dflt);
std::optional<std::vector<int64_t>> attr_ints(const Node& n, std::string_view name);

// Whether input i is given (present and not an omitted optional).
bool has_input(const Node& n, int i);
int present_inputs(const Node& n);
// kUndefined for an omitted input.
DType input_dtype(const Graph& g, const Node& n, int i);
DType output_dtype(const Graph& g, const Node& n, int i);
// The rank of input i when the graph knows it.
std::optional<int> input_rank(const Graph& g, const Node& n, int i);

// The contents of a constant integer input, or nullopt when it is absent or not a constant.
std::optional<std::vector<int64_t>> constant_ints(const Graph& g, const Node& n, int i);

// A reason unless an engine computes in t: undefined, string and complex are refused.
// `what` names the operand ("input 1", "the output").
Reason engine_dtype_reason(DType t, std::string_view what);

// A reason unless every given input and every requested output is a tensor (not a sequence,
// optional or map) of an engine dtype.
Reason engine_io_reason(const Graph& g, const Node& n);

}  // namespace geon::onnx
