// Import rules: the recurrent layers RNN, GRU and LSTM. X is (seq, batch, input) or, with
// layout = 1 (opset 14), (batch, seq, input); Y is (seq, directions, batch, hidden) or
// (batch, seq, directions, hidden); Y_h and Y_c are (directions, batch, hidden) or
// (batch, directions, hidden). The seq and batch axes are X's; directions and hidden are one
// new axis each, shared by all outputs of the node.
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/nn.h"

namespace geon::importer {
namespace {

struct Recurrent {
  int gates;             // weight blocks per direction: RNN 1, GRU 3, LSTM 4
  int state_outputs;     // Y_h (and Y_c for LSTM)
  int default_acts;      // activations per direction
  bool output_sequence;  // version 1's attribute
  bool layout;           // opset 14
  bool linear_before_reset;
};

const char* const kNames[] = {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"};

std::string in_name(int i) { return "input " + std::to_string(i) + " (" + kNames[i] + ")"; }

void check_dim(RuleContext& c, int i, int dim, const Length& want, const std::string& what) {
  if (!c.has_input(i) || !c.input(i).rank_known) return;
  require_same_length(c, c.input(i).axes[dim].length, want,
                      in_name(i) + " dim " + std::to_string(dim), what);
}

void recurrent(RuleContext& c, const Recurrent& r) {
  const int bf16 = 22;
  const std::string op = c.node().op;
  const int num_in = r.gates == 4 ? 8 : 6;
  require_arity(c, num_in, 1 + r.state_outputs);
  require_nn_float(c, 0, bf16, "X");
  const DType t = c.input_dtype(0);
  for (int i : {1, 2, 3, 5, 6, 7})
    if (i < num_in && c.has_input(i)) require_same_dtype(c, i, kNames[i], t, "X");
  if (c.has_input(4) && c.input_dtype(4) != DType::kInt32)
    c.fail("input 4 (sequence_lens) has dtype " + std::string(dtype_name(c.input_dtype(4))) +
           "; it must be int32");

  // Attributes.
  const std::string direction = c.attr_string("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    c.fail("attribute 'direction' is '" + direction +
           "'; it must be forward, reverse or bidirectional");
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  int64_t layout = 0;
  if (r.layout) {
    layout = c.attr_int("layout", 0);
    if (layout != 0 && layout != 1)
      c.fail("attribute 'layout' is " + std::to_string(layout) + "; it must be 0 or 1");
  } else if (c.has_attr("layout")) {
    c.fail("attribute 'layout' came with opset 14");
  }
  if (!r.output_sequence && c.has_attr("output_sequence"))
    c.fail("attribute 'output_sequence' was removed in opset 7");
  if (!r.linear_before_reset && c.has_attr("linear_before_reset"))
    c.fail("attribute 'linear_before_reset' is not part of this op version");
  if (r.gates == 4) {
    const int64_t f = c.attr_int("input_forget", 0);
    if (f != 0 && f != 1) c.fail("attribute 'input_forget' must be 0 or 1");
  }
  if (c.has_attr("clip") && !(c.attr_float("clip") > 0))
    c.fail("attribute 'clip' must be positive");
  if (c.has_attr("activations")) {
    const size_t n = c.attr_strings("activations").size();
    if (n != static_cast<size_t>(r.default_acts * dirs))
      c.fail("attribute 'activations' has " + std::to_string(n) + " entries; " + op +
             " with direction " + direction + " needs " + std::to_string(r.default_acts * dirs));
  }

  // The hidden size: the attribute, else R's last dim.
  for (int i = 0; i < 3; ++i) require_rank(c, i, kNames[i], 3);
  Length hidden = Length::unknown();
  if (c.has_attr("hidden_size")) {
    const int64_t h = c.attr_int("hidden_size");
    if (h < 1) c.fail("attribute 'hidden_size' is " + std::to_string(h) + "; it must be >= 1");
    hidden = Length::known(h);
  } else if (c.input(2).rank_known) {
    hidden = c.input(2).axes[2].length;
  }
  const Length gh = scaled_length(c, hidden, r.gates);
  const Length dl = Length::known(dirs);
  check_dim(c, 1, 0, dl, "the number of directions");
  check_dim(c, 1, 1, gh, std::to_string(r.gates) + " x hidden_size");
  check_dim(c, 2, 0, dl, "the number of directions");
  check_dim(c, 2, 1, gh, std::to_string(r.gates) + " x hidden_size");
  check_dim(c, 2, 2, hidden, "hidden_size");
  if (c.has_input(3)) {
    require_rank(c, 3, "B", 2);
    check_dim(c, 3, 0, dl, "the number of directions");
    check_dim(c, 3, 1, scaled_length(c, gh, 2),
              "2 x " + std::to_string(r.gates) + " x hidden_size");
  }
  if (r.gates == 4 && c.has_input(7)) {
    require_rank(c, 7, "P", 2);
    check_dim(c, 7, 0, dl, "the number of directions");
    check_dim(c, 7, 1, scaled_length(c, hidden, 3), "3 x hidden_size");
  }

  const Value& x = c.input(0);
  const int seq_dim = layout == 0 ? 0 : 1;
  const int batch_dim = 1 - seq_dim;
  const Axis seq = x.rank_known ? x.axes[seq_dim] : c.new_axis(Length::unknown());
  const Axis batch = x.rank_known ? x.axes[batch_dim] : c.new_axis(Length::unknown());
  if (x.rank_known) check_dim(c, 1, 2, x.axes[2].length, "X's input size");
  if (c.has_input(4)) {
    require_rank(c, 4, "sequence_lens", 1);
    check_dim(c, 4, 0, batch.length, "X's batch size");
  }
  // initial_h and initial_c have the layout of Y_h.
  for (int i : {5, 6}) {
    if (i >= num_in || !c.has_input(i)) continue;
    require_rank(c, i, i == 5 ? "initial_h" : "initial_c", 3);
    check_dim(c, i, layout == 0 ? 0 : 1, dl, "the number of directions");
    check_dim(c, i, layout == 0 ? 1 : 0, batch.length, "X's batch size");
    check_dim(c, i, 2, hidden, "hidden_size");
  }

  const Axis dir_axis = c.new_axis(dl, "directions");
  const Axis hid_axis = c.new_axis(hidden, "hidden");
  if (layout == 0)
    c.set_output(0, t, distinct_axes(c, {seq, dir_axis, batch, hid_axis}));
  else
    c.set_output(0, t, distinct_axes(c, {batch, seq, dir_axis, hid_axis}));
  const Axes state =
      layout == 0 ? Axes({dir_axis, batch, hid_axis}) : Axes({batch, dir_axis, hid_axis});
  for (int o = 1; o <= r.state_outputs; ++o) c.set_output(o, t, state);
}

template <Recurrent R>
void recurrent_rule(RuleContext& c) {
  recurrent(c, R);
}

constexpr Recurrent kRnn1{1, 1, 1, true, false, false};
constexpr Recurrent kRnn7{1, 1, 1, false, false, false};
constexpr Recurrent kRnn14{1, 1, 1, false, true, false};
constexpr Recurrent kGru1{3, 1, 2, true, false, false};
constexpr Recurrent kGru3{3, 1, 2, true, false, true};
constexpr Recurrent kGru7{3, 1, 2, false, false, true};
constexpr Recurrent kGru14{3, 1, 2, false, true, true};
constexpr Recurrent kLstm1{4, 2, 3, true, false, false};
constexpr Recurrent kLstm7{4, 2, 3, false, false, false};
constexpr Recurrent kLstm14{4, 2, 3, false, true, false};

}  // namespace

std::span<const RuleEntry> nn_rnn_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "RNN", 1, recurrent_rule<kRnn1>},      // output_sequence
      {"", "RNN", 7, recurrent_rule<kRnn7>},      // no output_sequence
      {"", "RNN", 14, recurrent_rule<kRnn14>},    // layout
      {"", "GRU", 1, recurrent_rule<kGru1>},      //
      {"", "GRU", 3, recurrent_rule<kGru3>},      // linear_before_reset
      {"", "GRU", 7, recurrent_rule<kGru7>},      // no output_sequence
      {"", "GRU", 14, recurrent_rule<kGru14>},    // layout
      {"", "LSTM", 1, recurrent_rule<kLstm1>},    // output_sequence
      {"", "LSTM", 7, recurrent_rule<kLstm7>},    // no output_sequence
      {"", "LSTM", 14, recurrent_rule<kLstm14>},  // layout
  };
  return rules;
}

}  // namespace geon::importer
