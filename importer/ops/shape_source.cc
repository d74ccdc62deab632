// Import rules for the ops that make a tensor out of attributes or out of another tensor's
// shape: Constant, Shape, Size, ConstantOfShape, Range, EyeLike. Shape and Size start the
// shape computations whose entries shape_contents.h carries (static or symbolic).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/dtype/scalar.h"
#include "importer/ops/common.h"
#include "importer/ops/shape_contents.h"
#include "importer/ops/shape_fold.h"
#include "importer/ops/shape_parts.h"

namespace geon::importer {
namespace {

// ---- Constant --------------------------------------------------------------------------------

std::shared_ptr<TensorData> floats_data(std::span<const float> v, bool scalar) {
  auto d = make_tensor_data(DType::kFloat, scalar ? Dims{} : Dims{static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) {
    Scalar s;
    s.re = v[i];
    store_scalar(DType::kFloat, d->storage->data(), static_cast<int64_t>(i), s);
  }
  return d;
}

std::shared_ptr<TensorData> strings_data(std::vector<std::string> v, bool scalar) {
  auto d = make_tensor_data(DType::kString, scalar ? Dims{} : Dims{static_cast<int64_t>(v.size())});
  d->strings = std::move(v);
  return d;
}

void constant(RuleContext& c) {
  struct Form {
    const char* name;
    int since;
  };
  static constexpr Form kForms[] = {
      {"value", 1},      {"sparse_value", 11}, {"value_float", 12},  {"value_floats", 12},
      {"value_int", 12}, {"value_ints", 12},   {"value_string", 12}, {"value_strings", 12},
  };
  const Form* form = nullptr;
  int given = 0;
  for (const Form& f : kForms)
    if (c.has_attr(f.name)) {
      ++given;
      form = &f;
    }
  if (given != 1)
    c.fail(
        "exactly one of the attributes value, sparse_value, value_float(s), value_int(s), "
        "value_string(s) must be given, got " +
        std::to_string(given));
  const std::string name = form->name;
  if (c.opset() < form->since)
    c.fail("attribute '" + name + "' needs opset " + std::to_string(form->since) + " or later");
  std::shared_ptr<const TensorData> data;
  if (name == "value") {
    c.attr_tensor("value");  // checks the kind
    data = c.node().attr("value")->t;
  } else if (name == "sparse_value") {
    const Attribute* a = c.node().attr("sparse_value");
    if (a->kind != Attribute::Kind::kSparseTensor)
      c.fail("attribute 'sparse_value' must be sparse_tensor, got " +
             std::string(attribute_kind_name(a->kind)));
    data = a->t;
  } else if (name == "value_float") {
    const float v = c.attr_float(name);
    data = floats_data(std::span(&v, 1), true);
  } else if (name == "value_floats") {
    data = floats_data(c.attr_floats(name), false);
  } else if (name == "value_int") {
    const int64_t v = c.attr_int(name);
    data = int_data(DType::kInt64, {}, std::span(&v, 1));
  } else if (name == "value_ints") {
    const auto v = c.attr_ints(name);
    data = int_data(DType::kInt64, {static_cast<int64_t>(v.size())}, v);
  } else if (name == "value_string") {
    data = strings_data({c.attr_string(name)}, true);
  } else {
    data = strings_data(c.attr_strings(name), false);
  }
  if (!data) c.fail("attribute '" + name + "' holds no tensor");
  c.set_output(0, data->desc.dtype, std::span<const int64_t>(data->desc.shape));
  // The model's own constant, not a fold: kept whatever its size (the folding limits bound
  // what the importer computes, and this was read from the model).
  if (c.has_output(0)) c.output(0).data = data;
}

// ---- Shape, Size -----------------------------------------------------------------------------

void shape_op(RuleContext& c) {
  const Value& in = c.input(0);
  if (in.type.kind != TypeKind::kTensor) c.fail("input 0 must be a tensor");
  const bool ranged = c.opset() >= 15;
  const int64_t start = ranged ? c.attr_int("start", 0) : 0;
  const int64_t end = ranged ? c.attr_int("end", std::numeric_limits<int64_t>::max())
                             : std::numeric_limits<int64_t>::max();
  if (!in.rank_known) {
    const Length len = Length::unknown();
    c.set_output(0, DType::kInt64, std::span(&len, 1));
    return;
  }
  const int64_t r = in.rank();
  auto clamp = [r](int64_t v) { return std::clamp(v < 0 ? v + r : v, int64_t{0}, r); };
  const int64_t s = clamp(start), e = std::max(clamp(end), s);
  const int64_t n = e - s;
  c.set_output(0, DType::kInt64, std::span(&n, 1));
  std::vector<Length> entries;
  for (int64_t k = s; k < e; ++k) entries.push_back(in.axes[static_cast<size_t>(k)].length);
  set_contents(c, 0, std::move(entries));
}

void size_op(RuleContext& c) {
  const Value& in = c.input(0);
  if (in.type.kind != TypeKind::kTensor) c.fail("input 0 must be a tensor");
  c.set_output(0, DType::kInt64, std::span<const int64_t>());
  if (!in.rank_known) return;
  const std::vector<Length> lens = lengths(in.axes);
  set_contents(c, 0, {product(lens)});
}

// ---- ConstantOfShape ---------------------------------------------------------------------------

void constant_of_shape(RuleContext& c) {
  require_dtype(c, 0, {DType::kInt64});
  const TensorData* value = c.attr_tensor("value");
  std::shared_ptr<TensorData> zero;
  if (!value) {
    zero = make_tensor_data(DType::kFloat, {1});
    value = zero.get();
  }
  if (value->elements() != 1)
    c.fail("attribute 'value' must hold one element, got " + std::to_string(value->elements()));
  const DType t = value->desc.dtype;
  if (t == DType::kString || t == DType::kUndefined)
    c.fail("attribute 'value' has dtype " + std::string(dtype_name(t)) +
           ", which ConstantOfShape does not accept");
  const Value& shape = c.input(0);
  if (shape.rank_known && shape.rank() != 1)
    c.fail("input 0 (shape) must be 1-D, got rank " + std::to_string(shape.rank()));
  const auto entries = c.contents(0);
  if (!entries) {
    const auto n = c.static_shape(0);
    if (!n || (*n)[0] > kMaxInferredRank) {
      c.set_output_unknown_rank(0, t);
      return;
    }
    std::vector<Length> lens(static_cast<size_t>((*n)[0]), Length::unknown());
    c.set_output(0, t, lens);
    return;
  }
  c.set_output(0, t, axes_from_entries(c, *entries, "input 0 (shape)"));
  if (!c.has_output(0) || !all_static(*entries)) return;
  Dims dims;
  int64_t n = 1;
  for (const Length& l : *entries) {
    dims.push_back(l.value);
    if (__builtin_mul_overflow(n, l.value, &n))
      c.fail("input 0 (shape) " + list_string(dims) + "... has more elements than int64 counts");
  }
  if (!fold_fits(c, t, n)) return;
  auto data = make_tensor_data(t, dims);
  if (fill(*data, *value)) c.set_output_data(0, data);
}

// ---- Range -----------------------------------------------------------------------------------

void range(RuleContext& c) {
  const DType t = common_dtype(c, {0, 1, 2});
  if (c.opset() >= 27)
    require_dtype(c, 0,
                  {DType::kFloat, DType::kDouble, DType::kInt16, DType::kInt32, DType::kInt64,
                   DType::kFloat16, DType::kBFloat16});
  else
    require_dtype(c, 0,
                  {DType::kFloat, DType::kDouble, DType::kInt16, DType::kInt32, DType::kInt64});
  static const char* kNames[] = {"start", "limit", "delta"};
  // Scalars, or one-element vectors as exporters write them (ONNX Runtime accepts both).
  for (int i = 0; i < 3; ++i) {
    const Value& v = c.input(i);
    if (v.rank_known && v.rank() != 0 &&
        !(v.rank() == 1 &&
          compare_lengths(v.axes[0].length, Length::known(1)) != LengthRelation::kDifferent))
      c.fail("input " + std::to_string(i) + " (" + kNames[i] + ") must be a scalar, got " +
             to_string_with_lengths(v.axes));
  }
  const TensorData* s = constant_input(c, 0);
  const TensorData* l = constant_input(c, 1);
  const TensorData* d = constant_input(c, 2);
  if (d && d->elements() == 1 && element_as_double(*d, 0) == 0) c.fail("input 2 (delta) is 0");
  if (!s || !l || !d || s->elements() != 1 || l->elements() != 1 || d->elements() != 1) {
    // Range(0, n, 1) over a symbolic n has n elements.
    Length len = Length::unknown();
    const auto limit = c.contents(1);
    if (s && d && is_integer(t) && s->elements() == 1 && d->elements() == 1 &&
        element_as_int(*s, 0) == 0 && element_as_int(*d, 0) == 1 && limit && limit->size() == 1 &&
        (*limit)[0].is_symbol())
      len = (*limit)[0];
    c.set_output(0, t, std::span(&len, 1));
    return;
  }
  int64_t n = 0;
  if (is_integer(t)) {
    const __int128 a = element_as_int(*s, 0), b = element_as_int(*l, 0),
                   step = element_as_int(*d, 0);
    const __int128 diff = b - a;
    __int128 q = diff / step;
    if (q * step != diff && ((diff > 0) == (step > 0))) ++q;  // ceil
    n = static_cast<int64_t>(std::max<__int128>(q, 0));
  } else {
    const double a = element_as_double(*s, 0), b = element_as_double(*l, 0),
                 step = element_as_double(*d, 0);
    const double q = std::ceil((b - a) / step);
    if (!std::isfinite(q)) c.fail("the number of elements (limit - start) / delta is not finite");
    if (q > 9.0e18) c.fail("the number of elements " + std::to_string(q) + " is too large");
    n = q > 0 ? static_cast<int64_t>(q) : 0;
  }
  c.set_output(0, t, std::span(&n, 1));
  if (!c.has_output(0) || !fold_fits(c, t, n)) return;
  auto out = make_tensor_data(t, {n});
  for (int64_t i = 0; i < n; ++i) {
    Scalar v;
    if (is_integer(t)) {
      v.kind = Scalar::Kind::kSigned;  // between start and limit, so it fits
      v.i = static_cast<int64_t>(static_cast<__int128>(element_as_int(*s, 0)) +
                                 static_cast<__int128>(i) * element_as_int(*d, 0));
    } else {
      v.re = element_as_double(*s, 0) + static_cast<double>(i) * element_as_double(*d, 0);
    }
    store_scalar(t, out->storage->data(), i, v);
  }
  c.set_output_data(0, out);
}

// ---- EyeLike ---------------------------------------------------------------------------------

void eye_like(RuleContext& c) {
  const Value& in = c.input(0);
  DType t = in.dtype();
  if (c.has_attr("dtype")) {
    const int64_t code = c.attr_int("dtype");
    const auto dt = code >= 0 && code <= std::numeric_limits<int32_t>::max()
                        ? dtype_from_onnx(static_cast<int32_t>(code))
                        : std::nullopt;
    if (!dt) c.fail("attribute 'dtype' " + std::to_string(code) + " is not an ONNX dtype");
    t = *dt;
  }
  if (t == DType::kString || is_complex(t))
    c.fail("output dtype " + std::string(dtype_name(t)) + " is not accepted by EyeLike");
  const int64_t k = c.attr_int("k", 0);
  if (!in.rank_known) {
    const Length u[2] = {Length::unknown(), Length::unknown()};
    c.set_output(0, t, u);
    return;
  }
  if (in.rank() != 2) c.fail("input 0 must be 2-D, got rank " + std::to_string(in.rank()));
  c.set_output(0, t, in.axes);
  const auto shape = c.static_shape(0);
  int64_t n = 0;
  if (!constant_input(c, 0) || !shape || __builtin_mul_overflow((*shape)[0], (*shape)[1], &n) ||
      !fold_fits(c, t, n))
    return;
  auto out = make_tensor_data(t, *shape);
  for (int64_t i = 0; i < (*shape)[0]; ++i) {
    const int64_t j = i + k;
    if (j < 0 || j >= (*shape)[1]) continue;
    Scalar one;
    one.re = 1;
    store_scalar(t, out->storage->data(), i * (*shape)[1] + j, one);
  }
  c.set_output_data(0, out);
}

}  // namespace

std::span<const RuleEntry> shape_source_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "Constant", 1, constant}, {"", "Shape", 1, shape_op},
      {"", "Shape", 15, shape_op},  // start and end
      {"", "Size", 1, size_op},      {"", "ConstantOfShape", 9, constant_of_shape},
      {"", "Range", 11, range},      {"", "Range", 27, range},  // float16, bfloat16 and stash_type
      {"", "EyeLike", 9, eye_like},
  };
  return rules;
}

}  // namespace geon::importer
