// Every caller tensor is checked here, before the executor sees it, so a mistake is reported
// with the input's name and the model's declaration rather than as an engine error.
#include "provider/src/run.h"

#include <algorithm>
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
  if (*dt == DType::kString)
    api_fail(GEON_UNSUPPORTED, what + ": string tensors cannot be passed through the C ABI");
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

std::vector<TensorRef> bind_inputs(const Session& s, const char* const* names,
                                   const GeonTensor* tensors, size_t n) {
  const Graph& g = *s.graph;
  std::vector<TensorRef> refs(g.inputs.size());
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
    refs[pos].desc = checked_desc(tensors[i], g.value(g.inputs[pos]), what);
    refs[pos].data = tensors[i].data;
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
  return refs;
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
    if (n_outputs > 0) require_arg(output_names, "output_names");
    const Graph& g = *session->graph;
    // Running out of memory outside the model's nodes (which name themselves) names the step.
    auto step = [](const char* what) { return [what] { return std::string(what); }; };
    std::vector<TensorRef> refs = out_of_memory_context(step("binding the run's inputs"), [&] {
      return bind_inputs(*session, input_names, inputs, n_inputs);
    });
    const std::vector<int> selected =
        out_of_memory_context(step("selecting the run's outputs"),
                              [&] { return select_outputs(g, output_names, n_outputs); });

    std::vector<TensorRef> caller;
    bool all_in_caller_memory = true;
    out_of_memory_context(step("binding the run's outputs"), [&] {
      for (size_t i = 0; i < selected.size(); ++i) {
        const Value& v = g.value(g.outputs[selected[i]]);
        const std::string what = "output '" + v.name + "'";
        if (outputs && outputs[i].data) {
          if (caller.empty()) caller.resize(selected.size());
          caller[i].desc = checked_desc(outputs[i], v, what);
          caller[i].data = outputs[i].data;
          continue;
        }
        all_in_caller_memory = false;
        if (v.type.kind != TypeKind::kTensor || v.dtype() == DType::kString)
          api_fail(GEON_UNSUPPORTED, what + " is " + to_string(v.type) +
                                         "; the C ABI returns dense numeric tensors only");
      }
    });
    if (!all_in_caller_memory && !result)
      api_fail(GEON_INVALID_ARGUMENT,
               "argument 'result' is null but some outputs have no caller memory");

    std::vector<OwnedTensor> produced = out_of_memory_context(
        step("running the model"), [&] { return session->exe->run(refs, selected, caller); });
    if (!result) return;
    // The tensors own their storage (the host allocator's, not the session's arenas), so a
    // result stays valid after its session is released.
    *result = out_of_memory_context(step("returning the outputs"), [&] {
      auto r = std::make_shared<Result>();
      for (size_t i = 0; i < selected.size(); ++i) {
        if (!caller.empty() && caller[i].data) continue;
        r->names.push_back(g.value(g.outputs[selected[i]]).name);
        r->tensors.push_back(std::move(produced.at(i)));
      }
      return result_table().add(std::move(r));
    });
  });
}

}  // namespace geon::provider
