// Import rule: Einsum. The equation's labels name axes: every dim a label marks must have that
// label's length (numpy also lets a length-1 dim stretch), and an output label keeps the axis
// of the input dim it names. Ellipsis dims broadcast numpy-style across the inputs. Without
// "->", the output is the ellipsis dims, then the labels used once, in alphabetical order.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/linalg.h"

namespace geon::importer {
namespace {

bool is_label(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

struct Term {
  std::string labels;    // in order, without the ellipsis
  int ellipsis_at = -1;  // position in `labels` where the ellipsis dims go; -1: none
};

Term parse_term(RuleContext& c, const std::string& eq, const std::string& s,
                const std::string& which) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (is_label(ch)) {
      t.labels.push_back(ch);
    } else if (ch == '.') {
      c.require(s.compare(i, 3, "...") == 0,
                "equation '" + eq + "': a '.' in " + which + " is not part of an ellipsis '...'");
      c.require(t.ellipsis_at < 0, "equation '" + eq + "': " + which + " has two ellipses");
      t.ellipsis_at = static_cast<int>(t.labels.size());
      i += 2;
    } else {
      c.fail("equation '" + eq + "': unexpected character '" + std::string(1, ch) + "' in " +
             which);
    }
  }
  return t;
}

// The label's axis so far and a new sighting of it: keep the better-known length, let a
// static 1 stretch to the other, and fail on two different lengths.
void merge_label(RuleContext& c, const std::string& eq, char label, Axis& have, const Axis& seen) {
  const LengthRelation rel = compare_lengths(have.length, seen.length);
  const auto is_one = [](const Length& l) { return l.is_static() && l.value == 1; };
  if (rel == LengthRelation::kDifferent) {
    if (is_one(seen.length)) return;
    c.require(is_one(have.length), "equation '" + eq + "': label '" + std::string(1, label) +
                                       "' marks dims of lengths " + to_string(have.length) +
                                       " and " + to_string(seen.length));
    have = seen;
  } else if (!have.length.is_static() && seen.length.is_static()) {
    have = seen;
  }
}

}  // namespace

void einsum(RuleContext& c) {
  std::string eq;
  for (char ch : c.attr_string("equation"))
    if (ch != ' ') eq.push_back(ch);
  const DType t = common_dtype(c);
  const bool ok_type = t == DType::kFloat || t == DType::kDouble || t == DType::kFloat16 ||
                       (is_integer(t) && !is_packed(t));
  c.require(ok_type,
            "inputs have dtype " + std::string(dtype_name(t)) + ", which Einsum does not accept");
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    const std::string s = lhs.substr(start, comma == std::string::npos ? comma : comma - start);
    terms.push_back(parse_term(c, eq, s, "term " + std::to_string(terms.size())));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  c.require(static_cast<int>(terms.size()) == c.num_inputs(),
            "equation '" + eq + "' has " + std::to_string(terms.size()) + " input terms but the " +
                "node has " + std::to_string(c.num_inputs()) + " inputs");

  std::map<char, Axis> axis_of;  // each label's axis, from the inputs of known rank
  std::map<char, int> uses;      // how often each label appears on the left
  std::vector<Axes> ellipses;    // each input's ellipsis dims
  bool all_known = true, any_ellipsis = false;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term& term = terms[i];
    for (char l : term.labels) ++uses[l];
    any_ellipsis = any_ellipsis || term.ellipsis_at >= 0;
    const Value& v = c.input(static_cast<int>(i));
    if (!v.rank_known) {
      all_known = false;
      continue;
    }
    const int r = v.rank(), n = static_cast<int>(term.labels.size());
    const std::string which = "input " + std::to_string(i) + " " + to_string_with_lengths(v.axes);
    if (term.ellipsis_at < 0)
      c.require(r == n, "equation '" + eq + "': term " + std::to_string(i) + " names " +
                            std::to_string(n) + " dims but " + which + " has rank " +
                            std::to_string(r));
    else
      c.require(r >= n, "equation '" + eq + "': term " + std::to_string(i) + " names " +
                            std::to_string(n) + " dims besides its ellipsis but " + which +
                            " has rank " + std::to_string(r));
    const int extra = r - n;
    if (term.ellipsis_at >= 0)
      ellipses.emplace_back(std::vector<Axis>(v.axes.begin() + term.ellipsis_at,
                                              v.axes.begin() + term.ellipsis_at + extra));
    for (int j = 0; j < n; ++j) {
      const Axis& a = v.axes[term.ellipsis_at >= 0 && j >= term.ellipsis_at ? j + extra : j];
      auto it = axis_of.find(term.labels[j]);
      if (it == axis_of.end())
        axis_of.emplace(term.labels[j], a);
      else
        merge_label(c, eq, term.labels[j], it->second, a);
    }
  }

  Term out;
  if (arrow != std::string::npos) {
    const std::string rhs = eq.substr(arrow + 2);
    c.require(rhs.find("->") == std::string::npos, "equation '" + eq + "' has two '->'");
    out = parse_term(c, eq, rhs, "the output term");
    for (size_t j = 0; j < out.labels.size(); ++j) {
      const char l = out.labels[j];
      c.require(uses.count(l) != 0, "equation '" + eq + "': output label '" + std::string(1, l) +
                                        "' is in no input term");
      c.require(out.labels.find(l) == j,
                "equation '" + eq + "': output label '" + std::string(1, l) + "' appears twice");
    }
  } else {
    for (const auto& [l, n] : uses)
      if (n == 1) out.labels.push_back(l);  // std::map: alphabetical (A-Z before a-z)
    if (any_ellipsis) out.ellipsis_at = 0;
  }

  Axes ell;
  if (all_known && !ellipses.empty()) ell = broadcast_or_fail(c, ellipses);
  if (out.ellipsis_at < 0 && any_ellipsis && all_known)
    c.require(ell.empty(), "equation '" + eq + "': the inputs' ellipsis dims " +
                               to_string_with_lengths(ell) +
                               " must appear in the output term, which has no ellipsis");
  if (!all_known && out.ellipsis_at >= 0 && any_ellipsis) {
    c.set_output_unknown_rank(0, t);  // how many dims the ellipsis stands for is not known
    return;
  }
  std::vector<Axis> axes;
  for (size_t j = 0; j <= out.labels.size(); ++j) {
    if (static_cast<int>(j) == out.ellipsis_at) axes.insert(axes.end(), ell.begin(), ell.end());
    if (j == out.labels.size()) break;
    auto it = axis_of.find(out.labels[j]);
    axes.push_back(it != axis_of.end() ? it->second : c.new_axis(Length::unknown()));
  }
  c.set_output(0, t, distinct_axes(c, std::move(axes)));
}

}  // namespace geon::importer
