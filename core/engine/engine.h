// The strided-view engine's entry points on the CPU: elementwise passes over any strided views
// with generalized broadcasting, fused expressions, reductions into a smaller destination and
// assign (cast + copy in one pass). Inputs are never modified; a destination that overlaps an
// input in any way other than being the very same view is handled by copying that input first.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

#include "core/desc/desc.h"
#include "core/dtype/scalar.h"
#include "core/engine/expr.h"
#include "core/engine/thread_pool.h"

namespace geon {

// A read-only view: a description over memory. `data` is the storage base (element 0 of the
// description's coordinate system, before `offset`).
struct ConstOperand {
  ConstOperand() = default;
  ConstOperand(TensorDesc d, const void* p) : desc(std::move(d)), data(p) {}

  TensorDesc desc;
  const void* data = nullptr;

  // A rank-0 operand holding its own value (broadcasts against anything).
  static ConstOperand scalar(double value, DType dtype);
  const void* base() const { return data ? data : inline_value_; }

 private:
  alignas(16) unsigned char inline_value_[16] = {};
};

struct Operand {
  TensorDesc desc;
  void* data = nullptr;
  operator ConstOperand() const { return {desc, data}; }
};

// What a destination smaller than the loop shape does with the values that map onto one of
// its elements. kNone requires the destination to have the full loop shape.
enum class Reduce { kNone, kSum, kMean, kMax, kMin, kProd };

struct EngineOptions {
  ThreadPool* pool = nullptr;  // null: default_thread_pool()
  CastOptions cast{};          // for stores into float8 and e8m0 destinations
};

// Evaluates `expr` over `inputs` into `dst`. The loop shape is the generalized broadcast of
// every input and the destination (see loop_plan.h).
void evaluate(const Expr& expr, const Operand& dst, std::span<const ConstOperand> inputs,
              Reduce reduce = Reduce::kNone, const EngineOptions& opt = {});

// Conveniences over evaluate: y = op(a*x), y = op(a*x, b*z), y = op(x, y, z).
void unary(std::string_view op, const Operand& dst, const ConstOperand& x, double a = 1,
           const EngineOptions& opt = {});
void binary(std::string_view op, const Operand& dst, const ConstOperand& x, const ConstOperand& z,
            double a = 1, double b = 1, const EngineOptions& opt = {});
void ternary(std::string_view op, const Operand& dst, const ConstOperand& x, const ConstOperand& y,
             const ConstOperand& z, const EngineOptions& opt = {});
// dst = reduction of src over the dims where dst is shorter (length 1, or a divisor: tiles).
void reduce(Reduce r, const Operand& dst, const ConstOperand& src, const EngineOptions& opt = {});
// dst = src converted to dst's dtype, broadcasting src to dst's shape.
void assign(const Operand& dst, const ConstOperand& src, const EngineOptions& opt = {});

}  // namespace geon
