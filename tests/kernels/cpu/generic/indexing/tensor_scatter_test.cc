// cpu.generic TensorScatter against the spec's pseudocode: linear and circular modes (runs that
// wrap), every sequence axis, write_indices omitted, strided inputs, int4 and complex data, and
// the errors for a linear run past the cache and an update longer than the cache.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// The spec's loops: for each prefix (dims before axis) and sequence entry s, cache position
// w[batch] + s (mod the cache length when circular) takes update's entry s.
std::vector<double> scattered(const Host& past, const Host& upd, const std::vector<int64_t>& w,
                              int axis, bool circular) {
  const Dims ps = past.shape(), us = upd.shape();
  std::vector<double> out;
  for (int64_t i = 0; i < element_count(ps); ++i) out.push_back(past.at(i));
  const int r = static_cast<int>(ps.size());
  for (int64_t i = 0; i < element_count(us); ++i) {
    std::vector<int64_t> c(r);
    int64_t rest = i;
    for (int d = r - 1; d >= 0; --d) {
      c[d] = rest % us[d];
      rest /= us[d];
    }
    int64_t pos = w[c[0]] + c[axis];
    if (circular) pos = ((pos % ps[axis]) + ps[axis]) % ps[axis];
    c[axis] = pos;
    int64_t dst = 0;
    for (int d = 0; d < r; ++d) dst = dst * ps[d] + c[d];
    out[dst] = upd.at(i);
  }
  return out;
}

void expect_scatter(const Host& past, const Host& upd, const std::vector<int64_t>& w,
                    int64_t axis_attr, bool circular, bool give_indices = true) {
  NodeGraph ng("TensorScatter", 24);
  ng.in(past).in(upd);
  if (give_indices) ng.in(ints(w));
  ng.out(past.desc.dtype).attr_i("axis", axis_attr);
  if (circular) ng.attr_s("mode", "circular");
  const int r = past.desc.rank();
  const std::vector<double> want =
      scattered(past, upd, give_indices ? w : std::vector<int64_t>(past.shape()[0], 0),
                static_cast<int>(axis_attr < 0 ? axis_attr + r : axis_attr), circular);
  expect_values(
      ng.run(gen())[0], past.shape(), [&](int64_t i) { return want[i]; }, 0);
}

TEST(CpuGenericTensorScatter, LinearAndCircularOverEveryAxis) {
  std::mt19937 rng(51);
  for (int trial = 0; trial < 40; ++trial) {
    const int r = 2 + trial % 3;
    const Dims ps = random_shape(rng, r, 5);
    const int axis = 1 + static_cast<int>(rng() % (r - 1));
    Dims us = ps;
    us[axis] = static_cast<int64_t>(rng() % (ps[axis] + 1));
    const bool circular = trial % 2 == 1;
    std::vector<int64_t> w(ps[0]);
    for (int64_t& v : w)
      v = circular ? static_cast<int64_t>(rng() % 20) - 10
                   : static_cast<int64_t>(rng() % (ps[axis] - us[axis] + 1));
    const Host past = Host::random(DType::kFloat, ps, rng);
    const Host upd = Host::random(DType::kFloat, us, rng);
    expect_scatter(past, upd, w, trial % 3 ? axis : axis - r, circular);
  }
}

TEST(CpuGenericTensorScatter, DefaultsStridedInputsAndOtherDtypes) {
  std::mt19937 rng(52);
  // No write_indices and the default axis -2: the update lands at the front.
  expect_scatter(Host::random(DType::kFloat, {2, 3, 6, 4}, rng),
                 Host::random(DType::kFloat, {2, 3, 2, 4}, rng), {0, 0}, -2, false, false);
  for (DType t : {DType::kFloat, DType::kInt4, DType::kFloat16, DType::kComplex64, DType::kBool}) {
    const Host past = Host::random(t, {3, 5, 4}, rng, 0, 4);
    const Host upd = Host::random(t, {3, 3, 4}, rng, 0, 4);
    expect_scatter(past.strided({2, 1, 0}), upd.strided({1, 0, 2}), {4, 0, 2}, 1, true);
    expect_scatter(past, upd, {1, 2, 0}, 1, false);
  }
}

TEST(CpuGenericTensorScatter, RunsThatDoNotFitAreErrors) {
  const Host past = Host::dense(DType::kFloat, {2, 4, 3});
  NodeGraph ng("TensorScatter", 24);
  ng.in(past).in(Host::dense(DType::kFloat, {2, 2, 3})).in(ints({1, 3})).out(DType::kFloat);
  ng.attr_i("axis", 1);
  expect_error(ng, gen(), ErrorCode::kOutOfRange,
               {"TensorScatter", "write_indices[1] is 3", "sequence length 4"});
  NodeGraph neg("TensorScatter", 24);
  neg.in(past).in(Host::dense(DType::kFloat, {2, 2, 3})).in(ints({-1, 0})).out(DType::kFloat);
  neg.attr_i("axis", 1);
  expect_error(neg, gen(), ErrorCode::kOutOfRange, {"write_indices[0] is -1"});
  NodeGraph longer("TensorScatter", 24);
  longer.in(past).in(Host::dense(DType::kFloat, {2, 5, 3})).out(DType::kFloat).attr_i("axis", 1);
  expect_error(longer, gen(), ErrorCode::kInvalidArgument, {"longer along the sequence axis 1"});
}

}  // namespace
}  // namespace geon::cpu::testing
