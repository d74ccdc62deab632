// Staging for the attention family's loops: any input view (strided, broadcast, any float
// dtype) copied into a dense row-major vector of the compute type by the engine's assign, and
// a computed dense array assigned back into an output of any layout and dtype.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "kernels/cpu/common.h"

namespace geon::cpu {

template <class T>
constexpr DType dtype_of_compute() {
  return sizeof(T) == 8 ? DType::kDouble : DType::kFloat;
}

// t's elements in row-major order, converted to T (float or double).
template <class T>
std::vector<T> dense_as(const TensorRef& t) {
  std::vector<T> v(static_cast<size_t>(std::max<int64_t>(element_count(t.desc), 1)));
  if (element_count(t.desc) > 0)
    assign(Operand{row_major(dtype_of_compute<T>(), t.desc.shape), v.data()}, src_of(t));
  return v;
}

// Writes the dense array `v` of this shape into dst (converting to dst's dtype).
template <class T>
void store_dense(const TensorRef& dst, const std::vector<T>& v) {
  if (element_count(dst.desc) == 0) return;
  assign(dst_of(dst), ConstOperand(row_major(dtype_of_compute<T>(), dst.desc.shape), v.data()));
}

// The product of `factors` as a parallel_rows cost hint, saturating instead of overflowing.
inline int64_t cost_of(std::initializer_list<int64_t> factors) {
  double c = 1;
  for (int64_t f : factors) c *= static_cast<double>(std::max<int64_t>(f, 1));
  return c > 1e15 ? int64_t{1} << 50 : static_cast<int64_t>(c);
}

inline bool given(const KernelContext& ctx, int i) {
  return i < ctx.num_inputs() && ctx.input(i).present();
}

inline std::string dims_text(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

}  // namespace geon::cpu
