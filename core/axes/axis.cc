// Axis identity, matching and duals; see axis.h for the rules and why they are so.
#include "core/axes/axis.h"

#include <utility>

#include "core/base/error.h"

namespace geon {

// "..."s: GCC 12 at -O3 reports a false -Wrestrict on "literal" + std::string&&.
using namespace std::string_literals;

Length Length::known(int64_t n) {
  require(n >= 0, "axis length must be >= 0, got "s + std::to_string(n));
  Length l;
  l.kind = Kind::kStatic;
  l.value = n;
  return l;
}

Length Length::symbolic(std::string name) {
  require(!name.empty(), "a symbolic axis length needs a name");
  Length l;
  l.kind = Kind::kSymbol;
  l.symbol = std::move(name);
  return l;
}

LengthRelation compare_lengths(const Length& a, const Length& b) {
  if (a.is_static() && b.is_static()) {
    return a.value == b.value ? LengthRelation::kEqual : LengthRelation::kDifferent;
  }
  if (a.is_symbol() && b.is_symbol() && a.symbol == b.symbol) return LengthRelation::kEqual;
  return LengthRelation::kUndecided;
}

std::string to_string(const Length& n) {
  switch (n.kind) {
    case Length::Kind::kStatic:
      return std::to_string(n.value);
    case Length::Kind::kSymbol:
      return n.symbol;
    case Length::Kind::kUnknown:
      break;
  }
  return "?";
}

bool same_axis(const Axis& a, const Axis& b) { return a.id == b.id && a.dual == b.dual; }

bool axes_match(const Axis& a, const Axis& b) {
  if (same_axis(a, b)) return true;
  return a.cls == b.cls && a.dual == b.dual &&
         compare_lengths(a.length, b.length) == LengthRelation::kEqual;
}

AxisClass make_axis_class(AxisFactory& f, std::string name) {
  return AxisClass{f.next_class_id++, std::move(name)};
}

Axis make_axis(AxisFactory& f, std::string name, Length length) {
  AxisClass cls = make_axis_class(f, name);
  return make_axis(f, std::move(name), std::move(length), cls);
}

Axis make_axis(AxisFactory& f, std::string name, Length length, const AxisClass& cls) {
  require(cls.id != 0, "axis '"s + name + "': its class was not made by an AxisFactory");
  Axis a;
  a.id = f.next_axis_id++;
  a.name = std::move(name);
  a.length = std::move(length);
  a.cls = cls;
  return a;
}

Axis make_axis_like(AxisFactory& f, const Axis& source, Length length, std::string name) {
  Axis a =
      make_axis(f, name.empty() ? source.name : std::move(name), std::move(length), source.cls);
  a.dual = source.dual;
  return a;
}

Axis with_dual(const Axis& a, int dual) {
  Axis r = a;
  r.dual = dual;
  return r;
}

Axis flip_dual(const Axis& a) { return with_dual(a, 1 - a.dual); }

std::string to_string(const Axis& a) {
  std::string s = a.name.empty() ? "#"s + std::to_string(a.id) : a.name;
  if (a.dual == 1) return s + "*";
  if (a.dual == -1) return s + "^-*";
  if (a.dual != 0) return s + "^" + std::to_string(a.dual) + "*";
  return s;
}

}  // namespace geon
