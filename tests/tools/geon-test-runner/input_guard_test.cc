// The runner's input check: a snapshot compares equal to untouched inputs, and any changed
// byte (even one, in the second input, or a NaN written over a NaN's other bits) is reported
// with the input's name and where the change is.
#include "tools/geon-test-runner/input_guard.h"

#include <gtest/gtest.h>

#include <cstring>

namespace geon::tools {
namespace {

HostTensor floats(const std::string& name, std::vector<float> values) {
  HostTensor t{name, kFloat, {static_cast<int64_t>(values.size())}, {}, {}};
  t.data.resize(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());  // no null src
  return t;
}

TEST(InputGuardTest, UntouchedInputsPass) {
  std::vector<HostTensor> inputs = {floats("a", {1, 2, 3}), floats("b", {}), floats("c", {4})};
  const InputSnapshot before = snapshot_inputs(inputs);
  EXPECT_EQ(modified_input(before, inputs), "");
}

TEST(InputGuardTest, OneChangedByteNamesTheInputAndTheByte) {
  std::vector<HostTensor> inputs = {floats("a", {1, 2, 3}), floats("b", {4, 5, 6})};
  const InputSnapshot before = snapshot_inputs(inputs);
  // Written through the buffer the provider was handed, as an in-place kernel would.
  const size_t byte = sizeof(float) + 1;
  inputs[1].data[byte] ^= std::byte{1};
  const std::string msg = modified_input(before, inputs);
  EXPECT_NE(msg.find("input 'b' was modified by the run"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1 of 12 bytes changed, the first at byte " + std::to_string(byte)),
            std::string::npos)
      << msg;
}

TEST(InputGuardTest, ASameValuedWriteOfOtherBitsIsStillAChange) {
  // Two NaN payloads (no float comparison tells them apart meaningfully): the check is on bytes, so
  // a kernel that rewrites a NaN payload is caught even though no value comparison would be.
  std::vector<HostTensor> inputs = {floats("x", {0.0f, 1.0f})};
  uint32_t nan_a = 0x7fc00001u, nan_b = 0x7fc00002u;
  std::memcpy(inputs[0].data.data(), &nan_a, 4);
  const InputSnapshot before = snapshot_inputs(inputs);
  std::memcpy(inputs[0].data.data(), &nan_b, 4);
  EXPECT_NE(modified_input(before, inputs).find("input 'x'"), std::string::npos);
  // And -0.0 written over 0.0 (equal as floats) is a change.
  std::memcpy(inputs[0].data.data(), &nan_a, 4);
  const float neg_zero = -0.0f;
  std::memcpy(inputs[0].data.data() + 4, &neg_zero, 4);
  EXPECT_NE(modified_input(before, inputs).find("input 'x'"), std::string::npos);
}

}  // namespace
}  // namespace geon::tools
