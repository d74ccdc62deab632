// The oneDNN matmul primitive behind MatMul and Gemm: dst = alpha * a·b (+ beta * dst), over
// batched strided float views. Strides travel in the memory descriptors, so a transposed
// operand is read in place; layouts oneDNN cannot take are made dense first. Primitives are
// cached per (shapes, strides, alpha, beta, bias, post-ops) and use a user-managed scratchpad from
// the calling thread, so one cached primitive may run on several threads at once.
#pragma once

#include <oneapi/dnnl/dnnl_types.h>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "core/engine/engine.h"

namespace geon::cpu {

// What a fused product applies after a·b (+ bias), in order: the sum of dst's prior contents
// (a residual written there first), then oneDNN eltwise post-ops.
struct MatmulPostOps {
  struct Eltwise {
    dnnl_alg_kind_t alg;
    float alpha = 0, beta = 0;
  };
  bool sum = false;
  std::vector<Eltwise> eltwise;
};

// ONNX MatMul's numpy semantics as views: a 1-D a becomes 1xK and a 1-D b Kx1, both are lifted
// to one rank with length-1 batch dims; `out_shape` is the ONNX output (promoted dims dropped).
struct MatmulViews {
  TensorDesc a, b;
  Dims out_shape;
  bool a_vec = false, b_vec = false;
  int rank = 0;
  // The run's output, seen with the promoted dims kept and lifted to `rank` for oneDNN.
  TensorDesc dst(const TensorDesc& out) const;
};
// Throws naming `op` on scalar operands or inner dims that differ.
MatmulViews matmul_views(TensorDesc a, TensorDesc b, std::string_view op);
// d with length-1 dims prepended up to `rank`.
TensorDesc lift(TensorDesc d, int rank);

class DnnlMatmul {
 public:
  DnnlMatmul();
  ~DnnlMatmul();
  // a: (batch..., M, K), b: (batch..., K, N), dst: (batch..., M, N), all float and of one rank;
  // batch dims of a and b are equal to dst's or 1. With beta != 0, dst already holds the
  // addend (Gemm's C, broadcast).
  void run(const ConstOperand& a, const ConstOperand& b, const Operand& dst, float alpha,
           float beta) const;
  // dst = a·b + bias, the bias (of dst's rank, each dim dst's length or 1) added by the
  // primitive itself, so dst is written once. False, with nothing written, when oneDNN has no
  // such primitive for these views (the caller adds the bias another way).
  bool run_with_bias(const ConstOperand& a, const ConstOperand& b, const ConstOperand& bias,
                     const Operand& dst) const;
  // dst = post(alpha * a·b + bias) with `post` as oneDNN post-ops (post.sum: dst holds the
  // addend already); bias null or of dst's rank, each dim dst's length or 1. False, with dst
  // untouched by the primitive, when oneDNN has no such primitive for these views.
  bool run_fused(const ConstOperand& a, const ConstOperand& b, const ConstOperand* bias,
                 const Operand& dst, float alpha, const MatmulPostOps& post) const;
  // dst = a·b (+ bias) (+ beta * dst) for 2-D a, b, dst and a (1, N) bias, split across the
  // pool by columns of dst rather than rows: each thread reads only its columns of b. False,
  // with nothing written, when the views do not allow it.
  bool run_by_columns(const ConstOperand& a, const ConstOperand& b, const ConstOperand* bias,
                      const Operand& dst, float beta) const;

 private:
  bool run_split(const ConstOperand& a, const ConstOperand& b, const ConstOperand* bias,
                 const Operand& dst, float alpha, float beta, const MatmulPostOps* post,
                 bool by_columns = false) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace geon::cpu
