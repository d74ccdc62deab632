// oneDNN matmul setup: memory descriptors from geon descriptions (strides in elements, the
// offset folded into the pointer), a mutex-guarded primitive cache, one stream per call.
#include "kernels/cpu/dnnl_matmul_core.h"

#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>

#include "core/base/error.h"

namespace geon::cpu {
namespace {

using dims_t = dnnl::memory::dims;

// Whether oneDNN can read this view of a matrix stack as it is: positive strides (or any
// stride on a length-1 dim), and one of the two matrix dims contiguous.
bool acceptable(const TensorDesc& d) {
  const int r = d.rank();
  for (int i = 0; i < r; ++i)
    if (d.shape[i] > 1 && d.strides[i] <= 0) return false;
  const bool row = d.shape[r - 1] == 1 || d.strides[r - 1] == 1;
  const bool col = d.shape[r - 2] == 1 || d.strides[r - 2] == 1;
  return row || col;
}

// Strides oneDNN accepts: length-1 dims get the stride a dense layout would give them.
dnnl::memory::desc md_of(const TensorDesc& d) {
  dims_t dims(d.shape.begin(), d.shape.end()), strides(d.strides.begin(), d.strides.end());
  int64_t dense = 1;
  for (int i = d.rank() - 1; i >= 0; --i) {
    if (d.shape[i] == 1) strides[i] = dense;
    dense = std::max<int64_t>(dense, strides[i] * d.shape[i]);
  }
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

void* at(const void* base, const TensorDesc& d) {
  return const_cast<float*>(static_cast<const float*>(base) + d.offset);
}

// A dense copy of a view oneDNN cannot read as it is.
struct Dense {
  std::vector<float> data;
  TensorDesc desc;
};
Dense densify(const ConstOperand& x) {
  Dense out{std::vector<float>(element_count(x.desc)), row_major(DType::kFloat, x.desc.shape)};
  assign(Operand{out.desc, out.data.data()}, x);
  return out;
}

}  // namespace

struct DnnlMatmul::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  mutable std::mutex mu;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<dnnl::matmul>> cache;

  std::shared_ptr<dnnl::matmul> primitive(const dnnl::memory::desc& a, const dnnl::memory::desc& b,
                                          const dnnl::memory::desc& c, const TensorDesc* ds[3],
                                          float alpha, float beta) const {
    std::vector<int64_t> key;
    for (int k = 0; k < 3; ++k) {
      key.push_back(ds[k]->rank());
      key.insert(key.end(), ds[k]->shape.begin(), ds[k]->shape.end());
      key.insert(key.end(), ds[k]->strides.begin(), ds[k]->strides.end());
    }
    int32_t bits[2];
    std::memcpy(&bits[0], &alpha, 4);
    std::memcpy(&bits[1], &beta, 4);
    key.push_back(bits[0]);
    key.push_back(bits[1]);
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    dnnl::primitive_attr attr;
    if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
    if (beta != 0.0f) {
      dnnl::post_ops po;
      po.append_sum(beta);
      attr.set_post_ops(po);
    }
    std::shared_ptr<dnnl::matmul> p;
    try {
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), attr, engine);
      p = std::make_shared<dnnl::matmul>(pd);
    } catch (const dnnl::error& e) {
      fail(ErrorCode::kNotSupported, std::string("oneDNN matmul: ") + e.what());
    }
    cache.emplace(std::move(key), p);
    return p;
  }
};

DnnlMatmul::DnnlMatmul() : impl_(std::make_unique<Impl>()) {}
DnnlMatmul::~DnnlMatmul() = default;

void DnnlMatmul::run(const ConstOperand& a_in, const ConstOperand& b_in, const Operand& dst_in,
                     float alpha, float beta) const {
  require(a_in.desc.rank() >= 2 && a_in.desc.rank() <= DNNL_MAX_NDIMS &&
              a_in.desc.rank() == b_in.desc.rank() && a_in.desc.rank() == dst_in.desc.rank(),
          "dnnl matmul: operands of unequal or unsupported rank");
  if (element_count(dst_in.desc) == 0) return;
  // Empty contraction: the product is 0, so dst = beta * dst.
  if (a_in.desc.shape.back() == 0) {
    if (beta == 0.0f)
      assign(dst_in, ConstOperand::scalar(0, DType::kFloat));
    else
      unary("identity", dst_in, dst_in, beta);
    return;
  }
  Dense da, db, dd;
  ConstOperand a = a_in, b = b_in;
  if (!acceptable(a.desc)) {
    da = densify(a);
    a = ConstOperand(da.desc, da.data.data());
  }
  if (!acceptable(b.desc)) {
    db = densify(b);
    b = ConstOperand(db.desc, db.data.data());
  }
  Operand dst = dst_in;
  const bool dst_direct = acceptable(dst.desc) && dst.desc.strides.back() == 1;
  if (!dst_direct) {
    dd = Dense{std::vector<float>(element_count(dst.desc)),
               row_major(DType::kFloat, dst.desc.shape)};
    if (beta != 0.0f) assign(Operand{dd.desc, dd.data.data()}, ConstOperand(dst_in));
    dst = Operand{dd.desc, dd.data.data()};
  }
  const TensorDesc* ds[3] = {&a.desc, &b.desc, &dst.desc};
  const auto ma = md_of(a.desc), mb = md_of(b.desc), mc = md_of(dst.desc);
  const auto prim = impl_->primitive(ma, mb, mc, ds, alpha, beta);
  dnnl::memory am(ma, impl_->engine, at(a.data, a.desc));
  dnnl::memory bm(mb, impl_->engine, at(b.data, b.desc));
  dnnl::memory cm(mc, impl_->engine, at(dst.data, dst.desc));
  dnnl::stream s(impl_->engine);
  prim->execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
  s.wait();
  if (!dst_direct) assign(dst_in, ConstOperand(dst));
}

}  // namespace geon::cpu
