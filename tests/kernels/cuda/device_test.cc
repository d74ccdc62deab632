// The CUDA probe answers on every machine: available, or not with a reason.
#include <gtest/gtest.h>

#include "kernels/cuda/device.h"

namespace geon::cuda {
namespace {

TEST(CudaDevice, ReportsAvailabilityOrAReasonWithoutAGpu) {
  const Availability a = availability();
  EXPECT_GT(a.runtime_version, 0);
  if (a.available) {
    EXPECT_GT(a.device_count, 0);
    EXPECT_TRUE(a.reason.empty());
  } else {
    EXPECT_EQ(a.device_count, 0);
    EXPECT_FALSE(a.reason.empty());
    EXPECT_NE(a.reason.find("CUDA"), std::string::npos) << a.reason;
  }
}

}  // namespace
}  // namespace geon::cuda
