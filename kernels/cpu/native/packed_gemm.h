// geon's own product with a constant B for small products, where oneDNN's per-call cost
// (memory objects, a parallel region, a separate activation pass) is most of the time: B is
// packed once into 16-column blocks, and a run is the register tiles of conv_tiles.h over the
// rows of A (a matrix product is the 1x1 convolution over M positions), with the bias, a
// residual and ReLU / LeakyRelu / Clip applied before the one store.
#pragma once

#include <memory>

#include "core/graph/tensor_data.h"
#include "kernels/cpu/conv_params.h"

namespace geon::cpu {

class PackedGemm {
 public:
  // B as stored: (K, N), or (N, K) when `transposed`; the packed copy holds alpha·B. Null when
  // B is not a dense non-empty float matrix, is too large to be worth a second packed copy, when
  // no product of at least `min_rows` rows (what the graph knows of A) is small enough for it,
  // or when native_small_gemm_preferred() is false.
  static std::unique_ptr<const PackedGemm> pack(const TensorData& b, bool transposed, float alpha,
                                                int64_t min_rows = 1);
  // pack() whatever the policy and size, when the CPU has AVX2 + FMA: for tests.
  static std::unique_ptr<const PackedGemm> pack_for_test(const TensorData& b, bool transposed,
                                                         float alpha);
  ~PackedGemm();

  // Whether a product of `rows` rows is small enough for this path to beat oneDNN's.
  bool worth_it(int64_t rows) const;
  // Whether run() applies `act` itself (else the caller applies it after).
  static bool fuses(const Activation& act);
  // dst = act(a·(alpha·B) + bias + z): a (rows..., K) and dst (rows..., N) dense row-major with
  // equal leading dims, bias null or a dense vector of N, z null or dst itself or a dense view
  // of dst's shape clear of it; act must be one that fuses() (kNone for none). False, with
  // nothing written, when the views do not allow it.
  bool run(const ConstOperand& a, const Operand& dst, const ConstOperand* bias,
           const ConstOperand* z, const Activation& act) const;

 private:
  struct Impl;
  explicit PackedGemm(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace geon::cpu
