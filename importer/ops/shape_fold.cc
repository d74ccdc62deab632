// Folding by views (see shape_fold.h).
#include "importer/ops/shape_fold.h"

#include <functional>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/engine/engine.h"

namespace geon::importer {

namespace {

// Calls fn(offset) for every element of d in row-major order of its shape.
void for_each_offset(const TensorDesc& d, const std::function<void(int64_t)>& fn) {
  const int r = d.rank();
  for (int64_t len : d.shape)
    if (len == 0) return;
  std::vector<int64_t> idx(static_cast<size_t>(r), 0);
  int64_t off = d.offset;
  while (true) {
    fn(off);
    int k = r - 1;
    for (; k >= 0; --k) {
      if (++idx[k] < d.shape[k]) {
        off += d.strides[k];
        break;
      }
      off -= d.strides[k] * (d.shape[k] - 1);
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

}  // namespace

std::optional<int64_t> checked_count(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::nullopt;
  return n;
}

bool fold_fits(const RuleContext& c, DType t, int64_t n) {
  if (!c.options().fold_constants || n < 0) return false;
  const int64_t limit = c.options().max_folded_bytes;
  if (t == DType::kString) return n <= limit / 16;
  return dtype_bits(t) > 0 && n <= limit / std::max(1, dtype_bits(t) / 8) &&
         dtype_bytes_for(t, n) <= limit;
}

const TensorData* constant_input(const RuleContext& c, int i) {
  if (!c.has_input(i)) return nullptr;
  const Value& v = c.input(i);
  return v.overridable ? nullptr : v.data.get();
}

std::shared_ptr<const TensorData> reshaped_data(const TensorData& in, const Dims& shape) {
  auto out = std::make_shared<TensorData>();
  out->desc = row_major(in.desc.dtype, shape);
  if (element_count(out->desc) != in.elements()) return nullptr;
  out->storage = in.storage;
  out->strings = in.strings;
  return out;
}

void share_data(RuleContext& c, int out, std::shared_ptr<const TensorData> data) {
  if (!data || !c.options().fold_constants || !c.has_output(out)) return;
  c.output(out).data = std::move(data);
}

bool copy_region(TensorData& dst, const TensorDesc& dst_view, const TensorData& src,
                 const TensorDesc& src_view) {
  try {
    if (dst.desc.dtype == DType::kString || src.desc.dtype == DType::kString) {
      if (dst.desc.dtype != src.desc.dtype) return false;
      const TensorDesc from = broadcast_to(src_view, dst_view.shape);
      std::vector<int64_t> offsets;
      for_each_offset(from, [&](int64_t o) { offsets.push_back(o); });
      size_t k = 0;
      for_each_offset(dst_view, [&](int64_t o) {
        dst.strings.at(static_cast<size_t>(o)) = src.strings.at(static_cast<size_t>(offsets[k++]));
      });
      return true;
    }
    assign(Operand{dst_view, dst.storage->data()}, ConstOperand(src_view, src.bytes()));
    return true;
  } catch (const Error&) {
    return false;
  }
}

std::shared_ptr<TensorData> materialize(const RuleContext& c, const TensorData& in,
                                        const TensorDesc& view) {
  int64_t n = 0;
  try {
    n = element_count(view);
  } catch (const Error&) {
    return nullptr;
  }
  if (!fold_fits(c, in.desc.dtype, n)) return nullptr;
  auto out = make_tensor_data(in.desc.dtype, view.shape);
  if (!copy_region(*out, out->desc, in, view)) return nullptr;
  return out;
}

bool fill(TensorData& dst, const TensorData& value) {
  if (value.elements() < 1) return false;
  TensorDesc scalar = value.desc;
  scalar.shape.clear();
  scalar.strides.clear();
  return copy_region(dst, dst.desc, value, scalar);
}

}  // namespace geon::importer
