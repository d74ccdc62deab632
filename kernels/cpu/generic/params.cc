// Parameter inputs of the cpu.generic kernels (shape, axes, starts, ...): read once when the
// graph holds them as constants, else read from the run's host tensor, so shape computations
// the importer could not fold still run. Also the size bound on run-time-shaped outputs.
#include <limits>

#include "core/base/error.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {

std::vector<int64_t> IntsInput::read(const KernelContext& ctx, std::string_view what) const {
  if (index < 0) return {};
  if (constant) return *constant;
  require(index < ctx.num_inputs(),
          [&] { return std::string(what) + " is missing from the run's inputs"; });
  return read_ints(ctx.input(index), what);
}

IntsInput ints_input(const Graph& g, const Node& n, int i) {
  IntsInput p;
  if (!has_input(n, i)) return p;
  p.index = i;
  p.constant = constant_ints(g, n, i);
  return p;
}

Reason check_ints_input(const Graph& g, const Node& n, int i, std::string_view what) {
  if (!has_input(n, i)) return std::nullopt;
  const DType t = input_dtype(g, n, i);
  if (!is_integer(t))
    return std::string(what) + " is " + std::string(dtype_name(t)) + ", not an integer tensor";
  return std::nullopt;
}

std::vector<int64_t> read_ints(const TensorRef& t, std::string_view what) {
  const std::string name(what);
  require(is_integer(t.desc.dtype), [&] {
    return name + " must be an integer tensor, not " + std::string(dtype_name(t.desc.dtype));
  });
  require(t.desc.rank() <= 1, [&] {
    return name + " must be a scalar or 1-D, not of rank " + std::to_string(t.desc.rank());
  });
  if (t.device.kind != DeviceKind::kHost)
    fail(ErrorCode::kNotSupported, name + " must be in host memory");
  const int64_t count = element_count(t.desc);
  std::vector<int64_t> out(count);
  if (count == 0) return out;
  require(t.data != nullptr, [&] { return name + " has no data"; });
  // One engine assign converts any integer dtype and layout into dense int64.
  assign(Operand{row_major(DType::kInt64, t.desc.shape), out.data()}, src_of(t));
  return out;
}

void check_output_size(DType dtype, const Dims& shape, std::string_view what) {
  bool empty = false;
  for (int64_t len : shape) {
    require(len >= 0,
            [&] { return std::string(what) + ": negative length " + std::to_string(len); });
    empty = empty || len == 0;
  }
  if (empty) return;
  // Packed dtypes count as a whole byte per element here; the bound only needs to be safe.
  const int64_t limit = kMaxRunTimeOutputBytes / std::max<int64_t>(dtype_bytes_for(dtype, 1), 1);
  int64_t count = 1;
  for (int64_t len : shape) {
    if (count > limit / len)
      fail(ErrorCode::kResourceExhausted, std::string(what) +
                                              ": the output would be above the limit of " +
                                              std::to_string(kMaxRunTimeOutputBytes) + " bytes");
    count *= len;
  }
}

std::unique_ptr<Kernel> make_node_kernel(const Node& n, FnKernel::Fn fn) {
  return make_kernel([op = n.op, fn = std::move(fn)](KernelContext& ctx) {
    try {
      fn(ctx);
    } catch (const Error& e) {
      fail(e.code(), op + ": " + e.what());
    }
  });
}

}  // namespace geon::cpu
