// Import rules: the sequence family. A sequence value has type seq(dtype) and, as its axes, the
// shape its elements share (see subgraph.h): dims where elements may differ are unknown. The
// number of elements is not stored on the value; where the nodes that built a sequence tell it
// (SequenceEmpty, SequenceConstruct, SplitToSequence, then inserts and erases), rules read it
// from them to check positions and fold SequenceLength.
#include <cstdint>
#include <string>
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/families.h"
#include "importer/ops/subgraph.h"

namespace geon::importer {
namespace {

ValueType seq_of(DType t) { return ValueType{TypeKind::kSequence, t, TypeKind::kTensor}; }

std::optional<Axes> fresh_axes(RuleContext& c, const std::optional<std::vector<Length>>& lens) {
  if (!lens) return std::nullopt;
  return c.new_axes(*lens);
}

// A sequence of maps (ZipMap's output) is no ONNX sequence type: the sequence ops hold
// tensors, and would take its keys and values for elements.
void refuse_maps(const RuleContext& c, int i, const ValueType& t) {
  if (t.kind == TypeKind::kSequence && t.element == TypeKind::kMap)
    c.fail("input " + std::to_string(i) + " is a " + to_string(t) +
           "; the sequence ops take sequences of tensors only");
}

const Value& require_sequence(const RuleContext& c, int i) {
  const Value& v = c.input(i);
  if (v.type.kind != TypeKind::kSequence && v.type.kind != TypeKind::kUnknown)
    c.fail("input " + std::to_string(i) + " must be a sequence, got " + to_string(v.type));
  refuse_maps(c, i, v.type);
  return v;
}

const Value& require_tensor(const RuleContext& c, int i) {
  const Value& v = c.input(i);
  if (v.type.kind != TypeKind::kTensor && v.type.kind != TypeKind::kUnknown)
    c.fail("input " + std::to_string(i) + " must be a tensor, got " + to_string(v.type));
  return v;
}

// ---- element counts, from the nodes that built a sequence ----

// Elements SplitToSequence node n produces, when its input's length and split are known.
std::optional<int64_t> split_count(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.inputs[0] < 0) return std::nullopt;
  const Value& x = g.value(n.inputs[0]);
  if (!x.rank_known) return std::nullopt;
  int64_t axis = 0;
  if (const Attribute* a = n.attr("axis"); a && a->kind == Attribute::Kind::kInt) axis = a->i;
  if (axis < 0) axis += x.rank();
  if (axis < 0 || axis >= x.rank()) return std::nullopt;
  const Length& dim = x.axes[axis].length;
  if (n.inputs.size() < 2 || n.inputs[1] < 0)
    return dim.is_static() ? std::optional<int64_t>(dim.value) : std::nullopt;
  const Value& split = g.value(n.inputs[1]);
  if (!split.data || split.overridable || !split.rank_known) return std::nullopt;
  if (split.rank() == 1) return split.data->elements();
  if (split.rank() != 0 || !dim.is_static()) return std::nullopt;
  const int64_t s = element_as_int(*split.data, 0);
  if (s <= 0) return std::nullopt;
  return dim.value / s + (dim.value % s != 0 ? 1 : 0);
}

// The number of elements of sequence value `value` in g, when known.
std::optional<int64_t> element_count_of(const Graph& g, int value) {
  int64_t delta = 0;
  for (size_t steps = 0; steps <= g.nodes.size() && value >= 0; ++steps) {
    const Value& v = g.value(value);
    if (v.producer < 0 || v.kind != ValueKind::kIntermediate) return std::nullopt;
    const Node& n = g.nodes[v.producer];
    if (!n.domain.empty()) return std::nullopt;
    std::optional<int64_t> base;
    if (n.op == "SequenceEmpty") {
      base = 0;
    } else if (n.op == "SequenceConstruct") {
      base = static_cast<int64_t>(n.inputs.size());
    } else if (n.op == "SplitToSequence") {
      base = split_count(g, n);
      if (!base) return std::nullopt;
    } else if (n.op == "SequenceInsert" || n.op == "SequenceErase" || n.op == "Identity" ||
               n.op == "SequenceMap") {
      // SequenceMap's outputs have as many elements as its first input.
      delta += n.op == "SequenceInsert" ? 1 : n.op == "SequenceErase" ? -1 : 0;
      value = n.inputs.empty() ? -1 : n.inputs[0];
      continue;
    } else {
      return std::nullopt;
    }
    if (*base + delta < 0) return std::nullopt;
    return *base + delta;
  }
  return std::nullopt;
}

std::optional<int64_t> input_count(RuleContext& c, int i) {
  return c.has_input(i) ? element_count_of(c.graph(), c.node().inputs[i]) : std::nullopt;
}

// A position input (int32 or int64, one element); its value when known. With the element
// count n known, it must lie in [-n, n - 1], or [-n, n] for an insert.
std::optional<int64_t> position(const RuleContext& c, int i, std::optional<int64_t> n,
                                bool insert) {
  if (!c.has_input(i)) return std::nullopt;
  const Value& p = require_tensor(c, i);
  if (p.dtype() != DType::kInt32 && p.dtype() != DType::kInt64 && p.dtype() != DType::kUndefined)
    c.fail("input " + std::to_string(i) + " (position) must be int32 or int64, got " +
           std::string(dtype_name(p.dtype())));
  if (p.rank_known && p.rank() != 0)
    if (auto s = static_lengths(p.axes); s && element_count(*s) != 1)
      c.fail("input " + std::to_string(i) + " (position) must be a scalar, got shape " +
             to_string_with_lengths(p.axes));
  const TensorData* d = fixed_constant(c, i);
  if (!d || d->elements() != 1) return std::nullopt;
  const int64_t pos = element_as_int(*d, 0);
  if (n) {
    const int64_t hi = insert ? *n : *n - 1;
    if (pos < -*n || pos > hi)
      c.fail("position " + std::to_string(pos) + " is out of range for a sequence of " +
             std::to_string(*n) + " elements (accepted: " + std::to_string(-*n) + " to " +
             std::to_string(hi) + ")");
  }
  return pos;
}

// ---- rules ----

void sequence_empty(RuleContext& c) {
  if (c.num_inputs() != 0) c.fail("takes no inputs, got " + std::to_string(c.num_inputs()));
  const int64_t code = c.attr_int("dtype", static_cast<int64_t>(DType::kFloat));
  const auto t = code >= INT32_MIN && code <= INT32_MAX
                     ? dtype_from_onnx(static_cast<int32_t>(code))
                     : std::nullopt;
  if (!t) c.fail("attribute 'dtype' is " + std::to_string(code) + ", not an ONNX element type");
  set_output_value(c, 0, seq_of(*t), std::nullopt);
}

void sequence_construct(RuleContext& c) {
  if (c.num_inputs() < 1) c.fail("needs at least one input");
  DType t = DType::kUndefined;
  std::optional<std::vector<Length>> shape;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const Value& v = require_tensor(c, i);
    if (t == DType::kUndefined) {
      t = v.dtype();
    } else if (v.dtype() != DType::kUndefined && v.dtype() != t) {
      c.fail("input " + std::to_string(i) + " is " + std::string(dtype_name(v.dtype())) +
             " but earlier inputs are " + std::string(dtype_name(t)) +
             "; a sequence holds one dtype");
    }
    shape = i == 0 ? known_lengths(v) : merge_lengths(shape, known_lengths(v));
  }
  set_output_value(c, 0, seq_of(t), fresh_axes(c, shape));
}

// The sequence's dtype, checked against a tensor joining it.
DType joined_dtype(const RuleContext& c, const Value& seq, const Value& t) {
  if (seq.dtype() != DType::kUndefined && t.dtype() != DType::kUndefined &&
      seq.dtype() != t.dtype())
    c.fail("input 1 is " + std::string(dtype_name(t.dtype())) + " but the sequence holds " +
           std::string(dtype_name(seq.dtype())));
  return seq.dtype() != DType::kUndefined ? seq.dtype() : t.dtype();
}

void sequence_insert(RuleContext& c) {
  if (c.num_inputs() < 2 || c.num_inputs() > 3)
    c.fail("takes a sequence, a tensor and an optional position, got " +
           std::to_string(c.num_inputs()) + " inputs");
  const Value& seq = require_sequence(c, 0);
  const Value& t = require_tensor(c, 1);
  const DType dtype = joined_dtype(c, seq, t);
  const auto n = input_count(c, 0);
  position(c, 2, n, true);
  // Into an empty sequence, the tensor's shape is the elements' shape.
  const auto shape =
      n && *n == 0 ? known_lengths(t) : merge_lengths(known_lengths(seq), known_lengths(t));
  set_output_value(c, 0, seq_of(dtype), fresh_axes(c, shape));
}

void sequence_erase(RuleContext& c) {
  if (c.num_inputs() < 1 || c.num_inputs() > 2)
    c.fail("takes a sequence and an optional position, got " + std::to_string(c.num_inputs()) +
           " inputs");
  const Value& seq = require_sequence(c, 0);
  const auto n = input_count(c, 0);
  if (n && *n == 0) c.fail("input 0 is an empty sequence; there is nothing to erase");
  position(c, 1, n, false);
  set_output_value(c, 0, seq_of(seq.dtype()), fresh_axes(c, known_lengths(seq)));
}

void sequence_at(RuleContext& c) {
  if (c.num_inputs() != 2)
    c.fail("takes a sequence and a position, got " + std::to_string(c.num_inputs()) + " inputs");
  const Value& seq = require_sequence(c, 0);
  const auto n = input_count(c, 0);
  if (n && *n == 0) c.fail("input 0 is an empty sequence; there is no element to take");
  if (!c.has_input(1)) c.fail("input 1 (position) is required but missing");
  position(c, 1, n, false);
  set_output_value(c, 0, ValueType{TypeKind::kTensor, seq.dtype(), TypeKind::kTensor},
                   fresh_axes(c, known_lengths(seq)));
}

void sequence_length(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  require_sequence(c, 0);
  c.set_output(0, DType::kInt64, std::span<const int64_t>{});
  if (auto n = input_count(c, 0)) {
    auto d = make_tensor_data(DType::kInt64, {});
    *reinterpret_cast<int64_t*>(d->storage->data()) = *n;
    c.set_output_data(0, d);
    c.set_output_contents(0, {Length::known(*n)});
  }
}

void split_to_sequence(RuleContext& c) {
  if (c.num_inputs() < 1 || c.num_inputs() > 2)
    c.fail("takes an input and an optional split, got " + std::to_string(c.num_inputs()) +
           " inputs");
  const Value& x = require_tensor(c, 0);
  const int64_t keepdims = c.attr_int("keepdims", 1);
  if (keepdims != 0 && keepdims != 1)
    c.fail("attribute 'keepdims' must be 0 or 1, got " + std::to_string(keepdims));
  std::optional<std::vector<Length>> elem;
  if (x.rank_known) {
    if (x.rank() == 0) c.fail("input 0 must have rank >= 1 to be split, got a scalar");
    const int axis = c.normalize_axis(c.attr_int("axis", 0), x.rank());
    const Length dim = x.axes[axis].length;
    elem = lengths(x.axes);
    if (!c.has_input(1)) {
      if (keepdims) {
        (*elem)[axis] = Length::known(1);
      } else {
        elem->erase(elem->begin() + axis);
      }
    } else {
      const Value& split = require_tensor(c, 1);
      if (split.dtype() != DType::kInt32 && split.dtype() != DType::kInt64 &&
          split.dtype() != DType::kUndefined)
        c.fail("input 1 (split) must be int32 or int64, got " +
               std::string(dtype_name(split.dtype())));
      if (split.rank_known && split.rank() > 1)
        c.fail("input 1 (split) must be a scalar or 1-D, got rank " + std::to_string(split.rank()));
      (*elem)[axis] = Length::unknown();
      const TensorData* d = fixed_constant(c, 1);
      if (d && d->desc.rank() == 0) {
        const int64_t s = element_as_int(*d, 0);
        if (s <= 0) c.fail("input 1 (split) is " + std::to_string(s) + " but must be positive");
        if (dim.is_static() && dim.value % s == 0) (*elem)[axis] = Length::known(s);
      } else if (d) {
        int64_t sum = 0;
        bool equal = true;
        for (int64_t k = 0; k < d->elements(); ++k) {
          const int64_t s = element_as_int(*d, k);
          if (s < 0) c.fail("input 1 (split) has the negative entry " + std::to_string(s));
          if (__builtin_add_overflow(sum, s, &sum))
            c.fail("input 1 (split) sums past the int64 range");
          equal &= s == element_as_int(*d, 0);
        }
        if (dim.is_static() && sum != dim.value)
          c.fail("input 1 (split) sums to " + std::to_string(sum) + " but axis " +
                 std::to_string(axis) + " has length " + std::to_string(dim.value));
        if (equal && d->elements() > 0) (*elem)[axis] = Length::known(element_as_int(*d, 0));
      }
    }
  }
  set_output_value(c, 0, seq_of(x.dtype()), fresh_axes(c, elem));
}

void concat_from_sequence(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  const Value& seq = require_sequence(c, 0);
  const int64_t axis = c.attr_int("axis");
  const int64_t new_axis = c.attr_int("new_axis", 0);
  if (new_axis != 0 && new_axis != 1)
    c.fail("attribute 'new_axis' must be 0 or 1, got " + std::to_string(new_axis));
  if (!seq.rank_known) {
    c.set_output_unknown_rank(0, seq.dtype());
    return;
  }
  std::vector<Length> out = lengths(seq.axes);
  const auto n = input_count(c, 0);
  if (new_axis) {
    const int a = c.normalize_axis(axis, static_cast<int>(out.size()) + 1);
    out.insert(out.begin() + a, n ? Length::known(*n) : Length::unknown());
  } else {
    const int a = c.normalize_axis(axis, static_cast<int>(out.size()));
    int64_t total = 0;
    const bool known = n && out[a].is_static() && !__builtin_mul_overflow(*n, out[a].value, &total);
    out[a] = known ? Length::known(total) : Length::unknown();
  }
  c.set_output(0, seq.dtype(), out);
}

void sequence_map(RuleContext& c) {
  if (c.num_inputs() < 1) c.fail("needs at least one input (the sequence to map)");
  require_sequence(c, 0);
  if (c.num_outputs() < 1) c.fail("needs at least one output");
  const Graph& body = require_graph(c, "body");
  require_graph_arity(c, body, "body", c.num_inputs(), "one per input of the node", c.num_outputs(),
                      "one per output of the node");
  for (int i = 0; i < c.num_inputs(); ++i) {
    const Value& in = c.input(i);
    if (in.type.kind != TypeKind::kTensor && in.type.kind != TypeKind::kSequence &&
        in.type.kind != TypeKind::kUnknown)
      c.fail("input " + std::to_string(i) + " must be a sequence or a tensor, got " +
             to_string(in.type));
    refuse_maps(c, i, in.type);
    const ValueType fed = in.type.kind == TypeKind::kSequence
                              ? ValueType{TypeKind::kTensor, in.dtype(), TypeKind::kTensor}
                              : in.type;
    const Value& formal = graph_input(body, i);
    if (!merge_types(formal.type, fed))
      c.fail("body input '" + formal.name + "' is declared " + to_string(formal.type) +
             " but input " + std::to_string(i) + " feeds it " + to_string(fed));
  }
  for (int k = 0; k < c.num_outputs(); ++k) {
    const Value& r = graph_output(body, k);
    if (r.type.kind != TypeKind::kTensor && r.type.kind != TypeKind::kUnknown)
      c.fail("body output " + std::to_string(k) + " ('" + r.name + "') must be a tensor, got " +
             to_string(r.type));
    set_output_value(c, k, seq_of(r.dtype()), fresh_axes(c, known_lengths(r)));
  }
}

}  // namespace

std::span<const RuleEntry> sequence_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "SequenceEmpty", 11, sequence_empty},
      {"", "SequenceConstruct", 11, sequence_construct},
      {"", "SequenceInsert", 11, sequence_insert},
      {"", "SequenceErase", 11, sequence_erase},
      {"", "SequenceAt", 11, sequence_at},
      {"", "SequenceLength", 11, sequence_length},
      {"", "SplitToSequence", 11, split_to_sequence},
      {"", "ConcatFromSequence", 11, concat_from_sequence},
      {"", "SequenceMap", 17, sequence_map},
  };
  return rules;
}

}  // namespace geon::importer
