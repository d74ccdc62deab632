// The axes seed 004 predefines (A..D of lengths 1..4 and A_..D_, same lengths, other labels),
// made fresh for every test so that no test depends on another's ids; and a helper that
// returns the message of the geon::Error a call throws, so tests assert the exact text.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/axes/axes.h"
#include "core/base/error.h"

namespace geon {
namespace {

class Seed004 : public ::testing::Test {
 protected:
  AxisFactory f;
  Axis A = make_axis(f, "A", Length::known(1));
  Axis B = make_axis(f, "B", Length::known(2));
  Axis C = make_axis(f, "C", Length::known(3));
  Axis D = make_axis(f, "D", Length::known(4));
  Axis A_ = make_axis(f, "A_", Length::known(1));
  Axis B_ = make_axis(f, "B_", Length::known(2));
  Axis C_ = make_axis(f, "C_", Length::known(3));
  Axis D_ = make_axis(f, "D_", Length::known(4));
};

// M* spelled out, independent of flip_dual, so dot tests pin the convention on their own.
inline Axis star(const Axis& a) { return with_dual(a, 1); }

// Identity-equal as ordered lists; on failure prints both lists by name.
inline ::testing::AssertionResult same_axes(const Axes& got, const Axes& want) {
  if (got == want) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "got " << to_string_with_lengths(got) << ", want " << to_string_with_lengths(want);
}

template <class Fn>
std::string error_message(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a geon::Error";
  return "";
}

}  // namespace
}  // namespace geon
