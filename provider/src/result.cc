// Result accessors. Tensors are row-major with their own storage, so a view is the storage
// pointer moved by the description's offset.
#include "provider/src/result.h"

#include "provider/src/status.h"

namespace geon::provider {

ResultTable& result_table() {
  // Never destroyed, like the other handle tables.
  static auto* table = new ResultTable("result", "release_result");
  return *table;
}

size_t result_count(const GeonResult* h) noexcept {
  const std::shared_ptr<Result> r = result_table().find(h);
  return r ? r->names.size() : 0;
}

GeonStatus* result_tensor(const GeonResult* h, size_t i, GeonTensor* out) noexcept {
  return guard("result_tensor", [&] {
    const std::shared_ptr<Result> r = result_table().require(h, "result");
    require_arg(out, "out");
    if (i >= r->tensors.size())
      api_fail(GEON_INVALID_ARGUMENT, "index " + std::to_string(i) +
                                          " is out of range (the result has " +
                                          std::to_string(r->tensors.size()) + " tensors)");
    const OwnedTensor& t = r->tensors[i];
    if (t.list)
      api_fail(
          GEON_INVALID_ARGUMENT,
          "output '" + r->names[i] + "' is a sequence, optional or map: read it with result_value");
    *out = tensor_view(t);
  });
}

GeonStatus* result_value(const GeonResult* h, size_t i, GeonValue* out) noexcept {
  return guard("result_value", [&] {
    const std::shared_ptr<Result> r = result_table().require(h, "result");
    require_arg(out, "out");
    if (i >= r->tensors.size())
      api_fail(GEON_INVALID_ARGUMENT, "index " + std::to_string(i) +
                                          " is out of range (the result has " +
                                          std::to_string(r->tensors.size()) + " values)");
    const OwnedTensor& t = r->tensors[i];
    const std::vector<GeonTensor>& views = r->views.at(i);
    *out = GeonValue{};
    // An optional holding a tensor is given as that tensor.
    out->kind = !t.list ? GEON_VALUE_TENSOR : t.list->none ? GEON_VALUE_NONE : r->kinds.at(i);
    out->count = views.size();
    out->tensors = views.empty() ? nullptr : views.data();
  });
}

GeonTensor tensor_view(const OwnedTensor& t) {
  auto* base = static_cast<std::byte*>(t.data());
  GeonTensor out{};
  out.dtype = static_cast<GeonDType>(t.desc.dtype);
  out.rank = t.desc.rank();
  out.shape = t.desc.shape.empty() ? nullptr : t.desc.shape.data();
  out.data = base ? base + dtype_bytes_for(t.desc.dtype, t.desc.offset) : nullptr;
  out.bytes = static_cast<uint64_t>(dtype_bytes_for(t.desc.dtype, element_count(t.desc)));
  return out;
}

void finish_result(Result& r) {
  r.views.clear();
  for (const OwnedTensor& t : r.tensors) {
    std::vector<GeonTensor> v;
    if (!t.list) {
      v.push_back(tensor_view(t));
    } else {
      for (const OwnedTensor& item : t.list->items) v.push_back(tensor_view(item));
    }
    r.views.push_back(std::move(v));
  }
}

const char* result_name(const GeonResult* h, size_t i) noexcept {
  const std::shared_ptr<Result> r = result_table().find(h);
  return r && i < r->names.size() ? r->names[i].c_str() : "";
}

void release_result(GeonResult* h) noexcept { result_table().remove(h); }

}  // namespace geon::provider
