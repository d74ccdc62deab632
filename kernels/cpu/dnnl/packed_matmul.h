// A·B for a constant 2-D B, with B reordered once, at kernel creation, into the blocked layout
// oneDNN's 1×1 convolution prefers (on AVX2 its matmul has only the plain layout, while the
// 1×1 convolution over M positions is the same product with prepacked weights and is faster,
// most for small N). The rows of A vary per run: a primitive per row count is cached, each
// made for the one packed weights layout, with per-thread scratchpads (runs concurrently).
// Small products, where oneDNN's cost per call dominates, run on geon's own PackedGemm
// (kernels/cpu/native) where the machine prefers it, with the activation fused. A large B read
// by many rows is kept plain instead and split by columns, half of B per thread (on 2).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "core/engine/engine.h"
#include "core/graph/tensor_data.h"
#include "kernels/cpu/conv_params.h"
#include "kernels/cpu/dnnl/matmul_core.h"

namespace geon::cpu {

class DnnlPackedMatmul {
 public:
  // B as stored: (K, N), or (N, K) when `transposed`; the packed weights hold alpha·B. Null when
  // B is not a non-empty float matrix or oneDNN has no prepacked primitive for it. `min_rows`:
  // the fewest rows an A can have (what the graph knows), to skip packings no run would use.
  static std::shared_ptr<const DnnlPackedMatmul> pack(const TensorData& b, bool transposed,
                                                      float alpha, int64_t min_rows = 1);
  ~DnnlPackedMatmul();

  // The shape of the B it was packed from, as stored (to check that a run's input is it).
  const Dims& packed_shape() const;
  // Whether runs split the product by columns (a large B and many rows on AVX-512, see
  // packed_matmul.cc) rather than by rows.
  bool splits_by_columns() const;
  // alpha·B as stored (row-major, packed_shape()), unpacked from the packed weights: for a run
  // that the packed product cannot take once B's plain copy was released
  // (Kernel::packed_inputs). Slow; not for the common path.
  std::vector<float> unpack() const;
  // dst = act(alpha·a·B (+ bias) (+ beta·dst)): a (rows..., K) and dst (rows..., N) dense
  // row-major with equal leading dims; bias null or a dense vector of N; `post`, the activation
  // as oneDNN eltwise post-ops applied in the same pass, and `act`, the same activation in
  // conv_params' terms where it has them (null: it has none), which geon's own small product
  // fuses instead. False, with nothing written, when the views or oneDNN do not allow it (the
  // caller takes another path then). `onednn_post`: false where oneDNN may not apply `post`
  // (it would turn a NaN of this run into a number: nan_guard.h); geon's own product may.
  bool run(const ConstOperand& a, const Operand& dst, const ConstOperand* bias, float beta,
           std::span<const MatmulPostOps::Eltwise> post = {}, const Activation* act = nullptr,
           bool onednn_post = true) const;

 private:
  struct Impl;
  explicit DnnlPackedMatmul(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Copies of packed weights reordered into another primitive's layout, made so far (tests).
int64_t dnnl_packed_matmul_relayouts();

}  // namespace geon::cpu
