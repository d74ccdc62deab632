// ai.onnx.ml CastMap: a map(int64, string|float) to a [1, n] row (onnxruntime's shape) of
// float, int64 or string. DENSE: the values in ascending key order. SPARSE: max_map slots, slot
// k holding key k's value; keys outside [0, max_map) are refused (onnxruntime refuses negative
// keys and drops keys past the end). Conversions follow onnxruntime's: std::to_string for float
// to string, truncation for float to int64, std::stof / std::stoll for text. A key repeated in
// the map gives its later value.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <variant>

#include "core/base/error.h"
#include "core/strings/strings.h"
#include "kernels/cpu/generic/maps/map_io.h"
#include "kernels/cpu/generic/maps/ops.h"

namespace geon::cpu {
namespace {

struct Options {
  DType to = DType::kFloat;
  bool sparse = false;
  int64_t max_map = 1;
};

// Keeps an output of max_map slots addressable (and its byte count in range).
constexpr int64_t kMaxSlots = int64_t{1} << 40;

std::variant<Options, std::string> options_of(const Node& n) {
  Options o;
  const std::string to = attr_string(n, "cast_to", "TO_FLOAT");
  if (to == "TO_FLOAT") {
    o.to = DType::kFloat;
  } else if (to == "TO_STRING") {
    o.to = DType::kString;
  } else if (to == "TO_INT64") {
    o.to = DType::kInt64;
  } else {
    return "attribute 'cast_to' must be TO_FLOAT, TO_STRING or TO_INT64, got '" + to + "'";
  }
  const std::string form = attr_string(n, "map_form", "DENSE");
  if (form != "DENSE" && form != "SPARSE")
    return "attribute 'map_form' must be DENSE or SPARSE, got '" + form + "'";
  o.sparse = form == "SPARSE";
  o.max_map = attr_int(n, "max_map", 1);
  if (o.sparse && (o.max_map < 1 || o.max_map > kMaxSlots))
    return "attribute 'max_map' must be in [1, 2^40] for SPARSE, got " + std::to_string(o.max_map);
  return o;
}

// onnxruntime's cast of a float to int64 (x86's conversion): NaN and out-of-range give INT64_MIN,
// without the undefined behaviour of a C++ cast.
int64_t truncate(float f) {
  constexpr float kLimit = 9223372036854775808.0f;  // 2^63
  if (std::isnan(f) || f >= kLimit || f < -kLimit) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(f);
}

[[noreturn]] void bad_text(std::string_view s, const char* as) {
  fail(ErrorCode::kInvalidArgument,
       "CastMap: the value '" + std::string(s) + "' cannot be read as " + as);
}

// std::stof's rules: leading space skipped, trailing text ignored, no number or out of range
// an error.
float text_to_float(std::string_view s) {
  const std::string text(s);
  char* end = nullptr;
  errno = 0;
  const float f = std::strtof(text.c_str(), &end);
  if (end == text.c_str() || errno == ERANGE) bad_text(s, "a float");
  return f;
}

int64_t text_to_int(std::string_view s) {
  const std::string text(s);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || errno == ERANGE) bad_text(s, "an int64");
  return static_cast<int64_t>(v);
}

// Writes map value k, converted, into `dst` (an element of the output's dtype).
void convert(const MapEntries& m, size_t k, DType to, std::byte* dst, StringArena& arena) {
  if (m.value_dtype == DType::kFloat) {
    float f;
    std::memcpy(&f, m.value(k), sizeof f);
    if (to == DType::kFloat) {
      std::memcpy(dst, &f, sizeof f);
    } else if (to == DType::kInt64) {
      const int64_t v = truncate(f);
      std::memcpy(dst, &v, sizeof v);
    } else {
      const StringElem e = arena.store(std::to_string(f));
      std::memcpy(dst, &e, sizeof e);
    }
    return;
  }
  StringElem s;
  std::memcpy(&s, m.value(k), sizeof s);
  if (to == DType::kFloat) {
    const float f = text_to_float(s.view());
    std::memcpy(dst, &f, sizeof f);
  } else if (to == DType::kInt64) {
    const int64_t v = text_to_int(s.view());
    std::memcpy(dst, &v, sizeof v);
  } else {
    std::memcpy(dst, &s, sizeof s);
  }
}

}  // namespace

Reason supports_cast_map(const Graph& g, const Node& n) {
  if (n.inputs.size() != 1 || n.inputs[0] < 0 || n.outputs.size() != 1)
    return std::string("takes one input and gives one output");
  const ValueType& x = g.value(n.inputs[0]).type;
  if (x.kind != TypeKind::kMap || x.key != DType::kInt64 ||
      (x.dtype != DType::kFloat && x.dtype != DType::kString))
    return "input 0 must be a map(int64, float) or map(int64, string), got " + to_string(x);
  auto o = options_of(n);
  if (auto* why = std::get_if<std::string>(&o)) return *why;
  if (output_dtype(g, n, 0) != std::get<Options>(o).to)
    return std::string("the output's dtype does not match attribute 'cast_to'");
  return std::nullopt;
}

std::unique_ptr<Kernel> create_cast_map(const Graph& g, const Node& n) {
  auto parsed = options_of(n);
  if (auto* why = std::get_if<std::string>(&parsed)) fail(ErrorCode::kInvalidArgument, *why);
  const Options o = std::get<Options>(parsed);
  const DType from = g.value(n.inputs[0]).type.dtype;
  return make_kernel([o, from](KernelContext& ctx) {
    const MapEntries m = read_map(ctx, 0, DType::kInt64, from, "CastMap");
    // Key -> the entry giving its value: the later of repeated keys; ascending key order.
    std::map<int64_t, size_t> entry;
    for (size_t k = 0; k < m.size; ++k) {
      const int64_t key = m.int_keys[k];
      if (o.sparse && (key < 0 || key >= o.max_map))
        fail(ErrorCode::kOutOfRange, "CastMap: key " + std::to_string(key) +
                                         " is outside [0, max_map) = [0, " +
                                         std::to_string(o.max_map) + ") for SPARSE");
      entry[key] = k;
    }
    const auto slots =
        static_cast<size_t>(o.sparse ? o.max_map : static_cast<int64_t>(entry.size()));
    const auto esize = static_cast<size_t>(dtype_bytes_for(o.to, 1));
    std::vector<std::byte> row(slots * esize);  // zero bytes: 0 for float and int64
    StringArena& arena = current_string_arena();
    if (o.sparse && o.to == DType::kString) {
      // onnxruntime pads string rows with the text "0.f".
      const StringElem pad = arena.store("0.f");
      for (size_t j = 0; j < slots; ++j) std::memcpy(row.data() + j * esize, &pad, sizeof pad);
    }
    size_t j = 0;
    for (const auto& [key, k] : entry) {
      const size_t slot = o.sparse ? static_cast<size_t>(key) : j++;
      convert(m, k, o.to, row.data() + slot * esize, arena);
    }
    const Dims shape{1, static_cast<int64_t>(slots)};
    const TensorRef& out = ctx.output(0, shape);
    if (!row.empty()) assign(dst_of(out), ConstOperand(row_major(o.to, shape), row.data()));
  });
}

}  // namespace geon::cpu
