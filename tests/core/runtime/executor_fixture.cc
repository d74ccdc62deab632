// The fake kernels and the fake device behind executor_fixture.h. Kernels are naive loops
// over dense row-major tensors; a scalar second operand broadcasts.
#include "tests/core/runtime/executor_fixture.h"

#include <algorithm>
#include <array>
#include <mutex>
#include <new>

#include "core/desc/views.h"
#include "core/engine/thread_pool.h"

namespace geon::testing {
namespace {

std::atomic<int64_t> g_copies{0};
std::atomic<int64_t> g_allocations{0};

// Host memory that claims to be cuda:0.
class FakeDeviceAllocator final : public Allocator {
 public:
  Device device() const override { return kDev; }
  void* allocate(size_t bytes) override {
    ++g_allocations;
    return ::operator new (bytes, std::align_val_t{kStorageAlignment});
  }
  void deallocate(void* p, size_t) override {
    ::operator delete (p, std::align_val_t{kStorageAlignment});
  }
};

void fake_copy(void* dst, Device, const void* src, Device, size_t bytes) {
  ++g_copies;
  std::memcpy(dst, src, bytes);
}

void register_fake_device() {
  static std::once_flag once;
  std::call_once(once, [] {
    static FakeDeviceAllocator alloc;
    register_allocator(alloc);
    register_device_copy(DeviceKind::kCuda, fake_copy);
  });
}

// The storage index of the i-th element in row-major order: views (strided inputs) read right.
int64_t element_at(const TensorDesc& d, int64_t i) {
  int64_t at = d.offset;
  for (int k = d.rank() - 1; k >= 0; --k) {
    const int64_t len = std::max<int64_t>(d.shape[k], 1);
    at += (i % len) * d.strides[k];
    i /= len;
  }
  return at;
}

template <typename T>
struct Reader {
  const T* base;
  const TensorDesc* desc;
  T operator[](int64_t i) const { return base[element_at(*desc, i)]; }
};
template <typename T>
Reader<T> in(const TensorRef& t) {
  return {static_cast<const T*>(t.data), &t.desc};
}
template <typename T>
T* out(TensorRef& t) {
  return static_cast<T*>(t.data);
}

template <typename F>
void binary(KernelContext& ctx, F f) {
  const TensorRef& a = ctx.input(0);
  const TensorRef& b = ctx.input(1);
  const int64_t n = element_count(a.desc), m = element_count(b.desc);
  if (m != n && m != 1) fail(ErrorCode::kInvalidArgument, "shapes differ");
  TensorRef& y = ctx.output(0, a.desc.shape);
  if (a.desc.dtype == DType::kFloat) {
    for (int64_t i = 0; i < n; ++i)
      out<float>(y)[i] = f(in<float>(a)[i], in<float>(b)[m == 1 ? 0 : i]);
  } else if (a.desc.dtype == DType::kInt64) {
    for (int64_t i = 0; i < n; ++i)
      out<int64_t>(y)[i] = f(in<int64_t>(a)[i], in<int64_t>(b)[m == 1 ? 0 : i]);
  } else {
    fail(ErrorCode::kNotSupported, "dtype");
  }
}

void add(KernelContext& ctx) {
  binary(ctx, [](auto x, auto y) { return x + y; });
}
void mul(KernelContext& ctx) {
  binary(ctx, [](auto x, auto y) { return x * y; });
}
void relu(KernelContext& ctx) {
  const TensorRef& x = ctx.input(0);
  TensorRef& y = ctx.output(0, x.desc.shape);
  for (int64_t i = 0; i < element_count(x.desc); ++i)
    out<float>(y)[i] = std::max(in<float>(x)[i], 0.0f);
}
void matmul(KernelContext& ctx) {
  const TensorRef& a = ctx.input(0);
  const TensorRef& b = ctx.input(1);
  const int64_t m = a.desc.shape[0], k = a.desc.shape[1], n = b.desc.shape[1];
  if (b.desc.shape[0] != k) fail(ErrorCode::kInvalidArgument, "inner dims differ");
  TensorRef& y = ctx.output(0, Dims{m, n});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float s = 0;
      for (int64_t p = 0; p < k; ++p) s += in<float>(a)[i * k + p] * in<float>(b)[p * n + j];
      out<float>(y)[i * n + j] = s;
    }
}
void less(KernelContext& ctx) {
  const TensorRef& a = ctx.input(0);
  const TensorRef& b = ctx.input(1);
  TensorRef& y = ctx.output(0, a.desc.shape);
  const bool ints = a.desc.dtype == DType::kInt64;
  for (int64_t i = 0; i < element_count(a.desc); ++i)
    out<uint8_t>(y)[i] =
        ints ? in<int64_t>(a)[i] < in<int64_t>(b)[0] : in<float>(a)[i] < in<float>(b)[0];
}
void identity(KernelContext& ctx) {
  const TensorRef& x = ctx.input(0);
  TensorRef& y = ctx.output(0, x.desc.shape);
  const size_t bytes = static_cast<size_t>(dtype_bytes_for(x.desc.dtype, element_count(x.desc)));
  const auto* src = static_cast<const std::byte*>(x.data);
  if (is_contiguous(x.desc)) {
    if (bytes) std::memcpy(y.data, src + dtype_bytes_for(x.desc.dtype, x.desc.offset), bytes);
    return;
  }
  const int64_t size = dtype_bytes_for(x.desc.dtype, 1);
  for (int64_t i = 0; i < element_count(x.desc); ++i)
    std::memcpy(static_cast<std::byte*>(y.data) + i * size, src + element_at(x.desc, i) * size,
                static_cast<size_t>(size));
}
// Transpose (rank 2): a view kernel; compute() (a copy) runs when the executor does not alias.
TensorDesc transposed(const TensorDesc& d) {
  if (d.rank() != 2) fail(ErrorCode::kInvalidArgument, "Transpose takes matrices");
  return transpose(d);
}
void transpose_copy(KernelContext& ctx) {
  const TensorRef& x = ctx.input(0);
  const TensorDesc v = transposed(x.desc);
  TensorRef& y = ctx.output(0, v.shape);
  const TensorRef src{v, x.data, x.device};
  for (int64_t i = 0; i < element_count(v); ++i) out<float>(y)[i] = in<float>(src)[i];
}
// Flat: all dims merged into one; a view only when the strides allow it (not of a transpose).
std::optional<TensorDesc> flat_view(const TensorDesc& d) {
  return reshape(d, Dims{element_count(d)}).view;
}
void flat_copy(KernelContext& ctx) {
  const TensorRef& x = ctx.input(0);
  TensorRef& y = ctx.output(0, Dims{element_count(x.desc)});
  for (int64_t i = 0; i < element_count(x.desc); ++i) out<float>(y)[i] = in<float>(x)[i];
}
// Grow(n): n floats, each n; the output shape depends on the input's value.
void grow(KernelContext& ctx) {
  const int64_t n = in<int64_t>(ctx.input(0))[0];
  TensorRef& y = ctx.output(0, Dims{n});
  for (int64_t i = 0; i < n; ++i) out<float>(y)[i] = static_cast<float>(n);
}
void neg(KernelContext& ctx) {
  const TensorRef& x = ctx.input(0);
  TensorRef& y = ctx.output(0, x.desc.shape);
  for (int64_t i = 0; i < element_count(x.desc); ++i) out<float>(y)[i] = -in<float>(x)[i];
}
void sub(KernelContext& ctx) {
  binary(ctx, [](auto x, auto y) { return x - y; });
}
// Reverse: the elements in reverse order, the dims too. Claims in place (wrongly: it reads
// element n-1-i for element i), so a run that shared memory with it would show.
void reverse(KernelContext& ctx) {
  const TensorRef& x = ctx.input(0);
  const Dims shape(x.desc.shape.rbegin(), x.desc.shape.rend());
  TensorRef& y = ctx.output(0, shape);
  const int64_t n = element_count(x.desc);
  for (int64_t i = 0; i < n; ++i) out<float>(y)[i] = in<float>(x)[n - 1 - i];
}
// PoolSize: one float, the size of the engine pool a kernel calling the engine would use.
void pool_size(KernelContext& ctx) {
  TensorRef& y = ctx.output(0, Dims{1});
  out<float>(y)[0] = static_cast<float>(default_thread_pool().size());
}
void failing(KernelContext&) { fail(ErrorCode::kOutOfRange, "boom"); }
// Fills its output, asked for with the planned shape, with ones.
void planned(KernelContext& ctx) {
  TensorRef& y = ctx.output(0);
  for (int64_t i = 0; i < element_count(y.desc); ++i) out<float>(y)[i] = 1;
}

using Fn = void (*)(KernelContext&);

class FnKernel final : public Kernel {
 public:
  FnKernel(Fn f, Device d, std::span<const int> in_place = {})
      : f_(f), device_(d), in_place_(in_place) {}
  std::span<const int> in_place_inputs() const override { return in_place_; }
  void compute(KernelContext& ctx) const override {
    for (int i = 0; i < ctx.num_inputs(); ++i)
      if (ctx.input(i).present() && ctx.input(i).device != device_)
        fail(ErrorCode::kInternal, "input " + std::to_string(i) + " is on " +
                                       to_string(ctx.input(i).device) + ", the kernel on " +
                                       to_string(device_));
    f_(ctx);
  }

 private:
  Fn f_;
  Device device_;
  std::span<const int> in_place_;
};

// A view kernel: the view function, and compute() for when the executor copies instead.
// Counts its compute() calls, so tests see whether the executor aliased.
using ViewFn = std::optional<TensorDesc> (*)(const TensorDesc&);
std::atomic<int64_t> g_view_copies{0};
class FakeViewKernel final : public Kernel {
 public:
  FakeViewKernel(ViewFn v, Fn copy) : view_(v), copy_(copy) {}
  bool is_view() const override { return true; }
  std::optional<TensorDesc> view(const KernelContext& ctx) const override {
    return view_(ctx.input(0).desc);
  }
  void compute(KernelContext& ctx) const override {
    ++g_view_copies;
    copy_(ctx);
  }

 private:
  ViewFn view_;
  Fn copy_;
};
std::optional<TensorDesc> transpose_view(const TensorDesc& d) { return transposed(d); }

constexpr int kFirst[] = {0};
constexpr int kBoth[] = {0, 1};

template <Fn F>
std::unique_ptr<Kernel> on_host(const Graph&, const Node&) {
  return std::make_unique<FnKernel>(F, Device{});
}
template <Fn F>
std::unique_ptr<Kernel> on_dev(const Graph&, const Node&) {
  return std::make_unique<FnKernel>(F, kDev);
}
template <Fn F, const auto& InPlace>
std::unique_ptr<Kernel> in_place_on(const Graph&, const Node&) {
  return std::make_unique<FnKernel>(F, Device{}, InPlace);
}
template <Fn F, const auto& InPlace>
std::unique_ptr<Kernel> in_place_on_dev(const Graph&, const Node&) {
  return std::make_unique<FnKernel>(F, kDev, InPlace);
}

// PackedMatMul: MatMul whose B, a constant, is copied when the kernel is made and declared
// packed (Kernel::packed_inputs): compute() reads the copy and never input 1.
class PackedMatMulKernel final : public Kernel {
 public:
  PackedMatMulKernel(const Graph& g, const Node& n) {
    const TensorData& b = *g.values.at(n.inputs.at(1)).data;
    b_.desc = b.desc;
    b_.bytes.assign(b.bytes(), b.bytes() + dtype_bytes_for(b.desc.dtype, b.elements()));
  }
  std::span<const int> packed_inputs() const override { return kPacked; }
  void compute(KernelContext& ctx) const override {
    FakeInputs in{ctx.input(0), {b_.desc, const_cast<std::byte*>(b_.bytes.data()), Device{}}, ctx};
    matmul(in);
  }

 private:
  // ctx with input 1 replaced by the kernel's own copy.
  struct FakeInputs final : KernelContext {
    FakeInputs(TensorRef a, TensorRef b, KernelContext& ctx) : a_(a), b_(b), ctx_(ctx) {}
    int num_inputs() const override { return 2; }
    const TensorRef& input(int i) const override { return i == 0 ? a_ : b_; }
    int num_outputs() const override { return 1; }
    TensorRef& output(int i) override { return ctx_.output(i); }
    TensorRef& output(int i, const Dims& shape) override { return ctx_.output(i, shape); }
    TensorRef a_, b_;
    KernelContext& ctx_;
  };
  static constexpr int kPacked[] = {1};
  HostTensor b_;
};
std::unique_ptr<Kernel> packed_matmul_kernel(const Graph& g, const Node& n) {
  return std::make_unique<PackedMatMulKernel>(g, n);
}

std::unique_ptr<Kernel> transpose_kernel(const Graph&, const Node&) {
  return std::make_unique<FakeViewKernel>(transpose_view, transpose_copy);
}
std::unique_ptr<Kernel> flat_kernel(const Graph&, const Node&) {
  return std::make_unique<FakeViewKernel>(flat_view, flat_copy);
}

std::optional<std::string> any(const Graph&, const Node&) { return std::nullopt; }
std::optional<std::string> floats_only(const Graph& g, const Node& n) {
  for (int v : n.inputs)
    if (v >= 0 && g.values[v].dtype() != DType::kFloat) return "float only";
  return std::nullopt;
}

constexpr KernelEntry kHostEntries[] = {
    {"", "Add", 7, any, on_host<add>},
    {"", "Mul", 7, any, on_host<mul>},
    {"", "Relu", 6, any, on_host<relu>},
    {"", "MatMul", 1, any, on_host<matmul>},
    {"", "PackedMatMul", 1, any, packed_matmul_kernel},
    {"", "Less", 9, any, on_host<less>},
    {"", "Identity", 1, any, on_host<identity>},
    {"", "Grow", 1, any, on_host<grow>},
    {"", "Fail", 1, any, on_host<failing>},
    {"", "Planned", 1, any, on_host<planned>},
    {"", "Neg", 6, any, in_place_on<neg, kFirst>},
    {"", "Sub", 7, any, in_place_on<sub, kBoth>},
    {"", "Reverse", 1, any, in_place_on<reverse, kFirst>},
    {"", "PoolSize", 1, any, on_host<pool_size>},
    {"", "Transpose", 1, any, transpose_kernel},
    {"", "TransposeCopy", 1, any, on_host<transpose_copy>},
    {"", "Flat", 1, any, flat_kernel},
};
constexpr KernelEntry kDevEntries[] = {
    {"", "Add", 7, floats_only, on_dev<add>},
    {"", "Mul", 7, floats_only, on_dev<mul>},
    {"", "Relu", 6, floats_only, on_dev<relu>},
    {"", "MatMul", 1, floats_only, on_dev<matmul>},
    {"", "Neg", 6, floats_only, in_place_on_dev<neg, kFirst>},
    {"", "Sub", 7, floats_only, in_place_on_dev<sub, kBoth>},
};

}  // namespace

std::shared_ptr<Graph> batch_chain() {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {"N", 4});
  const int r = b.node("Relu", {x}, "r", DType::kFloat, {"N", 4});
  const int s = b.node("Add", {r, x}, "s", DType::kFloat, {"N", 4});
  const int t = b.node("Relu", {s}, "t", DType::kFloat, {"N", 4});
  b.output(b.node("Mul", {t, x}, "y", DType::kFloat, {"N", 4}));
  return b.shared();
}

std::shared_ptr<const TensorData> float_data(Dims shape, const std::vector<float>& v) {
  auto d = make_tensor_data(DType::kFloat, shape);
  std::memcpy(d->storage->data(), v.data(), v.size() * sizeof(float));
  return d;
}
std::shared_ptr<const TensorData> int64_data(Dims shape, const std::vector<int64_t>& v) {
  auto d = make_tensor_data(DType::kInt64, shape);
  std::memcpy(d->storage->data(), v.data(), v.size() * sizeof(int64_t));
  return d;
}

const KernelSet& host_set() {
  static const KernelSet set{"test.host", Device{}, kHostEntries};
  return set;
}
std::span<const KernelSet* const> host_only() {
  static const std::array<const KernelSet*, 1> sets{&host_set()};
  return sets;
}
const KernelSet& dev_set() {
  register_fake_device();
  static const KernelSet set{"test.dev", kDev, kDevEntries};
  return set;
}
int64_t device_copies() { return g_copies; }
int64_t view_copies() { return g_view_copies; }
int64_t device_allocations() { return g_allocations; }

}  // namespace geon::testing
