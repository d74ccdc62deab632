// Import rules: the misc family. Here the random ops (their `dtype` attribute rules) and
// BitCast; the other parts (signal, text, ML and training domains) live in misc_*.cc and are
// joined below. Random outputs are never folded.
#include "importer/ops/misc.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/families.h"
#include "importer/ops/subgraph.h"

namespace geon::importer {

std::optional<DType> dtype_attr(const RuleContext& c, std::string_view name) {
  if (!c.has_attr(name)) return std::nullopt;
  const int64_t code = c.attr_int(name);
  const auto t = code >= INT32_MIN && code <= INT32_MAX
                     ? dtype_from_onnx(static_cast<int32_t>(code))
                     : std::nullopt;
  if (!t)
    c.fail("attribute '" + std::string(name) + "' is " + std::to_string(code) +
           ", not an ONNX element type");
  return t;
}

void require_dtype_in(const RuleContext& c, DType t, std::span<const DType> allowed,
                      const std::string& what) {
  if (t == DType::kUndefined) return;  // not known yet: checked at run time
  std::string names;
  for (DType a : allowed) {
    if (a == t) return;
    names += (names.empty() ? "" : ", ") + std::string(dtype_name(a));
  }
  c.fail(what + " is " + std::string(dtype_name(t)) + " but must be one of " + names);
}

std::span<const DType> float_types(bool bf16) {
  static constexpr DType kTypes[] = {DType::kFloat16, DType::kFloat, DType::kDouble,
                                     DType::kBFloat16};
  return std::span<const DType>(kTypes, bf16 ? 4 : 3);
}

std::span<const DType> window_output_types() {
  static constexpr DType kTypes[] = {DType::kUInt8,  DType::kUInt16, DType::kUInt32,
                                     DType::kUInt64, DType::kInt8,   DType::kInt16,
                                     DType::kInt32,  DType::kInt64,  DType::kFloat16,
                                     DType::kFloat,  DType::kDouble, DType::kBFloat16};
  return kTypes;
}

std::optional<int64_t> scalar_int_input(const RuleContext& c, int i, const std::string& role) {
  const Value& v = c.input(i);
  const std::string what = "input " + std::to_string(i) + " (" + role + ")";
  if (v.type.kind != TypeKind::kTensor && v.type.kind != TypeKind::kUnknown)
    c.fail(what + " must be a tensor, got " + to_string(v.type));
  require_dtype_in(c, v.dtype(), {DType::kInt32, DType::kInt64}, what);
  if (v.rank_known)
    if (auto s = static_lengths(v.axes); s && element_count(*s) != 1)
      c.fail(what + " must hold one element, got shape " + to_string_with_lengths(v.axes));
  const TensorData* d = fixed_constant(c, i);
  if (!d || d->elements() != 1) return std::nullopt;
  return element_as_int(*d, 0);
}

void require_rank(const RuleContext& c, int i, int rank, const std::string& role) {
  const Value& v = c.input(i);
  if (v.type.kind != TypeKind::kTensor && v.type.kind != TypeKind::kUnknown)
    c.fail("input " + std::to_string(i) + " (" + role + ") must be a tensor, got " +
           to_string(v.type));
  if (v.rank_known && v.rank() != rank)
    c.fail("input " + std::to_string(i) + " (" + role + ") must have rank " + std::to_string(rank) +
           ", got shape " + to_string_with_lengths(v.axes));
}

int64_t flag_attr(const RuleContext& c, std::string_view name, int64_t fallback) {
  const int64_t v = c.attr_int(name, fallback);
  if (v != 0 && v != 1)
    c.fail("attribute '" + std::string(name) + "' must be 0 or 1, got " + std::to_string(v));
  return v;
}

namespace {

// ---- random ----

// RandomNormal / RandomUniform: the shape and dtype come from attributes.
void random_from_attrs(RuleContext& c) {
  if (c.num_inputs() != 0) c.fail("takes no inputs, got " + std::to_string(c.num_inputs()));
  const DType t = dtype_attr(c, "dtype").value_or(DType::kFloat);
  require_dtype_in(c, t, float_types(c.opset() >= 22), "attribute 'dtype'");
  const std::vector<int64_t> shape = c.attr_ints("shape");
  for (int64_t d : shape)
    if (d < 0) c.fail("attribute 'shape' has the negative dim " + std::to_string(d));
  c.set_output(0, t, shape);
}

// RandomNormalLike / RandomUniformLike: the input's shape; its dtype unless `dtype` is given.
void random_like(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  const Value& in = c.input(0);
  const auto attr = dtype_attr(c, "dtype");
  const DType t = attr.value_or(in.dtype());
  require_dtype_in(c, t, float_types(c.opset() >= 22),
                   attr ? "attribute 'dtype'" : "the output dtype (input 0's, no 'dtype' given)");
  same_as_input(c, 0, 0, t);
}

void multinomial(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  require_rank(c, 0, 2, "input, [batch_size, class_size]");
  const Value& in = c.input(0);
  require_dtype_in(c, in.dtype(), float_types(c.opset() >= 22), "input 0");
  const DType t = dtype_attr(c, "dtype").value_or(DType::kInt32);
  require_dtype_in(c, t, {DType::kInt32, DType::kInt64}, "attribute 'dtype'");
  const int64_t samples = c.attr_int("sample_size", 1);
  if (samples < 1)
    c.fail("attribute 'sample_size' must be positive, got " + std::to_string(samples));
  if (!in.rank_known) {
    c.set_output(0, t, std::vector<Length>{Length::unknown(), Length::known(samples)});
    return;
  }
  c.set_output(0, t, Axes{in.axes[0], c.new_axis(Length::known(samples))});
}

void bernoulli(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  const Value& in = c.input(0);
  require_dtype_in(c, in.dtype(), float_types(c.opset() >= 22), "input 0");
  const DType t = dtype_attr(c, "dtype").value_or(in.dtype());
  const auto numbers = window_output_types();
  std::vector<DType> allowed(numbers.begin(), numbers.end());
  allowed.push_back(DType::kBool);
  if (t != DType::kUndefined && std::find(allowed.begin(), allowed.end(), t) == allowed.end())
    c.fail("attribute 'dtype' is " + std::string(dtype_name(t)) +
           ", which Bernoulli cannot produce (numbers or bool)");
  same_as_input(c, 0, 0, t);
}

// ---- BitCast ----

void bitcast(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  const Value& in = c.input(0);
  const auto to = dtype_attr(c, "to");
  if (!to) c.fail("attribute 'to' is required but missing");
  if (*to == DType::kString || in.dtype() == DType::kString)
    c.fail("strings have no fixed bit width and cannot be bit-cast");
  if (in.dtype() != DType::kUndefined && dtype_bits(in.dtype()) != dtype_bits(*to))
    c.fail("input 0 is " + std::string(dtype_name(in.dtype())) + " (" +
           std::to_string(dtype_bits(in.dtype())) + " bits) but 'to' is " +
           std::string(dtype_name(*to)) + " (" + std::to_string(dtype_bits(*to)) +
           " bits); the widths must match");
  same_as_input(c, 0, 0, *to);
  const TensorData* d = c.constant(0);
  if (!d || !fits_folding(c, *to, d->elements())) return;
  auto out = make_tensor_data(*to, d->desc.shape);
  const int64_t bytes = dtype_bytes_for(*to, d->elements());
  if (bytes > 0) std::memcpy(out->storage->data(), d->bytes(), static_cast<size_t>(bytes));
  c.set_output_data(0, out);
}

}  // namespace

std::span<const RuleEntry> misc_rules() {
  static const std::vector<RuleEntry> rules = [] {
    std::vector<RuleEntry> t = {
        {"", "RandomNormal", 1, random_from_attrs},
        {"", "RandomUniform", 1, random_from_attrs},
        {"", "RandomNormalLike", 1, random_like},
        {"", "RandomUniformLike", 1, random_like},
        {"", "Multinomial", 7, multinomial},
        {"", "Bernoulli", 15, bernoulli},
        {"", "BitCast", 26, bitcast},
    };
    for (auto part : {misc_signal_rules(), misc_text_rules(), misc_ml_rules(), misc_maps_rules()})
      t.insert(t.end(), part.begin(), part.end());
    return t;
  }();
  return rules;
}

}  // namespace geon::importer
