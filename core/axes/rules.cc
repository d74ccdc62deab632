// Output-axes rules of elementwise ops, dot, dual transpose, reductions and AxesCast; see
// rules.h for the rules themselves and the seed notes they come from.
#include "core/axes/rules.h"

#include <optional>
#include <string>
#include <utility>

#include "core/base/error.h"

namespace geon {

// "..."s: GCC 12 at -O3 reports a false -Wrestrict on "literal" + std::string&&.
using namespace std::string_literals;

namespace {

std::string quoted(const Axis& a) {
  std::string s = "'";  // appended, not "'"s + ..., for the same -Wrestrict reason
  s += to_string(a);
  s += '\'';
  return s;
}

std::string operand_name(int64_t k) {
  return k < 0 ? std::string("the requested axes") : "operand "s + std::to_string(k);
}

}  // namespace

ElementwiseAxes elementwise_mapping(const std::vector<Axes>& operands, const Axes& requested) {
  std::vector<Axis> out(requested.begin(), requested.end());
  std::vector<int64_t> origin(out.size(), -1);  // which operand brought each out axis
  ElementwiseAxes result;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const Axes& op = operands[k];
    std::vector<std::optional<std::size_t>> pos(op.size());
    std::vector<bool> claimed(out.size(), false);

    // Identity first: it is exact, and what it pairs is not offered to class matching.
    for (std::size_t i = 0; i < op.size(); ++i) {
      for (std::size_t j = 0; j < out.size(); ++j) {
        if (!same_axis(op[i], out[j])) continue;
        if (compare_lengths(op[i].length, out[j].length) == LengthRelation::kDifferent) {
          fail(ErrorCode::kInvalidArgument,
               "elementwise: axis "s + quoted(op[i]) + " has length " + to_string(out[j].length) +
                   " in " + operand_name(origin[j]) + " and " + to_string(op[i].length) + " in " +
                   operand_name(static_cast<int64_t>(k)));
        }
        pos[i] = j;
        claimed[j] = true;
      }
    }

    // Then class and length (seed 000), only where the pairing is one-to-one: two candidates
    // on either side would make the output depend on list order, so that is an Error.
    std::vector<std::vector<std::size_t>> cand_of_op(op.size()), cand_of_out(out.size());
    for (std::size_t i = 0; i < op.size(); ++i) {
      if (pos[i]) continue;
      for (std::size_t j = 0; j < out.size(); ++j) {
        if (claimed[j] || !axes_match(op[i], out[j])) continue;
        cand_of_op[i].push_back(j);
        cand_of_out[j].push_back(i);
      }
    }
    for (std::size_t i = 0; i < op.size(); ++i) {
      if (cand_of_op[i].empty()) continue;
      const std::size_t j = cand_of_op[i][0];
      if (cand_of_op[i].size() > 1) {
        fail(ErrorCode::kInvalidArgument, "elementwise: axis "s + quoted(op[i]) + " of " +
                                              operand_name(static_cast<int64_t>(k)) +
                                              " matches both " + quoted(out[j]) + " and " +
                                              quoted(out[cand_of_op[i][1]]) +
                                              " by class and length; use AxesCast to say which");
      }
      if (cand_of_out[j].size() > 1) {
        fail(ErrorCode::kInvalidArgument, "elementwise: axes "s + quoted(op[cand_of_out[j][0]]) +
                                              " and " + quoted(op[cand_of_out[j][1]]) + " of " +
                                              operand_name(static_cast<int64_t>(k)) +
                                              " both match " + quoted(out[j]) +
                                              " by class and length; use AxesCast to say which");
      }
      pos[i] = j;
    }

    // Whatever is left is new: appended in this operand's order (the union's order).
    std::vector<std::size_t> where(op.size());
    for (std::size_t i = 0; i < op.size(); ++i) {
      if (!pos[i]) {
        pos[i] = out.size();
        out.push_back(op[i]);
        origin.push_back(static_cast<int64_t>(k));
      }
      where[i] = *pos[i];
    }
    result.position.push_back(std::move(where));
  }
  result.out = Axes(std::move(out));
  return result;
}

Axes elementwise_axes(const Axes& a, const Axes& b) { return elementwise_mapping({a, b}).out; }

DotAxes dot_axes(const Axes& a, const Axes& b, const Axes& batch) {
  std::vector<bool> batch_a(a.size(), false), batch_b(b.size(), false);
  for (const Axis& x : batch) {
    auto ia = find_axis(a, x);
    auto ib = find_axis(b, x);
    require(ia && ib, "dot: batch axis "s + quoted(x) + " is not an axis of the " +
                          (ia ? "second" : "first") + " operand " + to_string(ia ? b : a));
    if (compare_lengths(a[*ia].length, b[*ib].length) == LengthRelation::kDifferent) {
      fail(ErrorCode::kInvalidArgument,
           "dot: batch axis "s + quoted(x) + " has length " + to_string(a[*ia].length) +
               " in the first operand and " + to_string(b[*ib].length) + " in the second");
    }
    batch_a[*ia] = true;
    batch_b[*ib] = true;
  }

  DotAxes r;
  std::vector<std::optional<std::size_t>> partner_of_b(b.size());
  std::vector<bool> contracted_a(a.size(), false);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (batch_a[i]) continue;
    std::vector<std::size_t> cands;
    for (std::size_t j = 0; j < b.size(); ++j) {
      if (batch_b[j] || b[j].id != a[i].id) continue;
      if (b[j].dual == a[i].dual || b[j].dual == a[i].dual - 1) cands.push_back(j);
    }
    if (cands.empty()) continue;
    if (cands.size() > 1) {
      fail(ErrorCode::kInvalidArgument,
           "dot: axis "s + quoted(a[i]) + " of the first operand could pair with both " +
               quoted(b[cands[0]]) + " and " + quoted(b[cands[1]]) + " of the second");
    }
    const std::size_t j = cands[0];
    if (partner_of_b[j]) {
      fail(ErrorCode::kInvalidArgument,
           "dot: axis "s + quoted(b[j]) + " of the second operand would pair with both " +
               quoted(a[*partner_of_b[j]]) + " and " + quoted(a[i]) + " of the first");
    }
    if (compare_lengths(a[i].length, b[j].length) == LengthRelation::kDifferent) {
      const std::string la = to_string(a[i].length), lb = to_string(b[j].length);
      fail(ErrorCode::kInvalidArgument,
           same_axis(a[i], b[j]) ? "dot: axis "s + quoted(a[i]) + " has length " + la +
                                       " in the first operand and " + lb + " in the second"
                                 : "dot: axis "s + quoted(a[i]) + " has length " + la +
                                       " in the first operand and its partner " + quoted(b[j]) +
                                       " has length " + lb + " in the second");
    }
    partner_of_b[j] = i;
    contracted_a[i] = true;
    r.contracted.push_back(DotPair{i, j});
  }

  std::vector<Axis> out;
  r.first_to_out.assign(a.size(), -1);
  r.second_to_out.assign(b.size(), -1);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (contracted_a[i]) continue;
    r.first_to_out[i] = static_cast<int64_t>(out.size());
    out.push_back(a[i]);
  }
  for (std::size_t j = 0; j < b.size(); ++j) {
    if (partner_of_b[j]) continue;
    if (batch_b[j]) {
      r.second_to_out[j] = r.first_to_out[*find_axis(a, b[j])];
      continue;
    }
    r.second_to_out[j] = static_cast<int64_t>(out.size());
    out.push_back(b[j]);
  }
  r.out = Axes(std::move(out));
  return r;
}

Axes dual_transpose(const Axes& axes) {
  std::vector<Axis> out;
  out.reserve(axes.size());
  for (auto it = axes.list().rbegin(); it != axes.list().rend(); ++it)
    out.push_back(flip_dual(*it));
  return Axes(std::move(out));
}

Axes reduce_axes(const Axes& in, const Axes& out_axes) {
  for (const Axis& x : out_axes) {
    require(contains(in, x),
            "reduce: out axis "s + quoted(x) + " is not an axis of the input " + to_string(in));
  }
  return out_axes;
}

Axes reduced_axes(const Axes& in, const Axes& out_axes) {
  return axes_difference(in, reduce_axes(in, out_axes));
}

Axes axes_cast(const Axes& from, const Axes& to) {
  require(from.size() == to.size(), "AxesCast: cannot cast "s + to_string(from) + " to " +
                                        to_string(to) + ": " + std::to_string(from.size()) +
                                        " axes against " + std::to_string(to.size()));
  for (std::size_t i = 0; i < from.size(); ++i) {
    if (compare_lengths(from[i].length, to[i].length) == LengthRelation::kDifferent) {
      fail(ErrorCode::kInvalidArgument,
           "AxesCast: position "s + std::to_string(i) + ": axis " + quoted(from[i]) +
               " has length " + to_string(from[i].length) + " but the target axis " +
               quoted(to[i]) + " has length " + to_string(to[i].length));
    }
  }
  return to;
}

}  // namespace geon
