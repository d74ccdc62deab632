// SequenceMap (17): the body runs once per element of the first input sequence, inside the
// enclosing run; every sequence input gives its element at that position and every tensor
// input is given whole; each output is the sequence of the body's results, in order.
#include "core/base/error.h"
#include "core/runtime/control_flow.h"

namespace geon {
namespace {

class SequenceMapFlow final : public ControlFlow {
 public:
  explicit SequenceMapFlow(std::unique_ptr<ExecutableImpl> body) : body_(std::move(body)) {}

  void run(NodeContext& ctx) const override {
    const Graph& g = *ctx.state().c.graph;
    const int n = ctx.num_inputs();
    std::vector<ListRef> seqs(n);
    for (int i = 0; i < n; ++i)
      if (is_list_type(g.values[ctx.node().inputs[i]].type)) seqs[i] = ctx.input_list(i);
    const size_t count = seqs[0]->items.size();
    for (int i = 1; i < n; ++i)
      if (seqs[i] && seqs[i]->items.size() != count)
        fail(ErrorCode::kInvalidArgument,
             "input " + std::to_string(i) + " has " + std::to_string(seqs[i]->items.size()) +
                 " elements but input_sequence has " + std::to_string(count));
    std::vector<std::shared_ptr<ListValue>> outs(ctx.num_outputs());
    for (auto& o : outs) o = std::make_shared<ListValue>();
    std::vector<TensorRef> inputs(n);
    for (size_t t = 0; t < count; ++t) {
      for (int i = 0; i < n; ++i) inputs[i] = seqs[i] ? ref_of(seqs[i]->items[t]) : ctx.input(i);
      std::vector<OwnedTensor> results = run_body(*body_, inputs, ctx);
      for (size_t o = 0; o < outs.size(); ++o) {
        if (results[o].list)
          fail(ErrorCode::kNotSupported, "the body's output " + std::to_string(o) +
                                             " is a sequence or optional; it must be a tensor");
        outs[o]->items.push_back(std::move(results[o]));
      }
    }
    for (size_t o = 0; o < outs.size(); ++o) ctx.set_output_list(static_cast<int>(o), outs[o]);
  }
  std::vector<const ExecutableImpl*> bodies() const override { return {body_.get()}; }

 private:
  std::unique_ptr<ExecutableImpl> body_;
};

}  // namespace

std::unique_ptr<ControlFlow> make_sequence_map(const Graph& g, const Node& n,
                                               std::span<const KernelSet* const> sets,
                                               const ExecutorOptions& options,
                                               ExecClock::time_point origin) {
  require(!n.inputs.empty() && n.inputs[0] >= 0 &&
              g.values[n.inputs[0]].type.kind == TypeKind::kSequence,
          "SequenceMap's first input must be a sequence");
  for (int v : n.inputs) {
    require(v >= 0, "SequenceMap inputs may not be omitted");
    const ValueType& t = g.values[v].type;
    if (t.kind != TypeKind::kSequence && t.kind != TypeKind::kTensor)
      fail(ErrorCode::kNotSupported, "SequenceMap input '" + g.values[v].name + "' is a " +
                                         to_string(t) + "; sequences and tensors are mapped");
  }
  for (int v : n.outputs)
    require(v < 0 || g.values[v].type.kind == TypeKind::kSequence,
            "SequenceMap's outputs are sequences");
  auto body = compile_body(n, "body", sets, options, origin);
  require(body->graph().inputs.size() == n.inputs.size(),
          "the body must take one input per node input");
  require(body->graph().outputs.size() == n.outputs.size(),
          "the body must give one output per node output");
  return std::make_unique<SequenceMapFlow>(std::move(body));
}

}  // namespace geon
