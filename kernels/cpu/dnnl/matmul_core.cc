// oneDNN matmul setup: memory descriptors from geon descriptions (strides in elements, the
// offset folded into the pointer) and a primitive cache (primitive_cache.h); with the per-thread
// streams and scratchpads of dnnl/runtime.h the per-call cost is a lookup and the memory objects.
#include "kernels/cpu/dnnl/matmul_core.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/dnnl/primitive_cache.h"
#include "kernels/cpu/dnnl/runtime.h"

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

constexpr size_t kMaxCachedPrimitives = 256;

// A cached primitive with the descriptors it was made for; empty when oneDNN has none.
struct Entry {
  std::optional<dnnl::matmul> prim;
  dnnl::memory::desc a, b, c, bias, scratch;
  size_t scratch_bytes = 0;
};

void add_desc(std::vector<int64_t>& key, const TensorDesc& d) {
  key.push_back(d.rank());
  key.insert(key.end(), d.shape.begin(), d.shape.end());
  key.insert(key.end(), d.strides.begin(), d.strides.end());
}

}  // namespace

TensorDesc lift(TensorDesc d, int rank) {
  while (d.rank() < rank) d = unsqueeze(d, std::vector<int64_t>{0});
  return d;
}

MatmulViews matmul_views(TensorDesc a, TensorDesc b, std::string_view op) {
  if (a.rank() < 1 || b.rank() < 1)
    fail(ErrorCode::kInvalidArgument, std::string(op) + ": scalar operands");
  MatmulViews v;
  v.a_vec = a.rank() == 1;
  v.b_vec = b.rank() == 1;
  if (v.a_vec) a = unsqueeze(a, std::vector<int64_t>{0});
  if (v.b_vec) b = unsqueeze(b, std::vector<int64_t>{1});
  if (a.shape.back() != b.shape[b.rank() - 2])
    fail(ErrorCode::kInvalidArgument,
         std::string(op) + ": inner dims differ: " + to_string(a) + " and " + to_string(b));
  v.rank = std::max(a.rank(), b.rank());
  v.a = lift(a, v.rank);
  v.b = lift(b, v.rank);
  v.out_shape = broadcast_shapes(Dims(v.a.shape.begin(), v.a.shape.end() - 2),
                                 Dims(v.b.shape.begin(), v.b.shape.end() - 2));
  if (!v.a_vec) v.out_shape.push_back(v.a.shape[v.rank - 2]);
  if (!v.b_vec) v.out_shape.push_back(v.b.shape[v.rank - 1]);
  return v;
}

TensorDesc MatmulViews::dst(const TensorDesc& out) const {
  TensorDesc d = out;
  if (a_vec) d = unsqueeze(d, std::vector<int64_t>{d.rank() - (b_vec ? 0 : 1)});
  if (b_vec) d = unsqueeze(d, std::vector<int64_t>{d.rank()});
  return lift(d, rank);
}

struct DnnlMatmul::Impl {
  PrimitiveCache<std::vector<int64_t>, Entry> cache{kMaxCachedPrimitives};

  // The primitive for these views; bias may be null. Throws (no bias) or returns an empty
  // entry (bias) when oneDNN cannot make one.
  std::shared_ptr<const Entry> primitive(const TensorDesc& a, const TensorDesc& b,
                                         const TensorDesc& c, const TensorDesc* bias, float alpha,
                                         float beta, const MatmulPostOps* post = nullptr) const {
    std::vector<int64_t> key;
    key.reserve(4 * (3 + 2 * static_cast<size_t>(c.rank())));
    add_desc(key, a);
    add_desc(key, b);
    add_desc(key, c);
    if (bias) add_desc(key, *bias);
    int32_t bits[2];
    std::memcpy(&bits[0], &alpha, 4);
    std::memcpy(&bits[1], &beta, 4);
    key.push_back(bits[0]);
    key.push_back(bits[1]);
    key.push_back(bias ? 1 : 0);
    // The post-ops are part of the primitive: its cache key holds them.
    if (post) {
      key.push_back(post->sum ? 2 : 1);
      for (const MatmulPostOps::Eltwise& e : post->eltwise) {
        int32_t ab[2];
        std::memcpy(&ab[0], &e.alpha, 4);
        std::memcpy(&ab[1], &e.beta, 4);
        key.insert(key.end(), {static_cast<int64_t>(e.alg), ab[0], ab[1]});
      }
    }
    return cache.get(std::move(key), [&] { return make_entry(a, b, c, bias, alpha, beta, post); });
  }

  static std::shared_ptr<const Entry> make_entry(const TensorDesc& a, const TensorDesc& b,
                                                 const TensorDesc& c, const TensorDesc* bias,
                                                 float alpha, float beta,
                                                 const MatmulPostOps* post) {
    auto e = std::make_shared<Entry>();
    e->a = md_of(a);
    e->b = md_of(b);
    e->c = md_of(c);
    if (bias) e->bias = md_of(*bias);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
    dnnl::post_ops po;
    if (beta != 0.0f) po.append_sum(beta);
    if (post) {
      if (post->sum) po.append_sum(1.0f);
      for (const MatmulPostOps::Eltwise& e : post->eltwise)
        po.append_eltwise(1.0f, static_cast<dnnl::algorithm>(e.alg), e.alpha, e.beta);
    }
    if (po.len() > 0) attr.set_post_ops(po);
    try {
      const auto desc = bias ? dnnl::matmul::desc(e->a, e->b, e->bias, e->c)
                             : dnnl::matmul::desc(e->a, e->b, e->c);
      dnnl::matmul::primitive_desc pd(desc, attr, dnnl_engine());
      e->scratch = pd.scratchpad_desc();
      e->scratch_bytes = e->scratch.get_size();
      e->prim.emplace(pd);
    } catch (const dnnl::error& err) {
      if (!bias && !post)
        fail(ErrorCode::kNotSupported, std::string("oneDNN matmul: ") + err.what());
    }
    return e;
  }
};

namespace {

void execute(const Entry& e, const void* a, const void* b, void* c, const void* bias) {
  // The C entry point takes the arguments as an array: no map is built per call.
  dnnl_exec_arg_t args[4] = {dnnl_thread_arg(DNNL_ARG_SRC, e.a, a),
                             dnnl_thread_arg(DNNL_ARG_WEIGHTS, e.b, b),
                             dnnl_thread_arg(DNNL_ARG_DST, e.c, c)};
  int n = 3;
  if (bias) args[n++] = dnnl_thread_arg(DNNL_ARG_BIAS, e.bias, bias);
  dnnl_run(*e.prim, std::span(args, n), e.scratch, e.scratch_bytes,
           "oneDNN matmul: execution failed");
}

// Products below this many multiply-adds a part are not worth another thread.
constexpr double kMinMacsPerPart = 1 << 16;

// One block of a split product: the operand views narrowed to it.
struct Block {
  TensorDesc a, b, c, bias;
};

}  // namespace

// dst = alpha·a·b (+ bias) (+ beta·dst) (+ post), split across the pool by rows of dst (by its
// columns when it has one row or `by_columns`), each block one primitive call on its thread. The
// blocks' primitives are made before anything runs; false when one cannot be (the caller takes
// another path), and nothing is written.
bool DnnlMatmul::run_split(const ConstOperand& a, const ConstOperand& b, const ConstOperand* bias,
                           const Operand& dst, float alpha, float beta, const MatmulPostOps* post,
                           bool by_columns) const {
  const int r = dst.desc.rank();
  const int axis = dst.desc.shape[r - 2] > 1 && !by_columns ? r - 2 : r - 1;
  const int64_t items = dst.desc.shape[axis];
  const double macs = static_cast<double>(element_count(dst.desc)) * a.desc.shape[r - 1];
  const int parts = dnnl_parts(items, macs, kMinMacsPerPart);
  const auto block = [&](int64_t first, int64_t count) {
    Block k{a.desc, b.desc, dst.desc, bias ? bias->desc : TensorDesc{}};
    if (count == items) return k;
    if (axis == r - 2)
      k.a = narrow(a.desc, axis, first, count);
    else
      k.b = narrow(b.desc, axis, first, count);
    k.c = narrow(dst.desc, axis, first, count);
    if (bias && bias->desc.shape[axis] > 1) k.bias = narrow(bias->desc, axis, first, count);
    return k;
  };
  const auto entry = [&](const Block& k) {
    return impl_->primitive(k.a, k.b, k.c, bias ? &k.bias : nullptr, alpha, beta, post);
  };
  // Equal blocks give at most two lengths: the first block has the shorter.
  for (const int64_t count : {items / parts, (items + parts - 1) / parts})
    if (count > 0 && !entry(block(0, count))->prim) return false;
  dnnl_parallel(items, parts, [&](int64_t first, int64_t last) {
    const Block k = block(first, last - first);
    const auto e = entry(k);
    execute(*e, at(a.data, k.a), at(b.data, k.b), at(dst.data, k.c),
            bias ? at(bias->base(), k.bias) : nullptr);
  });
  return true;
}

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
  run_split(a, b, nullptr, dst, alpha, beta, nullptr);  // throws when oneDNN has no primitive
  if (!dst_direct) assign(dst_in, ConstOperand(dst));
}

bool DnnlMatmul::run_with_bias(const ConstOperand& a, const ConstOperand& b,
                               const ConstOperand& bias, const Operand& dst) const {
  const int r = dst.desc.rank();
  if (a.desc.rank() != r || b.desc.rank() != r || bias.desc.rank() != r || r < 2 ||
      r > DNNL_MAX_NDIMS)
    return false;
  // Only views oneDNN reads as they are, and a real contraction (K = 0 has its own rule).
  if (element_count(dst.desc) == 0 || a.desc.shape.back() == 0) return false;
  if (!acceptable(a.desc) || !acceptable(b.desc) || !acceptable(dst.desc) ||
      dst.desc.strides.back() != 1)
    return false;
  for (int i = 0; i < r; ++i) {
    if (bias.desc.shape[i] != 1 && bias.desc.shape[i] != dst.desc.shape[i]) return false;
    if (bias.desc.shape[i] > 1 && bias.desc.strides[i] <= 0) return false;
  }
  return run_split(a, b, &bias, dst, 1.0f, 0.0f, nullptr);
}

bool DnnlMatmul::run_fused(const ConstOperand& a, const ConstOperand& b, const ConstOperand* bias,
                           const Operand& dst, float alpha, const MatmulPostOps& post) const {
  const int r = dst.desc.rank();
  if (a.desc.rank() != r || b.desc.rank() != r || r < 2 || r > DNNL_MAX_NDIMS) return false;
  if (element_count(dst.desc) == 0 || a.desc.shape.back() == 0) return false;
  if (!acceptable(a.desc) || !acceptable(b.desc) || !acceptable(dst.desc) ||
      dst.desc.strides.back() != 1)
    return false;
  if (bias) {
    if (bias->desc.rank() != r) return false;
    for (int i = 0; i < r; ++i) {
      if (bias->desc.shape[i] != 1 && bias->desc.shape[i] != dst.desc.shape[i]) return false;
      if (bias->desc.shape[i] > 1 && bias->desc.strides[i] <= 0) return false;
    }
  }
  return run_split(a, b, bias, dst, alpha, 0.0f, &post);
}

bool DnnlMatmul::run_by_columns(const ConstOperand& a, const ConstOperand& b,
                                const ConstOperand* bias, const Operand& dst, float beta) const {
  if (a.desc.rank() != 2 || b.desc.rank() != 2 || dst.desc.rank() != 2) return false;
  if (element_count(dst.desc) == 0 || a.desc.shape.back() == 0) return false;
  if (!acceptable(a.desc) || !acceptable(b.desc) || !acceptable(dst.desc) ||
      dst.desc.strides.back() != 1)
    return false;
  if (bias && (bias->desc.rank() != 2 || bias->desc.shape[0] != 1 ||
               bias->desc.shape[1] != dst.desc.shape[1]))
    return false;
  return run_split(a, b, bias, dst, 1.0f, beta, nullptr, true);
}

}  // namespace geon::cpu
