// BitCast (opset 26): the input's bits read as another dtype of the same width, shape
// unchanged. Input and output are both described as the unsigned integer of that width and
// assigned one into the other: an integer copy keeps every bit (a float copy could canonicalise
// NaN codes), and the engine reads the input's strides and packed layout as usual.
#include <algorithm>
#include <string>

#include "core/base/error.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/quant/ops.h"

namespace geon::cpu {
namespace {

// Numeric types up to 64 bits (complex64's two floats included; complex128 has no partner).
bool castable(DType t) { return is_numeric(t) && dtype_bits(t) > 0 && dtype_bits(t) <= 64; }

// The unsigned integer type of a width.
DType bits_dtype(int bits) {
  switch (bits) {
    case 2:
      return DType::kUInt2;
    case 4:
      return DType::kUInt4;
    case 8:
      return DType::kUInt8;
    case 16:
      return DType::kUInt16;
    case 32:
      return DType::kUInt32;
    case 64:
      return DType::kUInt64;
    default:
      fail(ErrorCode::kNotSupported, "no bit copy of " + std::to_string(bits) + "-bit elements");
  }
}

void bitcast(KernelContext& ctx) {
  const TensorRef& x = ctx.input(0);
  const TensorRef& out = ctx.output(0, x.desc.shape);
  const DType from = x.desc.dtype, to = out.desc.dtype;
  require(castable(from) && castable(to) && dtype_bits(from) == dtype_bits(to), [&] {
    return "input 0 is " + std::string(dtype_name(from)) + " and the output " +
           std::string(dtype_name(to)) + "; a bit cast needs two numeric types of one width";
  });
  if (element_count(x.desc) == 0) return;
  TensorDesc src = x.desc, dst = out.desc;
  src.dtype = dst.dtype = bits_dtype(dtype_bits(from));
  assign(Operand{dst, out.data}, ConstOperand(src, x.data));
}

}  // namespace

Reason supports_bitcast(const Graph& g, const Node& n) {
  const DType from = input_dtype(g, n, 0), to = output_dtype(g, n, 0);
  if (!castable(from) || !castable(to) || dtype_bits(from) != dtype_bits(to))
    return n.op + ": " + std::string(dtype_name(from)) + " to " + std::string(dtype_name(to)) +
           " is refused; both must be numeric types of one width";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_bitcast(const Graph&, const Node& n) {
  return make_node_kernel(n, bitcast);
}

}  // namespace geon::cpu
