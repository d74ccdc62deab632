// The random ops on the host: RandomUniform / RandomNormal (shape and dtype from attributes),
// RandomUniformLike / RandomNormalLike (the input's shape, its dtype or `dtype`), Bernoulli
// (1 with the input's probability) and Multinomial (sample_size class indices per batch row
// from unnormalised log-probabilities). Values are drawn in double and stored in the output's
// dtype; the seed semantics are random.h's.
#include "kernels/cpu/generic/attention/random.h"

#include <atomic>
#include <bit>
#include <cmath>

#include "kernels/cpu/generic/attention/dense.h"
#include "kernels/cpu/generic/attention/ops.h"

namespace geon::cpu {

std::optional<double> seed_attr(const Node& n) {
  const Attribute* a = n.attr("seed");
  if (!a) return std::nullopt;
  return a->kind == Attribute::Kind::kInt ? static_cast<double>(a->i) : static_cast<double>(a->f);
}

RandomStream::RandomStream(std::optional<double> seed) {
  if (seed && *seed >= 0 && *seed < 4294967296.0) {
    // numpy's RandomState(int(seed)): MT19937's init_genrand, which std::mt19937 shares.
    mt_.seed(static_cast<uint32_t>(*seed));
  } else if (seed) {
    const uint64_t bits = std::bit_cast<uint64_t>(*seed);
    std::seed_seq seq{static_cast<uint32_t>(bits), static_cast<uint32_t>(bits >> 32)};
    mt_.seed(seq);
  } else {
    static std::atomic<uint32_t> counter{0};
    std::random_device device;
    std::seed_seq seq{device(), device(), counter.fetch_add(1)};
    mt_.seed(seq);
  }
}

double RandomStream::uniform() {
  const uint32_t a = static_cast<uint32_t>(mt_()) >> 5, b = static_cast<uint32_t>(mt_()) >> 6;
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

double RandomStream::normal() {
  if (has_gauss_) {
    has_gauss_ = false;
    return gauss_;
  }
  double x1, x2, r2;
  do {
    x1 = 2.0 * uniform() - 1.0;
    x2 = 2.0 * uniform() - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  const double f = std::sqrt(-2.0 * std::log(r2) / r2);
  gauss_ = f * x1;
  has_gauss_ = true;
  return f * x2;
}

bool RandomStream::bernoulli(double p) {
  if (p == 0) return false;
  // Inversion for one trial, on the smaller of p and 1 - p, as numpy's binomial does.
  const double u = uniform();
  return p <= 0.5 ? u > 1.0 - p : u <= p;
}

namespace {

bool random_dtype(DType t) {
  return t == DType::kFloat || t == DType::kDouble || t == DType::kFloat16 || t == DType::kBFloat16;
}

// What a RandomUniform* or RandomNormal* node draws.
struct Draw {
  bool normal = false;
  double a = 0, b = 1;  // low / high, or mean / scale
  std::optional<double> seed;
};

Draw read_draw(const Node& n) {
  Draw d;
  d.normal = n.op.find("Normal") != std::string::npos;
  d.a = attr_float(n, d.normal ? "mean" : "low", 0.0f);
  d.b = attr_float(n, d.normal ? "scale" : "high", 1.0f);
  d.seed = seed_attr(n);
  return d;
}

Reason draw_reason(const Draw& d, DType out) {
  if (!random_dtype(out))
    return "random values of " + std::string(dtype_name(out)) +
           " are not defined (float16, bfloat16, float, double)";
  if (!std::isfinite(d.a) || !std::isfinite(d.b))
    return "the distribution's parameters must be finite";
  if (d.normal && d.b < 0) return "RandomNormal's scale must not be negative";
  if (!d.normal && d.b < d.a) return "RandomUniform's high is below its low";
  return std::nullopt;
}

void fill(const TensorRef& out, const Draw& d) {
  const int64_t count = element_count(out.desc);
  std::vector<double> v(static_cast<size_t>(std::max<int64_t>(count, 1)));
  RandomStream stream(d.seed);
  for (double& x : v)
    x = d.normal ? d.a + d.b * stream.normal() : d.a + (d.b - d.a) * stream.uniform();
  store_dense(out, v);
}

DType like_dtype(const Graph& g, const Node& n) {
  const Attribute* a = n.attr("dtype");
  if (!a) return input_dtype(g, n, 0);
  return dtype_from_onnx(static_cast<int32_t>(a->i)).value_or(DType::kUndefined);
}

}  // namespace

Reason supports_random_attrs(const Graph& g, const Node& n) {
  if (Reason r = draw_reason(read_draw(n), output_dtype(g, n, 0))) return n.op + ": " + *r;
  const std::vector<int64_t> shape = attr_ints(n, "shape").value_or(std::vector<int64_t>{});
  try {
    check_output_size(output_dtype(g, n, 0), Dims(shape.begin(), shape.end()), n.op);
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

std::unique_ptr<Kernel> create_random_attrs(const Graph&, const Node& n) {
  const Draw d = read_draw(n);
  const std::vector<int64_t> attr = attr_ints(n, "shape").value_or(std::vector<int64_t>{});
  const Dims shape(attr.begin(), attr.end());
  return make_node_kernel(n, [d, shape](KernelContext& ctx) {
    check_output_size(DType::kDouble, shape, "the random values");
    fill(ctx.output(0, shape), d);
  });
}

Reason supports_random_like(const Graph& g, const Node& n) {
  if (!has_input(n, 0)) return n.op + " needs its input";
  if (Reason r = draw_reason(read_draw(n), like_dtype(g, n))) return n.op + ": " + *r;
  return std::nullopt;
}

std::unique_ptr<Kernel> create_random_like(const Graph&, const Node& n) {
  const Draw d = read_draw(n);
  return make_node_kernel(
      n, [d](KernelContext& ctx) { fill(ctx.output(0, ctx.input(0).desc.shape), d); });
}

Reason supports_bernoulli(const Graph& g, const Node& n) {
  const DType in = input_dtype(g, n, 0), out = output_dtype(g, n, 0);
  if (!random_dtype(in))
    return "Bernoulli of " + std::string(dtype_name(in)) + " probabilities is not defined";
  if (out != DType::kBool && !is_numeric(out))
    return "Bernoulli cannot produce " + std::string(dtype_name(out));
  return std::nullopt;
}

std::unique_ptr<Kernel> create_bernoulli(const Graph&, const Node& n) {
  const std::optional<double> seed = seed_attr(n);
  return make_node_kernel(n, [seed](KernelContext& ctx) {
    std::vector<double> p = dense_as<double>(ctx.input(0));
    RandomStream stream(seed);
    const int64_t count = element_count(ctx.input(0).desc);
    for (int64_t i = 0; i < count; ++i) {
      const double pi = p[i];
      require(pi >= 0 && pi <= 1, [&] {
        return "Bernoulli input element " + std::to_string(i) + " is " + std::to_string(pi) +
               ", not a probability in [0, 1]";
      });
      p[i] = stream.bernoulli(pi) ? 1.0 : 0.0;
    }
    store_dense(ctx.output(0, ctx.input(0).desc.shape), p);
  });
}

Reason supports_multinomial(const Graph& g, const Node& n) {
  const DType in = input_dtype(g, n, 0), out = output_dtype(g, n, 0);
  if (!random_dtype(in)) return "Multinomial of " + std::string(dtype_name(in)) + " is not defined";
  if (out != DType::kInt32 && out != DType::kInt64)
    return "Multinomial gives int32 or int64, not " + std::string(dtype_name(out));
  const int64_t samples = attr_int(n, "sample_size", 1);
  if (samples < 1) return "Multinomial sample_size must be positive";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_multinomial(const Graph&, const Node& n) {
  const std::optional<double> seed = seed_attr(n);
  const int64_t samples = attr_int(n, "sample_size", 1);
  return make_node_kernel(n, [seed, samples](KernelContext& ctx) {
    const Dims& shape = ctx.input(0).desc.shape;
    require(shape.size() == 2,
            [&] { return "input must be (batch_size, class_size), got " + dims_text(shape); });
    const int64_t batch = shape[0], classes = shape[1];
    require(classes > 0 || batch == 0, "input has no classes to draw from");
    const Dims out_shape{batch, samples};
    check_output_size(DType::kDouble, out_shape, "the samples");
    const std::vector<double> logits = dense_as<double>(ctx.input(0));
    std::vector<double> out(static_cast<size_t>(std::max<int64_t>(batch * samples, 1)));
    std::vector<double> cdf(static_cast<size_t>(std::max<int64_t>(classes, 1)));
    RandomStream stream(seed);
    for (int64_t b = 0; b < batch; ++b) {
      const double* row = logits.data() + b * classes;
      double best = -INFINITY;
      for (int64_t c = 0; c < classes; ++c) best = std::max(best, row[c]);
      require(std::isfinite(best), [&] {
        return "Multinomial row " + std::to_string(b) + " has no finite log-probability";
      });
      double total = 0;
      for (int64_t c = 0; c < classes; ++c) {
        require(!std::isnan(row[c]),
                [&] { return "Multinomial row " + std::to_string(b) + " holds NaN"; });
        cdf[c] = (total += std::exp(row[c] - best));
      }
      for (int64_t s = 0; s < samples; ++s) {
        const double x = stream.uniform() * total;
        const auto it = std::upper_bound(cdf.begin(), cdf.begin() + classes, x);
        out[b * samples + s] =
            static_cast<double>(std::min<int64_t>(it - cdf.begin(), classes - 1));
      }
    }
    store_dense(ctx.output(0, out_shape), out);
  });
}

}  // namespace geon::cpu
