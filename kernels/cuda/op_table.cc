// The host side of the CUDA op table: one row per entry of op_list.h.
#include "kernels/cuda/op_table.h"

#include <cstdint>

namespace geon::cuda {
namespace {

template <class T>
constexpr bool exists(unsigned mask) {
  return (mask & type_class<T>()) != 0;
}

constexpr CudaOpDef row(std::string_view name, OpId id, int arity, unsigned mask, bool bool_out,
                        bool cond_first) {
  // Same order as kComputeTypes.
  return CudaOpDef{
      name,
      id,
      arity,
      bool_out ? OpResult::kBool : OpResult::kSame,
      cond_first,
      {exists<float>(mask), exists<double>(mask), exists<int8_t>(mask), exists<int16_t>(mask),
       exists<int32_t>(mask), exists<int64_t>(mask), exists<uint8_t>(mask), exists<uint16_t>(mask),
       exists<uint32_t>(mask), exists<uint64_t>(mask), exists<bool>(mask)}};
}

#define GEON_ROW1(F, name, mask, bool_out, cond) row(name, OpId::F, 1, mask, bool_out, cond),
#define GEON_ROW2(F, name, mask, bool_out, cond) row(name, OpId::F, 2, mask, bool_out, cond),
#define GEON_ROW3(F, name, mask, bool_out, cond) row(name, OpId::F, 3, mask, bool_out, cond),
constexpr CudaOpDef kOps[] = {GEON_CUDA_UNARY_OPS(GEON_ROW1) GEON_CUDA_BINARY_OPS(GEON_ROW2)
                                  GEON_CUDA_TERNARY_OPS(GEON_ROW3)};
#undef GEON_ROW1
#undef GEON_ROW2
#undef GEON_ROW3

static_assert(sizeof(kOps) / sizeof(kOps[0]) == static_cast<size_t>(OpId::kCount));

}  // namespace

const CudaOpDef* find_op(std::string_view name) {
  for (const CudaOpDef& d : kOps)
    if (d.name == name) return &d;
  return nullptr;
}

std::span<const CudaOpDef> all_ops() { return kOps; }

std::span<const NotOnCuda> ops_not_on_cuda() { return {}; }

}  // namespace geon::cuda
