// Staging for the normalisation and softmax families: they compute with plain loops on dense
// row-major arrays of float (double for double tensors), so an input of another dtype or
// layout is converted once into scratch memory, and an output likewise written back once.
#include <algorithm>

#include "core/desc/views.h"
#include "core/engine/parallel.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

TensorDesc seen_through(const TensorDesc& d, std::span<const int64_t> perm) {
  return perm.empty() ? d : permute(d, perm);
}

// The address of element `offset` when d is dense row-major in `compute`; else null.
template <class P>
P* dense_address(const TensorDesc& d, P* data, DType compute) {
  if (d.dtype != compute || !is_contiguous(d) || data == nullptr) return nullptr;
  using Byte = std::conditional_t<std::is_const_v<P>, const std::byte, std::byte>;
  return static_cast<Byte*>(data) + dtype_bytes_for(compute, d.offset);
}

}  // namespace

DType norm_compute_dtype(DType t) { return t == DType::kDouble ? DType::kDouble : DType::kFloat; }

Reason norm_dtype_reason(DType t, std::string_view what) {
  if (t == DType::kFloat || t == DType::kDouble || t == DType::kFloat16 || t == DType::kBFloat16)
    return std::nullopt;
  return std::string(what) + " has dtype " + std::string(dtype_name(t)) +
         "; only float, double, float16 and bfloat16 are implemented";
}

const void* stage_input(const TensorRef& src, std::span<const int64_t> perm, DType compute,
                        std::vector<std::byte>& scratch) {
  const TensorDesc d = seen_through(src.desc, perm);
  if (const void* p = dense_address<const void>(d, src.data, compute)) return p;
  const int64_t count = element_count(d);
  scratch.assign(static_cast<size_t>(dtype_bytes_for(compute, std::max<int64_t>(count, 1))),
                 std::byte{0});
  if (count > 0) assign(Operand{row_major(compute, d.shape), scratch.data()}, {d, src.data});
  return scratch.data();
}

void* stage_output(const TensorRef& dst, std::span<const int64_t> perm, DType compute,
                   std::vector<std::byte>& scratch) {
  const TensorDesc d = seen_through(dst.desc, perm);
  if (void* p = dense_address<void>(d, dst.data, compute)) {
    scratch.clear();
    return p;
  }
  scratch.assign(
      static_cast<size_t>(dtype_bytes_for(compute, std::max<int64_t>(element_count(d), 1))),
      std::byte{0});
  return scratch.data();
}

void store_output(const TensorRef& dst, std::span<const int64_t> perm, DType compute,
                  const std::vector<std::byte>& scratch) {
  if (scratch.empty()) return;  // computed in place
  const TensorDesc d = seen_through(dst.desc, perm);
  if (element_count(d) == 0) return;
  assign(Operand{d, dst.data}, ConstOperand(row_major(compute, d.shape), scratch.data()));
}

void parallel_rows(int64_t count, int64_t cost, const std::function<void(int64_t, int64_t)>& body) {
  if (count <= 0) return;
  ThreadPool& pool = default_thread_pool();
  const int64_t total = count * std::max<int64_t>(cost, 1);
  const int64_t worth = std::max<int64_t>(1, total / kMinElementsPerPart);
  const int parts = static_cast<int>(std::min<int64_t>({worth, count, pool.size()}));
  if (parts <= 1) {
    body(0, count);
    return;
  }
  pool.run(parts, [&](int part) {
    const int64_t lo = count * part / parts, hi = count * (part + 1) / parts;
    if (lo < hi) body(lo, hi);
  });
}

}  // namespace geon::cpu
