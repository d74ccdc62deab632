// The fake KernelContext and hand-built graphs of harness.h.
#include "tests/kernels/cpu/harness.h"

#include <gtest/gtest.h>

#include "core/base/error.h"
#include "core/graph/tensor_data.h"

namespace geon::cpu::testing {

int64_t storage_index(const TensorDesc& d, int64_t i) {
  int64_t pos = d.offset;
  for (int k = d.rank() - 1; k >= 0; --k) {
    const int64_t len = d.shape[k];
    pos += (i % len) * d.strides[k];
    i /= len;
  }
  return pos;
}

double Host::at(int64_t i) const {
  return scalar_to_double(load_scalar(desc.dtype, bytes->data(), storage_index(desc, i)));
}

void Host::set(int64_t i, double v) {
  Scalar s;
  if (is_floating(desc.dtype)) {
    s.kind = Scalar::Kind::kFloat;
    s.re = v;
  } else if (desc.dtype == DType::kBool) {
    s.kind = Scalar::Kind::kUnsigned;
    s.u = std::llround(v) != 0;  // so random() in [0, 2) gives both values
  } else {
    s.kind = Scalar::Kind::kSigned;
    s.i = static_cast<int64_t>(std::llround(v));
  }
  store_scalar(desc.dtype, bytes->data(), storage_index(desc, i), s);
}

Host Host::strided(const std::vector<int64_t>& perm) const {
  // Storage holds permute(x, perm) densely; undoing the permutation gives x's logical order.
  Dims pshape(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) pshape[k] = desc.shape[perm[k]];
  Host p = dense(desc.dtype, pshape);
  const TensorDesc pview = permute(desc, perm);
  for (int64_t i = 0; i < element_count(pshape); ++i) {
    Host src{pview, bytes};
    p.set(i, src.at(i));
  }
  std::vector<int64_t> inv(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) inv[perm[k]] = static_cast<int64_t>(k);
  return Host{permute(p.desc, inv), p.bytes};
}

FakeContext::FakeContext(std::vector<Host> inputs, std::vector<DType> out_dtypes)
    : in_(std::move(inputs)), out_dtypes_(std::move(out_dtypes)) {
  for (const Host& h : in_) {
    TensorRef r;
    if (h.bytes) {
      r.desc = h.desc;
      r.data = h.bytes->data();
    }
    refs_.push_back(r);
  }
}

TensorRef& FakeContext::output(int i) {
  require(planned_.count(i) > 0, "FakeContext: no planned shape for output");
  return output(i, planned_[i]);
}

TensorRef& FakeContext::output(int i, const Dims& shape) {
  if (planned_.count(i)) {
    EXPECT_EQ(planned_[i], shape) << "kernel's shape differs from the plan";
  }
  outs_[i] = Host::dense(out_dtypes_.at(i), shape);
  TensorRef r;
  r.desc = outs_[i].desc;
  r.data = outs_[i].bytes->data();
  return out_refs_[i] = r;
}

NodeGraph::NodeGraph(std::string op, int opset) {
  g.axis_factory = std::make_shared<AxisFactory>();
  g.nodes.emplace_back();
  node = &g.nodes.back();
  node->op = std::move(op);
  node->opset = opset;
}

namespace {
Axes axes_of(AxisFactory& f, const Dims& shape) {
  std::vector<Axis> a;
  for (int64_t len : shape) a.push_back(make_axis(f, "", Length::known(len)));
  return Axes(a);
}
}  // namespace

NodeGraph& NodeGraph::in(const Host& h, bool constant) {
  Value v;
  v.name = "in" + std::to_string(g.values.size());
  v.type.dtype = h.desc.dtype;
  v.axes = axes_of(g.factory(), h.desc.shape);
  v.rank_known = true;
  if (constant) {
    v.kind = ValueKind::kConstant;
    auto data = make_tensor_data(h.desc.dtype, h.desc.shape);
    for (int64_t i = 0; i < element_count(h.desc); ++i) {
      Scalar s = load_scalar(h.desc.dtype, h.bytes->data(), storage_index(h.desc, i));
      store_scalar(h.desc.dtype, data->storage->data(), i, s);
    }
    v.data = data;
  }
  node->inputs.push_back(g.add_value(std::move(v)));
  inputs.push_back(h);
  return *this;
}

NodeGraph& NodeGraph::omitted() {
  node->inputs.push_back(-1);
  inputs.push_back(Host{});
  return *this;
}

NodeGraph& NodeGraph::out(DType t, const Dims& shape) {
  Value v;
  v.name = "out" + std::to_string(g.values.size());
  v.type.dtype = t;
  v.axes = axes_of(g.factory(), shape);
  v.rank_known = !shape.empty();
  node->outputs.push_back(g.add_value(std::move(v)));
  return *this;
}

NodeGraph& NodeGraph::attr_i(const std::string& name, int64_t v) {
  Attribute a;
  a.kind = Attribute::Kind::kInt;
  a.i = v;
  node->attrs[name] = a;
  return *this;
}
NodeGraph& NodeGraph::attr_f(const std::string& name, float v) {
  Attribute a;
  a.kind = Attribute::Kind::kFloat;
  a.f = v;
  node->attrs[name] = a;
  return *this;
}
NodeGraph& NodeGraph::attr_s(const std::string& name, std::string v) {
  Attribute a;
  a.kind = Attribute::Kind::kString;
  a.s = std::move(v);
  node->attrs[name] = a;
  return *this;
}
NodeGraph& NodeGraph::attr_ints(const std::string& name, std::vector<int64_t> v) {
  Attribute a;
  a.kind = Attribute::Kind::kInts;
  a.ints = std::move(v);
  node->attrs[name] = a;
  return *this;
}

std::optional<std::string> NodeGraph::supports(const KernelSet& set) const {
  const KernelEntry* e = find_kernel(set, *node);
  if (!e) return "no entry";
  return e->supports(g, *node);
}

std::vector<Host> NodeGraph::run(const KernelSet& set) const {
  const KernelEntry* e = find_kernel(set, *node);
  require(e != nullptr, "no entry for " + node->op);
  if (auto why = e->supports(g, *node)) fail(ErrorCode::kNotSupported, *why);
  std::vector<DType> dts;
  for (int o : node->outputs) dts.push_back(g.value(o).dtype());
  FakeContext ctx(inputs, dts);
  for (size_t o = 0; o < node->outputs.size(); ++o)
    if (auto s = static_lengths(g.value(node->outputs[o]).axes); s && !s->empty())
      ctx.plan(static_cast<int>(o), *s);
  e->create(g, *node)->compute(ctx);
  std::vector<Host> outs;
  for (int o = 0; o < ctx.num_outputs(); ++o) outs.push_back(ctx.result(o));
  return outs;
}

Host ints(const std::vector<int64_t>& v) {
  std::vector<double> d(v.begin(), v.end());
  return Host::of(DType::kInt64, {static_cast<int64_t>(v.size())}, d);
}

}  // namespace geon::cpu::testing
