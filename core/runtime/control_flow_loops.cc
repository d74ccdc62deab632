// Loop and Scan: the body runs once per iteration inside the enclosing run; carried values
// (Loop) and states (Scan) pass from one iteration to the next without copies; each scan
// output's per-iteration tensors are stacked along its axis at the end.
#include <algorithm>
#include <cstring>
#include <optional>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/engine/engine.h"
#include "core/runtime/control_flow.h"

namespace geon {
namespace {

std::vector<int64_t> ints_attr(const Node& n, const char* name, std::vector<int64_t> fallback) {
  const Attribute* a = n.attr(name);
  if (!a) return fallback;
  require(a->kind == Attribute::Kind::kInts,
          [&] { return "attribute '" + std::string(name) + "' must be ints"; });
  return a->ints;
}

// A body's declared output, for the shape of a scan output when there are no iterations.
const Value& body_output(const ExecutableImpl& body, int i) {
  const Graph& g = body.graph();
  return g.values[g.outputs[i]];
}

size_t owned_bytes(const OwnedTensor& t) { return t.storage ? t.storage->size() : 0; }

// What a Loop or Scan keeps between body runs (carried values, scan parts, dense slices):
// held against arena_limit_bytes with the enclosing run's memory while the node runs, since
// the body's own run state lets go of them when it returns.
class KeptBytes {
 public:
  explicit KeptBytes(RunState& st) : st_(st) {}
  ~KeptBytes() { st_.unhold(bytes_); }
  KeptBytes(const KeptBytes&) = delete;
  KeptBytes& operator=(const KeptBytes&) = delete;
  void add(const OwnedTensor& t) {
    const size_t n = owned_bytes(t);
    st_.hold(n, Device{});
    bytes_ += n;
  }
  void remove(const OwnedTensor& t) {
    const size_t n = std::min(bytes_, owned_bytes(t));
    st_.unhold(n);
    bytes_ -= n;
  }

 private:
  RunState& st_;
  size_t bytes_ = 0;
};

// Writes parts (one per iteration, equal shapes) into output `out` along a new axis.
void stack_into(NodeContext& ctx, int out, const std::vector<OwnedTensor>& parts, int64_t axis_attr,
                bool reverse, const Value& declared) {
  Dims shape;
  if (parts.empty()) {
    if (declared.rank_known)
      for (const Axis& a : declared.axes)
        shape.push_back(a.length.is_static() ? a.length.value : 0);
  } else {
    shape = parts[0].desc.shape;
  }
  const int rank = static_cast<int>(shape.size());
  require(axis_attr >= -(rank + 1) && axis_attr <= rank, [&] {
    return "scan output axis " + std::to_string(axis_attr) + " is out of range for rank " +
           std::to_string(rank + 1);
  });
  const int axis = static_cast<int>(axis_attr < 0 ? axis_attr + rank + 1 : axis_attr);
  const int64_t count = static_cast<int64_t>(parts.size());
  shape.insert(shape.begin() + axis, count);
  TensorRef& dst = ctx.output(out, shape);
  for (int64_t t = 0; t < count; ++t) {
    const OwnedTensor& part = parts[t];
    if (part.desc.dtype != dst.desc.dtype || part.desc.shape != parts[0].desc.shape)
      fail(ErrorCode::kInvalidArgument, "output " + std::to_string(out) + ": iteration " +
                                            std::to_string(t) + " gives " + to_string(part.desc) +
                                            " but iteration 0 gave " + to_string(parts[0].desc));
    const int64_t pos = reverse ? count - 1 - t : t;
    const TensorDesc view = select(dst.desc, axis, pos);
    if (is_contiguous(view)) {
      auto* at = static_cast<std::byte*>(dst.data) + dtype_bytes_for(view.dtype, view.offset);
      if (dense_bytes(part.desc)) std::memcpy(at, part.data(), dense_bytes(part.desc));
    } else {
      assign(Operand{view, dst.data}, ConstOperand(part.desc, part.data()));
    }
  }
}

// A one-element host tensor of the rank a body input declares (scalar when it says nothing).
OwnedTensor counter(const Value& declared, DType dtype) {
  Dims shape;
  if (declared.rank_known) shape.assign(declared.rank(), 1);
  const TensorDesc desc = row_major(dtype, shape);
  return {desc, std::make_shared<Storage>(host_allocator(), 8)};
}

class LoopFlow final : public ControlFlow {
 public:
  explicit LoopFlow(std::unique_ptr<ExecutableImpl> body) : body_(std::move(body)) {}

  void run(NodeContext& ctx) const override {
    const int n = ctx.num_inputs() - 2;
    const int k = ctx.num_outputs() - n;
    std::optional<int64_t> trips;
    if (ctx.input(0).present()) trips = read_scalar(ctx.input(0), "M (the trip count)");
    const bool has_cond = ctx.input(1).present();
    bool cond = has_cond ? read_scalar(ctx.input(1), "cond") != 0 : true;

    const Graph& bg = body_->graph();
    const OwnedTensor iter = counter(bg.values[bg.inputs[0]], DType::kInt64);
    const OwnedTensor cond_in = counter(bg.values[bg.inputs[1]], DType::kBool);
    std::vector<TensorRef> inputs{ref_of(iter), ref_of(cond_in)};
    for (int j = 0; j < n; ++j) inputs.push_back(ctx.input(2 + j));
    // Carried sequences and optionals pass as lists (values.h), shared, never copied.
    std::vector<ListRef> lists;
    for (int j = 0; j < n; ++j) {
      const int v = ctx.node().inputs[2 + j];
      if (!is_list_type(ctx.state().c.graph->values[v].type)) continue;
      if (lists.empty()) lists.resize(inputs.size());
      lists[2 + j] = ctx.input_list(2 + j);
    }
    std::vector<OwnedTensor> carried(n);
    std::vector<std::vector<OwnedTensor>> scans(k);
    KeptBytes kept(ctx.state());
    for (int64_t i = 0; (!trips || i < *trips) && cond; ++i) {
      std::memcpy(iter.data(), &i, sizeof i);
      *static_cast<uint8_t*>(cond_in.data()) = 1;
      std::vector<OwnedTensor> outs = run_body(*body_, inputs, ctx, lists);
      // Without a cond input the body's condition is ignored (a for loop).
      if (has_cond) cond = read_scalar(ref_of(outs[0]), "the body's condition output") != 0;
      for (int j = 0; j < n; ++j) {
        if (!lists.empty() && lists[2 + j]) {
          if (!outs[1 + j].list)
            fail(ErrorCode::kInvalidArgument,
                 "carried value " + std::to_string(j) +
                     " is a sequence or optional, but the body gives a tensor");
          lists[2 + j] = outs[1 + j].list;
          continue;
        }
        kept.add(outs[1 + j]);
        kept.remove(carried[j]);
        carried[j] = std::move(outs[1 + j]);
        inputs[2 + j] = ref_of(carried[j]);
      }
      for (int s = 0; s < k; ++s) {
        kept.add(outs[1 + n + s]);
        scans[s].push_back(std::move(outs[1 + n + s]));
      }
    }
    for (int j = 0; j < n; ++j) {
      if (!lists.empty() && lists[2 + j]) {
        ctx.set_output_list(j, lists[2 + j]);
      } else {
        emit(ctx, j, inputs[2 + j]);
      }
    }
    for (int s = 0; s < k; ++s)
      stack_into(ctx, n + s, scans[s], 0, false, body_output(*body_, 1 + n + s));
  }
  std::vector<const ExecutableImpl*> bodies() const override { return {body_.get()}; }

 private:
  std::unique_ptr<ExecutableImpl> body_;
};

struct ScanAttrs {
  int scans = 0;  // num_scan_inputs
  std::vector<int64_t> in_axes, in_dirs, out_axes, out_dirs;
};

class ScanFlow final : public ControlFlow {
 public:
  ScanFlow(std::unique_ptr<ExecutableImpl> body, ScanAttrs a)
      : body_(std::move(body)), a_(std::move(a)) {}

  void run(NodeContext& ctx) const override {
    const int states = ctx.num_inputs() - a_.scans;
    const int k = ctx.num_outputs() - states;
    int64_t iterations = -1;
    std::vector<int> axes(a_.scans);
    for (int s = 0; s < a_.scans; ++s) {
      const TensorRef& x = ctx.input(states + s);
      const int rank = x.desc.rank();
      const int64_t ax = a_.in_axes[s];
      require(rank >= 1 && ax >= -rank && ax < rank, [&] {
        return "scan input " + std::to_string(s) + ": axis " + std::to_string(ax) +
               " is out of range for rank " + std::to_string(rank);
      });
      axes[s] = static_cast<int>(ax < 0 ? ax + rank : ax);
      const int64_t len = x.desc.shape[axes[s]];
      if (iterations >= 0 && len != iterations)
        fail(ErrorCode::kInvalidArgument,
             "scan input " + std::to_string(s) + " has " + std::to_string(len) +
                 " iterations along its axis, an earlier one " + std::to_string(iterations));
      iterations = len;
    }

    std::vector<TensorRef> inputs;
    for (int j = 0; j < states; ++j) inputs.push_back(ctx.input(j));
    inputs.resize(states + a_.scans);
    std::vector<OwnedTensor> kept(states), slices(a_.scans);
    std::vector<std::vector<OwnedTensor>> scans(k);
    KeptBytes held(ctx.state());
    for (int64_t t = 0; t < iterations; ++t) {
      for (int s = 0; s < a_.scans; ++s) {
        const TensorRef& x = ctx.input(states + s);
        const int64_t at = a_.in_dirs[s] ? iterations - 1 - t : t;
        const TensorDesc view = select(x.desc, axes[s], at);
        if (is_contiguous(view)) {
          inputs[states + s] = {view, x.data, x.device};
          continue;
        }
        const TensorDesc dense = row_major(view.dtype, view.shape);
        held.remove(slices[s]);
        slices[s] = {dense, std::make_shared<Storage>(host_allocator(),
                                                      std::max<size_t>(dense_bytes(dense), 1))};
        held.add(slices[s]);
        assign(Operand{dense, slices[s].data()}, ConstOperand(view, x.data));
        inputs[states + s] = ref_of(slices[s]);
      }
      std::vector<OwnedTensor> outs = run_body(*body_, inputs, ctx);
      for (int j = 0; j < states; ++j) {
        held.add(outs[j]);
        held.remove(kept[j]);
        kept[j] = std::move(outs[j]);
        inputs[j] = ref_of(kept[j]);
      }
      for (int s = 0; s < k; ++s) {
        held.add(outs[states + s]);
        scans[s].push_back(std::move(outs[states + s]));
      }
    }
    for (int j = 0; j < states; ++j) emit(ctx, j, inputs[j]);
    for (int s = 0; s < k; ++s)
      stack_into(ctx, states + s, scans[s], a_.out_axes[s], a_.out_dirs[s] != 0,
                 body_output(*body_, states + s));
  }
  std::vector<const ExecutableImpl*> bodies() const override { return {body_.get()}; }

 private:
  std::unique_ptr<ExecutableImpl> body_;
  ScanAttrs a_;
};

}  // namespace

std::unique_ptr<ControlFlow> make_loop(const Graph& g, const Node& n,
                                       std::span<const KernelSet* const> sets,
                                       const ExecutorOptions& options,
                                       ExecClock::time_point origin) {
  require(n.inputs.size() >= 2, "Loop takes M and cond (either may be empty) first");
  if (n.inputs[0] < 0 && n.inputs[1] < 0)
    fail(ErrorCode::kNotSupported, "a Loop with neither a trip count nor a condition never ends");
  require_tensor_io(g, n, true);
  for (size_t o = n.inputs.size() - 2; o < n.outputs.size(); ++o)
    if (n.outputs[o] >= 0 && is_list_type(g.values[n.outputs[o]].type))
      fail(ErrorCode::kNotSupported, "Loop scan outputs are tensors");
  const size_t carried = n.inputs.size() - 2;
  require(n.outputs.size() >= carried, "Loop needs an output per carried value");
  for (size_t j = 0; j < carried; ++j)
    require(n.inputs[2 + j] >= 0,
            [&] { return "Loop carried value " + std::to_string(j) + " is missing"; });
  auto body = compile_body(n, "body", sets, options, origin);
  const Graph& bg = body->graph();
  require(bg.inputs.size() == carried + 2, [&] {
    return "the body must take the iteration number, the condition and " + std::to_string(carried) +
           " carried values";
  });
  require(bg.outputs.size() == 1 + n.outputs.size(), [&] {
    return "the body must give the condition, the carried values and the scan outputs (" +
           std::to_string(1 + n.outputs.size()) + " outputs)";
  });
  return std::make_unique<LoopFlow>(std::move(body));
}

std::unique_ptr<ControlFlow> make_scan(const Graph& g, const Node& n,
                                       std::span<const KernelSet* const> sets,
                                       const ExecutorOptions& options,
                                       ExecClock::time_point origin) {
  if (n.opset < 9) return make_scan8(g, n, sets, options, origin);
  require_tensor_io(g, n);
  const Attribute* m = n.attr("num_scan_inputs");
  require(m && m->kind == Attribute::Kind::kInt, "Scan needs the attribute num_scan_inputs");
  require(m->i >= 1 && m->i <= static_cast<int64_t>(n.inputs.size()),
          "num_scan_inputs must be between 1 and the number of inputs");
  for (int v : n.inputs) require(v >= 0, "Scan inputs may not be omitted");
  ScanAttrs a;
  a.scans = static_cast<int>(m->i);
  const int states = static_cast<int>(n.inputs.size()) - a.scans;
  require(static_cast<int>(n.outputs.size()) >= states, "Scan needs an output per state");
  const size_t k = n.outputs.size() - states;
  a.in_axes = ints_attr(n, "scan_input_axes", std::vector<int64_t>(a.scans, 0));
  a.in_dirs = ints_attr(n, "scan_input_directions", std::vector<int64_t>(a.scans, 0));
  a.out_axes = ints_attr(n, "scan_output_axes", std::vector<int64_t>(k, 0));
  a.out_dirs = ints_attr(n, "scan_output_directions", std::vector<int64_t>(k, 0));
  require(a.in_axes.size() == static_cast<size_t>(a.scans) &&
              a.in_dirs.size() == static_cast<size_t>(a.scans),
          "scan_input_axes and scan_input_directions need one entry per scan input");
  require(a.out_axes.size() == k && a.out_dirs.size() == k,
          "scan_output_axes and scan_output_directions need one entry per scan output");
  auto body = compile_body(n, "body", sets, options, origin);
  const Graph& bg = body->graph();
  require(bg.inputs.size() == n.inputs.size(),
          "the body must take the states, then one slice per scan input");
  require(bg.outputs.size() == n.outputs.size(),
          "the body must give the states, then one tensor per scan output");
  return std::make_unique<ScanFlow>(std::move(body), std::move(a));
}

}  // namespace geon
