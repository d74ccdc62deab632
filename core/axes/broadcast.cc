// Numpy broadcasting of positional operands into one set of output axes; see broadcast.h.
#include "core/axes/broadcast.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/base/error.h"

namespace geon {

// "..."s: GCC 12 at -O3 reports a false -Wrestrict on "literal" + std::string&&.
using namespace std::string_literals;

namespace {

struct Entry {
  std::size_t operand;
  std::size_t dim;
  const Axis* axis;
};

bool is_static_one(const Length& n) { return n.is_static() && n.value == 1; }

// Lower is better known; the representative of a column is the best-known length.
int knownness(const Length& n) { return n.is_static() ? 0 : n.is_symbol() ? 1 : 2; }

}  // namespace

BroadcastAxes broadcast_axes(const std::vector<Axes>& operands, AxisFactory& factory) {
  std::size_t rank = 0;
  for (const Axes& op : operands) rank = std::max(rank, op.size());

  BroadcastAxes r;
  r.roles.resize(operands.size());
  for (std::size_t k = 0; k < operands.size(); ++k) r.roles[k].resize(operands[k].size());

  std::vector<Axis> out;
  for (std::size_t p = 0; p < rank; ++p) {
    std::vector<Entry> column, longer;
    for (std::size_t k = 0; k < operands.size(); ++k) {
      const std::size_t lead = rank - operands[k].size();
      if (p < lead) continue;
      column.push_back(Entry{k, p - lead, &operands[k][p - lead]});
      if (!is_static_one(column.back().axis->length)) longer.push_back(column.back());
    }
    const std::vector<Entry>& unify = longer.empty() ? column : longer;

    const Entry* rep = &unify[0];
    for (const Entry& e : unify) {
      if (knownness(e.axis->length) < knownness(rep->axis->length)) rep = &e;
    }
    bool proven = true;
    for (const Entry& e : unify) {
      if (same_axis(*e.axis, *rep->axis)) continue;  // one axis: equal whatever its length
      const LengthRelation rel = compare_lengths(e.axis->length, rep->axis->length);
      if (rel == LengthRelation::kDifferent) {
        const Entry& x = e.operand < rep->operand ? e : *rep;
        const Entry& y = e.operand < rep->operand ? *rep : e;
        fail(ErrorCode::kInvalidArgument,
             "broadcast: at dim "s +
                 std::to_string(static_cast<int64_t>(p) - static_cast<int64_t>(rank)) +
                 " (counted from the right) axis '" + to_string(*x.axis) + "' of operand " +
                 std::to_string(x.operand) + " has length " + to_string(x.axis->length) +
                 " and axis '" + to_string(*y.axis) + "' of operand " + std::to_string(y.operand) +
                 " has length " + to_string(y.axis->length) +
                 "; numpy broadcasting needs equal lengths or 1");
      }
      if (rel != LengthRelation::kEqual) proven = false;
    }
    if (!proven) r.unchecked.push_back(p);

    Axis chosen = *rep->axis;
    if (std::any_of(out.begin(), out.end(), [&](const Axis& a) { return same_axis(a, chosen); })) {
      chosen = make_axis_like(factory, chosen, chosen.length);
    }
    for (const Entry& e : column) {
      BroadcastRole role = BroadcastRole::kUnified;
      if (same_axis(*e.axis, chosen)) {
        role = BroadcastRole::kKept;
      } else if (!longer.empty() && is_static_one(e.axis->length)) {
        role = BroadcastRole::kStretched;
      }
      r.roles[e.operand][e.dim] = role;
    }
    out.push_back(std::move(chosen));
  }
  r.out = Axes(std::move(out));
  return r;
}

}  // namespace geon
