// Where a run's values live: arena slots from the shape's plan, run-time allocations when the
// plan has none (or the kernel asks for more than planned), caller memory for outputs, copies
// on other devices on first use. Dead values are released after their last planned reader.
#include "core/runtime/run_state.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "core/base/error.h"
#include "core/buffer/device_copy.h"
#include "core/desc/in_place.h"
#include "core/engine/engine.h"

namespace geon {
namespace {

bool is_host(Device d) { return d.kind == DeviceKind::kHost; }

size_t bytes_of(const TensorDesc& d) {
  return static_cast<size_t>(dtype_bytes_for(d.dtype, element_count(d)));
}

// Absent until bound again (no memory, no shape), keeping the description's vectors' memory
// for the value's next binding.
void unbind(Held& h) {
  h.bound = false;
  h.owned.reset();
  h.owned_bytes = 0;
  h.in_arena = false;
  h.ref.data = nullptr;
  h.ref.desc.shape.clear();
  h.ref.desc.strides.clear();
}

}  // namespace

RunState::RunState(const ExecutableImpl& exe) : c(exe.compiled()), exe_(exe) {
  const Graph& g = *c.graph;
  held_.resize(c.plan_template.size());
  lists_.resize(g.values.size());
  recorded_.resize(c.plan_template.size());
  donated_.assign(c.plan_template.size(), false);
  first_request_.assign(g.values.size(), -1);
  // Constants are never released (the plan keeps them external), so they stay bound across runs.
  for (size_t v = 0; v < g.values.size(); ++v)
    if (c.constant[v])
      set(held_[v], g.values[v].data->desc, constant_bytes(c, static_cast<int>(v)), Device{});
}

RunState::~RunState() { end(); }

void RunState::begin(RunState* parent, std::span<const int> outputs,
                     std::span<const TensorRef> caller_outputs) {
  parent_ = parent;
  outputs_ = outputs;
  caller_ = caller_outputs;
  const Graph& g = *c.graph;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const int v = g.outputs[outputs[k]];
    if (first_request_[v] < 0) first_request_[v] = static_cast<int>(k);
  }
  results_.resize(outputs.size());
  delivered_.assign(outputs.size(), false);
}

void RunState::end() noexcept {
  const Graph& g = *c.graph;
  for (int o : outputs_) first_request_[g.outputs[o]] = -1;
  for (size_t p = 0; p < held_.size(); ++p) {
    Held& h = held_[p];
    if (h.bound && !(p < g.values.size() && c.constant[p])) unbind(h);
  }
  for (ListRef& l : lists_) l.reset();
  extra_copies_.clear();
  results_.clear();
  symbols_.clear();
  key_.clear();
  plan_.reset();
  for (auto& a : arenas_) {
    if (!a) continue;
    try {
      exe_.return_arena(std::move(a));
    } catch (...) {
      a.reset();  // not kept for a later run: back to the allocator
    }
  }
  arenas_.clear();
  std::fill(recorded_.begin(), recorded_.end(), std::nullopt);
  std::fill(donated_.begin(), donated_.end(), false);
  working_ = 0;
  parent_ = nullptr;
  outputs_ = {};
  caller_ = {};
}

void RunState::set(Held& h, const TensorDesc& desc, void* data, Device device,
                   std::shared_ptr<Storage> owned, size_t owned_bytes, bool in_arena) {
  h.ref.desc = desc;
  h.ref.data = data;
  h.ref.device = device;
  h.bound = true;
  h.owned = std::move(owned);
  h.owned_bytes = owned_bytes;
  h.in_arena = in_arena;
}

// A dense tensor whose axes lie in memory in `layout` order (Value::layout): row-major over the
// permuted shape, seen back in the logical order. Row-major when there is no layout.
const TensorDesc& RunState::lay_out(const Value& val, const Dims& shape) {
  const std::vector<int>& layout = val.layout;
  if (layout.empty() || layout.size() != shape.size()) {
    row_major_into(desc_, val.dtype(), shape);
    return desc_;
  }
  physical_.resize(shape.size());
  for (size_t i = 0; i < layout.size(); ++i) physical_[i] = shape[layout[i]];
  row_major_into(desc_, val.dtype(), physical_);
  physical_.assign(desc_.strides.begin(), desc_.strides.end());  // in physical order
  desc_.shape.assign(shape.begin(), shape.end());
  for (size_t i = 0; i < layout.size(); ++i) desc_.strides[layout[i]] = physical_[i];
  return desc_;
}

size_t RunState::working_in_use() const {
  return working_ + (parent_ ? parent_->working_in_use() : 0);
}

void RunState::count(size_t bytes, Device device) {
  const size_t limit = c.options.arena_limit_bytes;
  working_ += bytes;
  if (!limit) return;
  const size_t need = working_in_use();
  if (need <= limit) return;
  working_ -= bytes;  // not taken: the run fails here
  fail(ErrorCode::kResourceExhausted,
       "the run needs at least " + std::to_string(need) + " bytes of working memory, over the " +
           std::to_string(limit) + " bytes that arena_limit_bytes allows (while taking " +
           std::to_string(bytes) + " bytes on " + to_string(device) + ")");
}

void RunState::hold(size_t bytes, Device device) { count(bytes, device); }

void RunState::unhold(size_t bytes) { working_ -= std::min(working_, bytes); }

std::shared_ptr<Storage> RunState::allocate(Device d, size_t bytes) {
  Allocator* a = is_host(d) ? &host_allocator() : find_allocator(d);
  if (!a) fail(ErrorCode::kDeviceUnavailable, "no allocator is registered for " + to_string(d));
  count(bytes, d);
  try {
    return std::make_shared<Storage>(*a, std::max<size_t>(bytes, 1));
  } catch (const std::bad_alloc&) {
    fail(ErrorCode::kResourceExhausted,
         "cannot allocate " + std::to_string(bytes) + " bytes on " + to_string(d));
  }
}

void RunState::use_plan(std::shared_ptr<const ShapePlan> plan) {
  plan_ = std::move(plan);
  if (!plan_) return;
  arenas_.resize(plan_->plan.arenas.size());
  for (size_t a = 0; a < arenas_.size(); ++a) {
    const Arena& arena = plan_->plan.arenas[a];
    if (arena.peak_bytes == 0) continue;
    count(arena.peak_bytes, arena.device);
    arenas_[a] = exe_.take_arena(arena.device, arena.peak_bytes);
  }
}

std::byte* RunState::arena_address(const Slot& slot) const {
  const auto& a = arenas_.at(slot.arena);
  return a ? a->data() + slot.offset : nullptr;
}

bool RunState::has_caller(int k) const {
  return k >= 0 && !caller_.empty() && caller_[k].present();
}

TensorRef& RunState::place(int value, const Dims& shape, Device device) {
  const Value& val = c.graph->values[value];
  const DType dt = val.dtype();
  if (dt == DType::kUndefined)  // strings are handles (core/strings), allocated as any dtype
    fail(ErrorCode::kNotSupported, "value '" + val.name + "' has dtype " +
                                       std::string(dtype_name(dt)) +
                                       ", which the executor cannot allocate");
  const TensorDesc& desc = lay_out(val, shape);
  const size_t bytes = bytes_of(desc);
  Held& h = held_[value];
  if (h.bound) {
    if (h.ref.desc == desc && h.ref.device == device) return h.ref;
    release(h, nullptr);  // asked again with another shape: the new buffer wins
  }
  const int k = first_request_[value];
  if (k >= 0) {
    delivered_[k] = false;
    results_[k] = {};
  }
  if (recording()) recorded_[value] = std::max(recorded_[value].value_or(0), bytes);

  if (c.plan_template[value].external) {  // a graph output on the host
    if (has_caller(k) && caller_[k].device == device) {
      if (caller_[k].desc != desc)
        fail(ErrorCode::kInvalidArgument, "output '" + val.name + "': the caller's tensor is " +
                                              to_string(caller_[k].desc) + " but the output is " +
                                              to_string(desc));
      set(h, caller_[k].desc, caller_[k].data, caller_[k].device);
      delivered_[k] = true;
      return h.ref;
    }
    auto s = allocate(device, bytes);
    set(h, desc, s->data(), device, s, bytes);
    if (k >= 0 && !has_caller(k) && is_host(device)) {
      results_[k] = {desc, s};
      delivered_[k] = true;
    }
    return h.ref;
  }
  if (plan_) {
    const Slot& slot = plan_->plan.slots[value];
    if (slot.kind == SlotKind::kArena && bytes <= slot.bytes &&
        plan_->plan.arenas[slot.arena].device == device && may_take_slot(value, desc)) {
      set(h, desc, arena_address(slot), device, nullptr, 0, true);
      return h.ref;
    }
  }
  auto s = allocate(device, bytes);
  void* data = s->data();  // before s is moved: arguments are evaluated in any order
  set(h, desc, data, device, std::move(s), bytes);
  return h.ref;
}

bool RunState::may_take_slot(int value, const TensorDesc& desc) {
  for (const auto& [out, in] : plan_->plan.in_place) {
    if (out != value) continue;
    const Held& src = held_[in];
    // The input's memory is only shared when the input really lives in the slot (it may have
    // been allocated elsewhere this run) and the kernel sees the very same view in both.
    if (!src.bound || !src.in_arena) continue;
    if (src.ref.desc != desc) return false;
    donated_[in] = true;
  }
  return true;
}

TensorRef& RunState::produce(int value, const Dims& shape, Device device) {
  TensorRef& r = place(value, shape, device);
  // Sub-byte dtypes: the last byte may hold padding bits no kernel writes; zero them so that
  // outputs are the same bytes whatever memory they got.
  const size_t bytes = bytes_of(r.desc);
  if (is_packed(r.desc.dtype) && bytes && is_host(r.device) && r.data)
    static_cast<std::byte*>(r.data)[bytes - 1] = std::byte{0};
  return r;
}

TensorRef& RunState::scratch(DType dtype, const Dims& shape, Device device, std::list<Held>& keep) {
  // The value is unknown, so room for the widest element: the kernel's dtype may differ.
  const TensorDesc desc = row_major(dtype, shape);
  const size_t bytes = static_cast<size_t>(element_count(desc)) * 16;
  auto s = allocate(device, bytes);
  keep.push_back({{desc, s->data(), device}, true, s, bytes, false});
  return keep.back().ref;
}

void RunState::bind_view(int value, int base, const TensorDesc& desc) {
  const Held& b = held_[base];
  if (!b.bound)
    fail(ErrorCode::kInternal,
         "value '" + c.graph->values[value].name + "' is a view of a value not computed yet");
  set(held_[value], desc, b.ref.data, b.ref.device, b.owned);
}

const TensorRef& RunState::dense_copy(const TensorRef& t, std::list<Held>& keep) {
  if (!is_host(t.device))
    fail(ErrorCode::kNotSupported, "cannot copy a strided device tensor " + to_string(t.desc));
  const TensorDesc desc = row_major(t.desc.dtype, t.desc.shape);
  const size_t bytes = bytes_of(desc);
  auto s = allocate(t.device, bytes);
  if (bytes) assign(Operand{desc, s->data()}, ConstOperand(t.desc, t.data));
  keep.push_back({{desc, s->data(), t.device}, true, s, bytes, false});
  return keep.back().ref;
}

void RunState::copy_into(const TensorRef& src, const TensorRef& dst) const {
  if (!is_contiguous(src.desc) && is_host(src.device) && is_host(dst.device) &&
      is_contiguous(dst.desc)) {
    // A view (transposed, sliced, broadcast) delivered as a dense tensor.
    assign(Operand{dst.desc, dst.data}, ConstOperand(src.desc, src.data));
    return;
  }
  if (!is_contiguous(src.desc) && is_host(src.device)) {
    const TensorDesc desc = row_major(src.desc.dtype, src.desc.shape);
    std::vector<std::byte> dense(bytes_of(desc));
    if (!dense.empty()) assign(Operand{desc, dense.data()}, ConstOperand(src.desc, src.data));
    copy_into({desc, dense.data(), src.device}, dst);
    return;
  }
  if (!is_contiguous(src.desc))
    fail(ErrorCode::kNotSupported, "cannot copy a strided tensor " + to_string(src.desc));
  const size_t bytes = bytes_of(src.desc);
  if (bytes == 0) return;
  const auto* from =
      static_cast<const std::byte*>(src.data) + dtype_bytes_for(src.desc.dtype, src.desc.offset);
  auto* to = static_cast<std::byte*>(dst.data) + dtype_bytes_for(dst.desc.dtype, dst.desc.offset);
  copy_bytes(to, dst.device, from, src.device, bytes);
}

const TensorRef& RunState::device_constant(int value, Device device) const {
  for (const DeviceConstant& dc : c.device_constants)
    if (dc.value == value && dc.ref.device == device) return dc.ref;
  fail(ErrorCode::kInternal,
       "constant '" + c.graph->values[value].name + "' has no copy on " + to_string(device));
}

const TensorRef& RunState::on_device(int value, Device device) {
  const Value& val = c.graph->values[value];
  if (c.constant[value] && !is_host(device)) return device_constant(value, device);
  Held& h = held_[value];
  if (!h.bound)
    fail(ErrorCode::kInternal,
         "value '" + val.name + "' is read before it is computed or after its last planned use");
  if (h.ref.device == device) return h.ref;

  const size_t nv = c.graph->values.size();
  int t = -1;
  for (const auto& [d, index] : c.copies_of[value])
    if (d == device) t = index;
  Held* copy = nullptr;
  if (t >= 0) {
    copy = &held_[nv + t];
  } else {
    for (auto& [tc, held] : extra_copies_)
      if (tc.value == value && tc.device == device) copy = &held;
    if (!copy) copy = &extra_copies_.emplace_back(TransferCopy{value, device}, Held{}).second;
  }
  if (copy->bound) return copy->ref;

  const TensorDesc desc = row_major(h.ref.desc.dtype, h.ref.desc.shape);
  const size_t bytes = bytes_of(desc);
  bool placed = false;
  if (t >= 0 && recording()) recorded_[nv + t] = bytes;
  if (t >= 0 && plan_) {
    const Slot& slot = plan_->plan.slots[nv + t];
    if (slot.kind == SlotKind::kArena && bytes <= slot.bytes &&
        plan_->plan.arenas[slot.arena].device == device) {
      *copy = {{desc, arena_address(slot), device}, true, nullptr, 0, true};
      placed = true;
    }
  }
  if (!placed) {
    auto s = allocate(device, bytes);
    *copy = {{desc, s->data(), device}, true, s, bytes, false};
  }
  copy_into(h.ref, copy->ref);
  return copy->ref;
}

const TensorRef* RunState::lookup_outer(const std::string& name) {
  const int v = c.graph->find(name);
  if (v >= 0) {
    if (!held_[v].bound)
      fail(ErrorCode::kInternal,
           "value '" + name + "' is captured by a nested graph but is not computed there");
    return &on_device(v, Device{});
  }
  return parent_ ? parent_->lookup_outer(name) : nullptr;
}

const ListRef& RunState::list(int value) const {
  if (!lists_[value])
    fail(ErrorCode::kInternal, "sequence or optional '" + c.graph->values[value].name +
                                   "' is read before it is computed");
  return lists_[value];
}

void RunState::bind_list(int value, ListRef v) {
  if (!v) fail(ErrorCode::kInternal, "a null list for '" + c.graph->values[value].name + "'");
  lists_[value] = std::move(v);
}

const ListRef* RunState::lookup_outer_list(const std::string& name) const {
  const int v = c.graph->find(name);
  if (v >= 0) return lists_[v] ? &lists_[v] : nullptr;
  return parent_ ? parent_->lookup_outer_list(name) : nullptr;
}

void RunState::poison(void* p, Device d, size_t bytes) const {
  if (!p || bytes == 0) return;
  if (is_host(d)) {
    std::memset(p, 0xFF, bytes);
    return;
  }
  static const std::vector<unsigned char> ones(4096, 0xFF);
  try {
    for (size_t at = 0; at < bytes; at += ones.size())
      copy_bytes(static_cast<std::byte*>(p) + at, d, ones.data(), Device{},
                 std::min(ones.size(), bytes - at));
  } catch (const Error&) {
    // No copy registered for that device: device arenas stay as they are.
  }
}

void RunState::release(Held& h, const Slot* slot) {
  if (!h.bound) return;
  if (c.options.poison_freed && h.in_arena && slot) poison(h.ref.data, h.ref.device, slot->bytes);
  if (h.owned) working_ -= std::min(working_, h.owned_bytes);
  unbind(h);
}

void RunState::release_step(int step) {
  for (int p : c.dying[step]) {
    release(held_[p], plan_ && !donated_[p] ? &plan_->plan.slots[p] : nullptr);
    donated_[p] = false;
  }
}

std::vector<OwnedTensor> RunState::take_outputs() {
  const Graph& g = *c.graph;
  std::vector<OwnedTensor> out(outputs_.size());
  for (size_t k = 0; k < outputs_.size(); ++k) {
    if (delivered_[k]) {
      out[k] = std::move(results_[k]);
      continue;
    }
    const int v = g.outputs[outputs_[k]];
    const Value& val = g.values[v];
    if (is_list_type(val.type)) {
      out[k].list = list(v);
      continue;
    }
    const Held& h = held_[v];
    if (!h.bound)
      fail(ErrorCode::kInternal, "output '" + val.name + "' was not computed by the run");
    const TensorDesc desc = row_major(h.ref.desc.dtype, h.ref.desc.shape);
    if (has_caller(static_cast<int>(k))) {
      const TensorRef& dst = caller_[k];
      if (dst.desc != desc)
        fail(ErrorCode::kInvalidArgument, "output '" + val.name + "': the caller's tensor is " +
                                              to_string(dst.desc) + " but the output is " +
                                              to_string(desc));
      copy_into(h.ref, dst);
      continue;
    }
    auto s = allocate(Device{}, bytes_of(desc));
    copy_into(h.ref, TensorRef{desc, s->data(), Device{}});
    out[k] = {desc, s};
  }
  return out;
}

std::shared_ptr<const ShapePlan> RunState::recorded_plan() const {
  return make_shape_plan(c, recorded_);
}

NodeContext::NodeContext(RunState& st, int node)
    : st_(st), node_(st.c.graph->nodes[node]), cn_(st.c.nodes[node]) {
  static const TensorRef kAbsent{};
  const size_t n = node_.inputs.size();
  if (n > kInlineInputs) {
    more_inputs_.resize(n);
    inputs_ = more_inputs_.data();
  }
  for (size_t i = 0; i < n; ++i) {
    const int v = node_.inputs[i];
    const bool tensor = v >= 0 && !is_list_type(st.c.graph->values[v].type);
    const TensorRef* t = tensor ? &st.on_device(v, cn_.device) : &kAbsent;
    // If/Loop/Scan hand their inputs to nested runs, which take dense tensors only.
    if (cn_.control && t->data && !is_contiguous(t->desc)) t = &st.dense_copy(*t, scratch_);
    inputs_[i] = t;
  }
}

const TensorRef& NodeContext::input(int i) const {
  if (i < 0 || i >= num_inputs())
    fail(ErrorCode::kInternal,
         "the kernel asked for input " + std::to_string(i) + " of " + std::to_string(num_inputs()));
  return *inputs_[i];
}

void NodeContext::check_output(int i) const {
  if (i < 0 || i >= num_outputs())
    fail(ErrorCode::kInternal, "the kernel asked for output " + std::to_string(i) + " of " +
                                   std::to_string(num_outputs()));
}

TensorRef& NodeContext::output(int i) {
  check_output(i);
  const int v = node_.outputs[i];
  if (v < 0)
    fail(ErrorCode::kInternal,
         "the kernel asked for the planned shape of omitted output " + std::to_string(i));
  const Dims* shape = st_.planned_shape(v);
  if (!shape)
    fail(ErrorCode::kInternal, "output " + std::to_string(i) + " ('" + st_.c.graph->values[v].name +
                                   "') has no shape known before the run; the kernel must give it");
  return output(i, *shape);
}

ListRef NodeContext::input_list(int i) const {
  if (i < 0 || i >= num_inputs() || node_.inputs[i] < 0) return nullptr;
  const int v = node_.inputs[i];
  if (!is_list_type(st_.c.graph->values[v].type))
    fail(ErrorCode::kInternal, "input " + std::to_string(i) + " is a tensor, not a list");
  return st_.list(v);
}

void NodeContext::set_output_list(int i, ListRef value) {
  check_output(i);
  const int v = node_.outputs[i];
  if (v < 0) return;
  if (!is_list_type(st_.c.graph->values[v].type))
    fail(ErrorCode::kInternal, "output " + std::to_string(i) + " is a tensor, not a list");
  st_.bind_list(v, std::move(value));
}

TensorRef& NodeContext::output(int i, const Dims& shape) {
  check_output(i);
  const int v = node_.outputs[i];
  if (v >= 0) return st_.produce(v, shape, cn_.device);
  DType dt = DType::kFloat;
  for (int o : node_.outputs)
    if (o >= 0) {
      dt = st_.c.graph->values[o].dtype();
      break;
    }
  return st_.scratch(dt == DType::kUndefined ? DType::kFloat : dt, shape, cn_.device, scratch_);
}

}  // namespace geon
