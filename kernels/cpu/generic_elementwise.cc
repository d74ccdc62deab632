// Elementwise ONNX ops on the engine: each node becomes one fused expression over its inputs
// (variadic Sum/Mean/Max/Min included, so no intermediate reaches memory), evaluated with
// numpy broadcasting of the actual input shapes.
#include <cstring>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/engine/expr.h"
#include "kernels/cpu/generic_ops.h"

namespace geon::cpu {
namespace {

enum class Shape { kUnary, kBinary, kVariadic, kWhere };

struct EwOp {
  std::string_view onnx;
  std::string_view engine;
  Shape shape;
  const char* alpha = nullptr;  // attribute holding OpParams::alpha
  float alpha_default = 0;
};

constexpr EwOp kEwOps[] = {
    {"Abs", "abs", Shape::kUnary},
    {"Neg", "neg", Shape::kUnary},
    {"Sign", "sign", Shape::kUnary},
    {"Relu", "relu", Shape::kUnary},
    {"Not", "not", Shape::kUnary},
    {"BitwiseNot", "bitwise_not", Shape::kUnary},
    {"Exp", "exp", Shape::kUnary},
    {"Log", "log", Shape::kUnary},
    {"Sqrt", "sqrt", Shape::kUnary},
    {"Reciprocal", "reciprocal", Shape::kUnary},
    {"Sin", "sin", Shape::kUnary},
    {"Cos", "cos", Shape::kUnary},
    {"Tan", "tan", Shape::kUnary},
    {"Asin", "asin", Shape::kUnary},
    {"Acos", "acos", Shape::kUnary},
    {"Atan", "atan", Shape::kUnary},
    {"Sinh", "sinh", Shape::kUnary},
    {"Cosh", "cosh", Shape::kUnary},
    {"Asinh", "asinh", Shape::kUnary},
    {"Acosh", "acosh", Shape::kUnary},
    {"Atanh", "atanh", Shape::kUnary},
    {"Tanh", "tanh", Shape::kUnary},
    {"Erf", "erf", Shape::kUnary},
    {"Floor", "floor", Shape::kUnary},
    {"Ceil", "ceil", Shape::kUnary},
    {"Round", "round", Shape::kUnary},
    {"Sigmoid", "sigmoid", Shape::kUnary},
    {"Softplus", "softplus", Shape::kUnary},
    {"Softsign", "softsign", Shape::kUnary},
    {"IsNaN", "isnan", Shape::kUnary},
    {"IsInf", "isinf", Shape::kUnary},
    {"LeakyRelu", "leaky_relu", Shape::kUnary, "alpha", 0.01f},
    {"Elu", "elu", Shape::kUnary, "alpha", 1.0f},
    {"Add", "add", Shape::kBinary},
    {"Sub", "sub", Shape::kBinary},
    {"Mul", "mul", Shape::kBinary},
    {"Div", "div", Shape::kBinary},
    {"Pow", "pow", Shape::kBinary},
    {"Mod", "mod", Shape::kBinary},  // "fmod" when the fmod attribute is 1
    {"PRelu", "prelu", Shape::kBinary},
    {"Equal", "equal", Shape::kBinary},
    {"Less", "less", Shape::kBinary},
    {"LessOrEqual", "less_equal", Shape::kBinary},
    {"Greater", "greater", Shape::kBinary},
    {"GreaterOrEqual", "greater_equal", Shape::kBinary},
    {"And", "and", Shape::kBinary},
    {"Or", "or", Shape::kBinary},
    {"Xor", "xor", Shape::kBinary},
    {"BitwiseAnd", "bitwise_and", Shape::kBinary},
    {"BitwiseOr", "bitwise_or", Shape::kBinary},
    {"BitwiseXor", "bitwise_xor", Shape::kBinary},
    {"BitShift", "shift_left", Shape::kBinary},  // "shift_right" by the direction attribute
    {"Sum", "add", Shape::kVariadic},
    {"Mean", "add", Shape::kVariadic},
    {"Max", "max", Shape::kVariadic},
    {"Min", "min", Shape::kVariadic},
    {"Where", "where", Shape::kWhere},
};

const EwOp* find_ew(std::string_view onnx) {
  for (const EwOp& e : kEwOps)
    if (e.onnx == onnx) return &e;
  return nullptr;
}

// The engine op for this node, with the attribute-selected variants resolved.
std::string_view engine_op(const EwOp& e, const Node& n) {
  if (n.op == "Mod" && attr_int(n, "fmod", 0) == 1) return "fmod";
  if (n.op == "BitShift" && attr_string(n, "direction", "") == "RIGHT") return "shift_right";
  return e.engine;
}

int present_inputs(const Node& n) {
  int k = 0;
  for (size_t i = 0; i < n.inputs.size(); ++i) k += has_input(n, static_cast<int>(i));
  return k;
}

}  // namespace

Reason supports_elementwise(const Graph& g, const Node& n) {
  const EwOp* e = find_ew(n.op);
  if (!e) return "cpu.generic has no elementwise op " + n.op;
  const int data_arg = e->shape == Shape::kWhere ? 1 : 0;
  const DType t = input_dtype(g, n, data_arg);
  if (Reason r = check_engine_op(engine_op(*e, n), t)) return r;
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (Reason r = check_engine_dtype(input_dtype(g, n, static_cast<int>(i)),
                                      "input " + std::to_string(i)))
      return r;
  if (Reason r = check_engine_dtype(output_dtype(g, n, 0), "the output")) return r;
  if (e->shape == Shape::kVariadic && present_inputs(n) < 1) return "no inputs";
  if (n.op == "BitShift") {
    const std::string dir = attr_string(n, "direction", "");
    if (dir != "LEFT" && dir != "RIGHT") return "BitShift direction '" + dir + "' is unknown";
  }
  if (n.op == "IsInf" &&
      (attr_int(n, "detect_positive", 1) != 1 || attr_int(n, "detect_negative", 1) != 1))
    return "IsInf detecting only one sign is not implemented";
  if (n.op == "Pow" && !is_floating(t) && is_floating(input_dtype(g, n, 1)))
    return "Pow of an integer base by a floating exponent is not implemented";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_elementwise(const Graph&, const Node& n) {
  const EwOp* e = find_ew(n.op);
  const std::string op(engine_op(*e, n));
  const Shape shape = e->shape;
  OpParams params;
  if (e->alpha) params.alpha = attr_float(n, e->alpha, e->alpha_default);
  const bool mean = n.op == "Mean";
  return make_kernel([op, shape, params, mean](KernelContext& ctx) {
    std::vector<ConstOperand> srcs;
    std::vector<DType> dtypes;
    Dims out_shape;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const TensorRef& t = ctx.input(i);
      if (!t.present()) continue;  // an omitted optional input
      out_shape = srcs.empty() ? t.desc.shape : broadcast_shapes(out_shape, t.desc.shape);
      srcs.push_back(src_of(t));
      dtypes.push_back(t.desc.dtype);
    }
    ExprBuilder b(dtypes);
    switch (shape) {
      case Shape::kUnary:
        b.apply(op, {b.input(0)}, {}, params);
        break;
      case Shape::kBinary:
        b.apply(op, {b.input(0), b.input(1)}, {}, params);
        break;
      case Shape::kWhere:
        b.apply(op, {b.input(0), b.input(1), b.input(2)});
        break;
      case Shape::kVariadic: {
        ExprArg acc = b.input(0);
        if (srcs.size() == 1) acc = b.apply("identity", {acc});
        for (int i = 1; i < static_cast<int>(srcs.size()); ++i)
          acc = b.apply(op, {acc, b.input(i)});
        if (mean) b.apply("identity", {acc}, {1.0 / static_cast<double>(srcs.size())});
        break;
      }
    }
    const TensorRef& out = ctx.output(0, out_shape);
    evaluate(b.build(), dst_of(out), srcs);
  });
}

}  // namespace geon::cpu
