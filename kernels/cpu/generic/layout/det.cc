// Det (11, 22): the determinant of each M x M matrix of a [*, M, M] batch, by LU decomposition
// with partial pivoting in double (float, double, float16 and bfloat16 all convert once on the
// way in and out). Matrices run in parallel; an empty matrix (M = 0) has determinant 1.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/base/error.h"
#include "kernels/cpu/generic/layout/ops.h"

namespace geon::cpu {
namespace {

// Destroys a (dense, row-major M x M).
double lu_det(double* a, int64_t m) {
  double det = 1;
  for (int64_t c = 0; c < m; ++c) {
    int64_t piv = c;
    for (int64_t r = c + 1; r < m; ++r)
      if (std::abs(a[r * m + c]) > std::abs(a[piv * m + c])) piv = r;
    if (a[piv * m + c] == 0) return 0;
    if (piv != c) {
      for (int64_t j = 0; j < m; ++j) std::swap(a[c * m + j], a[piv * m + j]);
      det = -det;
    }
    const double d = a[c * m + c];
    det *= d;
    for (int64_t r = c + 1; r < m; ++r) {
      const double f = a[r * m + c] / d;
      if (f == 0) continue;
      for (int64_t j = c + 1; j < m; ++j) a[r * m + j] -= f * a[c * m + j];
    }
  }
  return det;
}

void det(KernelContext& ctx) {
  const TensorRef& x = ctx.input(0);
  const int r = x.desc.rank();
  require(r >= 2, [&] {
    return "input 0 must have rank >= 2 ([*, M, M]), got " + layout_dims_text(x.desc.shape);
  });
  const int64_t m = x.desc.shape[r - 1];
  require(x.desc.shape[r - 2] == m,
          [&] { return "input 0's matrices are not square: " + layout_dims_text(x.desc.shape); });
  const Dims batch(x.desc.shape.begin(), x.desc.shape.end() - 2);
  const TensorRef& out = ctx.output(0, batch);
  const int64_t count = element_count(batch);
  if (count == 0) return;
  const int64_t mat = m * m;
  std::vector<double> a(static_cast<size_t>(element_count(x.desc)));
  if (!a.empty()) assign(Operand{row_major(DType::kDouble, x.desc.shape), a.data()}, src_of(x));
  std::vector<double> d(static_cast<size_t>(count));
  parallel_rows(count, mat * m, [&](int64_t lo, int64_t hi) {
    for (int64_t b = lo; b < hi; ++b) d[b] = lu_det(a.data() + b * mat, m);
  });
  assign(dst_of(out), ConstOperand(row_major(DType::kDouble, batch), d.data()));
}

}  // namespace

Reason supports_det(const Graph& g, const Node& n) {
  if (input_dtype(g, n, 0) == DType::kString)
    return "Det computes a determinant of input 0; strings cannot be multiplied or summed";
  return norm_dtype_reason(input_dtype(g, n, 0), "input 0");
}

std::unique_ptr<Kernel> create_det(const Graph&, const Node& n) { return make_node_kernel(n, det); }

}  // namespace geon::cpu
