// Import rules: activations with parameters (LeakyRelu, PRelu, Elu, Selu, Celu, HardSigmoid,
// HardSwish, Gelu, Mish, Swish, ThresholdedRelu, Shrink). The output has the input's very axes;
// PRelu's slope broadcasts onto the input (unidirectionally). Constant inputs fold as engine
// expressions of the ONNX formulas.
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/elementwise.h"

namespace geon::importer {
namespace {

const std::vector<TypeStep> kAct16 = {{1, kFloat3}, {16, kFloat4}};
const std::vector<TypeStep> kAct22 = {{1, kFloat3}, {22, kFloat4}};

// One float input; the output keeps its axes.
void float_activation(RuleContext& c, std::span<const TypeStep> types) {
  require_input_count(c, 1, 1);
  require_types(c, 0, types_at(types, c.opset()));
  same_as_input(c);
}

void leaky_relu(RuleContext& c) {
  float_activation(c, kAct16);
  const double alpha = c.attr_float("alpha", 0.01f);
  fold_expr(c, [alpha](ExprBuilder& b, std::span<const ExprArg> a) {
    return b.apply("leaky_relu", {a[0]}, {}, OpParams{alpha});
  });
}

void elu(RuleContext& c) {
  float_activation(c, kAct22);
  const double alpha = c.attr_float("alpha", 1.0f);
  fold_expr(c, [alpha](ExprBuilder& b, std::span<const ExprArg> a) {
    return b.apply("elu", {a[0]}, {}, OpParams{alpha});
  });
}

// gamma * (x > 0 ? x : alpha * (exp(x) - 1)) = gamma * elu_alpha(x)
void selu(RuleContext& c) {
  float_activation(c, kAct22);
  const double alpha = c.attr_float("alpha", 1.67326319217681884765625f);
  const double gamma = c.attr_float("gamma", 1.05070102214813232421875f);
  fold_expr(c, [alpha, gamma](ExprBuilder& b, std::span<const ExprArg> a) {
    const ExprArg e = b.apply("elu", {a[0]}, {}, OpParams{alpha});
    return b.apply("identity", {e}, {gamma});
  });
}

// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) = alpha * elu_1(x / alpha)
void celu(RuleContext& c) {
  float_activation(c, std::vector<TypeStep>{{12, type_bit(DType::kFloat)}});
  const double alpha = c.attr_float("alpha", 1.0f);
  if (alpha == 0) c.fail("attribute 'alpha' must not be 0 (Celu divides by it)");
  fold_expr(c, [alpha](ExprBuilder& b, std::span<const ExprArg> a) {
    const ExprArg e = b.apply("elu", {a[0]}, {1 / alpha}, OpParams{1.0});
    return b.apply("identity", {e}, {alpha});
  });
}

// max(0, min(1, alpha * x + beta)); scalars: a[1] = beta, a[2] = 0, a[3] = 1
ExprArg hard_sigmoid_expr(ExprBuilder& b, ExprArg x, std::span<const ExprArg> s, double alpha) {
  const ExprArg lin = b.apply("add", {x, s[0]}, {alpha, 1});
  return b.apply("min", {b.apply("max", {lin, s[1]}), s[2]});
}

void hard_sigmoid(RuleContext& c) {
  float_activation(c, kAct22);
  const double alpha = c.attr_float("alpha", 0.2f);
  const double beta = c.attr_float("beta", 0.5f);
  fold_expr(c,
            [alpha](ExprBuilder& b, std::span<const ExprArg> a) {
              return hard_sigmoid_expr(b, a[0], a.subspan(1), alpha);
            },
            {beta, 0, 1});
}

// x * hard_sigmoid(x) with alpha 1/6, beta 1/2
void hard_swish(RuleContext& c) {
  float_activation(c, std::vector<TypeStep>{{14, kFloat3}, {22, kFloat4}});
  fold_expr(c,
            [](ExprBuilder& b, std::span<const ExprArg> a) {
              return b.apply("mul", {a[0], hard_sigmoid_expr(b, a[0], a.subspan(1), 1.0 / 6)});
            },
            {0.5, 0, 1});
}

// none: x/2 * (1 + erf(x / sqrt 2)); tanh: x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
void gelu(RuleContext& c) {
  float_activation(c, std::vector<TypeStep>{{20, kFloat4}});
  const std::string approx = c.attr_string("approximate", "none");
  if (approx != "none" && approx != "tanh")
    c.fail("attribute 'approximate' is '" + approx + "'; it must be 'none' or 'tanh'");
  const bool use_tanh = approx == "tanh";
  fold_expr(c,
            [use_tanh](ExprBuilder& b, std::span<const ExprArg> a) {
              ExprArg inner;
              if (use_tanh) {
                const ExprArg cube = b.apply("mul", {b.apply("square", {a[0]}), a[0]});
                const ExprArg poly = b.apply("add", {a[0], cube}, {1, 0.044715});
                inner = b.apply("tanh", {poly}, {std::sqrt(2 / std::numbers::pi)});
              } else {
                inner = b.apply("erf", {a[0]}, {1 / std::sqrt(2.0)});
              }
              return b.apply("mul", {a[0], b.apply("add", {inner, a[1]})}, {0.5, 1});
            },
            {1});
}

// x * tanh(softplus(x))
void mish(RuleContext& c) {
  float_activation(c, std::vector<TypeStep>{{18, kFloat3}, {22, kFloat4}});
  fold_expr(c, [](ExprBuilder& b, std::span<const ExprArg> a) {
    return b.apply("mul", {a[0], b.apply("tanh", {b.apply("softplus", {a[0]})})});
  });
}

// x * sigmoid(alpha * x)
void swish(RuleContext& c) {
  float_activation(c, std::vector<TypeStep>{{24, kFloat4}});
  const double alpha = c.attr_float("alpha", 1.0f);
  fold_expr(c, [alpha](ExprBuilder& b, std::span<const ExprArg> a) {
    return b.apply("mul", {a[0], b.apply("sigmoid", {a[0]}, {alpha})});
  });
}

// x > alpha ? x : 0; scalars: a[1] = alpha, a[2] = 0
void thresholded_relu(RuleContext& c) {
  float_activation(c, std::vector<TypeStep>{{10, kFloat3}, {22, kFloat4}});
  const double alpha = c.attr_float("alpha", 1.0f);
  fold_expr(c,
            [](ExprBuilder& b, std::span<const ExprArg> a) {
              return b.apply("where", {b.apply("greater", {a[0], a[1]}), a[0], a[2]});
            },
            {alpha, 0});
}

// x < -lambd ? x + bias : x > lambd ? x - bias : 0; scalars: a[1] = lambd, a[2] = bias, a[3] = 0
void shrink(RuleContext& c) {
  require_input_count(c, 1, 1);
  require_types(c, 0, kFloat3 | kInts8);
  const double bias = c.attr_float("bias", 0.0f);
  const double lambd = c.attr_float("lambd", 0.5f);
  same_as_input(c);
  if (!is_float_type(c.input_dtype(0))) return;  // integer Shrink: the scalars would truncate
  fold_expr(c,
            [](ExprBuilder& b, std::span<const ExprArg> a) {
              const ExprArg high = b.apply(
                  "where", {b.apply("greater", {a[0], a[1]}), b.apply("sub", {a[0], a[2]}), a[3]});
              return b.apply("where", {b.apply("less", {a[0], a[1]}, {1, -1}),
                                       b.apply("add", {a[0], a[2]}), high});
            },
            {lambd, bias, 0});
}

// PRelu: the slope broadcasts onto X (unidirectionally from opset 7; before, it is either one
// value or one per channel). The output has X's axes.
void prelu(RuleContext& c) {
  require_input_count(c, 2, 2);
  const TypeSet types = types_at(
      std::vector<TypeStep>{{1, kFloat3}, {9, kFloat3 | kInt32_64}, {16, kFloat4 | kInt32_64}},
      c.opset());
  require_types(c, 0, types);
  common_dtype(c, {0, 1});
  const Value& x = c.input(0);
  const Value& slope = c.input(1);
  if (c.opset() >= 7 && x.rank_known && slope.rank_known) {
    if (slope.rank() > x.rank())
      c.fail("input 1 (slope) has rank " + std::to_string(slope.rank()) +
             ", more than input 0's rank " + std::to_string(x.rank()) +
             "; the slope must broadcast onto the input");
    const int off = x.rank() - slope.rank();
    for (int k = 0; k < slope.rank(); ++k) {
      const Length& ls = slope.axes[k].length;
      if (ls.is_static() && ls.value == 1) continue;
      if (compare_lengths(ls, x.axes[off + k].length) == LengthRelation::kDifferent)
        c.fail("input 1 (slope) has length " + to_string(ls) + " at dim " + std::to_string(k) +
               " but input 0 has " + to_string(x.axes[off + k].length) +
               "; the slope must broadcast onto the input");
    }
  }
  same_as_input(c);
  if (c.opset() >= 7)
    fold_expr(c, [](ExprBuilder& b, std::span<const ExprArg> a) {
      return b.apply("prelu", {a[0], a[1]});
    });
}

}  // namespace

std::span<const RuleEntry> elementwise_activation_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "LeakyRelu", 1, leaky_relu},
      {"", "Elu", 1, elu},
      {"", "Selu", 1, selu},
      {"", "Celu", 12, celu},
      {"", "HardSigmoid", 1, hard_sigmoid},
      {"", "HardSwish", 14, hard_swish},
      {"", "Gelu", 20, gelu},
      {"", "Mish", 18, mish},
      {"", "Swish", 24, swish},
      {"", "ThresholdedRelu", 10, thresholded_relu},
      {"", "Shrink", 9, shrink},
      {"", "PRelu", 1, prelu},
      {"", "PRelu", 7, prelu},  // from 7 the slope broadcasts numpy-style (unidirectionally)
  };
  return rules;
}

}  // namespace geon::importer
