// Every caller tensor is checked here, before the executor sees it, so a mistake is reported
// with the input's name and the model's declaration rather than as an engine error.
#include "provider/src/run.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/base/error.h"
#include "provider/src/result.h"
#include "provider/src/session.h"
#include "provider/src/status.h"

namespace geon::provider {
namespace {

constexpr int32_t kMaxRank = 64;

std::string shape_text(std::span<const int64_t> dims) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + ")";
}

std::string declared_shape(const Value& v) {
  std::string out = "(";
  for (size_t i = 0; i < v.axes.size(); ++i) out += (i ? ", " : "") + to_string(v.axes[i].length);
  return out + ")";
}

// The caller's tensor as a row-major host description, after checking it against the model.
TensorDesc checked_desc(const GeonTensor& t, const Value& v, const std::string& what) {
  if (v.type.kind != TypeKind::kTensor)
    api_fail(GEON_UNSUPPORTED,
             what + " is " + to_string(v.type) + "; the C ABI passes dense tensors only");
  const std::optional<DType> dt = dtype_from_onnx(t.dtype);
  if (!dt)
    api_fail(GEON_INVALID_ARGUMENT,
             what + ": dtype " + std::to_string(t.dtype) + " is not an ONNX element type");
  if (v.dtype() != DType::kUndefined && *dt != v.dtype())
    api_fail(GEON_INVALID_ARGUMENT, what + " is " + std::string(dtype_name(*dt)) +
                                        " but the model declares " +
                                        std::string(dtype_name(v.dtype())));
  if (t.rank < 0 || t.rank > kMaxRank)
    api_fail(GEON_INVALID_ARGUMENT, what + ": rank " + std::to_string(t.rank) +
                                        " is out of range (0 to " + std::to_string(kMaxRank) + ")");
  if (t.rank > 0 && !t.shape)
    api_fail(GEON_INVALID_ARGUMENT, what + ": shape is null for rank " + std::to_string(t.rank));
  const std::span<const int64_t> shape(t.shape, static_cast<size_t>(t.rank));
  if (std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; }))
    api_fail(GEON_INVALID_ARGUMENT,
             what + ": shape " + shape_text(shape) + " has a negative length");
  if (v.rank_known) {
    bool ok = v.rank() == t.rank;
    for (int i = 0; ok && i < t.rank; ++i)
      ok = !v.axes[i].length.is_static() || v.axes[i].length.value == shape[i];
    if (!ok)
      api_fail(GEON_INVALID_ARGUMENT, what + " has shape " + shape_text(shape) +
                                          " but the model declares " + declared_shape(v));
  }
  const int64_t bytes = dtype_bytes_for(*dt, element_count(shape));
  if (t.bytes < static_cast<uint64_t>(bytes))
    api_fail(GEON_INVALID_ARGUMENT, what + " has " + std::to_string(t.bytes) + " bytes but shape " +
                                        shape_text(shape) + " of " + std::string(dtype_name(*dt)) +
                                        " needs " + std::to_string(bytes));
  if (bytes > 0 && !t.data) api_fail(GEON_INVALID_ARGUMENT, what + ": data is null");
  if (*dt == DType::kString) {
    // Handles are read by every string kernel: one with text but no pointer is refused here.
    const auto* e = static_cast<const GeonString*>(t.data);
    for (int64_t k = 0, n = element_count(shape); k < n; ++k)
      if (e[k].size > 0 && !e[k].data)
        api_fail(GEON_INVALID_ARGUMENT, what + ": string element " + std::to_string(k) +
                                            " has size " + std::to_string(e[k].size) +
                                            " but no data");
  }
  return row_major(*dt, shape);
}

// Position of `name` among `list` (value indices of g), or -1.
int find_named(const Graph& g, const std::vector<int>& list, const char* name) {
  for (size_t i = 0; i < list.size(); ++i)
    if (g.value(list[i]).name == name) return static_cast<int>(i);
  return -1;
}

std::string names_of(const Graph& g, const std::vector<int>& list) {
  std::string out;
  for (int v : list) out += (out.empty() ? "'" : ", '") + g.value(v).name + "'";
  return out.empty() ? "none" : out;
}

// What a run is given, bound per graph input: tensor references, and the values of sequence
// and optional inputs.
struct BoundInputs {
  std::vector<TensorRef> refs;
  std::vector<ListRef> lists;
};

// An owned copy of a caller's tensor, checked against the element type `v` declares (for
// strings, of the handles: their text is the caller's, read during the call); `dtype` is that
// element type (a map's keys have their own).
OwnedTensor owned_input(const GeonTensor& t, const Value& v, DType dtype, const std::string& what) {
  Value element = v;
  element.type = ValueType{TypeKind::kTensor, dtype, TypeKind::kTensor};
  const TensorDesc desc = checked_desc(t, element, what);
  const auto bytes = static_cast<size_t>(dtype_bytes_for(desc.dtype, element_count(desc)));
  if (bytes == 0) return {desc, nullptr};
  auto storage = std::make_shared<Storage>(host_allocator(), bytes);
  std::memcpy(storage->data(), t.data, bytes);
  return {desc, std::move(storage)};
}

// The GeonValueKind a present value of type t is passed as.
int32_t value_kind_of(const ValueType& t) {
  const TypeKind kind = t.kind == TypeKind::kOptional ? t.element : t.kind;
  if (kind == TypeKind::kMap) return GEON_VALUE_MAP;
  if (kind == TypeKind::kSequence)
    return t.element == TypeKind::kMap ? GEON_VALUE_MAP_SEQUENCE : GEON_VALUE_SEQUENCE;
  return GEON_VALUE_TENSOR;
}

const char* value_kind_name(int32_t kind) {
  switch (kind) {
    case GEON_VALUE_TENSOR:
      return "tensor";
    case GEON_VALUE_SEQUENCE:
      return "sequence";
    case GEON_VALUE_NONE:
      return "none";
    case GEON_VALUE_MAP:
      return "map";
    default:
      return "sequence of maps";
  }
}

// A caller's value for a sequence, optional or map input, its tensors copied. The structure
// of maps (1-D keys and values of one length) is checked where every run's lists are
// (core/runtime/bind_inputs.cc).
ListRef list_input(const GeonValue& value, const Value& v, const std::string& what) {
  const bool optional = v.type.kind == TypeKind::kOptional;
  auto list = std::make_shared<ListValue>();
  if (value.kind == GEON_VALUE_NONE) {
    if (!optional)
      api_fail(GEON_INVALID_ARGUMENT, what + " is " + to_string(v.type) + ", not an optional");
    list->none = true;
    return list;
  }
  if (value.kind < GEON_VALUE_TENSOR || value.kind > GEON_VALUE_MAP_SEQUENCE)
    api_fail(GEON_INVALID_ARGUMENT,
             what + ": kind " + std::to_string(value.kind) + " is not a GeonValueKind");
  const int32_t expected = value_kind_of(v.type);
  if (value.kind != expected)
    api_fail(GEON_INVALID_ARGUMENT, what + " is " + to_string(v.type) + " but a " +
                                        value_kind_name(value.kind) + " was given");
  if (expected == GEON_VALUE_TENSOR && value.count != 1)
    api_fail(GEON_INVALID_ARGUMENT,
             what + ": a tensor value has count 1, not " + std::to_string(value.count));
  if (expected == GEON_VALUE_MAP && value.count != 2)
    api_fail(GEON_INVALID_ARGUMENT,
             what + ": a map value has count 2 (keys, values), not " + std::to_string(value.count));
  if (expected == GEON_VALUE_MAP_SEQUENCE && value.count % 2 != 0)
    api_fail(GEON_INVALID_ARGUMENT, what +
                                        ": a sequence of maps has two tensors per map, so an "
                                        "even count, not " +
                                        std::to_string(value.count));
  // A bound on what the caller claims, checked before anything is reserved.
  constexpr uint64_t kMaxElements = uint64_t{1} << 24;
  if (value.count > kMaxElements)
    api_fail(GEON_INVALID_ARGUMENT, what + ": " + std::to_string(value.count) +
                                        " elements is more than " + std::to_string(kMaxElements));
  if (value.count > 0 && !value.tensors)
    api_fail(GEON_INVALID_ARGUMENT, what + ": tensors is null");
  const bool maps = expected == GEON_VALUE_MAP || expected == GEON_VALUE_MAP_SEQUENCE;
  for (uint64_t k = 0; k < value.count; ++k) {
    const bool keys = maps && k % 2 == 0;
    const std::string item =
        maps ? what +
                   (expected == GEON_VALUE_MAP_SEQUENCE ? " map " + std::to_string(k / 2)
                                                        : std::string()) +
                   (keys ? " keys" : " values")
             : what + " element " + std::to_string(k);
    list->items.push_back(owned_input(value.tensors[k], v, keys ? v.type.key : v.dtype(), item));
  }
  return list;
}

// Binds the fed inputs by name; feed(pos, i, what) binds caller entry i to graph input pos.
template <typename Feed>
BoundInputs bind_inputs(const Session& s, const char* const* names, size_t n, Feed feed) {
  const Graph& g = *s.graph;
  BoundInputs bound;
  bound.refs.resize(g.inputs.size());
  std::vector<bool> fed(g.inputs.size(), false);
  for (size_t i = 0; i < n; ++i) {
    if (!names[i])
      api_fail(GEON_INVALID_ARGUMENT, "input_names[" + std::to_string(i) + "] is null");
    const int pos = find_named(g, g.inputs, names[i]);
    if (pos < 0)
      api_fail(GEON_NOT_FOUND, std::string("the model has no input named '") + names[i] +
                                   "' (its inputs: " + names_of(g, g.inputs) + ")");
    const std::string what = std::string("input '") + names[i] + "'";
    if (fed[pos]) api_fail(GEON_INVALID_ARGUMENT, what + " is fed twice");
    fed[pos] = true;
    feed(bound, static_cast<size_t>(pos), i, what);
  }
  std::string missing;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    if (fed[i]) continue;
    const Value& v = g.value(g.inputs[i]);
    // An overridable input left unfed keeps the empty reference: its default is used.
    if (!v.overridable) missing += (missing.empty() ? "'" : ", '") + v.name + "'";
  }
  if (!missing.empty())
    api_fail(GEON_INVALID_ARGUMENT, "inputs not fed (they have no default): " + missing);
  return bound;
}

std::vector<int> select_outputs(const Graph& g, const char* const* names, size_t n) {
  std::vector<int> out;
  if (n == 0) {
    for (size_t i = 0; i < g.outputs.size(); ++i) out.push_back(static_cast<int>(i));
    return out;
  }
  for (size_t i = 0; i < n; ++i) {
    if (!names[i])
      api_fail(GEON_INVALID_ARGUMENT, "output_names[" + std::to_string(i) + "] is null");
    const int pos = find_named(g, g.outputs, names[i]);
    if (pos < 0)
      api_fail(GEON_NOT_FOUND, std::string("the model has no output named '") + names[i] +
                                   "' (its outputs: " + names_of(g, g.outputs) + ")");
    if (std::find(out.begin(), out.end(), pos) != out.end())
      api_fail(GEON_INVALID_ARGUMENT, std::string("output '") + names[i] + "' is asked for twice");
    out.push_back(pos);
  }
  return out;
}

// The run after the session is held and its inputs named: bind (bound by `bind`), select
// outputs, run, hand back a result.
template <typename Bind>
void execute(const std::shared_ptr<const Session>& session, Bind bind,
             const char* const* output_names, size_t n_outputs, GeonTensor* outputs,
             GeonResult** result) {
  if (n_outputs > 0) require_arg(output_names, "output_names");
  const Graph& g = *session->graph;
  // Running out of memory outside the model's nodes (which name themselves) names the step.
  auto step = [](const char* what) { return [what] { return std::string(what); }; };
  BoundInputs bound = out_of_memory_context(step("binding the run's inputs"), bind);
  const std::vector<TensorRef>& refs = bound.refs;
  const std::vector<int> selected = out_of_memory_context(step("selecting the run's outputs"), [&] {
    return select_outputs(g, output_names, n_outputs);
  });

  std::vector<TensorRef> caller;
  bool all_in_caller_memory = true;
  out_of_memory_context(step("binding the run's outputs"), [&] {
    for (size_t i = 0; i < selected.size(); ++i) {
      const Value& v = g.value(g.outputs[selected[i]]);
      const std::string what = "output '" + v.name + "'";
      if (outputs && outputs[i].data) {
        if (v.dtype() == DType::kString ||
            outputs[i].dtype == static_cast<GeonDType>(DType::kString))
          api_fail(GEON_INVALID_ARGUMENT,
                   what +
                       " is a string tensor: string outputs are returned in the result "
                       "(give it data == NULL)");
        if (caller.empty()) caller.resize(selected.size());
        caller[i].desc = checked_desc(outputs[i], v, what);
        caller[i].data = outputs[i].data;
        continue;
      }
      all_in_caller_memory = false;
    }
  });
  if (!all_in_caller_memory && !result)
    api_fail(GEON_INVALID_ARGUMENT,
             "argument 'result' is null but some outputs have no caller memory");

  std::vector<OwnedTensor> produced = out_of_memory_context(step("running the model"), [&] {
    return session->exe->run(refs, selected, caller, bound.lists);
  });
  if (!result) return;
  // The tensors own their storage (the host allocator's, not the session's arenas), so a
  // result stays valid after its session is released.
  *result = out_of_memory_context(step("returning the outputs"), [&] {
    auto r = std::make_shared<Result>();
    for (size_t i = 0; i < selected.size(); ++i) {
      if (!caller.empty() && caller[i].data) continue;
      const Value& v = g.value(g.outputs[selected[i]]);
      r->names.push_back(v.name);
      r->kinds.push_back(value_kind_of(v.type));
      r->tensors.push_back(std::move(produced.at(i)));
    }
    finish_result(*r);
    return result_table().add(std::move(r));
  });
}

}  // namespace

GeonStatus* run(GeonSession* s, const char* const* input_names, const GeonTensor* inputs,
                size_t n_inputs, const char* const* output_names, size_t n_outputs,
                GeonTensor* outputs, GeonResult** result) noexcept {
  return guard("run", [&] {
    if (result) *result = nullptr;
    // Held for the whole run: a release_session meanwhile unregisters the handle, and the
    // session is freed when this run (the last holder) returns.
    const std::shared_ptr<const Session> session = session_table().require(s, "session");
    if (n_inputs > 0) {
      require_arg(input_names, "input_names");
      require_arg(inputs, "inputs");
    }
    const Graph& g = *session->graph;
    auto bind = [&] {
      return bind_inputs(*session, input_names, n_inputs,
                         [&](BoundInputs& b, size_t pos, size_t i, const std::string& what) {
                           b.refs[pos].desc = checked_desc(inputs[i], g.value(g.inputs[pos]), what);
                           b.refs[pos].data = inputs[i].data;
                         });
    };
    execute(session, bind, output_names, n_outputs, outputs, result);
  });
}

GeonStatus* run_values(GeonSession* s, const char* const* input_names, const GeonValue* inputs,
                       size_t n_inputs, const char* const* output_names, size_t n_outputs,
                       GeonResult** result) noexcept {
  return guard("run_values", [&] {
    if (result) *result = nullptr;
    const std::shared_ptr<const Session> session = session_table().require(s, "session");
    require_arg(result, "result");
    if (n_inputs > 0) {
      require_arg(input_names, "input_names");
      require_arg(inputs, "inputs");
    }
    const Graph& g = *session->graph;
    auto bind = [&] {
      return bind_inputs(
          *session, input_names, n_inputs,
          [&](BoundInputs& b, size_t pos, size_t i, const std::string& what) {
            const Value& v = g.value(g.inputs[pos]);
            if (is_list_type(v.type)) {
              if (b.lists.empty()) b.lists.resize(g.inputs.size());
              b.lists[pos] = list_input(inputs[i], v, what);
              return;
            }
            if (inputs[i].kind != GEON_VALUE_TENSOR || inputs[i].count != 1 || !inputs[i].tensors)
              api_fail(GEON_INVALID_ARGUMENT, what + " is " + to_string(v.type) +
                                                  ": give one tensor (GEON_VALUE_TENSOR, count 1)");
            b.refs[pos].desc = checked_desc(inputs[i].tensors[0], v, what);
            b.refs[pos].data = inputs[i].tensors[0].data;
          });
    };
    execute(session, bind, output_names, n_outputs, nullptr, result);
  });
}

}  // namespace geon::provider
