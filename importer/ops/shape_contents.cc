// Shape-tensor contents: building, propagating and folding them (see shape_contents.h).
#include "importer/ops/shape_contents.h"

#include <limits>

#include "core/base/error.h"
#include "core/dtype/scalar.h"

namespace geon::importer {

Length entry(int64_t v) {
  Length l;
  l.kind = Length::Kind::kStatic;
  l.value = v;
  return l;
}

bool all_static(std::span<const Length> entries) {
  for (const Length& l : entries)
    if (!l.is_static()) return false;
  return true;
}

std::shared_ptr<TensorData> int_data(DType t, const Dims& shape, std::span<const int64_t> values) {
  if (!is_integer(t) && t != DType::kBool) return nullptr;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && n > std::numeric_limits<int64_t>::max() / d)) return nullptr;
    n *= d;
  }
  if (n != static_cast<int64_t>(values.size())) return nullptr;
  auto data = make_tensor_data(t, shape);
  for (int64_t i = 0; i < n; ++i) {
    Scalar s;
    if (t == DType::kBool) {
      s.kind = Scalar::Kind::kUnsigned;
      s.u = values[i] != 0;
    } else {
      s.kind = Scalar::Kind::kSigned;
      s.i = values[i];
    }
    store_scalar(t, data->storage->data(), i, s);
  }
  return data;
}

void set_contents(RuleContext& c, int out, std::vector<Length> entries) {
  if (!c.has_output(out) || static_cast<int64_t>(entries.size()) > kMaxEntries) return;
  const Value& v = c.output(out);
  if (!v.rank_known || (!is_integer(v.dtype()) && v.dtype() != DType::kBool)) return;
  const auto shape = static_lengths(v.axes);
  if (shape) {
    int64_t n = 1;
    for (int64_t d : *shape)
      if (__builtin_mul_overflow(n, d, &n)) return;
    if (n != static_cast<int64_t>(entries.size())) return;
  }
  if (shape && all_static(entries) && !v.data) {
    std::vector<int64_t> values;
    for (const Length& l : entries) values.push_back(l.value);
    c.set_output_data(out, int_data(v.dtype(), *shape, values));
  }
  c.set_output_contents(out, std::move(entries));
}

Length product(std::span<const Length> lengths) {
  int64_t n = 1;
  const Length* symbol = nullptr;
  bool unknown = false;
  for (const Length& l : lengths) {
    if (l.is_static()) {
      if (l.value == 0) return Length::known(0);
      if (l.value < 0) return Length::unknown();
      if (n > std::numeric_limits<int64_t>::max() / l.value)
        unknown = true;
      else
        n *= l.value;
    } else if (l.is_symbol() && !symbol) {
      symbol = &l;
    } else {
      unknown = true;
    }
  }
  if (unknown) return Length::unknown();
  if (!symbol) return Length::known(n);
  return n == 1 ? *symbol : Length::unknown();
}

void gather_contents(RuleContext& c, int axis) {
  if (!c.has_output(0) || !c.has_input(0) || !c.has_input(1)) return;
  const Value& data = c.input(0);
  if (!data.rank_known || data.rank() != 1 || (axis != 0 && axis != -1)) return;
  const auto entries = c.contents(0);
  const auto indices = c.int_contents(1);
  if (!entries || !indices) return;
  const auto n = static_cast<int64_t>(entries->size());
  std::vector<Length> out;
  for (int64_t i : *indices) {
    if (i < -n || i >= n) return;
    out.push_back((*entries)[static_cast<size_t>(i < 0 ? i + n : i)]);
  }
  set_contents(c, 0, std::move(out));
}

void cast_contents(RuleContext& c) {
  if (!c.has_output(0) || !c.has_input(0)) return;
  const DType to = c.output(0).dtype();
  if (!is_integer(to)) return;
  auto entries = c.contents(0);
  if (!entries) return;
  for (Length& l : *entries) {
    if (!l.is_static()) continue;
    // Through the dtype itself, so narrowing wraps as Cast does.
    unsigned char buf[16] = {};
    Scalar s;
    s.kind = Scalar::Kind::kSigned;
    s.i = l.value;
    store_scalar(to, buf, 0, s);
    const Scalar back = load_scalar(to, buf, 0);
    l = entry(back.kind == Scalar::Kind::kUnsigned ? static_cast<int64_t>(back.u) : back.i);
  }
  set_contents(c, 0, std::move(*entries));
}

namespace {

Length combine(const Length& a, const Length& b, ContentsOp op) {
  if (a.is_static() && b.is_static()) {
    const int64_t x = a.value, y = b.value;
    int64_t r = 0;
    switch (op) {
      case ContentsOp::kAdd:
        if (__builtin_add_overflow(x, y, &r)) return Length::unknown();
        return entry(r);
      case ContentsOp::kSub:
        if (__builtin_sub_overflow(x, y, &r)) return Length::unknown();
        return entry(r);
      case ContentsOp::kMul:
        if (__builtin_mul_overflow(x, y, &r)) return Length::unknown();
        return entry(r);
      case ContentsOp::kDiv:
        if (y == 0 || (x == std::numeric_limits<int64_t>::min() && y == -1))
          return Length::unknown();
        return entry(x / y);  // C++ truncation, as integer Div in ONNX Runtime
    }
  }
  auto is = [](const Length& l, int64_t v) { return l.is_static() && l.value == v; };
  switch (op) {
    case ContentsOp::kAdd:
      if (is(b, 0)) return a;
      if (is(a, 0)) return b;
      break;
    case ContentsOp::kSub:
      if (is(b, 0)) return a;
      if (a.is_symbol() && a == b) return entry(0);
      break;
    case ContentsOp::kMul:
      if (is(b, 1)) return a;
      if (is(a, 1)) return b;
      if (is(a, 0) || is(b, 0)) return entry(0);
      break;
    case ContentsOp::kDiv:
      if (is(b, 1)) return a;
      break;
  }
  return Length::unknown();
}

}  // namespace

void binary_contents(RuleContext& c, ContentsOp op) {
  if (!c.has_output(0) || !is_integer(c.output(0).dtype())) return;
  for (int i : {0, 1})
    if (!c.has_input(i) || !c.input(i).rank_known || c.input(i).rank() > 1) return;
  const auto a = c.contents(0), b = c.contents(1);
  if (!a || !b) return;
  const size_t n = std::max(a->size(), b->size());
  if ((a->size() != n && a->size() != 1) || (b->size() != n && b->size() != 1)) return;
  std::vector<Length> out;
  for (size_t k = 0; k < n; ++k)
    out.push_back(combine((*a)[a->size() == 1 ? 0 : k], (*b)[b->size() == 1 ? 0 : k], op));
  set_contents(c, 0, std::move(out));
}

}  // namespace geon::importer
