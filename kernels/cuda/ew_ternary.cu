// The typed elementwise kernels of the ternary ops: one instantiation per op and compute type of
// the table (op_list.h), looked up by the host when a pass is a single op on matching dtypes.
#include "kernels/cuda/kernels.cuh"

namespace geon::cuda {

EwLauncher typed_ternary_launcher(OpId op, int ci) {
  switch (op) {
#define GEON_CASE(F, name, mask, bool_out, cond) \
  case OpId::F:                                  \
    return pick_typed<ops::F, 3, mask, bool_out, cond>(ci);
    GEON_CUDA_TERNARY_OPS(GEON_CASE)
#undef GEON_CASE
    default:
      return nullptr;
  }
}

}  // namespace geon::cuda
