// RuleContext: the accessors rules use, with the checks and messages in one place.
#include "importer/rule.h"

#include "core/axes/broadcast.h"
#include "core/base/error.h"
#include "core/desc/views.h"

namespace geon::importer {

namespace {
constexpr int64_t kMaxContents = 1024;  // entries tracked for shape-like integer tensors
}

RuleContext::RuleContext(Graph& g, int node_index, const ImportOptions& opt, int64_t& folded)
    : g_(g), node_(node_index), opt_(opt), folded_bytes_(folded) {}

std::string RuleContext::where() const {
  const Node& n = node();
  return "node '" + n.name + "' (" + (n.domain.empty() ? "" : n.domain + ".") + n.op + "-" +
         std::to_string(n.opset) + ")";
}

void RuleContext::fail(const std::string& why) const {
  geon::fail(ErrorCode::kInvalidArgument, where() + ": " + why);
}

void RuleContext::unsupported(const std::string& why) const {
  geon::fail(ErrorCode::kNotSupported, where() + ": " + why);
}

const Value& RuleContext::input(int i) const {
  if (!has_input(i)) fail("input " + std::to_string(i) + " is required but missing");
  return g_.values[node().inputs[i]];
}

std::optional<Dims> RuleContext::static_shape(int i) const {
  const Value& v = input(i);
  if (!v.rank_known) return std::nullopt;
  return static_lengths(v.axes);
}

const TensorData* RuleContext::constant(int i) const {
  // An initializer that is also a graph input is only a default: a run may override it, so
  // nothing may be folded from it.
  if (!has_input(i) || input(i).overridable) return nullptr;
  return input(i).data.get();
}

std::optional<std::vector<Length>> RuleContext::contents(int i) const {
  if (!has_input(i)) return std::nullopt;
  const Value& v = input(i);
  if (v.data && v.data->desc.dtype != DType::kString && v.data->elements() <= kMaxContents &&
      (is_integer(v.dtype()) || v.dtype() == DType::kBool)) {
    // Entries are numbers, not lengths: a -1 in a Reshape shape or a negative Slice start is
    // a static entry with a negative value (built directly; Length::known refuses negatives).
    std::vector<Length> out;
    for (int64_t k = 0; k < v.data->elements(); ++k) {
      Length l;
      l.kind = Length::Kind::kStatic;
      l.value = element_as_int(*v.data, k);
      out.push_back(l);
    }
    return out;
  }
  if (v.contents_known) return v.contents;
  return std::nullopt;
}

std::optional<std::vector<int64_t>> RuleContext::int_contents(int i) const {
  if (!has_input(i)) return std::nullopt;
  const Value& v = input(i);
  // Negative entries (e.g. -1 in a Reshape shape) are not lengths, so read data directly.
  if (v.data && is_integer(v.dtype()) && v.data->elements() <= kMaxContents) {
    std::vector<int64_t> out;
    for (int64_t k = 0; k < v.data->elements(); ++k) out.push_back(element_as_int(*v.data, k));
    return out;
  }
  auto c = contents(i);
  if (!c) return std::nullopt;
  std::vector<int64_t> out;
  for (const Length& l : *c) {
    if (!l.is_static()) return std::nullopt;
    out.push_back(l.value);
  }
  return out;
}

namespace {
const Attribute& need(const RuleContext& c, std::string_view name, Attribute::Kind kind) {
  const Attribute* a = c.node().attr(name);
  if (!a) c.fail("attribute '" + std::string(name) + "' is required but missing");
  if (a->kind != kind)
    c.fail("attribute '" + std::string(name) + "' must be " +
           std::string(attribute_kind_name(kind)) + ", got " +
           std::string(attribute_kind_name(a->kind)));
  return *a;
}
}  // namespace

int64_t RuleContext::attr_int(std::string_view name, std::optional<int64_t> fallback) const {
  if (!has_attr(name) && fallback) return *fallback;
  return need(*this, name, Attribute::Kind::kInt).i;
}
float RuleContext::attr_float(std::string_view name, std::optional<float> fallback) const {
  if (!has_attr(name) && fallback) return *fallback;
  return need(*this, name, Attribute::Kind::kFloat).f;
}
std::string RuleContext::attr_string(std::string_view name,
                                     std::optional<std::string> fallback) const {
  if (!has_attr(name) && fallback) return *fallback;
  return need(*this, name, Attribute::Kind::kString).s;
}
std::vector<int64_t> RuleContext::attr_ints(std::string_view name,
                                            std::optional<std::vector<int64_t>> fallback) const {
  if (!has_attr(name) && fallback) return *fallback;
  return need(*this, name, Attribute::Kind::kInts).ints;
}
std::vector<float> RuleContext::attr_floats(std::string_view name,
                                            std::optional<std::vector<float>> fallback) const {
  if (!has_attr(name) && fallback) return *fallback;
  return need(*this, name, Attribute::Kind::kFloats).floats;
}
std::vector<std::string> RuleContext::attr_strings(
    std::string_view name, std::optional<std::vector<std::string>> fallback) const {
  if (!has_attr(name) && fallback) return *fallback;
  return need(*this, name, Attribute::Kind::kStrings).strings;
}
const TensorData* RuleContext::attr_tensor(std::string_view name) const {
  if (!has_attr(name)) return nullptr;
  return need(*this, name, Attribute::Kind::kTensor).t.get();
}
const Graph* RuleContext::attr_graph(std::string_view name) const {
  if (!has_attr(name)) return nullptr;
  return need(*this, name, Attribute::Kind::kGraph).g.get();
}

Value& RuleContext::output(int i) {
  if (!has_output(i)) fail("output " + std::to_string(i) + " is not produced");
  return g_.values[node().outputs[i]];
}

void RuleContext::set_output(int i, DType dtype, Axes axes) {
  if (!has_output(i)) return;
  Value& v = output(i);
  v.type = ValueType{TypeKind::kTensor, dtype, TypeKind::kTensor};
  v.axes = std::move(axes);
  v.rank_known = true;
}

void RuleContext::set_output(int i, DType dtype, std::span<const Length> lengths) {
  set_output(i, dtype, new_axes(lengths));
}

void RuleContext::set_output(int i, DType dtype, std::span<const int64_t> lengths) {
  set_output(i, dtype, new_axes(lengths));
}

void RuleContext::set_output_unknown_rank(int i, DType dtype) {
  if (!has_output(i)) return;
  Value& v = output(i);
  v.type = ValueType{TypeKind::kTensor, dtype, TypeKind::kTensor};
  v.axes = Axes();
  v.rank_known = false;
}

void RuleContext::set_output_type(int i, ValueType type) {
  if (!has_output(i)) return;
  Value& v = output(i);
  v.type = type;
  v.axes = Axes();
  v.rank_known = type.kind == TypeKind::kTensor ? v.rank_known : false;
}

void RuleContext::set_output_data(int i, std::shared_ptr<const TensorData> data) {
  if (!has_output(i) || !opt_.fold_constants || !data) return;
  const int64_t bytes = data->desc.dtype == DType::kString
                            ? data->elements() * 16
                            : dtype_bytes_for(data->desc.dtype, data->elements());
  if (bytes > opt_.max_folded_bytes || folded_bytes_ + bytes > opt_.max_total_folded_bytes) return;
  folded_bytes_ += bytes;
  Value& v = output(i);
  v.data = std::move(data);
}

void RuleContext::set_output_contents(int i, std::vector<Length> contents) {
  if (!has_output(i) || static_cast<int64_t>(contents.size()) > kMaxContents) return;
  Value& v = output(i);
  v.contents = std::move(contents);
  v.contents_known = true;
}

bool RuleContext::all_inputs_constant() const {
  for (int i = 0; i < num_inputs(); ++i)
    if (has_input(i) && !constant(i)) return false;
  return true;
}

Axis RuleContext::new_axis(const Length& len, const std::string& name) {
  return make_axis(g_.factory(), name, len);
}

Axes RuleContext::new_axes(std::span<const Length> lengths) {
  std::vector<Axis> out;
  for (const Length& l : lengths) {
    if (l.is_static() && l.value < 0) fail("negative output length " + std::to_string(l.value));
    out.push_back(new_axis(l));
  }
  return Axes(std::move(out));
}

Axes RuleContext::new_axes(std::span<const int64_t> lengths) {
  std::vector<Length> ls;
  for (int64_t v : lengths) {
    if (v < 0) fail("negative output length " + std::to_string(v));
    ls.push_back(Length::known(v));
  }
  return new_axes(ls);
}

Axes RuleContext::broadcast_inputs(std::span<const int> which) {
  std::vector<Axes> ops;
  auto add = [&](int i) {
    const Value& v = input(i);
    if (!v.rank_known) unsupported("broadcasting an input of unknown rank");
    ops.push_back(v.axes);
  };
  if (which.empty()) {
    for (int i = 0; i < num_inputs(); ++i)
      if (has_input(i)) add(i);
  } else {
    for (int i : which) add(i);
  }
  try {
    return broadcast_axes(ops, g_.factory()).out;
  } catch (const Error& e) {
    fail(e.what());
  }
}

int RuleContext::normalize_axis(int64_t axis, int rank, std::string_view what) const {
  // Callers index the input's axes with the result, so a scalar has no valid axis.
  if (axis < -rank || axis >= rank)
    fail(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
         std::to_string(rank));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace geon::importer
