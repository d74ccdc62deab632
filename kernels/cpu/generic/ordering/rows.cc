// cpu.generic's ordering family: its rows of the kernel table (generic/families.h). One row per
// op serves every opset of ArgMax/ArgMin, TopK and CumSum/CumProd (the kernels read the
// opset-dependent forms from the node: select_last_index, k as attribute or input). The
// reductions built on a sum (L1, L2, LogSum, LogSumExp, SumSquare) run on generic/reduce.cc's
// entry points, with their axes by attribute before opset 18 and by input from 18.
#include "kernels/cpu/generic/families.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/ordering/ops.h"

namespace geon::cpu {
namespace {

const KernelEntry kOrdering[] = {
    {"", "ArgMax", 1, supports_arg_extrema, create_arg_extrema},
    {"", "ArgMin", 1, supports_arg_extrema, create_arg_extrema},
    {"", "TopK", 1, supports_top_k, create_top_k},
    {"", "CumSum", 11, supports_cumulative, create_cumulative},
    {"", "CumProd", 26, supports_cumulative, create_cumulative},
    {"", "ReduceL1", 1, supports_reduce_attr, create_reduce_attr},
    {"", "ReduceL1", 18, supports_reduce_input, create_reduce_input},
    {"", "ReduceL2", 1, supports_reduce_attr, create_reduce_attr},
    {"", "ReduceL2", 18, supports_reduce_input, create_reduce_input},
    {"", "ReduceLogSum", 1, supports_reduce_attr, create_reduce_attr},
    {"", "ReduceLogSum", 18, supports_reduce_input, create_reduce_input},
    {"", "ReduceLogSumExp", 1, supports_reduce_attr, create_reduce_attr},
    {"", "ReduceLogSumExp", 18, supports_reduce_input, create_reduce_input},
    {"", "ReduceSumSquare", 1, supports_reduce_attr, create_reduce_attr},
    {"", "ReduceSumSquare", 18, supports_reduce_input, create_reduce_input},
};

}  // namespace

std::span<const KernelEntry> ordering_rows() { return kOrdering; }

}  // namespace geon::cpu
