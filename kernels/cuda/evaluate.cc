// The CUDA engine's expression entry points: the CPU engine's checks, then a plan (plan.h)
// launched on the typed or interpreted kernels; reductions as two passes.
#include <memory>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/engine/checks.h"
#include "kernels/cuda/device.h"
#include "kernels/cuda/engine.h"
#include "kernels/cuda/launch.h"
#include "kernels/cuda/op_table.h"
#include "kernels/cuda/runtime.h"
#include "kernels/cuda/temp.h"

namespace geon::cuda {
namespace {

void launch_elementwise(const ElementwisePlan& plan, cudaStream_t s) {
  if (plan.grid.blocks == 0) return;
  if (plan.typed) {
    const DevNode& n = plan.pass.e.nodes[0];
    EwLauncher launch = nullptr;
    if (n.arity == 1) launch = typed_unary_launcher(n.op, n.compute);
    if (n.arity == 2) launch = typed_binary_launcher(n.op, n.compute);
    if (n.arity == 3) launch = typed_ternary_launcher(n.op, n.compute);
    if (launch == nullptr)
      fail(ErrorCode::kInternal, "CUDA engine: no typed kernel for op '" +
                                     std::string(all_ops()[static_cast<int>(n.op)].name) + "'");
    launch(plan.pass, plan.grid, s);
    check_launch("a typed elementwise kernel");
  } else {
    launch_interpret(plan.pass, plan.grid, s);
    check_launch("the interpreted elementwise kernel");
  }
}

void launch_reduction(const ReductionPlan& plan, CachingAllocator& pool, cudaStream_t s) {
  const ReducePass& p = plan.pass;
  if (p.n_out == 0) return;
  std::unique_ptr<DeviceTemp> partials;
  if (plan.first.blocks > 0) {
    partials = std::make_unique<DeviceTemp>(pool, s, static_cast<size_t>(p.n_out * p.segments) * 8);
    if (plan.typed) {
      const DevNode& n = p.e.nodes[0];
      launch_reduce_typed(p, n.op, n.compute, plan.rule, plan.shape, plan.first, partials->get(),
                          s);
    } else {
      launch_reduce_interpreted(p, plan.rule, plan.acc, plan.shape, plan.first, partials->get(), s);
    }
    check_launch("a reduction's first pass");
  }
  launch_reduce_finish(p, plan.rule, plan.acc, plan.finish_by_block, plan.finish,
                       partials ? partials->get() : nullptr, s);
  check_launch("a reduction's second pass");
}

}  // namespace

void evaluate(const Expr& expr, const Operand& dst, std::span<const ConstOperand> inputs,
              Reduce reduce, const Options& opt) {
  require_device(opt.device);
  const int n_in = static_cast<int>(inputs.size());
  require(n_in == static_cast<int>(expr.inputs.size()), [&] {
    return "evaluate: the expression takes " + std::to_string(expr.inputs.size()) +
           " inputs, got " + std::to_string(n_in);
  });
  require(n_in + 2 <= kMaxLoopOperands,
          [&] { return "evaluate: at most " + std::to_string(kMaxLoopOperands - 2) + " inputs"; });
  check_operand(dst.desc, dst.data, "destination");
  check_not_self_overlapping(dst.desc);  // the CPU checks it at its final assign for reductions
  require(is_numeric(dst.desc.dtype), [&] {
    return "evaluate: destination dtype " + std::string(dtype_name(dst.desc.dtype)) +
           " is not numeric";
  });
  const DevExpr e = simplify(encode_expr(expr));

  DeviceScope scope(opt.device);
  CachingAllocator& pool = allocator(opt.device);
  const cudaStream_t s = opt.stream;
  // Inputs that alias the destination other than as the very same view are copied first.
  std::vector<ConstOperand> in(inputs.begin(), inputs.end());
  std::vector<std::unique_ptr<DeviceTemp>> copies;
  for (int i = 0; i < n_in; ++i) {
    check_operand(in[i].desc, in[i].base(), "input " + std::to_string(i));
    require(in[i].desc.dtype == expr.inputs[i], [&] {
      return "evaluate: input " + std::to_string(i) + " is " +
             std::string(dtype_name(in[i].desc.dtype)) + " but the expression expects " +
             std::string(dtype_name(expr.inputs[i]));
    });
    const bool same_view = in[i].data == dst.data && in[i].desc == dst.desc;
    if (in[i].data != nullptr && !same_view &&
        ranges_intersect(in[i].data, in[i].desc, dst.data, dst.desc)) {
      const TensorDesc cd = row_major(in[i].desc.dtype, in[i].desc.shape);
      copies.push_back(std::make_unique<DeviceTemp>(
          pool, s, static_cast<size_t>(dtype_bytes_for(cd.dtype, element_count(cd)))));
      cuda::assign({cd, copies.back()->get()}, in[i], opt);
      in[i] = ConstOperand{cd, copies.back()->get()};
    }
  }

  std::vector<const TensorDesc*> descs{&dst.desc};
  for (const ConstOperand& o : in) descs.push_back(&o.desc);
  const Dims shape = loop_shape(descs);
  const bool full = dst.desc.rank() == static_cast<int>(shape.size()) &&
                    std::equal(shape.begin(), shape.end(), dst.desc.shape.begin());
  if (reduce == Reduce::kNone && !full)
    fail(ErrorCode::kInvalidArgument,
         "evaluate: destination " + to_string(dst.desc) +
             " is smaller than the loop shape; pass a reduction to accumulate into it");
  const int sm = multiprocessor_count(opt.device);
  if (reduce == Reduce::kNone)
    launch_elementwise(plan_elementwise(e, dst, in, shape, opt.cast, sm), s);
  else
    launch_reduction(plan_reduction(e, reduce, dst, in, shape, opt.cast, sm), pool, s);
}

namespace {

void run_expr(std::string_view op, const Operand& dst, std::initializer_list<ConstOperand> in,
              std::initializer_list<double> scale, const Options& opt) {
  require_device(opt.device);
  std::vector<DType> dtypes;
  for (const ConstOperand& o : in) dtypes.push_back(o.desc.dtype);
  cuda::evaluate(single_op_expr(op, dtypes, scale), dst, std::vector<ConstOperand>(in),
                 Reduce::kNone, opt);
}

}  // namespace

void unary(std::string_view op, const Operand& dst, const ConstOperand& x, double a,
           const Options& opt) {
  run_expr(op, dst, {x}, {a}, opt);
}

void binary(std::string_view op, const Operand& dst, const ConstOperand& x, const ConstOperand& z,
            double a, double b, const Options& opt) {
  run_expr(op, dst, {x, z}, {a, b}, opt);
}

void ternary(std::string_view op, const Operand& dst, const ConstOperand& x, const ConstOperand& y,
             const ConstOperand& z, const Options& opt) {
  run_expr(op, dst, {x, y, z}, {}, opt);
}

void reduce(Reduce r, const Operand& dst, const ConstOperand& src, const Options& opt) {
  require_device(opt.device);
  require(r != Reduce::kNone, "reduce: no reduction given");
  const DType t = src.desc.dtype;
  const Expr identity = single_op_expr("identity", std::span<const DType>(&t, 1));
  cuda::evaluate(identity, dst, std::span<const ConstOperand>(&src, 1), r, opt);
}

}  // namespace geon::cuda
