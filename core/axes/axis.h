// One named axis of a value. geon is not positional: dims are told apart by axis identity, so
// broadcasting and contraction are explicit in the graph rather than guessed from positions.
// Matching (seed 000) and dual axes for dot and transpose (seed 001) are defined here.
#pragma once

#include <cstdint>
#include <string>

namespace geon {

// A length as ONNX can state it: a number, a named symbol (dim_param, bound per run), or
// nothing at all. Two symbols are equal only when their names are; unknown equals nothing.
struct Length {
  enum class Kind { kUnknown, kStatic, kSymbol };
  Kind kind = Kind::kUnknown;
  int64_t value = 0;   // meaningful for kStatic only
  std::string symbol;  // meaningful for kSymbol only

  static Length known(int64_t n);  // n >= 0, else geon::Error
  static Length symbolic(std::string name);
  static Length unknown() { return {}; }

  bool is_static() const { return kind == Kind::kStatic; }
  bool is_symbol() const { return kind == Kind::kSymbol; }
  bool is_unknown() const { return kind == Kind::kUnknown; }
  // Structural (same kind and value or symbol), not "provably equal": see compare_lengths.
  friend bool operator==(const Length&, const Length&) = default;
};

// Whether two lengths are the same: kEqual only when provable now (equal numbers, same symbol),
// kDifferent only when provably not (two different numbers); everything else waits for the
// run-time binding of symbols, so rules reject only kDifferent and match only on kEqual.
enum class LengthRelation { kEqual, kDifferent, kUndecided };
LengthRelation compare_lengths(const Length& a, const Length& b);
std::string to_string(const Length& n);  // "3", the symbol's name, or "?"

// An axis class is the meaning shared by axes of different lengths ("Height", "Channels"), so
// that e.g. a sliced H and the original H still say what they are. Compared by id.
struct AxisClass {
  int64_t id = 0;
  std::string name;
  friend bool operator==(const AxisClass& a, const AxisClass& b) { return a.id == b.id; }
};

// `dual` is k in M^{k*} (seed 001): 0 = M, +1 = M* (pairs with M of the second dot operand),
// -1 = M^{-*} (pairs with M of the first). Dot pairs dual k in the first operand with dual k-1
// in the second; transpose maps k to 1-k, so dot(x, y) = dot(y^t, x^t)^t. Seed 000 states the
// mirror convention (k pairs with k+1, transpose k -> -1-k); geon follows the later 001.
struct Axis {
  int64_t id = 0;  // unique per AxisFactory; 0 = never made by one
  std::string name;
  Length length;
  AxisClass cls;
  int dual = 0;
};

// Identity is (id, dual): M and M* are different axes of one tensor (a square operator holds
// both), while the name and length are descriptive. == is identity, not structural equality.
bool same_axis(const Axis& a, const Axis& b);
inline bool operator==(const Axis& a, const Axis& b) { return same_axis(a, b); }

// Seed 000's elementwise matching: same identity, else same class, same dual and provably equal
// length. Two axes made without a class never match unless identical, as in seed 004's B and B_.
bool axes_match(const Axis& a, const Axis& b);

// Hands out ids. One factory per graph, passed explicitly, so ids depend only on the calls made
// on it (no global state, tests are independent of each other's order).
struct AxisFactory {
  int64_t next_axis_id = 1;
  int64_t next_class_id = 1;
};

AxisClass make_axis_class(AxisFactory& f, std::string name);
// A fresh axis. Without a class it gets a unique class of its own, named after it (seed 000:
// "if a class is not supplied, a unique class is created for the axis").
Axis make_axis(AxisFactory& f, std::string name, Length length);
Axis make_axis(AxisFactory& f, std::string name, Length length, const AxisClass& cls);
// A new axis of the same class and dual as `source`, e.g. the result of slicing, padding or
// resizing it; an empty name keeps the source's name.
Axis make_axis_like(AxisFactory& f, const Axis& source, Length length, std::string name = {});

Axis with_dual(const Axis& a, int dual);
// Transpose of one axis: M^{k*} -> M^{(1-k)*}, so M <-> M*, and applying it twice is identity.
Axis flip_dual(const Axis& a);

// Name with its dual: "M", "M*", "M^-*", "M^2*"; an unnamed axis shows as "#<id>".
std::string to_string(const Axis& a);

}  // namespace geon
