// Softmax and LogSoftmax on oneDNN's softmax_v2 (softmax_accurate subtracts the maximum, as
// ONNX's numerically stable form; softmax_log is LogSoftmax). Both ONNX forms become one dense
// [outer, n, inner] tensor normalised along dim 1: before opset 13 n is everything from `axis`
// on, from 13 the one axis, which must be the innermost (elsewhere oneDNN's reference kernel
// is slow). Rows along the innermost axis (inner 1: every opset-13 case) run geon's own row
// kernel, about twice as fast as oneDNN's on 128-element rows. Hardmax has no oneDNN primitive
// and stays on cpu.generic.
#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/dnnl/ops.h"
#include "kernels/cpu/dnnl/runtime.h"
#include "kernels/cpu/native/softmax_rows.h"

namespace geon::cpu {
namespace {

struct Prim {
  dnnl::softmax_v2_forward prim;
  dnnl::memory::desc md, scratch;
  size_t scratch_bytes = 0;
};

// Primitives per [outer, n, inner], made once; they run on any thread with its own scratchpad.
class SoftmaxCache {
 public:
  explicit SoftmaxCache(bool log) : log_(log) {}
  std::shared_ptr<const Prim> get(int64_t outer, int64_t n, int64_t inner) const {
    const std::array<int64_t, 3> key{outer, n, inner};
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    const dnnl::memory::desc md({outer, n, inner}, dnnl::memory::data_type::f32,
                                dnnl::memory::format_tag::abc);
    const dnnl::softmax_v2_forward::desc d(
        dnnl::prop_kind::forward_inference,
        log_ ? dnnl::algorithm::softmax_log : dnnl::algorithm::softmax_accurate, md, md, 1);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::softmax_v2_forward::primitive_desc pd(d, attr, dnnl_engine());
    auto p =
        std::make_shared<Prim>(Prim{dnnl::softmax_v2_forward(pd), md, pd.scratchpad_desc(), 0});
    p->scratch_bytes = p->scratch.get_size();
    if (cache_.size() >= 64) cache_.clear();  // a model fed ever new shapes starts over
    cache_.emplace(key, p);
    return p;
  }

 private:
  bool log_;
  mutable std::mutex mu_;
  mutable std::map<std::array<int64_t, 3>, std::shared_ptr<const Prim>> cache_;
};

void run_softmax(const SoftmaxCache& cache, bool log, KernelContext& ctx, int64_t axis_attr,
                 bool coerce_2d) {
  const TensorRef& x = ctx.input(0);
  const TensorRef& y = ctx.output(0, x.desc.shape);
  const Dims& s = x.desc.shape;
  const int r = x.desc.rank();
  require(axis_attr >= -r && axis_attr <= (coerce_2d ? r : r - 1), [&] {
    return "axis " + std::to_string(axis_attr) + " is out of range for rank " + std::to_string(r);
  });
  const int axis = static_cast<int>(axis_attr < 0 ? axis_attr + r : axis_attr);
  int64_t outer = 1, n = 1, inner = 1;
  for (int i = 0; i < r; ++i) (i < axis ? outer : (i == axis || coerce_2d) ? n : inner) *= s[i];
  if (outer * n * inner == 0) return;
  // oneDNN reads and writes the dense tensors; other layouts go through dense copies.
  std::vector<float> xs, ys;
  const float* xp = static_cast<const float*>(x.data) + x.desc.offset;
  if (!is_contiguous(x.desc)) {
    xs.resize(static_cast<size_t>(element_count(s)));
    assign(Operand{row_major(DType::kFloat, s), xs.data()}, src_of(x));
    xp = xs.data();
  }
  const bool direct = is_contiguous(y.desc);
  if (!direct) ys.resize(static_cast<size_t>(element_count(s)));
  float* yp = direct ? static_cast<float*>(y.data) + y.desc.offset : ys.data();

  // Blocks of the outer rows across the pool, each one primitive call on its thread; rows
  // along the innermost axis are geon's own (kernels/cpu/native/softmax_rows.h).
  const int64_t row = n * inner;
  const int parts = dnnl_parts(outer, double(outer) * row, 1 << 14);
  if (inner == 1) {
    dnnl_parallel(outer, parts, [&](int64_t f, int64_t l) {
      softmax_rows(log, xp + f * row, yp + f * row, l - f, n);
    });
    if (!direct) assign(dst_of(y), ConstOperand(row_major(DType::kFloat, s), ys.data()));
    return;
  }
  dnnl_parallel(outer, parts, [&](int64_t f, int64_t l) {
    const auto p = cache.get(l - f, n, inner);
    const dnnl_exec_arg_t args[] = {dnnl_thread_arg(DNNL_ARG_SRC, p->md, xp + f * row),
                                    dnnl_thread_arg(DNNL_ARG_DST, p->md, yp + f * row)};
    dnnl_run(p->prim, args, p->scratch, p->scratch_bytes, "oneDNN softmax: execution failed");
  });
  if (!direct) assign(dst_of(y), ConstOperand(row_major(DType::kFloat, s), ys.data()));
}

}  // namespace

Reason supports_dnnl_softmax(const Graph& g, const Node& n) {
  if (input_dtype(g, n, 0) != DType::kFloat || output_dtype(g, n, 0) != DType::kFloat)
    return std::string("oneDNN softmax here takes float only, the input is ") +
           std::string(dtype_name(input_dtype(g, n, 0)));
  // oneDNN 2.6 has no fast kernel for a softmax over a non-innermost axis (measured some 20x
  // slower than cpu.generic's column loops), so only the innermost axis comes here.
  if (n.opset >= 13) {
    const int64_t axis = attr_int(n, "axis", -1);
    const std::optional<int> rank = onnx::input_rank(g, n, 0);
    if (axis != -1 && (!rank || axis != *rank - 1))
      return "axis " + std::to_string(axis) +
             " is not the innermost; oneDNN's softmax is slow there, cpu.generic runs it";
  }
  return std::nullopt;
}

std::unique_ptr<Kernel> create_dnnl_softmax(const Graph&, const Node& n) {
  const bool coerce_2d = n.opset < 13;
  const int64_t axis = attr_int(n, "axis", coerce_2d ? 1 : -1);
  const bool log = n.op == "LogSoftmax";
  auto cache = std::make_shared<SoftmaxCache>(log);
  return make_kernel([cache, log, axis, coerce_2d, op = n.op](KernelContext& ctx) {
    try {
      run_softmax(*cache, log, ctx, axis, coerce_2d);
    } catch (const dnnl::error& e) {
      fail(ErrorCode::kInternal, op + ": oneDNN: " + e.what());
    } catch (const Error& e) {
      fail(e.code(), op + ": " + e.what());
    }
  });
}

}  // namespace geon::cpu
