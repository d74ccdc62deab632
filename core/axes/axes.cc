// Ordered axes without repeats, and identity-based set algebra over them; see axes.h.
#include "core/axes/axes.h"

#include <utility>

#include "core/base/error.h"

namespace geon {

// "..."s: GCC 12 at -O3 reports a false -Wrestrict on "literal" + std::string&&.
using namespace std::string_literals;

Axes::Axes(std::vector<Axis> axes) : axes_(std::move(axes)) {
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (same_axis(axes_[i], axes_[j])) {
        fail(ErrorCode::kInvalidArgument,
             "axes: axis '"s + to_string(axes_[i]) + "' appears twice in " + to_string(*this) +
                 " (positions " + std::to_string(j) + " and " + std::to_string(i) + ")");
      }
    }
  }
}

std::optional<std::size_t> find_axis(const Axes& axes, const Axis& a) {
  return find_axis_id(axes, a.id, a.dual);
}

std::optional<std::size_t> find_axis_id(const Axes& axes, int64_t id, int dual) {
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].id == id && axes[i].dual == dual) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> find_axis_named(const Axes& axes, std::string_view name, int dual) {
  std::optional<std::size_t> hit;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].name != name || axes[i].dual != dual) continue;
    require(!hit, "axes: more than one axis is named '"s + std::string(name) + "' in " +
                      to_string(axes) + "; look it up by id");
    hit = i;
  }
  return hit;
}

bool contains(const Axes& axes, const Axis& a) { return find_axis(axes, a).has_value(); }

std::vector<Length> lengths(const Axes& axes) {
  std::vector<Length> out;
  out.reserve(axes.size());
  for (const Axis& a : axes) out.push_back(a.length);
  return out;
}

std::optional<std::vector<int64_t>> static_lengths(const Axes& axes) {
  std::vector<int64_t> out;
  out.reserve(axes.size());
  for (const Axis& a : axes) {
    if (!a.length.is_static()) return std::nullopt;
    out.push_back(a.length.value);
  }
  return out;
}

bool equivalent(const Axes& a, const Axes& b) {
  if (a.size() != b.size()) return false;
  for (const Axis& x : a) {
    if (!contains(b, x)) return false;
  }
  return true;  // no repeats on either side, so equal sizes and inclusion mean equal sets
}

std::vector<int64_t> permutation_between(const Axes& from, const Axes& to) {
  require(equivalent(from, to), "axes: "s + to_string(from) + " and " + to_string(to) +
                                    " are not the same set of axes, so no permutation maps one "
                                    "onto the other");
  std::vector<int64_t> perm;
  perm.reserve(to.size());
  for (const Axis& a : to) perm.push_back(static_cast<int64_t>(*find_axis(from, a)));
  return perm;
}

Axes permute_axes(const Axes& axes, const std::vector<int64_t>& perm) {
  const auto n = static_cast<int64_t>(axes.size());
  require(static_cast<int64_t>(perm.size()) == n, "permute: "s + std::to_string(perm.size()) +
                                                      " indices for " + std::to_string(n) +
                                                      " axes " + to_string(axes));
  std::vector<bool> seen(axes.size(), false);
  std::vector<Axis> out;
  out.reserve(axes.size());
  for (int64_t p : perm) {
    require(p >= 0 && p < n && !seen[static_cast<std::size_t>(p)],
            "permute: index "s + std::to_string(p) + " is out of range or repeated for axes " +
                to_string(axes));
    seen[static_cast<std::size_t>(p)] = true;
    out.push_back(axes[static_cast<std::size_t>(p)]);
  }
  return Axes(std::move(out));
}

Axes axes_concat(const Axes& a, const Axes& b) {
  std::vector<Axis> out = a.list();
  out.insert(out.end(), b.begin(), b.end());
  return Axes(std::move(out));
}

Axes axes_union(const Axes& a, const Axes& b) {
  std::vector<Axis> out = a.list();
  for (const Axis& x : b) {
    if (!contains(a, x)) out.push_back(x);
  }
  return Axes(std::move(out));
}

Axes axes_intersection(const Axes& a, const Axes& b) {
  std::vector<Axis> out;
  for (const Axis& x : a) {
    if (contains(b, x)) out.push_back(x);
  }
  return Axes(std::move(out));
}

Axes axes_difference(const Axes& a, const Axes& b) {
  std::vector<Axis> out;
  for (const Axis& x : a) {
    if (!contains(b, x)) out.push_back(x);
  }
  return Axes(std::move(out));
}

namespace {

std::string join(const Axes& axes, bool with_lengths) {
  std::string s = "(";
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (i) s += ", ";
    s += to_string(axes[i]);
    if (with_lengths) s += "["s + to_string(axes[i].length) + "]";
  }
  return s + ")";
}

}  // namespace

std::string to_string(const Axes& axes) { return join(axes, false); }
std::string to_string_with_lengths(const Axes& axes) { return join(axes, true); }

}  // namespace geon
