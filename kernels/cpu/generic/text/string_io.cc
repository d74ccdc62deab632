// Reading and writing string tensors through their handles, and the dtype reasons the string
// hooks share. Inputs may be strided or broadcast views: they are staged dense with the
// engine's assign, which copies string handles as it copies any element.
#include <cstring>

#include "core/base/error.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {
namespace {

std::vector<std::string_view> views_of(const std::vector<StringElem>& e) {
  std::vector<std::string_view> out;
  out.reserve(e.size());
  for (const StringElem& s : e) out.push_back(s.view());
  return out;
}

template <typename T>
std::vector<T> read_as(const TensorRef& t, DType dt) {
  std::vector<T> out(static_cast<size_t>(element_count(t.desc)));
  if (!out.empty()) assign(Operand{row_major(dt, t.desc.shape), out.data()}, src_of(t));
  return out;
}

}  // namespace

std::vector<std::string_view> read_strings(const TensorRef& t) {
  return read_strings_as(t, t.desc.shape);
}

std::vector<std::string_view> read_strings_as(const TensorRef& t, const Dims& shape) {
  require(t.desc.dtype == DType::kString,
          [&] { return "expected a string tensor, got " + std::string(dtype_name(t.desc.dtype)); });
  std::vector<StringElem> e(static_cast<size_t>(element_count(shape)));
  if (!e.empty()) assign(Operand{row_major(DType::kString, shape), e.data()}, src_of(t));
  return views_of(e);
}

namespace {
template <typename S>
void write_any(const TensorRef& dst, std::span<const S> values) {
  require(dst.desc.dtype == DType::kString, "write_strings: the destination is not string");
  require(static_cast<int64_t>(values.size()) == element_count(dst.desc), [&] {
    return "write_strings: " + std::to_string(values.size()) + " strings for " +
           std::to_string(element_count(dst.desc)) + " elements";
  });
  if (values.empty()) return;
  StringArena& arena = current_string_arena();
  std::vector<StringElem> e;
  e.reserve(values.size());
  for (const S& s : values) e.push_back(arena.store(std::string_view(s)));
  assign(dst_of(dst), ConstOperand(row_major(DType::kString, dst.desc.shape), e.data()));
}
}  // namespace

void write_strings(const TensorRef& dst, std::span<const std::string> values) {
  write_any(dst, values);
}
void write_strings(const TensorRef& dst, std::span<const std::string_view> values) {
  write_any(dst, values);
}

Reason require_string(DType t, std::string_view what) {
  if (t == DType::kString || t == DType::kUndefined) return std::nullopt;
  return std::string(what) + " is " + std::string(dtype_name(t)) + "; it must be string";
}

std::vector<double> read_doubles(const TensorRef& t) { return read_as<double>(t, DType::kDouble); }
std::vector<int64_t> read_int64s(const TensorRef& t) { return read_as<int64_t>(t, DType::kInt64); }

Reason string_or_engine_reason(DType t, std::string_view what) {
  if (t == DType::kString) return std::nullopt;
  return engine_dtype_reason(t, what);
}

}  // namespace geon::cpu
