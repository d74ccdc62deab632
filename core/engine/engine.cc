// The engine's convenience entry points, and assign (which needs no expression: it is one
// strided conversion per row of the loop plan).
#include "core/engine/engine.h"

#include <cstring>
#include <string>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/engine/convert.h"
#include "core/engine/parallel.h"

namespace geon {
namespace {

void run_expr(std::string_view op, const Operand& dst, std::initializer_list<ConstOperand> in,
              std::initializer_list<double> scale, const EngineOptions& opt) {
  std::vector<DType> dtypes;
  for (const ConstOperand& o : in) dtypes.push_back(o.desc.dtype);
  evaluate(single_op_expr(op, dtypes, scale), dst, std::vector<ConstOperand>(in), Reduce::kNone,
           opt);
}

}  // namespace

void unary(std::string_view op, const Operand& dst, const ConstOperand& x, double a,
           const EngineOptions& opt) {
  run_expr(op, dst, {x}, {a}, opt);
}

void binary(std::string_view op, const Operand& dst, const ConstOperand& x, const ConstOperand& z,
            double a, double b, const EngineOptions& opt) {
  run_expr(op, dst, {x, z}, {a, b}, opt);
}

void ternary(std::string_view op, const Operand& dst, const ConstOperand& x, const ConstOperand& y,
             const ConstOperand& z, const EngineOptions& opt) {
  run_expr(op, dst, {x, y, z}, {}, opt);
}

void reduce(Reduce r, const Operand& dst, const ConstOperand& src, const EngineOptions& opt) {
  require(r != Reduce::kNone, "reduce: no reduction given");
  const DType t = src.desc.dtype;
  const Expr identity = single_op_expr("identity", std::span<const DType>(&t, 1));
  evaluate(identity, dst, std::span<const ConstOperand>(&src, 1), r, opt);
}

void assign(const Operand& dst, const ConstOperand& src, const EngineOptions& opt) {
  // Messages are built only on failure: assign runs on many kernel calls.
  // Strings copy their 16-byte handles (core/strings): the bytes they point at are shared.
  const bool strings = dst.desc.dtype == DType::kString && src.desc.dtype == DType::kString;
  if (!strings && (!is_numeric(dst.desc.dtype) || !is_numeric(src.desc.dtype)))
    fail(ErrorCode::kInvalidArgument,
         std::string("assign: ") + std::string(dtype_name(src.desc.dtype)) + " to " +
             std::string(dtype_name(dst.desc.dtype)) + " is not a numeric conversion");
  // Real dtypes go through evaluate (aliasing checks, fast paths); complex has no compute
  // type, so it is planned here and converted element by element.
  require(dst.desc.strides.size() == dst.desc.shape.size() &&
              src.desc.strides.size() == src.desc.shape.size(),
          "assign: descriptions with mismatched shape and strides");
  const TensorDesc* descs[] = {&dst.desc, &src.desc};
  const Dims shape = loop_shape(descs);
  if (static_cast<int>(shape.size()) != dst.desc.rank() ||
      !std::equal(shape.begin(), shape.end(), dst.desc.shape.begin()))
    fail(ErrorCode::kInvalidArgument, "assign: source " + to_string(src.desc) +
                                          " does not broadcast to destination " +
                                          to_string(dst.desc));
  if (element_count(dst.desc) == 0) return;
  require(dst.data && src.base(), "assign: no data");
  if (!strings && !is_complex(dst.desc.dtype) && !is_complex(src.desc.dtype)) {
    // The identity expression gets evaluate's aliasing checks and fast paths.
    const DType t = src.desc.dtype;
    const Expr identity = single_op_expr("identity", std::span<const DType>(&t, 1));
    evaluate(identity, dst, std::span<const ConstOperand>(&src, 1), Reduce::kNone, opt);
    return;
  }
  const LoopPlan plan = make_loop_plan(descs, shape);
  ThreadPool& pool = opt.pool ? *opt.pool : default_thread_pool();
  const int parts = parts_for(plan, pool);  // complex is never packed: parts write disjoint bytes
  run_parts(pool, plan, split_dim(plan, parts, 0), parts, [&](const LoopPlan& p, int) {
    const int64_t rows = loop_rows(p), inner = loop_inner(p);
    const int64_t ds = p.rank ? p.stride[0][p.rank - 1] : 0;
    const int64_t ss = p.rank ? p.stride[1][p.rank - 1] : 0;
    if (strings) {
      const auto* in = static_cast<const std::byte*>(src.base());
      auto* out = static_cast<std::byte*>(dst.data);
      for (int64_t row = 0; row < rows; ++row) {
        const int64_t so = row_offset(p, 1, row), dof = row_offset(p, 0, row);
        for (int64_t i = 0; i < inner; ++i)
          std::memcpy(out + (dof + i * ds) * 16, in + (so + i * ss) * 16, 16);
      }
      return;
    }
    for (int64_t row = 0; row < rows; ++row)
      convert_strided(src.desc.dtype, src.base(), row_offset(p, 1, row), ss, dst.desc.dtype,
                      dst.data, row_offset(p, 0, row), ds, inner, opt.cast);
  });
}

}  // namespace geon
