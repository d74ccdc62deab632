// Pieces the executor's If, Loop and Scan share: compiling a body attribute as a nested
// executable, running it inside the enclosing run (so it can bind captured values), reading a
// one-element condition or count, and copying results into the node's outputs.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/runtime/executor_impl.h"
#include "core/runtime/run_state.h"

namespace geon {

// The graph attribute `name` of n compiled with the enclosing compile's sets and options.
std::unique_ptr<ExecutableImpl> compile_body(const Node& n, const char* name,
                                             std::span<const KernelSet* const> sets,
                                             const ExecutorOptions& options,
                                             ExecClock::time_point origin);

// Runs body with these inputs inside ctx's run; every body output, in order.
// Sequence and optional inputs come in `lists` (empty, or one per body input).
std::vector<OwnedTensor> run_body(const ExecutableImpl& body, std::span<const TensorRef> inputs,
                                  NodeContext& ctx, std::span<const ListRef> lists = {});

// The one element of a bool or integer tensor on the host, as an integer.
int64_t read_scalar(const TensorRef& t, const std::string& what);

// Copies src (dense, any device) into the node's output i, whose dtype must match.
void emit(NodeContext& ctx, int i, const TensorRef& src);
// Output i from a body result: a tensor copied (emit), or a sequence or optional passed on; a
// tensor becomes an optional holding it, and an optional holding a tensor becomes that tensor
// where the node's output asks.
void emit_value(NodeContext& ctx, int i, const OwnedTensor& result);
// Bytes of a dense tensor of this description.
size_t dense_bytes(const TensorDesc& d);

// Fails (kNotSupported) unless every present input and output of n is a tensor (or, with
// `lists`, a tensor, sequence or optional).
void require_tensor_io(const Graph& g, const Node& n, bool lists = false);

std::unique_ptr<ControlFlow> make_if(const Graph& g, const Node& n,
                                     std::span<const KernelSet* const> sets,
                                     const ExecutorOptions& options, ExecClock::time_point origin);
std::unique_ptr<ControlFlow> make_loop(const Graph& g, const Node& n,
                                       std::span<const KernelSet* const> sets,
                                       const ExecutorOptions& options,
                                       ExecClock::time_point origin);
std::unique_ptr<ControlFlow> make_sequence_map(const Graph& g, const Node& n,
                                               std::span<const KernelSet* const> sets,
                                               const ExecutorOptions& options,
                                               ExecClock::time_point origin);
// Scan before opset 9 (batched, with sequence_lens): control_flow_scan8.cc.
std::unique_ptr<ControlFlow> make_scan8(const Graph& g, const Node& n,
                                        std::span<const KernelSet* const> sets,
                                        const ExecutorOptions& options,
                                        ExecClock::time_point origin);
std::unique_ptr<ControlFlow> make_scan(const Graph& g, const Node& n,
                                       std::span<const KernelSet* const> sets,
                                       const ExecutorOptions& options,
                                       ExecClock::time_point origin);

}  // namespace geon
