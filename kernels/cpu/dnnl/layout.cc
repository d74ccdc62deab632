// Channels-last descriptions, strided oneDNN descriptors and cached layout reorders.
#include "kernels/cpu/dnnl/layout.h"

#include <algorithm>

#include "core/desc/desc.h"
#include "kernels/cpu/dnnl/runtime.h"

namespace geon::cpu {

std::optional<dnnl::memory::data_type> dnnl_dtype(DType t) {
  using dt = dnnl::memory::data_type;
  switch (t) {
    case DType::kFloat:
      return dt::f32;
    case DType::kInt32:
      return dt::s32;
    case DType::kInt8:
      return dt::s8;
    case DType::kUInt8:
      return dt::u8;
    default:
      return std::nullopt;
  }
}

std::optional<dnnl::memory::desc> strided_md(const TensorDesc& d) {
  const auto t = dnnl_dtype(d.dtype);
  if (!t) return std::nullopt;
  dnnl::memory::dims dims(d.shape.begin(), d.shape.end()),
      strides(d.strides.begin(), d.strides.end());
  int64_t dense = 1;
  for (int i = d.rank() - 1; i >= 0; --i) {
    if (d.shape[i] == 1) strides[i] = dense;
    if (strides[i] <= 0) return std::nullopt;
    dense = std::max<int64_t>(dense, strides[i] * d.shape[i]);
  }
  return dnnl::memory::desc(dims, *t, strides);
}

dnnl::memory::desc channels_last_md(DType t, const Dims& shape) {
  using tag = dnnl::memory::format_tag;
  const tag by_rank[] = {tag::nwc, tag::nhwc, tag::ndhwc};
  return dnnl::memory::desc(dnnl::memory::dims(shape.begin(), shape.end()), *dnnl_dtype(t),
                            by_rank[shape.size() - 3]);
}

void* first_element(const void* base, const TensorDesc& d) {
  const auto* p = static_cast<const std::byte*>(base) + dtype_bytes_for(d.dtype, d.offset);
  return const_cast<std::byte*>(p);
}

struct LayoutCopier::Reorder {
  dnnl::reorder prim;
  dnnl::memory::desc scratch;
  size_t scratch_bytes = 0;
};

void LayoutCopier::copy(const Operand& to, const ConstOperand& from) const {
  const auto fm = strided_md(from.desc), tm = strided_md(to.desc);
  if (!fm || !tm || from.desc.dtype != to.desc.dtype) {
    assign(to, from);
    return;
  }
  std::vector<int64_t> key(from.desc.shape.begin(), from.desc.shape.end());
  key.push_back(static_cast<int64_t>(from.desc.dtype));
  key.insert(key.end(), from.desc.strides.begin(), from.desc.strides.end());
  key.insert(key.end(), to.desc.strides.begin(), to.desc.strides.end());
  const std::shared_ptr<const Reorder> r =
      reorders_.get(std::move(key), [&]() -> std::shared_ptr<const Reorder> {
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        try {
          dnnl::engine& engine = dnnl_engine();
          const dnnl::reorder::primitive_desc pd(engine, *fm, engine, *tm, attr);
          auto made = std::make_shared<Reorder>();
          made->prim = dnnl::reorder(pd);
          made->scratch = pd.scratchpad_desc();
          made->scratch_bytes = made->scratch.get_size();
          return made;
        } catch (const dnnl::error&) {
          return nullptr;
        }
      });
  if (!r) {
    assign(to, from);
    return;
  }
  const dnnl_exec_arg_t args[] = {
      dnnl_thread_arg(DNNL_ARG_FROM, *fm, first_element(from.data, from.desc)),
      dnnl_thread_arg(DNNL_ARG_TO, *tm, first_element(to.data, to.desc))};
  dnnl_run(r->prim, args, r->scratch, r->scratch_bytes,
           [&] { return what_ + ": oneDNN layout reorder failed"; });
}

}  // namespace geon::cpu
