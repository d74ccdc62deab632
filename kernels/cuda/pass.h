// What a CUDA kernel receives: plain fixed-size structs passed by value (as __grid_constant__
// parameters), built on the host from descriptions and an Expr. They hold the loop plans of
// core/engine/loop_plan.h, an encoded expression (ops by CUDA table id, types by compute
// index) and device pointers; nothing in them needs the host after the launch.
#pragma once

#include <cstdint>

#include "core/base/hd.h"
#include "core/dtype/dtype.h"
#include "core/dtype/scalar.h"
#include "core/engine/loop_plan.h"
#include "kernels/cuda/op_list.h"
#include "kernels/cuda/tiling.h"

namespace geon::cuda {

inline constexpr int kMaxNodes = 16;
inline constexpr int kMaxInputs = kMaxLoopOperands - 2;  // as on the CPU

// One expression node. arg >= 0 is pass input `arg`; arg < 0 is the node ~arg.
struct DevNode {
  OpId op = OpId::Identity;
  int8_t compute = 0;  // compute index every argument is converted to
  int8_t result = 0;   // compute index of the result (bool for predicates)
  int8_t arity = 1;
  int8_t arg[3] = {0, 0, 0};
  double scale[3] = {1, 1, 1};
  double alpha = 0;  // OpParams::alpha
  double beta = 0;   // OpParams::beta
};

// The expression and its inputs. A scalar operand (ConstOperand::scalar) travels inside the
// pass: kernels take its address in the __grid_constant__ parameter, so no host-to-device copy
// (and no stream synchronisation) is needed for it.
struct DevExpr {
  int n_in = 0, n_nodes = 0;
  const void* in[kMaxInputs] = {};
  DType in_dtype[kMaxInputs] = {};
  uint8_t inline_mask = 0;  // bit i: input i is inline_value[i]
  alignas(16) unsigned char inline_value[kMaxInputs][16] = {};
  DevNode nodes[kMaxNodes] = {};
  GEON_HD int result() const { return nodes[n_nodes - 1].result; }
};

GEON_HD const void* input_base(const DevExpr& e, int i) {
  return ((e.inline_mask >> i) & 1) ? static_cast<const void*>(e.inline_value[i]) : e.in[i];
}

// An elementwise pass: operand 0 of the plan is the destination, operand 1 + i is input i
// (for the typed kernels: argument i of the single node).
struct EwPass {
  LoopPlan plan;
  DevExpr e;
  void* dst = nullptr;
  DType dst_dtype = DType::kFloat;
  CastOptions cast{};
  Tiles tiles;
  bool vector = false;  // contiguous operands are aligned for whole-tile vector loads
};

// A reduction: `out` spans the dims the destination keeps (output index o, operand 0 = the
// destination), `red` the dims it reduces (offset 0). Element (o, r) of operand k is at
// element_offset(out, k, o) + offset of r in red. Each output's reduced range is cut into
// `segments` pieces whose partial results a second pass combines in order.
struct ReducePass {
  LoopPlan out;
  LoopPlan red;
  DevExpr e;
  void* dst = nullptr;
  DType dst_dtype = DType::kFloat;
  CastOptions cast{};
  int64_t n_out = 0, n_red = 0, segments = 0;
  Tiles red_tiles;
  bool mean = false;
  bool vector = false;
};

// assign: a cast (or a plain copy when the dtypes agree) of src into dst.
struct CastPass {
  LoopPlan plan;  // operand 0 = dst, 1 = src
  void* dst = nullptr;
  const void* src = nullptr;
  DType dst_dtype = DType::kFloat, src_dtype = DType::kFloat;
  CastOptions cast{};
  Tiles tiles;
  bool vector = false;
  bool src_inline = false;  // src is inline_src (a scalar operand), as in DevExpr
  alignas(16) unsigned char inline_src[16] = {};
};

GEON_HD const void* cast_source(const CastPass& p) {
  return p.src_inline ? static_cast<const void*>(p.inline_src) : p.src;
}

// The classic kernel parameter limit, kept so any CUDA 11+ toolkit can launch these.
static_assert(sizeof(EwPass) <= 4096 && sizeof(ReducePass) <= 4096 && sizeof(CastPass) <= 4096);

}  // namespace geon::cuda
