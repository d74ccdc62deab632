// cpu.dnnl's matmul core with post-ops (the primitive geon.FusedMatMul runs): run_fused takes
// dense and transposed operands with a bias, a sum of dst's prior contents and each fusable
// activation as oneDNN post-ops in one primitive, against a naive loop.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/desc/views.h"
#include "core/passes/activation.h"
#include "kernels/cpu/dnnl/matmul_core.h"

namespace geon::cpu {
namespace {

MatmulPostOps::Eltwise eltwise(dnnl_alg_kind_t alg, float alpha = 0, float beta = 0) {
  return MatmulPostOps::Eltwise{alg, alpha, beta};
}

struct Case {
  passes::Activation act;
  std::vector<MatmulPostOps::Eltwise> post;
};
Case make_case(const char* op, float alpha, float beta, std::vector<MatmulPostOps::Eltwise> post) {
  Case c;
  c.act.op = op;
  c.act.alpha = alpha;
  c.act.beta = beta;
  c.post = std::move(post);
  return c;
}

TEST(DnnlFusedMatmul, BiasSumAndEachActivationInOnePrimitive) {
  std::vector<Case> cases;
  cases.push_back(make_case("", 0, 0, {}));
  cases.push_back(make_case("Relu", 0, 0, {eltwise(dnnl_eltwise_relu)}));
  cases.push_back(make_case("LeakyRelu", 0.2f, 0, {eltwise(dnnl_eltwise_relu, 0.2f)}));
  cases.push_back(make_case("Clip", -0.3f, 0.6f, {eltwise(dnnl_eltwise_clip, -0.3f, 0.6f)}));
  cases.push_back(make_case("Sigmoid", 0, 0, {eltwise(dnnl_eltwise_logistic)}));
  cases.push_back(make_case("Tanh", 0, 0, {eltwise(dnnl_eltwise_tanh)}));
  cases.push_back(make_case(
      "HardSigmoid", 0.25f, 0.4f,
      {eltwise(dnnl_eltwise_linear, 0.25f, 0.4f), eltwise(dnnl_eltwise_clip, 0.0f, 1.0f)}));
  cases.push_back(make_case("HardSwish", 0, 0, {eltwise(dnnl_eltwise_hardswish)}));
  cases.push_back(make_case("Elu", 0.7f, 0, {eltwise(dnnl_eltwise_elu, 0.7f)}));
  cases.push_back(make_case("Gelu", 0, 0, {eltwise(dnnl_eltwise_gelu_erf)}));
  cases.push_back(make_case("GeluTanh", 0, 0, {eltwise(dnnl_eltwise_gelu_tanh)}));
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-2, 2);
  const int64_t m = 7, k = 13, n = 5;
  std::vector<float> a(m * k), bt(n * k), bias(n), z(m * n);
  for (auto* v : {&a, &bt, &bias, &z})
    for (float& x : *v) x = u(rng);
  DnnlMatmul mm;
  for (const Case& c : cases) {
    for (const bool sum : {false, true}) {
      SCOPED_TRACE(c.act.op + (sum ? " + sum" : ""));
      // B stored transposed (n, k) and read through a transpose view: no copy.
      const TensorDesc bd = transpose(row_major(DType::kFloat, Dims{n, k}));
      std::vector<float> y = sum ? z : std::vector<float>(m * n, 0.0f);
      MatmulPostOps post;
      post.sum = sum;
      post.eltwise = c.post;
      const ConstOperand bias_op(row_major(DType::kFloat, Dims{1, n}), bias.data());
      ASSERT_TRUE(mm.run_fused(
          ConstOperand(row_major(DType::kFloat, Dims{m, k}), a.data()), ConstOperand(bd, bt.data()),
          &bias_op, Operand{row_major(DType::kFloat, Dims{m, n}), y.data()}, 1.0f, post));
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = bias[j] + (sum ? z[i * n + j] : 0.0f);
          for (int64_t e = 0; e < k; ++e) s += double(a[i * k + e]) * bt[j * k + e];
          const float want = passes::apply_activation(c.act, static_cast<float>(s));
          EXPECT_NEAR(y[i * n + j], want, 1e-4 + 1e-4 * std::abs(want)) << i << "," << j;
        }
    }
  }
}

}  // namespace
}  // namespace geon::cpu
