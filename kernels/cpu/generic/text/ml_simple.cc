// ai.onnx.ml ArrayFeatureExtractor (picks elements along the last dim by index, strings too)
// and Binarizer (1 where x > threshold, else 0, in x's dtype).
#include <cstring>

#include "core/base/error.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {

Reason supports_array_feature_extractor(const Graph& g, const Node& n) {
  if (Reason r = string_or_engine_reason(input_dtype(g, n, 0), "input 0")) return r;
  if (input_dtype(g, n, 1) != DType::kInt64) return "input 1 (indices) is not int64";
  return std::nullopt;
}
std::unique_ptr<Kernel> create_array_feature_extractor(const Graph&, const Node& n) {
  return make_node_kernel(n, [](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const TensorRef& y = ctx.input(1);
    require(x.desc.rank() >= 1, "input 0 must have at least one dim");
    const int64_t f = x.desc.shape.back();
    const std::vector<int64_t> idx = read_int64s(y);
    for (size_t k = 0; k < idx.size(); ++k)
      if (idx[k] < 0 || idx[k] >= f)
        fail(ErrorCode::kOutOfRange, "index " + std::to_string(idx[k]) + " (indices element " +
                                         std::to_string(k) +
                                         ") is out of range for the last "
                                         "dim of length " +
                                         std::to_string(f));
    Dims shape = x.desc.shape;
    if (shape.size() == 1) shape.insert(shape.begin(), 1);  // a vector gives one row
    shape.back() = static_cast<int64_t>(idx.size());
    const TensorRef& dst = ctx.output(0, shape);
    const int64_t rows =
        f ? element_count(x.desc) / f : element_count(Dims(shape.begin(), shape.end() - 1));
    const DType t = x.desc.dtype;
    const auto w = static_cast<size_t>(dtype_bytes_for(t, 1));
    require(!is_packed(t), "packed element types are not supported");
    std::vector<std::byte> src(static_cast<size_t>(element_count(x.desc)) * w);
    if (!src.empty()) assign(Operand{row_major(t, x.desc.shape), src.data()}, src_of(x));
    std::vector<std::byte> out(static_cast<size_t>(element_count(shape)) * w);
    for (int64_t r = 0; r < rows; ++r)
      for (size_t k = 0; k < idx.size(); ++k)
        std::memcpy(out.data() + (static_cast<size_t>(r) * idx.size() + k) * w,
                    src.data() + (static_cast<size_t>(r * f + idx[k])) * w, w);
    if (!out.empty()) assign(dst_of(dst), ConstOperand(row_major(t, shape), out.data()));
  });
}

Reason supports_binarizer(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  if (t != DType::kFloat && t != DType::kDouble && t != DType::kInt64 && t != DType::kInt32)
    return "input 0 is " + std::string(dtype_name(t)) +
           "; Binarizer takes float, double, int64 "
           "or int32";
  return std::nullopt;
}
std::unique_ptr<Kernel> create_binarizer(const Graph&, const Node& n) {
  const double threshold = attr_float(n, "threshold", 0.0f);
  return make_node_kernel(n, [threshold](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const TensorRef& dst = ctx.output(0, x.desc.shape);
    std::vector<double> v = read_doubles(x);
    for (double& e : v) e = e > threshold ? 1.0 : 0.0;
    if (!v.empty())
      assign(dst_of(dst), ConstOperand(row_major(DType::kDouble, x.desc.shape), v.data()));
  });
}

}  // namespace geon::cpu
