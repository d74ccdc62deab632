// Expecting a kernel run to fail with a geon::Error of a given code whose message names what
// went wrong, for the bad-input tests of the cpu.generic kernels.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "core/base/error.h"
#include "tests/kernels/cpu/harness.h"

namespace geon::cpu::testing {

// Runs ng on `set` and expects an Error of `code` whose message holds every one of `parts`.
inline void expect_error(const NodeGraph& ng, const KernelSet& set, ErrorCode code,
                         std::initializer_list<const char*> parts) {
  try {
    ng.run(set);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const char* p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

}  // namespace geon::cpu::testing
