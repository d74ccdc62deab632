// ai.onnx.ml LabelEncoder. Opset 1: strings to their index in classes_strings and int64
// indices back to strings. Opset 2: keys_* to values_* (floats, int64s, strings) with the
// default_* of the values' type. Opset 4: keys_tensor / values_tensor / default_tensor too,
// of more types. Keys are compared by value: float keys as doubles, with -0 equal to 0 and
// NaN matching a NaN key (opset 4's rule).
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "core/base/error.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {
namespace {

// A key or value of any type: text for strings, else int64 or double.
struct Column {
  DType dtype = DType::kUndefined;
  std::vector<std::string> s;
  std::vector<int64_t> i;
  std::vector<double> d;
  size_t size() const {
    return dtype == DType::kString ? s.size() : is_integer(dtype) ? i.size() : d.size();
  }
};

Column from_tensor(const TensorData& t) {
  Column c;
  c.dtype = t.desc.dtype;
  for (int64_t k = 0; k < t.elements(); ++k) {
    if (c.dtype == DType::kString)
      c.s.push_back(t.strings[static_cast<size_t>(k)]);
    else if (is_integer(c.dtype))
      c.i.push_back(element_as_int(t, k));
    else
      c.d.push_back(element_as_double(t, k));
  }
  return c;
}

std::optional<Column> column(const Node& n, const std::string& prefix) {
  Column c;
  if (const Attribute* a = n.attr(prefix + "strings")) {
    c.dtype = DType::kString;
    c.s = a->strings;
  } else if (const Attribute* a = n.attr(prefix + "int64s")) {
    c.dtype = DType::kInt64;
    c.i = a->ints;
  } else if (const Attribute* a = n.attr(prefix + "floats")) {
    c.dtype = DType::kFloat;
    c.d.assign(a->floats.begin(), a->floats.end());
  } else if (const Attribute* a = n.attr(prefix + "tensor"); a && a->t) {
    return from_tensor(*a->t);
  } else {
    return std::nullopt;
  }
  return c;
}

// The key's bytes for the map: its type's canonical form.
std::string key_of(const Column& c, size_t k) {
  if (c.dtype == DType::kString) return c.s[k];
  if (is_integer(c.dtype)) return std::string(reinterpret_cast<const char*>(&c.i[k]), 8);
  double v = c.d[k];
  if (v == 0) v = 0;  // -0 keys match 0
  if (std::isnan(v)) return "nan";
  return std::string(reinterpret_cast<const char*>(&v), 8);
}

struct Encoder {
  Column keys, values;
  Column fallback;  // one element
  std::unordered_map<std::string, size_t> index;
};

std::shared_ptr<Encoder> build(const Node& n) {
  auto e = std::make_shared<Encoder>();
  if (n.opset < 2) {
    const Attribute* cls = n.attr("classes_strings");
    const std::vector<std::string> classes = cls ? cls->strings : std::vector<std::string>{};
    e->keys.dtype = DType::kString;  // string -> index; the int64 -> string direction below
    e->keys.s = classes;
    e->values.dtype = DType::kInt64;
    for (size_t k = 0; k < classes.size(); ++k) e->values.i.push_back(static_cast<int64_t>(k));
  } else {
    auto k = column(n, "keys_");
    auto v = column(n, "values_");
    require(k && v, "needs one 'keys_*' and one 'values_*' attribute");
    require(k->size() == v->size(), [&] {
      return "the keys have " + std::to_string(k->size()) + " entries but the values have " +
             std::to_string(v->size());
    });
    e->keys = std::move(*k);
    e->values = std::move(*v);
  }
  Column& f = e->fallback;
  f.dtype = e->values.dtype;
  const Attribute* dt = n.attr("default_tensor");
  if (dt && dt->t) {
    require(dt->t->elements() >= 1, "attribute 'default_tensor' is empty");
    f = from_tensor(*dt->t);
  } else if (f.dtype == DType::kString) {
    f.s.push_back(attr_string(n, "default_string", "_Unused"));
  } else if (is_integer(f.dtype)) {
    f.i.push_back(attr_int(n, "default_int64", -1));
  } else {
    f.d.push_back(attr_float(n, "default_float", -0.0f));
  }
  // The first of duplicate keys wins.
  for (size_t k = 0; k < e->keys.size(); ++k) e->index.emplace(key_of(e->keys, k), k);
  return e;
}

template <typename T>
void store(const TensorRef& dst, DType as, const std::vector<T>& v) {
  if (!v.empty()) assign(dst_of(dst), ConstOperand(row_major(as, dst.desc.shape), v.data()));
}

}  // namespace

Reason supports_label_encoder(const Graph& g, const Node& n) {
  const DType in = input_dtype(g, n, 0), out = output_dtype(g, n, 0);
  for (auto [t, what] : {std::pair{in, "input 0"}, std::pair{out, "the output"}})
    if (t != DType::kString)
      if (Reason r = engine_dtype_reason(t, what)) return r;
  try {
    build(n);
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

std::unique_ptr<Kernel> create_label_encoder(const Graph&, const Node& n) {
  std::shared_ptr<const Encoder> e = build(n);
  const bool v1 = n.opset < 2;
  const std::string v1_default = attr_string(n, "default_string", "_Unused");
  return make_node_kernel(n, [e, v1, v1_default](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const TensorRef& dst = ctx.output(0, x.desc.shape);
    const size_t count = static_cast<size_t>(element_count(x.desc));
    if (v1 && x.desc.dtype == DType::kInt64) {  // indices back to class names
      // Each class's text stored once, as below.
      StringArena& arena = current_string_arena();
      const size_t classes = e->keys.s.size();
      std::vector<std::optional<StringElem>> stored(classes + 1);
      std::vector<StringElem> out;
      for (int64_t k : read_int64s(x)) {
        const size_t c =
            k >= 0 && static_cast<size_t>(k) < classes ? static_cast<size_t>(k) : classes;
        if (!stored[c]) stored[c] = arena.store(c < classes ? e->keys.s[c] : v1_default);
        out.push_back(*stored[c]);
      }
      if (!out.empty())
        assign(dst_of(dst), ConstOperand(row_major(DType::kString, x.desc.shape), out.data()));
      return;
    }
    // Each element's position among the keys (or none), then the values gathered.
    std::vector<std::optional<size_t>> hit(count);
    Column probe;
    probe.dtype = e->keys.dtype;
    require((x.desc.dtype == DType::kString) == (e->keys.dtype == DType::kString), [&] {
      return "input 0 is " + std::string(dtype_name(x.desc.dtype)) + " but the keys are " +
             std::string(dtype_name(e->keys.dtype));
    });
    if (x.desc.dtype == DType::kString) {
      for (std::string_view s : read_strings(x)) probe.s.emplace_back(s);
    } else if (is_integer(e->keys.dtype)) {
      probe.i = read_int64s(x);
    } else {
      probe.d = read_doubles(x);
    }
    for (size_t k = 0; k < count; ++k) {
      auto it = e->index.find(key_of(probe, k));
      if (it != e->index.end()) hit[k] = it->second;
    }
    const Column& v = e->values;
    if (v.dtype == DType::kString) {
      // Each value's text is stored once and its handle repeated: the output's text is bounded
      // by the attributes, however many elements map to it.
      StringArena& arena = current_string_arena();
      std::unordered_map<size_t, StringElem> stored;
      std::vector<StringElem> out;
      out.reserve(count);
      for (const auto& h : hit) {
        const size_t k = h ? *h : v.s.size();  // v.s.size(): the default
        auto it = stored.find(k);
        if (it == stored.end())
          it = stored.emplace(k, arena.store(h ? v.s[*h] : e->fallback.s[0])).first;
        out.push_back(it->second);
      }
      if (!out.empty())
        assign(dst_of(dst), ConstOperand(row_major(DType::kString, x.desc.shape), out.data()));
    } else if (is_integer(v.dtype)) {
      std::vector<int64_t> out;
      const int64_t f = e->fallback.i.empty() ? -1 : e->fallback.i[0];
      for (const auto& h : hit) out.push_back(h ? v.i[*h] : f);
      store(dst, DType::kInt64, out);
    } else {
      std::vector<double> out;
      const double f = e->fallback.d.empty() ? -0.0 : e->fallback.d[0];
      for (const auto& h : hit) out.push_back(h ? v.d[*h] : f);
      store(dst, DType::kDouble, out);
    }
  });
}

}  // namespace geon::cpu
