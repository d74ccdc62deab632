// Map values for the maps family's kernel tests: a node whose inputs may be maps (ListValues of
// keys and values) and whose output may be a sequence of maps, run through a KernelContext that
// holds lists (the harness's FakeContext refuses them), and helpers to build and read maps.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/buffer/buffer.h"
#include "core/runtime/executor.h"
#include "core/strings/strings.h"
#include "tests/kernels/cpu/generic/text/text_harness.h"

namespace geon::cpu::testing {

// An owned dense copy of h (string handles copied as they are: the test keeps their bytes).
inline OwnedTensor owned(const Host& h) {
  const auto n = element_count(h.desc);
  const auto bytes = static_cast<size_t>(dtype_bytes_for(h.desc.dtype, n));
  OwnedTensor t{row_major(h.desc.dtype, h.desc.shape), nullptr};
  if (bytes == 0) return t;
  t.storage = std::make_shared<Storage>(host_allocator(), bytes);
  const auto esize = static_cast<size_t>(dtype_bytes_for(h.desc.dtype, 1));
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(t.storage->data() + i * esize, h.bytes->data() + storage_index(h.desc, i) * esize,
                esize);
  return t;
}

// A map of the given keys and values (numbers, converted to `value`).
inline ListRef int_map(const std::vector<int64_t>& keys, DType value,
                       const std::vector<double>& values) {
  auto l = std::make_shared<ListValue>();
  l->items.push_back(owned(ints(keys)));
  l->items.push_back(owned(Host::of(value, {static_cast<int64_t>(values.size())}, values)));
  return l;
}
inline ListRef int_text_map(const std::vector<int64_t>& keys,
                            const std::vector<std::string>& values) {
  auto l = std::make_shared<ListValue>();
  l->items.push_back(owned(ints(keys)));
  l->items.push_back(owned(strings({static_cast<int64_t>(values.size())}, values)));
  return l;
}
inline ListRef text_map(const std::vector<std::string>& keys, DType value,
                        const std::vector<double>& values) {
  auto l = std::make_shared<ListValue>();
  l->items.push_back(owned(strings({static_cast<int64_t>(keys.size())}, keys)));
  l->items.push_back(owned(Host::of(value, {static_cast<int64_t>(values.size())}, values)));
  return l;
}

// Reading an owned tensor back.
inline std::vector<double> numbers(const OwnedTensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < element_count(t.desc); ++i)
    out.push_back(scalar_to_double(load_scalar(t.desc.dtype, t.data(), i)));
  return out;
}
inline std::vector<int64_t> int64s(const OwnedTensor& t) {
  std::vector<int64_t> out(static_cast<size_t>(element_count(t.desc)));
  if (!out.empty()) std::memcpy(out.data(), t.data(), out.size() * sizeof(int64_t));
  return out;
}
inline std::vector<std::string> texts(const OwnedTensor& t) {
  std::vector<std::string> out;
  const auto* e = static_cast<const StringElem*>(t.data());
  for (int64_t i = 0; i < element_count(t.desc); ++i) out.emplace_back(e[i].view());
  return out;
}

// A KernelContext over tensor and list inputs; outputs are dense tensors or lists.
class ListContext : public KernelContext {
 public:
  ListContext(std::vector<Host> tensors, std::vector<ListRef> lists, std::vector<DType> outs)
      : in_(std::move(tensors)), lists_(std::move(lists)), dtypes_(std::move(outs)) {
    for (const Host& h : in_)
      refs_.push_back(h.bytes ? TensorRef{h.desc, h.bytes->data()} : TensorRef{});
  }
  int num_inputs() const override { return static_cast<int>(refs_.size()); }
  const TensorRef& input(int i) const override { return refs_.at(i); }
  int num_outputs() const override { return static_cast<int>(dtypes_.size()); }
  TensorRef& output(int) override { fail(ErrorCode::kInternal, "ListContext: no planned shapes"); }
  TensorRef& output(int i, const Dims& shape) override {
    outs_[i] = Host::dense(dtypes_.at(i), shape);
    return out_refs_[i] = TensorRef{outs_[i].desc, outs_[i].bytes->data()};
  }
  ListRef input_list(int i) const override { return lists_.at(i); }
  void set_output_list(int i, ListRef v) override { out_lists_[i] = std::move(v); }

  std::map<int, Host> outs_;
  std::map<int, ListRef> out_lists_;

 private:
  std::vector<Host> in_;
  std::vector<ListRef> lists_;
  std::vector<TensorRef> refs_;
  std::vector<DType> dtypes_;
  std::map<int, TensorRef> out_refs_;
};

// One ai.onnx.ml node whose input is a tensor or a map and whose output has the given type.
struct MapNode {
  Graph g;
  Node* node = nullptr;
  std::vector<Host> tensors;
  std::vector<ListRef> lists;

  explicit MapNode(std::string op) {
    g.axis_factory = std::make_shared<AxisFactory>();
    g.nodes.emplace_back();
    node = &g.nodes.back();
    node->op = std::move(op);
    node->domain = "ai.onnx.ml";
    node->opset = 1;
  }
  MapNode(const MapNode&) = delete;
  MapNode& operator=(const MapNode&) = delete;

  MapNode& tensor(const Host& h) {
    Value v;
    v.name = "x" + std::to_string(g.values.size());
    v.type.dtype = h.desc.dtype;
    node->inputs.push_back(g.add_value(std::move(v)));
    tensors.push_back(h);
    lists.push_back(nullptr);
    return *this;
  }
  // A map input of this type, fed `value` at run time.
  MapNode& map(DType key, DType value, ListRef fed) {
    Value v;
    v.name = "m" + std::to_string(g.values.size());
    v.type = ValueType{TypeKind::kMap, value, TypeKind::kTensor, key};
    node->inputs.push_back(g.add_value(std::move(v)));
    tensors.push_back(Host{});
    lists.push_back(std::move(fed));
    return *this;
  }
  MapNode& out(ValueType t) {
    Value v;
    v.name = "y" + std::to_string(g.values.size());
    v.type = t;
    node->outputs.push_back(g.add_value(std::move(v)));
    return *this;
  }
  MapNode& out(DType t) { return out(ValueType{TypeKind::kTensor, t, TypeKind::kTensor}); }
  MapNode& attr(const std::string& name, Attribute a) {
    node->attrs[name] = std::move(a);
    return *this;
  }
  MapNode& attr_s(const std::string& name, std::string s) {
    Attribute a;
    a.kind = Attribute::Kind::kString;
    a.s = std::move(s);
    return attr(name, a);
  }
  MapNode& attr_i(const std::string& name, int64_t i) {
    Attribute a;
    a.kind = Attribute::Kind::kInt;
    a.i = i;
    return attr(name, a);
  }
  MapNode& attr_ints(const std::string& name, std::vector<int64_t> v) {
    Attribute a;
    a.kind = Attribute::Kind::kInts;
    a.ints = std::move(v);
    return attr(name, a);
  }
  MapNode& attr_strings(const std::string& name, std::vector<std::string> v) {
    Attribute a;
    a.kind = Attribute::Kind::kStrings;
    a.strings = std::move(v);
    return attr(name, a);
  }

  std::optional<std::string> supports(const KernelSet& set) const {
    const KernelEntry* e = find_kernel(set, *node);
    if (!e) return "no entry";
    return e->supports(g, *node);
  }
  // Runs the node once; its context holds the outputs.
  std::unique_ptr<ListContext> run(const KernelSet& set) const {
    const KernelEntry* e = find_kernel(set, *node);
    require(e != nullptr, "no entry for " + node->op);
    if (auto why = e->supports(g, *node)) fail(ErrorCode::kNotSupported, *why);
    std::vector<DType> dts;
    for (int o : node->outputs) dts.push_back(g.value(o).dtype());
    auto ctx = std::make_unique<ListContext>(tensors, lists, dts);
    e->create(g, *node)->compute(*ctx);
    return ctx;
  }
};

// Runs mn and expects an Error of `code` whose message holds `part`.
inline void expect_run_error(const MapNode& mn, const KernelSet& set, ErrorCode code,
                             const std::string& part) {
  try {
    mn.run(set);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

}  // namespace geon::cpu::testing
