// The ordering family's entry points (supports, create), bound to ONNX ops by ordering/rows.cc.
// ReduceL1/L2/LogSum/LogSumExp/SumSquare are rows of this family too, but run on the
// reductions' entry points (generic/ops.h: reduce_attr, reduce_input in generic/reduce.cc).
#pragma once

#include <memory>

#include "kernels/cpu/common.h"

namespace geon::cpu {

// ordering/arg_extrema.cc: ArgMax, ArgMin (every opset; select_last_index from 12).
GEON_CPU_FAMILY(arg_extrema);
// ordering/top_k.cc: TopK, k by attribute (1) or by input (10; largest and sorted from 11).
GEON_CPU_FAMILY(top_k);
// ordering/cumulative.cc: CumSum (11, 14), CumProd (26).
GEON_CPU_FAMILY(cumulative);

}  // namespace geon::cpu
