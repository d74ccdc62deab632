// Cast / CastLike where strings are involved, and Equal on strings. Numbers become their
// shortest round-trip decimal text (float as float, double as double: "0.039187793", "1e-05"),
// NaN and infinities the spec's "NaN", "INF", "-INF"; bool the reference evaluator's "True" /
// "False". Strings become numbers as strtod / strtoll read the whole text ("INF", "+INF",
// "-INF", "NaN" included); text that is not a number is refused, naming the element.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {
namespace {

template <typename T>
std::string float_text(T v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "INF" : "-INF";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

template <typename T>
std::vector<T> read_typed(const TensorRef& t, DType as) {
  std::vector<T> out(static_cast<size_t>(element_count(t.desc)));
  if (!out.empty()) assign(Operand{row_major(as, t.desc.shape), out.data()}, src_of(t));
  return out;
}

std::vector<std::string> to_text(const TensorRef& x) {
  const DType t = x.desc.dtype;
  std::vector<std::string> out;
  if (t == DType::kFloat) {
    for (float v : read_typed<float>(x, DType::kFloat)) out.push_back(float_text(v));
  } else if (t == DType::kBool) {
    for (uint8_t v : read_typed<uint8_t>(x, DType::kBool)) out.push_back(v ? "True" : "False");
  } else if (t == DType::kUInt64) {
    for (uint64_t v : read_typed<uint64_t>(x, DType::kUInt64)) out.push_back(std::to_string(v));
  } else if (is_integer(t)) {
    for (int64_t v : read_typed<int64_t>(x, DType::kInt64)) out.push_back(std::to_string(v));
  } else if (t == DType::kDouble) {
    for (double v : read_typed<double>(x, DType::kDouble)) out.push_back(float_text(v));
  } else {
    // float16, bfloat16, float8, float4: every value is a float exactly.
    for (float v : read_typed<float>(x, DType::kFloat)) out.push_back(float_text(v));
  }
  return out;
}

[[noreturn]] void not_a_number(size_t i, std::string_view s, DType to) {
  std::string shown(s.substr(0, 64));
  fail(ErrorCode::kInvalidArgument, "input element " + std::to_string(i) + " ('" + shown +
                                        (s.size() > 64 ? "..." : "") + "') is not a " +
                                        std::string(dtype_name(to)) + " number");
}

void from_text(const TensorRef& x, const TensorRef& dst) {
  const DType to = dst.desc.dtype;
  const std::vector<std::string_view> in = read_strings(x);
  if (in.empty()) return;
  const Dims& shape = x.desc.shape;
  if (is_integer(to)) {
    // Integers parse exactly (int64, or uint64 for uint64), then narrow as Cast does.
    const bool u = to == DType::kUInt64;
    std::vector<int64_t> v(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      std::string s(in[i]);
      if (!s.empty() && s[0] == '+') s.erase(0, 1);
      const char* b = s.data();
      std::from_chars_result r{};
      if (u) {
        uint64_t w = 0;
        r = std::from_chars(b, b + s.size(), w);
        v[i] = static_cast<int64_t>(w);
      } else {
        r = std::from_chars(b, b + s.size(), v[i]);
      }
      if (s.empty() || r.ec != std::errc() || r.ptr != b + s.size()) not_a_number(i, in[i], to);
    }
    assign(dst_of(dst),
           ConstOperand(row_major(u ? DType::kUInt64 : DType::kInt64, shape), v.data()));
    return;
  }
  std::vector<double> v(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string s(in[i]);
    char* end = nullptr;
    errno = 0;
    v[i] = std::strtod(s.c_str(), &end);
    // Out-of-range text saturates to +-inf or 0 as strtod gives it; only garbage is refused.
    if (s.empty() || end != s.c_str() + s.size()) not_a_number(i, in[i], to);
  }
  if (to == DType::kFloat) {
    // Straight from the text to float (no double rounding): strtof.
    std::vector<float> f(in.size());
    for (size_t i = 0; i < in.size(); ++i) f[i] = std::strtof(std::string(in[i]).c_str(), nullptr);
    assign(dst_of(dst), ConstOperand(row_major(DType::kFloat, shape), f.data()));
    return;
  }
  assign(dst_of(dst), ConstOperand(row_major(DType::kDouble, shape), v.data()));
}

}  // namespace

Reason supports_cast_string(const Graph& g, const Node& n) {
  const DType from = input_dtype(g, n, 0), to = output_dtype(g, n, 0);
  for (auto [t, what] : {std::pair{from, "the input"}, std::pair{to, "the output"}})
    if (t != DType::kString)
      if (Reason r = engine_dtype_reason(t, what)) return r;
  if (from == DType::kString && to != DType::kString && is_complex(to))
    return "Cast from string to complex is not defined";
  return std::nullopt;
}
std::unique_ptr<Kernel> create_cast_string(const Graph&, const Node& n) {
  return make_node_kernel(n, [](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const TensorRef& dst = ctx.output(0, x.desc.shape);
    const bool from = x.desc.dtype == DType::kString, to = dst.desc.dtype == DType::kString;
    if (from && to)
      assign(dst_of(dst), src_of(x));
    else if (to)
      write_strings(dst, to_text(x));
    else
      from_text(x, dst);
  });
}

Reason supports_equal_string(const Graph& g, const Node& n) {
  for (int i : {0, 1})
    if (Reason r = require_string(input_dtype(g, n, i), "input " + std::to_string(i))) return r;
  if (output_dtype(g, n, 0) != DType::kBool) return "the output is not bool";
  return std::nullopt;
}
std::unique_ptr<Kernel> create_equal_string(const Graph&, const Node& n) {
  return make_node_kernel(n, [](KernelContext& ctx) {
    const TensorRef& a = ctx.input(0);
    const TensorRef& b = ctx.input(1);
    const Dims shape = broadcast_shapes(a.desc.shape, b.desc.shape);
    const TensorRef& dst = ctx.output(0, shape);
    const std::vector<std::string_view> x = read_strings_as(a, shape),
                                        y = read_strings_as(b, shape);
    std::vector<uint8_t> out(x.size());
    for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] == y[i] ? 1 : 0;
    if (!out.empty()) assign(dst_of(dst), ConstOperand(row_major(DType::kBool, shape), out.data()));
  });
}

}  // namespace geon::cpu
