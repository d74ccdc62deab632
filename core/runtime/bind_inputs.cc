// Binding a run's inputs: user memory in place after checking dtype, rank and static lengths
// against the graph; symbolic lengths bound to the actual dims (one symbol, one length);
// defaults for overridable inputs left out; captured outer values from the enclosing run.
#include "core/base/error.h"
#include "core/runtime/executor.h"
#include "core/runtime/run_state.h"

namespace geon {
namespace {

std::string shape_string(const Dims& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

void append_key(ShapeKey& key, const Dims& shape) {
  key.push_back(static_cast<int64_t>(shape.size()));
  key.insert(key.end(), shape.begin(), shape.end());
}

// The rank and static lengths `v` declares, held against a tensor's shape (`what()` names it,
// called only on failure).
template <class What>
void check_declared_shape(const Value& v, const Dims& shape, const What& what) {
  if (!v.rank_known) return;
  if (static_cast<int>(shape.size()) != v.rank())
    fail(ErrorCode::kInvalidArgument, what() + ": expected rank " + std::to_string(v.rank()) + " " +
                                          to_string_with_lengths(v.axes) + ", got shape " +
                                          shape_string(shape));
  for (int d = 0; d < v.rank(); ++d) {
    const Length& len = v.axes[d].length;
    if (len.is_static() && len.value != shape[d])
      fail(ErrorCode::kInvalidArgument, what() + ": dim " + std::to_string(d) + " must be " +
                                            std::to_string(len.value) + ", got shape " +
                                            shape_string(shape));
  }
}

void check_input(const Value& v, const TensorRef& ref) {
  // Messages are built only on failure: this runs for every input of every run.
  const auto what = [&] { return "input '" + v.name + "'"; };
  if (v.type.kind != TypeKind::kTensor && v.type.kind != TypeKind::kUnknown)
    fail(ErrorCode::kNotSupported,
         what() + " is a " + to_string(v.type) + "; the executor takes tensors only");
  if (v.dtype() != DType::kUndefined && ref.desc.dtype != v.dtype())
    fail(ErrorCode::kInvalidArgument, what() + ": expected dtype " +
                                          std::string(dtype_name(v.dtype())) + ", got " +
                                          std::string(dtype_name(ref.desc.dtype)));
  const Dims& shape = ref.desc.shape;
  for (int64_t d : shape)
    if (d < 0)
      fail(ErrorCode::kInvalidArgument,
           what() + ": negative length in shape " + shape_string(shape));
  if (ref.desc.strides.size() != shape.size() || ref.desc.offset < 0 || !is_contiguous(ref.desc))
    fail(ErrorCode::kInvalidArgument,
         what() + " must be a dense row-major tensor, got " + to_string(ref.desc));
  check_declared_shape(v, shape, what);
}

}  // namespace

void RunState::bind_symbols(const Value& v, const Dims& shape) {
  if (!v.rank_known) return;
  for (int d = 0; d < v.rank(); ++d) {
    const Length& len = v.axes[d].length;
    if (!len.is_symbol()) continue;
    const Symbol* bound = find_symbol(len.symbol);
    if (!bound) {
      symbols_.push_back({&len.symbol, shape[d], &v.name});
      continue;
    }
    if (bound->length != shape[d])
      fail(ErrorCode::kInvalidArgument,
           "input '" + v.name + "': dim " + std::to_string(d) + " is '" + len.symbol +
               "', which input '" + *bound->bound_by + "' binds to " +
               std::to_string(bound->length) + ", but it is " + std::to_string(shape[d]) +
               " here (shape " + shape_string(shape) + ")");
  }
}

// A linear search: models bind a few symbols, and a vector keeps its memory between runs.
const RunState::Symbol* RunState::find_symbol(const std::string& name) const {
  for (const Symbol& s : symbols_)
    if (*s.name == name) return &s;
  return nullptr;
}

namespace {

// A sequence or optional input: each tensor it holds must match the declared element type.
void check_list_input(const Value& v, const ListRef& list, bool check_shapes) {
  const std::string what = "input '" + v.name + "'";
  if (!list)
    fail(ErrorCode::kInvalidArgument, what + " is a " + to_string(v.type) + ": pass a sequence" +
                                          (v.type.kind == TypeKind::kOptional ? " or none" : ""));
  if (list->none && v.type.kind != TypeKind::kOptional)
    fail(ErrorCode::kInvalidArgument,
         what + " is a " + to_string(v.type) + ", which cannot be none");
  const bool one = v.type.kind == TypeKind::kOptional && v.type.element == TypeKind::kTensor;
  if (!list->none && one && list->items.size() != 1)
    fail(ErrorCode::kInvalidArgument, what + " is a " + to_string(v.type) +
                                          ": pass one tensor, not " +
                                          std::to_string(list->items.size()));
  // Maps (values.h): keys then values, 1-D and of one length; one pair, or one per map.
  const bool map = v.type.kind == TypeKind::kMap;
  const bool maps = map || (v.type.kind == TypeKind::kSequence && v.type.element == TypeKind::kMap);
  if (map && list->items.size() != 2)
    fail(ErrorCode::kInvalidArgument, what + " is a " + to_string(v.type) +
                                          ": pass its keys and its values, not " +
                                          std::to_string(list->items.size()) + " tensors");
  if (maps && list->items.size() % 2 != 0)
    fail(ErrorCode::kInvalidArgument, what + " is a " + to_string(v.type) +
                                          ": pass keys and values for each map, not " +
                                          std::to_string(list->items.size()) + " tensors");
  for (size_t k = 0; k < list->items.size(); ++k) {
    const OwnedTensor& t = list->items[k];
    const bool keys = maps && k % 2 == 0;
    const std::string item =
        !maps ? what + " element " + std::to_string(k)
              : what + (map ? "" : " map " + std::to_string(k / 2)) + (keys ? " keys" : " values");
    const DType want = keys ? v.type.key : v.dtype();
    if (want != DType::kUndefined && t.desc.dtype != want)
      fail(ErrorCode::kInvalidArgument, item + ": expected dtype " + std::string(dtype_name(want)) +
                                            ", got " + std::string(dtype_name(t.desc.dtype)));
    require(is_contiguous(t.desc) && (t.storage || element_count(t.desc) == 0),
            [&] { return item + " must be a dense row-major tensor with data"; });
    if (maps) {
      if (t.desc.rank() != 1)
        fail(ErrorCode::kInvalidArgument,
             item + " must be 1-D, got shape " + shape_string(t.desc.shape));
      if (!keys && t.desc.shape[0] != list->items[k - 1].desc.shape[0])
        fail(ErrorCode::kInvalidArgument,
             item + ": " + std::to_string(t.desc.shape[0]) + " values for " +
                 std::to_string(list->items[k - 1].desc.shape[0]) + " keys");
    } else if (check_shapes) {
      check_declared_shape(v, t.desc.shape, [&] { return item; });
    }
  }
}

}  // namespace

void RunState::bind_inputs(std::span<const TensorRef> inputs, std::span<const ListRef> lists) {
  const Graph& g = *c.graph;
  if (inputs.size() != g.inputs.size()) {
    std::string names;
    for (int v : g.inputs) names += (names.empty() ? "'" : ", '") + g.values[v].name + "'";
    fail(ErrorCode::kInvalidArgument, "the graph has " + std::to_string(g.inputs.size()) +
                                          " inputs (" + names + ") but the run gives " +
                                          std::to_string(inputs.size()));
  }
  if (!lists.empty() && lists.size() != inputs.size())
    fail(ErrorCode::kInvalidArgument, "run: " + std::to_string(lists.size()) + " list inputs for " +
                                          std::to_string(inputs.size()) + " inputs");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const int v = g.inputs[i];
    const Value& val = g.values[v];
    if (is_list_type(val.type)) {
      const ListRef list = lists.empty() ? nullptr : lists[i];
      // A body's declared element shapes are not held to (ONNX's own Loop tests feed a body
      // elements of another rank than it declares); the caller's inputs are.
      check_list_input(val, list, parent_ == nullptr);
      key_.push_back(static_cast<int64_t>(list->none ? -1 : list->items.size()));
      for (const OwnedTensor& t : list->items) append_key(key_, t.desc.shape);
      lists_[v] = list;
      continue;
    }
    const TensorRef* ref = &inputs[i];
    TensorRef fallback;
    if (!ref->present()) {
      if (!val.overridable || !val.data)
        fail(ErrorCode::kInvalidArgument,
             "input '" + val.name + "' is missing: no data is given and it has no default");
      fallback = {val.data->desc, constant_bytes(c, v), Device{}};
      ref = &fallback;
    }
    check_input(val, *ref);
    bind_symbols(val, ref->desc.shape);
    set(held_[v], ref->desc, ref->data, ref->device);
    append_key(key_, ref->desc.shape);
  }
}

void RunState::bind_outer() {
  const Graph& g = *c.graph;
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    if (val.kind != ValueKind::kOuter) continue;
    if (is_list_type(val.type)) {
      const ListRef* list = parent_ ? parent_->lookup_outer_list(val.name) : nullptr;
      if (!list)
        fail(ErrorCode::kInvalidArgument,
             "the graph reads '" + val.name + "' from an enclosing graph, which this run lacks");
      lists_[v] = *list;
      continue;
    }
    const TensorRef* ref = parent_ ? parent_->lookup_outer(val.name) : nullptr;
    if (!ref)
      fail(ErrorCode::kInvalidArgument,
           "the graph reads '" + val.name + "' from an enclosing graph, which this run lacks");
    if (val.dtype() != DType::kUndefined && ref->desc.dtype != val.dtype())
      fail(ErrorCode::kInvalidArgument, "outer value '" + val.name + "': expected dtype " +
                                            std::string(dtype_name(val.dtype())) + ", got " +
                                            std::string(dtype_name(ref->desc.dtype)));
    set(held_[v], ref->desc, ref->data, ref->device);
    append_key(key_, ref->desc.shape);
  }
}

const Dims* RunState::planned_shape(int value) {
  const Value& v = c.graph->values[value];
  if (!v.rank_known) return nullptr;
  planned_.clear();
  for (const Axis& a : v.axes) {
    if (a.length.is_static()) {
      planned_.push_back(a.length.value);
    } else if (a.length.is_symbol()) {
      const Symbol* s = find_symbol(a.length.symbol);
      if (!s) return nullptr;
      planned_.push_back(s->length);
    } else {
      return nullptr;
    }
  }
  return &planned_;
}

}  // namespace geon
