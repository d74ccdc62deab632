// MaxPool, AveragePool, GlobalMaxPool and GlobalAveragePool on oneDNN's pooling_v2 primitive,
// for the cases where its semantics are ONNX's: max pads with -inf, avg_exclude_padding divides
// by the in-image count, and ceil_mode becomes extra right padding (which max and the
// exclude-padding average never count). avg_include_padding would count that extra padding, so
// count_include_pad with ceil_mode, the Indices output, LpPool and windows lying wholly in the
// padding are left to cpu.generic (as are, at run time, geometries oneDNN makes no primitive
// for). src and dst are read and written through their strides.
#include <algorithm>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <vector>

#include "core/base/error.h"
#include "core/buffer/buffer.h"
#include "core/desc/views.h"
#include "kernels/cpu/conv_params.h"
#include "kernels/cpu/dnnl/ops.h"
#include "kernels/cpu/dnnl/primitive_cache.h"
#include "kernels/cpu/dnnl/runtime.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/pool/window.h"
#include "kernels/cpu/native/cpu_isa.h"
#include "kernels/cpu/native/max_pool.h"
#include "kernels/cpu/native/plane_pool.h"

namespace geon::cpu {
namespace {

using dims_t = dnnl::memory::dims;

std::optional<dnnl::memory::data_type> dnnl_type(DType t) {
  switch (t) {
    case DType::kFloat:
      return dnnl::memory::data_type::f32;
    case DType::kInt8:
      return dnnl::memory::data_type::s8;
    case DType::kUInt8:
      return dnnl::memory::data_type::u8;
    default:
      return std::nullopt;
  }
}

// Positive strides on every dim longer than 1 (what oneDNN reads as a plain strided layout).
bool acceptable(const TensorDesc& d) {
  for (int i = 0; i < d.rank(); ++i)
    if (d.shape[i] > 1 && d.strides[i] <= 0) return false;
  return true;
}

// Whether x and y lay out their dims in one order (outermost = largest stride first), over the
// dims longer than 1 in both.
bool same_order(const TensorDesc& x, const TensorDesc& y) {
  std::vector<int> dims;
  for (int i = 0; i < x.rank(); ++i)
    if (x.shape[i] > 1 && y.shape[i] > 1) dims.push_back(i);
  auto by = [&dims](const TensorDesc& d) {
    std::vector<int> order = dims;
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return d.strides[a] > d.strides[b]; });
    return order;
  };
  return by(x) == by(y);
}

// A dense description of `shape` with its dims laid out in the order of src's.
TensorDesc like(const TensorDesc& src, const Dims& shape) {
  std::vector<int> order(src.rank());
  for (int i = 0; i < src.rank(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return src.strides[a] > src.strides[b]; });
  TensorDesc d = row_major(src.dtype, shape);
  int64_t stride = 1;
  for (int k = src.rank() - 1; k >= 0; --k) {
    d.strides[order[k]] = stride;
    stride *= std::max<int64_t>(shape[order[k]], 1);
  }
  return d;
}

// Length-1 dims get the stride a dense layout would give them.
dnnl::memory::desc md_of(const TensorDesc& d) {
  dims_t dims(d.shape.begin(), d.shape.end()), strides(d.strides.begin(), d.strides.end());
  int64_t dense = 1;
  for (int i = d.rank() - 1; i >= 0; --i) {
    if (d.shape[i] == 1) strides[i] = dense;
    dense = std::max<int64_t>(dense, strides[i] * d.shape[i]);
  }
  return dnnl::memory::desc(dims, *dnnl_type(d.dtype), strides);
}

// y as oneDNN should see it: when its dims longer than 1 sit where a dense layout in x's order
// puts them, that layout's strides, so that the length-1 dims of a global pool's (N, C, 1, 1)
// read as channels-last beside a channels-last x; otherwise oneDNN sees two formats and picks
// its reference kernel (ResNet-50's GlobalAveragePool: about 1 ms instead of tens of µs).
dnnl::memory::desc dst_md(const TensorDesc& x, const TensorDesc& y) {
  const TensorDesc l = like(x, y.shape);
  for (int i = 0; i < y.rank(); ++i)
    if (y.shape[i] > 1 && y.strides[i] != l.strides[i]) return md_of(y);
  return dnnl::memory::desc(dims_t(l.shape.begin(), l.shape.end()), *dnnl_type(l.dtype),
                            dims_t(l.strides.begin(), l.strides.end()));
}

void* at(const void* base, const TensorDesc& d) {
  return const_cast<std::byte*>(static_cast<const std::byte*>(base) +
                                dtype_bytes_for(d.dtype, d.offset));
}

struct Entry {
  std::optional<dnnl::pooling_v2_forward> prim;
  dnnl::memory::desc src, dst, scratch;
  size_t scratch_bytes = 0;
};

constexpr size_t kMaxCachedPrimitives = 64;
// Pooling over fewer input elements than this a part is not worth another thread.
constexpr double kMinElementsPerPart = 1 << 16;

// The block of output rows [first, last) of the first spatial dim: its geometry, whose pads are
// what clipping to the input left of the real ones, and its first input row.
PoolGeometry row_block(const PoolGeometry& g, int64_t first, int64_t last, int64_t* x_first) {
  const WindowRows r = window_rows((g.kernel[0] - 1) * g.dilations[0] + 1, g.strides[0],
                                   g.pad_begin[0], g.in[0], first, last);
  PoolGeometry b = g;
  b.in[0] = r.x_count;
  b.out[0] = last - first;
  b.pad_begin[0] = r.pad_begin;
  b.pad_end[0] = r.pad_end;
  *x_first = r.x_first;
  return b;
}

// One node's pooling: the window is fixed, primitives are cached per run geometry and layouts.
class DnnlPool {
 public:
  DnnlPool(std::string op, bool global, PoolAttrs attrs, dnnl::algorithm alg)
      : op_(std::move(op)), global_(global), attrs_(std::move(attrs)), alg_(alg) {}
  bool global() const { return global_; }
  PlanePool plane_kind() const {
    return alg_ == dnnl::algorithm::pooling_max                   ? PlanePool::kMax
           : alg_ == dnnl::algorithm::pooling_avg_include_padding ? PlanePool::kAverageIncludingPad
                                                                  : PlanePool::kAverageExcludingPad;
  }
  const PoolAttrs& attrs() const { return attrs_; }

  // False, with nothing written, when oneDNN makes no primitive for this geometry (it refuses
  // some it could compute, e.g. a dilated average over a length-1 dim).
  bool run(const TensorRef& x, const TensorRef& y, const PoolGeometry& g) const {
    // oneDNN 2.6 pools plain NCHW float with its reference kernel, and a channels-last copy
    // there and back costs several times the pooling (a 3x3 average over 8x64x56x56: 3.2 ms
    // with the copies, against 0.6 ms by planes). Global pools over contiguous planes are
    // reductions of rows.
    if (x.desc.dtype == DType::kFloat && !is_channels_last(x.desc)) {
      if (global_) {
        reduce(alg_ == dnnl::algorithm::pooling_max ? Reduce::kMax : Reduce::kMean, dst_of(y),
               src_of(x));
        return true;
      }
      if (pool_planes(plane_kind(), g, src_of(x), dst_of(y))) return true;
    }
    TensorDesc xd = x.desc, yd = y.desc;
    const void* xp = x.data;
    void* yp = y.data;
    // Copies of x and y in layouts the kernels take, left uninitialized: each is written whole.
    std::unique_ptr<Storage> xs, ys;
    auto scratch = [](const TensorDesc& d, std::unique_ptr<Storage>& buf) {
      buf = std::make_unique<Storage>(
          host_allocator(), dtype_bytes_for(d.dtype, std::max<int64_t>(element_count(d), 1)));
      return buf->data();
    };
    auto dense_copy_of_x = [&] {
      xd = row_major(x.desc.dtype, x.desc.shape);
      xp = scratch(xd, xs);
      assign(Operand{xd, xs->data()}, src_of(x));
    };
    if (!acceptable(xd)) dense_copy_of_x();
    // oneDNN 2.6 pools plain NCHW with its reference kernel (a 64-channel 112x112 MaxPool:
    // 18 ms, against 0.3 ms for a channels-last copy, the pooling and the copy back).
    if (!global_ && xd.rank() >= 3 && xd.shape[1] > 1 && !is_channels_last(xd)) {
      const TensorDesc cl = channels_last(xd.dtype, xd.shape);
      std::unique_ptr<Storage> copy;
      scratch(cl, copy);
      assign(Operand{cl, copy->data()}, ConstOperand(xd, xp));
      xs = std::move(copy);
      xd = cl;
      xp = xs->data();
    }
    // oneDNN's fast kernels want src and dst in one layout (both NCHW, both NHWC); a dst laid
    // out otherwise is computed in src's layout and copied.
    if (!acceptable(yd) || !same_order(xd, yd)) {
      yd = like(xd, y.desc.shape);
      yp = scratch(yd, ys);
    }
    auto copy_back = [&] {
      if (ys) assign(dst_of(y), ConstOperand(yd, ys->data()));
    };
    if (alg_ == dnnl::algorithm::pooling_max && native_kernels_preferred() &&
        max_pool_2d_channels_last(g, ConstOperand(xd, xp), Operand{yd, yp})) {
      copy_back();
      return true;
    }
    auto e = primitive(xd, yd, g);
    if (!e->prim) {  // a layout oneDNN refused: both dense copies
      dense_copy_of_x();
      yd = row_major(y.desc.dtype, y.desc.shape);
      yp = scratch(yd, ys);
      e = primitive(xd, yd, g);
      if (!e->prim) return false;
    }
    if (xd.shape[0] == 1 && xd.rank() >= 3)
      run_rows(*e, xd, xp, yd, yp, g);
    else if (!run_images(e, xd, xp, yd, yp, g))
      return false;
    copy_back();
    return true;
  }

 private:
  // Images across the pool, each block one primitive call on its thread; equal blocks have at
  // most two batch lengths. False when oneDNN refuses a block's primitive.
  bool run_images(const std::shared_ptr<const Entry>& e, const TensorDesc& xd, const void* xp,
                  const TensorDesc& yd, void* yp, const PoolGeometry& g) const {
    const int64_t images = xd.shape[0];
    const int parts = dnnl_parts(images, double(element_count(xd)), kMinElementsPerPart);
    for (int i = 0; i < 2; ++i) {
      const int64_t count = i ? (images + parts - 1) / parts : images / parts;
      if (count == 0 || count == images) continue;
      if (!primitive(narrow(xd, 0, 0, count), narrow(yd, 0, 0, count), g)->prim) return false;
    }
    dnnl_parallel(images, parts, [&](int64_t first, int64_t last) {
      if (last - first == images) return execute(*e, at(xp, xd), at(yp, yd));
      const TensorDesc bx = narrow(xd, 0, first, last - first),
                       by = narrow(yd, 0, first, last - first);
      execute(*primitive(bx, by, g), at(xp, bx), at(yp, by));
    });
    return true;
  }

  // One image: its output rows (the first spatial dim) across the pool, each block with the
  // input rows its windows read and the pads it still needs (a 64-channel 112x112 MaxPool is
  // one ResNet layer's worth of time on one thread). `whole` runs it all, on this thread, when
  // it is too small to split or oneDNN refuses a block.
  void run_rows(const Entry& whole, const TensorDesc& xd, const void* xp, const TensorDesc& yd,
                void* yp, const PoolGeometry& g) const {
    const int64_t rows = yd.shape[2];
    const int parts = dnnl_parts(rows, double(element_count(xd)), kMinElementsPerPart);
    if (parts < 2) return execute(whole, at(xp, xd), at(yp, yd));
    struct Block {
      TensorDesc x, y;
      std::shared_ptr<const Entry> e;
    };
    std::vector<Block> blocks;
    for (int p = 0; p < parts; ++p) {
      const int64_t first = dnnl_part_first(rows, parts, p);
      const int64_t last = dnnl_part_first(rows, parts, p + 1);
      int64_t x_first = 0;
      const PoolGeometry bg = row_block(g, first, last, &x_first);
      Block k{narrow(xd, 2, x_first, bg.in[0]), narrow(yd, 2, first, last - first), nullptr};
      k.e = primitive(k.x, k.y, bg);
      if (!k.e->prim) return execute(whole, at(xp, xd), at(yp, yd));
      blocks.push_back(std::move(k));
    }
    dnnl_parallel(parts, parts, [&](int64_t first, int64_t last) {
      for (int64_t p = first; p < last; ++p) {
        const Block& k = blocks[static_cast<size_t>(p)];
        execute(*k.e, at(xp, k.x), at(yp, k.y));
      }
    });
  }

  std::shared_ptr<const Entry> primitive(const TensorDesc& x, const TensorDesc& y,
                                         const PoolGeometry& g) const {
    // The pads too: blocks of rows of one shape may differ in them.
    std::vector<int64_t> key(g.pad_begin.begin(), g.pad_begin.end());
    key.insert(key.end(), g.pad_end.begin(), g.pad_end.end());
    for (const TensorDesc* d : {&x, &y}) {
      key.push_back(static_cast<int64_t>(d->dtype));
      key.insert(key.end(), d->shape.begin(), d->shape.end());
      key.insert(key.end(), d->strides.begin(), d->strides.end());
    }
    return cache_.get(std::move(key), [&] { return make_entry(x, y, g); });
  }

  std::shared_ptr<const Entry> make_entry(const TensorDesc& x, const TensorDesc& y,
                                          const PoolGeometry& g) const {
    auto e = std::make_shared<Entry>();
    e->src = md_of(x);
    e->dst = dst_md(x, y);
    const int s = g.spatial();
    dims_t strides(s), kernel(s), dilation(s), pad_l(s), pad_r(s);
    for (int i = 0; i < s; ++i) {
      strides[i] = g.strides[i];
      kernel[i] = g.kernel[i];
      dilation[i] = g.dilations[i] - 1;  // oneDNN counts the gaps
      pad_l[i] = g.pad_begin[i];
      // The right padding oneDNN needs for exactly g.out windows: ceil_mode's extra windows
      // make it longer than the explicit pad.
      const int64_t eff = (g.kernel[i] - 1) * g.dilations[i] + 1;
      const int64_t needed = (g.out[i] - 1) * g.strides[i] + eff - g.in[i] - g.pad_begin[i];
      pad_r[i] = std::max<int64_t>(g.pad_end[i], needed);
      if ((g.in[i] + pad_l[i] + pad_r[i] - eff) / g.strides[i] + 1 != g.out[i]) pad_r[i] = needed;
    }
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    try {
      dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, alg_, e->src, e->dst,
                                          strides, kernel, dilation, pad_l, pad_r);
      dnnl::pooling_v2_forward::primitive_desc pd(desc, attr, dnnl_engine());
      e->scratch = pd.scratchpad_desc();
      e->scratch_bytes = e->scratch.get_size();
      e->prim.emplace(pd);
    } catch (const dnnl::error&) {
      // Left empty: the caller retries with dense layouts, then falls back.
    }
    return e;
  }

  void execute(const Entry& e, void* src, void* dst) const {
    const dnnl_exec_arg_t args[] = {dnnl_thread_arg(DNNL_ARG_SRC, e.src, src),
                                    dnnl_thread_arg(DNNL_ARG_DST, e.dst, dst)};
    dnnl_run(*e.prim, args, e.scratch, e.scratch_bytes,
             [&] { return op_ + ": oneDNN pooling execution failed"; });
  }

  std::string op_;
  bool global_;
  PoolAttrs attrs_;
  dnnl::algorithm alg_;
  PrimitiveCache<std::vector<int64_t>, Entry> cache_{kMaxCachedPrimitives};
};

bool is_max(const Node& n) { return n.op == "MaxPool" || n.op == "GlobalMaxPool"; }
bool is_global(const Node& n) { return n.op == "GlobalMaxPool" || n.op == "GlobalAveragePool"; }

}  // namespace

Reason supports_dnnl_pool(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  const bool int8 = t == DType::kInt8 || t == DType::kUInt8;
  if (t != DType::kFloat && !(int8 && is_max(n)))
    return "oneDNN " + n.op + " here takes float" + (is_max(n) ? ", int8 and uint8" : "") +
           ", not " + std::string(dtype_name(t));
  if (static_cast<int>(n.outputs.size()) > 1 && n.outputs[1] >= 0)
    return "the Indices output is computed by cpu.generic";
  const std::optional<int> rank = onnx::input_rank(g, n, 0);
  if (is_global(n)) {
    if (!rank) return n.op + ": the rank of X is not known";
    if (*rank < 3 || *rank > 5)
      return "oneDNN pools 1 to 3 spatial dims, X has rank " + std::to_string(*rank);
    return std::nullopt;
  }
  if (Reason r = pool_attrs_reason(n)) return r;
  const PoolAttrs a = read_pool_attrs(n);
  if (a.spatial() > 3)
    return "oneDNN pools 1 to 3 spatial dims, not " + std::to_string(a.spatial());
  if (a.ceil_mode && a.auto_pad == PoolPad::kNotSet && !is_max(n) &&
      attr_int(n, "count_include_pad", 0) != 0)
    return "with ceil_mode, count_include_pad must not count the windows' part past the pads; "
           "oneDNN counts it (cpu.generic computes it)";
  // A window wholly in the padding reads nothing; oneDNN would divide by zero or give -max.
  for (int i = 0; i < a.spatial(); ++i) {
    const int64_t eff = (a.kernel[i] - 1) * a.dilations[i] + 1;
    if (a.pads[i] >= eff || a.pads[i + a.spatial()] >= eff)
      return "pads as long as the window leave windows with nothing to pool (cpu.generic)";
  }
  return std::nullopt;
}

std::unique_ptr<Kernel> create_dnnl_pool(const Graph& graph, const Node& n) {
  const dnnl::algorithm alg = is_max(n) ? dnnl::algorithm::pooling_max
                              : attr_int(n, "count_include_pad", 0) != 0
                                  ? dnnl::algorithm::pooling_avg_include_padding
                                  : dnnl::algorithm::pooling_avg_exclude_padding;
  const bool global = is_global(n);
  auto pool =
      std::make_shared<DnnlPool>(n.op, global, global ? PoolAttrs{} : read_pool_attrs(n), alg);
  // cpu.generic's kernel for the same node, for the geometries oneDNN makes no primitive for.
  std::shared_ptr<const Kernel> fallback =
      global ? create_global_pool(graph, n) : create_pool(graph, n);
  return make_kernel([pool, fallback, op = n.op](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const PoolGeometry g = pool->global() ? global_geometry(op, x.desc.shape)
                                          : pool_geometry(op, pool->attrs(), x.desc.shape);
    require(g.spatial() >= 1 && g.spatial() <= 3,
            [&] { return op + ": oneDNN pools 1 to 3 spatial dims, X is " + to_string(x.desc); });
    const Dims shape = pool_output_shape(x.desc.shape, g);
    const TensorRef& y = ctx.output(0, shape);
    if (element_count(shape) == 0) return;
    if (!pool->run(x, y, g)) fallback->compute(ctx);
  });
}

}  // namespace geon::cpu
