// Col2Im (18): the sum of sliding blocks back into an image, N-D. Input (N, C * prod(block),
// L) holds, for each channel and block offset, one value per block position; each lands on
// image position position * stride - pad_begin + offset * dilation when that is inside the
// image. The input is staged once as a dense accumulator array (double for floating types and
// bool, 64-bit integers that wrap like numpy for integers); channels run in parallel.
#include <string>
#include <type_traits>
#include <vector>

#include "core/base/error.h"
#include "kernels/cpu/generic/layout/ops.h"

namespace geon::cpu {
namespace {

struct Geometry {
  Dims image, block, dil, stride, pad_begin, cols;  // per spatial dim
  int64_t block_size = 1, col_size = 1, image_size = 1;
};

std::vector<int64_t> attr_or(const std::optional<std::vector<int64_t>>& v, size_t n, int64_t d) {
  return v ? *v : std::vector<int64_t>(n, d);
}

Geometry geometry(const Dims& in, const std::vector<int64_t>& image,
                  const std::vector<int64_t>& block, const std::optional<std::vector<int64_t>>& dil,
                  const std::optional<std::vector<int64_t>>& strides,
                  const std::optional<std::vector<int64_t>>& pads) {
  const size_t n = image.size();
  require(n >= 1, "image_shape (input 1) is empty");
  require(block.size() == n, [&] {
    return "image_shape (input 1) has " + std::to_string(n) +
           " entries but block_shape (input 2) has " + std::to_string(block.size());
  });
  Geometry g;
  g.image = image;
  g.block = block;
  g.dil = attr_or(dil, n, 1);
  g.stride = attr_or(strides, n, 1);
  const std::vector<int64_t> p = attr_or(pads, 2 * n, 0);
  require(g.dil.size() == n && g.stride.size() == n, [&] {
    return "attributes 'dilations' and 'strides' need " + std::to_string(n) + " entries";
  });
  require(p.size() == 2 * n,
          [&] { return "attribute 'pads' needs " + std::to_string(2 * n) + " entries"; });
  for (size_t k = 0; k < n; ++k) {
    require(image[k] >= 0, [&] {
      return "image_shape (input 1) has the negative entry " + std::to_string(image[k]);
    });
    require(block[k] >= 1, [&] {
      return "block_shape (input 2) entries must be positive, got " + std::to_string(block[k]);
    });
    require(g.dil[k] >= 1 && g.stride[k] >= 1 && p[k] >= 0 && p[k + n] >= 0,
            "dilations and strides must be positive and pads non-negative");
    using I = __int128;  // int64 terms: neither the sums nor the product overflow here
    const I span = I{g.dil[k]} * (block[k] - 1) + 1;
    const I room = I{image[k]} + p[k] + p[k + n] - span;
    require(room >= 0, [&] {
      return "block dim " + std::to_string(k) + " (" + std::to_string(block[k]) +
             " with dilation " + std::to_string(g.dil[k]) + ") does not fit image_shape " +
             std::to_string(image[k]) + " with its pads";
    });
    const I count = room / g.stride[k] + 1;
    require(count <= in[2], [&] {
      return "the blocks along dim " + std::to_string(k) + " outnumber the input's " +
             std::to_string(in[2]) + " columns";
    });
    g.cols.push_back(static_cast<int64_t>(count));
    g.pad_begin.push_back(p[k]);
    require(!__builtin_mul_overflow(g.block_size, block[k], &g.block_size),
            "block_shape (input 2) overflows");
    require(!__builtin_mul_overflow(g.col_size, g.cols.back(), &g.col_size) && g.col_size <= in[2],
            [&] {
              return "the number of blocks is more than the input's dim 2 (" +
                     std::to_string(in[2]) + ")";
            });
  }
  require(g.col_size == in[2], [&] {
    return "the input has " + std::to_string(in[2]) +
           " blocks (dim 2) but image_shape, block_shape, dilations, " + "pads and strides give " +
           std::to_string(g.col_size);
  });
  require(in[1] % g.block_size == 0, [&] {
    return "input 0 dim 1 (" + std::to_string(in[1]) +
           ") is not a multiple of prod(block_shape) = " + std::to_string(g.block_size);
  });
  return g;
}

// One channel: src is (block_size, col_size), dst the image (zeroed), both dense.
template <class T>
void scatter_channel(const Geometry& g, const T* src, T* dst) {
  const size_t n = g.image.size();
  std::vector<int64_t> off(n), col(n);
  for (int64_t b = 0; b < g.block_size; ++b) {
    for (int64_t rem = b, k = static_cast<int64_t>(n) - 1; k >= 0; --k) {
      off[k] = rem % g.block[k];
      rem /= g.block[k];
    }
    const T* row = src + b * g.col_size;
    for (int64_t c = 0; c < g.col_size; ++c) {
      int64_t at = 0;
      bool inside = true;
      for (int64_t rem = c, k = static_cast<int64_t>(n) - 1; k >= 0; --k) {
        col[k] = rem % g.cols[k];
        rem /= g.cols[k];
      }
      for (size_t k = 0; k < n && inside; ++k) {
        const int64_t pos = col[k] * g.stride[k] - g.pad_begin[k] + off[k] * g.dil[k];
        inside = pos >= 0 && pos < g.image[k];
        at = at * g.image[k] + pos;
      }
      if (!inside) continue;
      if constexpr (std::is_integral_v<T>)  // two's complement wrap, as numpy's integers do
        dst[at] = static_cast<T>(static_cast<uint64_t>(dst[at]) + static_cast<uint64_t>(row[c]));
      else
        dst[at] += row[c];
    }
  }
}

template <class T>
void col2im_typed(const TensorRef& x, const TensorRef& out, const Geometry& g, DType acc) {
  const int64_t planes = x.desc.shape[0] * (x.desc.shape[1] / g.block_size);
  std::vector<T> src(static_cast<size_t>(element_count(x.desc)));
  assign(Operand{row_major(acc, x.desc.shape), src.data()}, src_of(x));
  const int64_t img = element_count(g.image);
  std::vector<T> dst(static_cast<size_t>(planes * img), T(0));
  const int64_t per = g.block_size * g.col_size;
  parallel_rows(planes, per, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p)
      scatter_channel(g, src.data() + p * per, dst.data() + p * img);
  });
  assign(dst_of(out), ConstOperand(row_major(acc, out.desc.shape), dst.data()));
}

void col2im(KernelContext& ctx, const std::optional<std::vector<int64_t>>& dil,
            const std::optional<std::vector<int64_t>>& strides,
            const std::optional<std::vector<int64_t>>& pads) {
  const TensorRef& x = ctx.input(0);
  require(x.desc.rank() == 3, [&] {
    return "input 0 must be 3-D (N, C * prod(block_shape), L), got " +
           layout_dims_text(x.desc.shape);
  });
  const Geometry g = geometry(x.desc.shape, read_ints(ctx.input(1), "image_shape (input 1)"),
                              read_ints(ctx.input(2), "block_shape (input 2)"), dil, strides, pads);
  Dims shape{x.desc.shape[0], x.desc.shape[1] / g.block_size};
  shape.insert(shape.end(), g.image.begin(), g.image.end());
  const DType t = x.desc.dtype;
  check_output_size(is_integer(t) ? DType::kInt64 : DType::kDouble, shape, "the output");
  const TensorRef& out = ctx.output(0, shape);
  if (element_count(shape) == 0) return;
  if (!is_integer(t))
    col2im_typed<double>(x, out, g, DType::kDouble);
  else if (is_signed(t))
    col2im_typed<int64_t>(x, out, g, DType::kInt64);
  else
    col2im_typed<uint64_t>(x, out, g, DType::kUInt64);
}

}  // namespace

Reason supports_col2im(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  if (t == DType::kString)
    return "Col2Im sums the overlapping blocks of input 0; strings cannot be summed";
  if (Reason r = engine_dtype_reason(t, "input 0")) return r;
  if (is_packed(t)) return "input 0 is " + std::string(dtype_name(t)) + ", a packed dtype";
  for (int i : {1, 2})
    if (Reason r = check_ints_input(g, n, i, i == 1 ? "image_shape" : "block_shape")) return r;
  return std::nullopt;
}

std::unique_ptr<Kernel> create_col2im(const Graph&, const Node& n) {
  auto dil = attr_ints(n, "dilations"), strides = attr_ints(n, "strides"),
       pads = attr_ints(n, "pads");
  return make_node_kernel(
      n, [dil, strides, pads](KernelContext& ctx) { col2im(ctx, dil, strides, pads); });
}

}  // namespace geon::cpu
