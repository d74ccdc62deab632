// Scan before opset 9: batched. Every state and scan input has the batch on axis 0 and scan
// inputs iterate along axis 1; an optional first input gives each batch entry's sequence
// length (at most axis 1's). The body runs per batch entry and step on slices without those
// axes; final states are stacked along the batch axis, and scan outputs along (batch, step),
// zero past an entry's length.
#include <cstring>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/engine/engine.h"
#include "core/runtime/control_flow.h"

namespace geon {
namespace {

// Writes `src` (dense) into the part of output `dst` at the leading indices `at`.
void write_at(const TensorRef& dst, std::initializer_list<int64_t> at, const OwnedTensor& src) {
  TensorDesc view = dst.desc;
  for (int64_t i : at) view = select(view, 0, i);
  if (view.shape != src.desc.shape || view.dtype != src.desc.dtype)
    fail(ErrorCode::kInvalidArgument,
         "the body gives " + to_string(src.desc) + " where the output holds " + to_string(view));
  if (element_count(view) > 0) assign(Operand{view, dst.data}, ConstOperand(src.desc, src.data()));
}

class Scan8Flow final : public ControlFlow {
 public:
  Scan8Flow(std::unique_ptr<ExecutableImpl> body, int scans, std::vector<int64_t> dirs)
      : body_(std::move(body)), scans_(scans), dirs_(std::move(dirs)) {}

  void run(NodeContext& ctx) const override {
    const int states = ctx.num_inputs() - 1 - scans_;
    const int k = ctx.num_outputs() - states;
    const TensorRef& x0 = ctx.input(1 + states);
    require(x0.desc.rank() >= 2, "scan inputs need a batch axis and a sequence axis");
    const int64_t batch = x0.desc.shape[0], steps = x0.desc.shape[1];
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      const TensorRef& t = ctx.input(i);
      const bool scan = i > states;
      if (t.desc.rank() < (scan ? 2 : 1) || t.desc.shape[0] != batch ||
          (scan && t.desc.shape[1] != steps))
        fail(ErrorCode::kInvalidArgument,
             "input " + std::to_string(i) + " is " + to_string(t.desc) + "; expected batch " +
                 std::to_string(batch) + (scan ? " and " + std::to_string(steps) + " steps" : ""));
    }
    std::vector<int64_t> lens(batch, steps);
    if (ctx.input(0).present() && ctx.input(0).data) {
      const TensorRef& sl = ctx.input(0);
      require(sl.desc.dtype == DType::kInt32 && element_count(sl.desc) == batch,
              "sequence_lens must be int32 with one entry per batch entry");
      const TensorDesc dense = row_major(DType::kInt64, Dims{batch});
      assign(Operand{dense, lens.data()}, ConstOperand(sl.desc, sl.data));
      for (int64_t l : lens)
        require(l >= 0 && l <= steps, [&] {
          return "sequence length " + std::to_string(l) + " is outside [0, " +
                 std::to_string(steps) + "]";
        });
    }
    std::vector<TensorRef> outs(ctx.num_outputs());
    std::vector<bool> made(ctx.num_outputs(), false);
    std::vector<TensorRef> inputs(states + scans_);
    std::vector<OwnedTensor> carried(states);
    for (int64_t b = 0; b < batch; ++b) {
      for (int j = 0; j < states; ++j) {
        const TensorRef& s = ctx.input(1 + j);
        inputs[j] = {select(s.desc, 0, b), s.data, s.device};
      }
      for (int64_t t = 0; t < lens[b]; ++t) {
        for (int s = 0; s < scans_; ++s) {
          const TensorRef& x = ctx.input(1 + states + s);
          const int64_t at = dirs_[s] ? lens[b] - 1 - t : t;
          inputs[states + s] = {select(select(x.desc, 0, b), 0, at), x.data, x.device};
        }
        std::vector<OwnedTensor> res = run_body(*body_, inputs, ctx);
        for (int j = 0; j < states; ++j) {
          carried[j] = std::move(res[j]);
          inputs[j] = ref_of(carried[j]);
        }
        for (int s = 0; s < k; ++s) {
          TensorRef& out =
              output(ctx, outs, made, states + s, {batch, steps}, res[states + s].desc);
          write_at(out, {b, t}, res[states + s]);
        }
      }
      for (int j = 0; j < states; ++j) {
        const TensorRef& s = inputs[j];
        TensorRef& out = output(ctx, outs, made, j, {batch}, row_major(s.desc.dtype, s.desc.shape));
        TensorDesc view = select(out.desc, 0, b);
        if (element_count(view) > 0) assign(Operand{view, out.data}, ConstOperand(s.desc, s.data));
      }
    }
    // Outputs no step wrote (every length zero): their declared shape, empty or zero-filled.
    for (int s = 0; s < k; ++s)
      if (!made[states + s]) {
        const Value& v = body_->graph().values[body_->graph().outputs[states + s]];
        Dims shape{batch, steps};
        if (v.rank_known)
          for (const Axis& a : v.axes) shape.push_back(a.length.is_static() ? a.length.value : 0);
        ctx.output(states + s, shape);
      }
  }
  std::vector<const ExecutableImpl*> bodies() const override { return {body_.get()}; }

 private:
  // Output i, allocated (zero-filled) on first use with the leading dims and a part's shape.
  static TensorRef& output(NodeContext& ctx, std::vector<TensorRef>& outs, std::vector<bool>& made,
                           int i, Dims lead, const TensorDesc& part) {
    if (!made[i]) {
      made[i] = true;
      lead.insert(lead.end(), part.shape.begin(), part.shape.end());
      outs[i] = ctx.output(i, lead);
      if (outs[i].data) std::memset(outs[i].data, 0, dense_bytes(outs[i].desc));
    }
    return outs[i];
  }

  std::unique_ptr<ExecutableImpl> body_;
  int scans_;
  std::vector<int64_t> dirs_;
};

}  // namespace

std::unique_ptr<ControlFlow> make_scan8(const Graph& g, const Node& n,
                                        std::span<const KernelSet* const> sets,
                                        const ExecutorOptions& options,
                                        ExecClock::time_point origin) {
  require_tensor_io(g, n);
  const Attribute* m = n.attr("num_scan_inputs");
  require(m && m->kind == Attribute::Kind::kInt, "Scan needs the attribute num_scan_inputs");
  require(!n.inputs.empty() && m->i >= 1 && m->i <= static_cast<int64_t>(n.inputs.size()) - 1,
          "num_scan_inputs must be between 1 and the number of inputs after sequence_lens");
  for (size_t i = 1; i < n.inputs.size(); ++i)
    require(n.inputs[i] >= 0, "Scan inputs may not be omitted");
  const int scans = static_cast<int>(m->i);
  std::vector<int64_t> dirs(scans, 0);
  if (const Attribute* d = n.attr("directions")) {
    require(d->kind == Attribute::Kind::kInts && d->ints.size() == static_cast<size_t>(scans),
            "directions needs one entry per scan input");
    dirs = d->ints;
  }
  const int states = static_cast<int>(n.inputs.size()) - 1 - scans;
  require(static_cast<int>(n.outputs.size()) >= states, "Scan needs an output per state");
  auto body = compile_body(n, "body", sets, options, origin);
  require(body->graph().inputs.size() == n.inputs.size() - 1,
          "the body must take the states, then one slice per scan input");
  require(body->graph().outputs.size() == n.outputs.size(),
          "the body must give the states, then one tensor per scan output");
  return std::make_unique<Scan8Flow>(std::move(body), scans, std::move(dirs));
}

}  // namespace geon
