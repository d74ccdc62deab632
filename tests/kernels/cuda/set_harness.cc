// The device KernelContext of set_harness.h.
#include "tests/kernels/cuda/set_harness.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>

#include "core/base/error.h"
#include "kernels/cpu/kernel_sets.h"
#include "kernels/cuda/allocator.h"
#include "kernels/cuda/kernel_set.h"

namespace geon::cuda::testing {
namespace {

const Device kCuda0{DeviceKind::kCuda, 0};

struct DeviceTensor {
  TensorDesc desc;
  std::shared_ptr<Storage> storage;
};

DeviceTensor upload(const Host& h) {
  DeviceTensor d{h.desc, std::make_shared<Storage>(allocator(0), h.bytes->size())};
  EXPECT_EQ(cudaMemcpy(d.storage->data(), h.bytes->data(), h.bytes->size(), cudaMemcpyHostToDevice),
            cudaSuccess);
  return d;
}

Host download(const DeviceTensor& d) {
  Host h = Host::dense(d.desc.dtype, d.desc.shape);
  EXPECT_EQ(cudaMemcpy(h.bytes->data(), d.storage->data(), h.bytes->size(), cudaMemcpyDeviceToHost),
            cudaSuccess);
  return h;
}

class DeviceContext : public KernelContext {
 public:
  DeviceContext(const std::vector<Host>& inputs, std::vector<DType> out_dtypes)
      : out_dtypes_(std::move(out_dtypes)) {
    for (const Host& h : inputs) {
      TensorRef r;
      if (h.bytes) {
        in_.push_back(upload(h));
        r.desc = h.desc;
        r.data = in_.back().storage->data();
        r.device = kCuda0;
      }
      refs_.push_back(r);
    }
  }
  int num_inputs() const override { return static_cast<int>(refs_.size()); }
  const TensorRef& input(int i) const override { return refs_.at(i); }
  int num_outputs() const override { return static_cast<int>(out_dtypes_.size()); }
  TensorRef& output(int i) override {
    require(planned_.count(i) > 0, "DeviceContext: no planned shape for output");
    return output(i, planned_[i]);
  }
  TensorRef& output(int i, const Dims& shape) override {
    if (planned_.count(i)) {
      EXPECT_EQ(planned_[i], shape) << "kernel's shape differs from the plan";
    }
    const TensorDesc desc = row_major(out_dtypes_.at(i), shape);
    const auto bytes =
        static_cast<size_t>(dtype_bytes_for(desc.dtype, std::max<int64_t>(element_count(desc), 1)));
    outs_[i] = DeviceTensor{desc, std::make_shared<Storage>(allocator(0), bytes)};
    TensorRef r;
    r.desc = desc;
    r.data = outs_[i].storage->data();
    r.device = kCuda0;
    return out_refs_[i] = r;
  }
  void plan(int i, Dims shape) { planned_[i] = std::move(shape); }
  Host result(int i) const { return download(outs_.at(i)); }

 private:
  std::vector<DeviceTensor> in_;
  std::vector<TensorRef> refs_;
  std::vector<DType> out_dtypes_;
  std::map<int, DeviceTensor> outs_;
  std::map<int, TensorRef> out_refs_;
  std::map<int, Dims> planned_;
};

}  // namespace

std::vector<Host> compute_on_device(const NodeGraph& ng, const Kernel& kernel) {
  const Node& n = *ng.node;
  std::vector<DType> dts;
  for (int o : n.outputs) dts.push_back(ng.g.value(o).dtype());
  DeviceContext ctx(ng.inputs, dts);
  for (size_t o = 0; o < n.outputs.size(); ++o)
    if (auto s = static_lengths(ng.g.value(n.outputs[o]).axes); s && !s->empty())
      ctx.plan(static_cast<int>(o), *s);
  kernel.compute(ctx);
  std::vector<Host> outs;
  for (int o = 0; o < ctx.num_outputs(); ++o) outs.push_back(ctx.result(o));
  return outs;
}

std::vector<Host> run_on_device(const NodeGraph& ng, const KernelSet& set) {
  const Node& n = *ng.node;
  const KernelEntry* e = find_kernel(set, n);
  require(e != nullptr, "no entry for " + n.op);
  if (auto why = e->supports(ng.g, n)) fail(ErrorCode::kNotSupported, *why);
  return compute_on_device(ng, *e->create(ng.g, n));
}

void expect_close(const Host& got, const Host& want, double rtol, const std::string& what) {
  ASSERT_EQ(got.desc.dtype, want.desc.dtype) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  int reported = 0;
  for (int64_t i = 0; i < element_count(want.desc); ++i) {
    const double g = got.at(i), w = want.at(i);
    if (std::isnan(w) && std::isnan(g)) continue;
    const bool ok = rtol == 0 ? (g == w || (std::isinf(w) && g == w))
                              : std::abs(g - w) <= 1e-7 + rtol * std::abs(w) || g == w;
    if (!ok && reported++ < 5)
      ADD_FAILURE() << what << ": element " << i << " is " << g << ", cpu.generic gives " << w;
  }
}

void expect_matches_cpu(const NodeGraph& g, double rtol) {
  const Node& n = *g.node;
  std::string what = n.op + "(";
  for (size_t i = 0; i < g.inputs.size(); ++i)
    what += (i ? ", " : "") + (g.inputs[i].bytes ? to_string(g.inputs[i].desc) : "omitted");
  what += ")";
  const std::vector<Host> want = g.run(cpu::generic_kernels());
  const std::vector<Host> got = run_on_device(g, kernel_set());
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t o = 0; o < want.size(); ++o) expect_close(got[o], want[o], rtol, what);
}

}  // namespace geon::cuda::testing
