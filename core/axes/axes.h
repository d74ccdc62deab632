// The axes of one value: an ordered list with no axis twice (seed 004, property 1). The order
// is the value's logical (ONNX) order; rules treat axes as a set (property 2), so order only
// decides how results are listed. Set operations here compare by identity, never by class.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/axes/axis.h"

namespace geon {

// The invariant (no repeated axis) is checked once, at construction, so the list is read-only.
struct Axes {
  Axes() = default;
  explicit Axes(std::vector<Axis> axes);  // geon::Error naming a repeated axis
  Axes(std::initializer_list<Axis> axes) : Axes(std::vector<Axis>(axes)) {}

  std::size_t size() const { return axes_.size(); }
  bool empty() const { return axes_.empty(); }
  const Axis& operator[](std::size_t i) const { return axes_[i]; }
  std::vector<Axis>::const_iterator begin() const { return axes_.begin(); }
  std::vector<Axis>::const_iterator end() const { return axes_.end(); }
  const std::vector<Axis>& list() const { return axes_; }

  // Equality as ordered lists of identities: (B, C) != (C, B); see equivalent() for sets.
  friend bool operator==(const Axes& a, const Axes& b) { return a.axes_ == b.axes_; }

 private:
  std::vector<Axis> axes_;
};

// Position of the axis with a's identity (id and dual), if present.
std::optional<std::size_t> find_axis(const Axes& axes, const Axis& a);
std::optional<std::size_t> find_axis_id(const Axes& axes, int64_t id, int dual = 0);
// By name and dual. Names need not be unique, so two hits are a geon::Error, not a guess.
std::optional<std::size_t> find_axis_named(const Axes& axes, std::string_view name, int dual = 0);
bool contains(const Axes& axes, const Axis& a);

std::vector<Length> lengths(const Axes& axes);
// The lengths as numbers when all are static; nullopt while any is a symbol or unknown.
std::optional<std::vector<int64_t>> static_lengths(const Axes& axes);

// Seed 004, property 2: same number of axes and the same set, whatever the order.
bool equivalent(const Axes& a, const Axes& b);
// perm with to[i] == from[perm[i]]: the shuffle that brings `from` into `to`'s order (the
// permutation a transpose view needs). geon::Error unless the two are equivalent.
std::vector<int64_t> permutation_between(const Axes& from, const Axes& to);
// ONNX Transpose: out[i] = axes[perm[i]]; perm must be a permutation of 0..size-1.
Axes permute_axes(const Axes& axes, const std::vector<int64_t>& perm);

// Set algebra by identity, results in a deterministic order.
Axes axes_concat(const Axes& a, const Axes& b);        // a then b; a shared axis is an Error
Axes axes_union(const Axes& a, const Axes& b);         // a, then b's axes not in a
Axes axes_intersection(const Axes& a, const Axes& b);  // a's axes also in b, in a's order
Axes axes_difference(const Axes& a, const Axes& b);    // a's axes not in b, in a's order

std::string to_string(const Axes& axes);               // "(B, C*)"
std::string to_string_with_lengths(const Axes& axes);  // "(B[2], C*[N])", for messages

}  // namespace geon
