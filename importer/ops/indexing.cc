// Import rules: the indexing family. Gather keeps the data's axes around the gathered one and
// takes the indices' axes in its place (an embedding lookup's batch axes are the ids' axes);
// data-dependent lengths (NonZero, Unique, Compress) get one fresh axis of unknown length,
// shared by every output that has it. Scatter* and TensorScatter are in indexing_scatter.cc.
#include <cstring>
#include <vector>

#include "core/base/error.h"
#include "importer/ops/common.h"
#include "importer/ops/families.h"
#include "importer/ops/indexing.h"
#include "importer/ops/shape_contents.h"
#include "importer/ops/shape_fold.h"

namespace geon::importer {

void require_index_dtype(RuleContext& c, int i, const std::string& what) {
  const DType t = c.input_dtype(i);
  if (t != DType::kInt32 && t != DType::kInt64)
    c.fail("input " + std::to_string(i) + " (" + what + ") has dtype " +
           std::string(dtype_name(t)) + ", must be int32 or int64");
}

int64_t checked_index(RuleContext& c, int64_t i, const Length& n, const std::string& what,
                      int axis) {
  if (!n.is_static()) return i;
  if (i < -n.value || i >= n.value)
    c.fail(what + " holds " + std::to_string(i) + ", out of range for axis " +
           std::to_string(axis) + " of length " + std::to_string(n.value));
  return i < 0 ? i + n.value : i;
}

namespace {

// ---- Gather ----------------------------------------------------------------------------------

// out = data with dim `axis` replaced by the index list (row-major copy); null when the dtype
// is packed or the result is over the folding limit.
std::shared_ptr<TensorData> gather_copy(RuleContext& c, const TensorData& data, int axis,
                                        const std::vector<int64_t>& index, const Dims& out_shape) {
  const DType t = data.desc.dtype;
  if (is_packed(t) || !fits_folding(c, t, out_shape)) return nullptr;
  const Dims& in = data.desc.shape;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= in[d];
  for (int d = axis + 1; d < static_cast<int>(in.size()); ++d) inner *= in[d];
  const int64_t n = in[axis];
  for (int64_t i : index)
    if (i < 0 || i >= n) return nullptr;
  auto out = make_tensor_data(t, out_shape);
  const int64_t k = static_cast<int64_t>(index.size());
  const size_t es = static_cast<size_t>(dtype_bits(t) / 8);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < k; ++j) {
      const int64_t src = (o * n + index[j]) * inner, dst = (o * k + j) * inner;
      if (t == DType::kString) {
        for (int64_t e = 0; e < inner; ++e) out->strings[dst + e] = data.strings[src + e];
      } else {
        std::memcpy(out->storage->data() + dst * es, data.bytes() + src * es, inner * es);
      }
    }
  return out;
}

void gather(RuleContext& c) {
  const Value& data = c.input(0);
  const Value& indices = c.input(1);
  require_index_dtype(c, 1, "indices");
  const DType t = data.dtype();
  if (!data.rank_known) {
    c.set_output_unknown_rank(0, t);
    return;
  }
  c.require(data.rank() >= 1, "input 0 (data) must have rank >= 1, got a scalar");
  const int axis = c.normalize_axis(c.attr_int("axis", 0), data.rank(), "attribute 'axis'");
  const Length& n = data.axes[axis].length;
  std::optional<std::vector<int64_t>> idx = c.int_contents(1);
  if (idx) {
    for (int64_t& i : *idx) i = checked_index(c, i, n, "indices", axis);
  }
  if (!indices.rank_known) {
    c.set_output_unknown_rank(0, t);
    return;
  }
  std::vector<Axis> out(data.axes.begin(), data.axes.begin() + axis);
  out.insert(out.end(), indices.axes.begin(), indices.axes.end());
  out.insert(out.end(), data.axes.begin() + axis + 1, data.axes.end());
  c.set_output(0, t, distinct_axes(c, std::move(out)));
  if (!idx) return;
  // Folding: constant data, or a shape computation's entries (Shape -> Gather), symbols too.
  if (c.constant(0)) {
    const TensorData* d = constant_input(c, 0);  // null when overridable at run time
    auto shape = c.has_output(0) ? static_lengths(c.output(0).axes) : std::nullopt;
    if (d && shape) c.set_output_data(0, gather_copy(c, *d, axis, *idx, *shape));
    return;
  }
  gather_contents(c, axis);
}

// ---- GatherElements ---------------------------------------------------------------------

void gather_elements(RuleContext& c) {
  const Value& data = c.input(0);
  const Value& indices = c.input(1);
  require_index_dtype(c, 1, "indices");
  if (!data.rank_known || !indices.rank_known) {
    if (indices.rank_known)
      c.set_output(0, data.dtype(), indices.axes);
    else
      c.set_output_unknown_rank(0, data.dtype());
    return;
  }
  c.require(data.rank() >= 1, "input 0 (data) must have rank >= 1, got a scalar");
  c.require(indices.rank() == data.rank(), "input 1 (indices) has rank " +
                                               std::to_string(indices.rank()) +
                                               " but input 0 (data) has rank " +
                                               std::to_string(data.rank()) + "; they must match");
  c.normalize_axis(c.attr_int("axis", 0), data.rank(), "attribute 'axis'");
  // The output has the indices' shape: every output element is one index's pick.
  c.set_output(0, data.dtype(), indices.axes);
}

// ---- GatherND ---------------------------------------------------------------------------------

void gather_nd(RuleContext& c) {
  const Value& data = c.input(0);
  const Value& indices = c.input(1);
  require_dtype(c, 1, {DType::kInt64});
  const int64_t b = c.opset() >= 12 ? c.attr_int("batch_dims", 0) : 0;
  c.require(b >= 0, "attribute 'batch_dims' is " + std::to_string(b) + ", must be >= 0");
  const DType t = data.dtype();
  if (!data.rank_known || !indices.rank_known) {
    c.set_output_unknown_rank(0, t);
    return;
  }
  const int r = data.rank(), q = indices.rank();
  c.require(r >= 1, "input 0 (data) must have rank >= 1, got a scalar");
  c.require(q >= 1, "input 1 (indices) must have rank >= 1, got a scalar");
  c.require(b < std::min(q, r), "attribute 'batch_dims' " + std::to_string(b) +
                                    " must be less than both ranks (data " + std::to_string(r) +
                                    ", indices " + std::to_string(q) + ")");
  for (int d = 0; d < b; ++d)
    require_same_length(c, indices.axes[d].length, data.axes[d].length,
                        "batch dim " + std::to_string(d) + " of input 1 (indices)",
                        "that of input 0 (data)");
  const Length& last = indices.axes[q - 1].length;
  if (!last.is_static()) {
    c.set_output_unknown_rank(0, t);  // the tuple length decides the output's rank
    return;
  }
  const int64_t k = last.value;
  c.require(k >= 1 && k <= r - b, "the last dim of input 1 (indices) is " + std::to_string(k) +
                                      ", must be in [1, " + std::to_string(r - b) +
                                      "] (data rank minus batch_dims)");
  std::vector<Axis> out;
  for (int d = 0; d < b; ++d)  // the batch axes are shared; keep the better-known one
    out.push_back(data.axes[d].length.is_static() || !indices.axes[d].length.is_static()
                      ? data.axes[d]
                      : indices.axes[d]);
  out.insert(out.end(), indices.axes.begin() + b, indices.axes.end() - 1);
  out.insert(out.end(), data.axes.begin() + b + k, data.axes.end());
  c.set_output(0, t, distinct_axes(c, std::move(out)));
}

// ---- NonZero ----------------------------------------------------------------------------------

void non_zero(RuleContext& c) {
  const Value& x = c.input(0);
  if (!x.rank_known) {
    c.set_output(0, DType::kInt64, std::vector<Length>{Length::unknown(), Length::unknown()});
    return;
  }
  const TensorData* d = constant_input(c, 0);
  const int r = x.rank();
  if (d && c.options().fold_constants && d->desc.dtype != DType::kString &&
      !is_complex(d->desc.dtype) && d->elements() <= (int64_t{1} << 20)) {
    std::vector<int64_t> hits;
    for (int64_t i = 0; i < d->elements(); ++i)
      if (element_as_double(*d, i) != 0) hits.push_back(i);
    const int64_t n = static_cast<int64_t>(hits.size());
    c.set_output(0, DType::kInt64, std::vector<int64_t>{r, n});
    if (!fits_folding(c, DType::kInt64, r * n)) return;
    auto out = make_tensor_data(DType::kInt64, {r, n});
    auto* p = reinterpret_cast<int64_t*>(out->storage->data());
    for (int64_t j = 0; j < n; ++j) {
      int64_t rest = hits[j];
      for (int dim = r - 1; dim >= 0; --dim) {
        p[dim * n + j] = rest % d->desc.shape[dim];
        rest /= d->desc.shape[dim];
      }
    }
    c.set_output_data(0, out);
    return;
  }
  // How many entries are non-zero is known only at run time.
  c.set_output(0, DType::kInt64,
               Axes({c.new_axis(Length::known(r)), c.new_axis(Length::unknown(), "nonzero")}));
}

// ---- Unique -----------------------------------------------------------------------------------

void unique(RuleContext& c) {
  const Value& x = c.input(0);
  const int64_t sorted = c.attr_int("sorted", 1);
  c.require(sorted == 0 || sorted == 1,
            "attribute 'sorted' is " + std::to_string(sorted) + ", must be 0 or 1");
  // One axis for the number of unique entries, shared by Y, indices and counts.
  const Axis count = c.new_axis(Length::unknown(), "unique");
  const Axes counted({count});
  c.set_output(1, DType::kInt64, counted);
  c.set_output(3, DType::kInt64, counted);
  if (!c.has_attr("axis")) {
    c.set_output(0, x.dtype(), counted);
    if (!x.rank_known) {
      c.set_output(2, DType::kInt64, std::vector<Length>{Length::unknown()});
      return;
    }
    auto shape = static_lengths(x.axes);
    c.set_output(
        2, DType::kInt64,
        std::vector<Length>{shape ? Length::known(element_count(*shape)) : Length::unknown()});
    return;
  }
  if (!x.rank_known) {
    c.set_output_unknown_rank(0, x.dtype());
    c.set_output(2, DType::kInt64, std::vector<Length>{Length::unknown()});
    return;
  }
  c.require(x.rank() >= 1, "attribute 'axis' needs input 0 of rank >= 1, got a scalar");
  const int axis = c.normalize_axis(c.attr_int("axis"), x.rank(), "attribute 'axis'");
  std::vector<Axis> y = x.axes.list();
  y[axis] = count;
  c.set_output(0, x.dtype(), Axes(std::move(y)));
  c.set_output(2, DType::kInt64, Axes({x.axes[axis]}));
}

// ---- OneHot -----------------------------------------------------------------------------------

void one_hot(RuleContext& c) {
  const Value& indices = c.input(0);
  const Value& depth = c.input(1);
  const Value& values = c.input(2);
  for (int i : {0, 1})
    c.require(is_numeric(c.input_dtype(i)) && c.input_dtype(i) != DType::kBool &&
                  !is_complex(c.input_dtype(i)),
              "input " + std::to_string(i) + " has dtype " +
                  std::string(dtype_name(c.input_dtype(i))) + ", which must be a real number");
  if (depth.rank_known) {
    auto n = static_lengths(depth.axes);
    c.require(depth.rank() <= 1 && (!n || element_count(*n) == 1),
              "input 1 (depth) must be a scalar or hold exactly one element, got " +
                  to_string_with_lengths(depth.axes));
  }
  if (values.rank_known) {
    c.require(values.rank() == 1, "input 2 (values) must be 1-D [off_value, on_value], got " +
                                      to_string_with_lengths(values.axes));
    c.require(
        compare_lengths(values.axes[0].length, Length::known(2)) != LengthRelation::kDifferent,
        "input 2 (values) must hold 2 elements [off_value, on_value], got " +
            to_string(values.axes[0].length));
  }
  Length len = Length::unknown();
  if (const TensorData* d = c.constant(1); d && d->elements() == 1) {
    const double v = element_as_double(*d, 0);
    c.require(v >= 0 && v < 9.0e18,
              "input 1 (depth) is " + std::to_string(v) + ", must be a non-negative count");
    len = Length::known(static_cast<int64_t>(v));
  } else if (auto e = c.contents(1); e && e->size() == 1) {
    len = (*e)[0];
    c.require(!len.is_static() || len.value >= 0,
              "input 1 (depth) is " + std::to_string(len.value) + ", must be a non-negative count");
  }
  if (!indices.rank_known) {
    c.set_output_unknown_rank(0, values.dtype());
    return;
  }
  const int r = indices.rank();
  int64_t axis = c.attr_int("axis", -1);
  if (c.opset() < 11)
    c.require(axis == -1 || (axis >= 0 && axis <= r),
              "attribute 'axis' " + std::to_string(axis) + " is out of range for rank " +
                  std::to_string(r + 1) + " (negative values other than -1 need opset 11)");
  c.require(axis >= -r - 1 && axis <= r, "attribute 'axis' " + std::to_string(axis) +
                                             " is out of range for output rank " +
                                             std::to_string(r + 1));
  if (axis < 0) axis += r + 1;
  std::vector<Axis> out = indices.axes.list();
  out.insert(out.begin() + axis, c.new_axis(len, "depth"));
  c.set_output(0, values.dtype(), Axes(std::move(out)));
}

// ---- Compress ---------------------------------------------------------------------------------

void compress(RuleContext& c) {
  const Value& x = c.input(0);
  const Value& cond = c.input(1);
  require_dtype(c, 1, {DType::kBool});
  if (cond.rank_known)
    c.require(cond.rank() == 1,
              "input 1 (condition) must be 1-D, got " + to_string_with_lengths(cond.axes));
  // Selected entries: counted from a constant condition over the first `n` positions.
  auto selected = [&](const Length& n) {
    const TensorData* d = constant_input(c, 1);
    if (!d || !n.is_static()) return Length::unknown();
    int64_t k = 0;
    for (int64_t i = 0; i < std::min(d->elements(), n.value); ++i) k += element_as_int(*d, i) != 0;
    return Length::known(k);
  };
  if (!c.has_attr("axis")) {
    Length total = Length::unknown();
    if (x.rank_known)
      if (auto s = static_lengths(x.axes)) total = Length::known(element_count(*s));
    c.set_output(0, x.dtype(), Axes({c.new_axis(selected(total), "compressed")}));
    return;
  }
  if (!x.rank_known) {
    c.set_output_unknown_rank(0, x.dtype());
    return;
  }
  c.require(x.rank() >= 1, "attribute 'axis' needs input 0 of rank >= 1, got a scalar");
  const int64_t a = c.attr_int("axis");
  if (c.opset() < 11)
    c.require(a >= 0,
              "attribute 'axis' " + std::to_string(a) + " is negative, which needs opset 11");
  const int axis = c.normalize_axis(a, x.rank(), "attribute 'axis'");
  std::vector<Axis> out = x.axes.list();
  out[axis] = make_axis_like(c.graph().factory(), out[axis], selected(out[axis].length));
  c.set_output(0, x.dtype(), Axes(std::move(out)));
}

// ---- ReverseSequence --------------------------------------------------------------------

void reverse_sequence(RuleContext& c) {
  const Value& x = c.input(0);
  const Value& lens = c.input(1);
  require_dtype(c, 1, {DType::kInt64});
  const int64_t batch = c.attr_int("batch_axis", 1), time = c.attr_int("time_axis", 0);
  for (auto [name, v] : {std::pair{"batch_axis", batch}, std::pair{"time_axis", time}})
    c.require(v == 0 || v == 1,
              "attribute '" + std::string(name) + "' is " + std::to_string(v) + ", must be 0 or 1");
  c.require(batch != time, "attributes 'batch_axis' and 'time_axis' are both " +
                               std::to_string(batch) + "; they must differ");
  if (x.rank_known) {
    c.require(x.rank() >= 2, "input 0 must have rank >= 2, got " + std::to_string(x.rank()));
    if (lens.rank_known) {
      c.require(lens.rank() == 1,
                "input 1 (sequence_lens) must be 1-D, got " + to_string_with_lengths(lens.axes));
      require_same_length(c, lens.axes[0].length, x.axes[batch].length, "input 1 (sequence_lens)",
                          "the batch dim of input 0");
    }
  }
  same_as_input(c);
}

}  // namespace

std::span<const RuleEntry> indexing_rules() {
  static const std::vector<RuleEntry> rules = [] {
    std::vector<RuleEntry> r = {
        {"", "Gather", 1, gather},
        {"", "GatherElements", 11, gather_elements},
        {"", "GatherND", 11, gather_nd},
        {"", "GatherND", 12, gather_nd},  // batch_dims
        {"", "NonZero", 9, non_zero},
        {"", "Unique", 11, unique},
        {"", "OneHot", 9, one_hot},
        {"", "OneHot", 11, one_hot},  // negative axis
        {"", "Compress", 9, compress},
        {"", "Compress", 11, compress},  // negative axis
        {"", "ReverseSequence", 10, reverse_sequence},
    };
    for (const RuleEntry& e : scatter_rules()) r.push_back(e);
    return r;
  }();
  return rules;
}

}  // namespace geon::importer
