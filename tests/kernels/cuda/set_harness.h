// Running one node of a kernel set on the GPU, for the cuda set's tests: the CPU tests'
// hand-built graphs and host tensors (tests/kernels/cpu/harness.h), with a KernelContext whose
// inputs are device copies of those tensors (same views: strides and offsets survive) and
// whose outputs are allocated from the CUDA pool and read back to the host after compute.
#pragma once

#include <string>
#include <vector>

#include "core/runtime/kernel.h"
#include "tests/kernels/cpu/harness.h"

namespace geon::cuda::testing {

using cpu::testing::Host;
using cpu::testing::NodeGraph;

// The node's kernel from `set` (device cuda:0) run once on g.inputs; the outputs read back.
std::vector<Host> run_on_device(const NodeGraph& g, const KernelSet& set);
// `kernel` (made for g's node) computed once on device copies of g.inputs.
std::vector<Host> compute_on_device(const NodeGraph& g, const Kernel& kernel);

// Expects equal shapes and dtypes, and every element within rtol (0 = exact). NaNs must
// match NaNs. `what` names the case in failure messages.
void expect_close(const Host& got, const Host& want, double rtol, const std::string& what);

// Runs the node on cpu.generic and on the cuda set and expects the same outputs: exact when
// rtol is 0 (integers, bools, exact float ops), else within rtol (and atol 1e-7).
void expect_matches_cpu(const NodeGraph& g, double rtol);

}  // namespace geon::cuda::testing
