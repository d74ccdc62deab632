// Map values in and out of the maps family's kernels (map_io.h).
#include "kernels/cpu/generic/maps/map_io.h"

#include <cstring>

#include "core/base/error.h"
#include "core/strings/strings.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {

MapEntries read_map(const KernelContext& ctx, int i, DType key, DType value, std::string_view op) {
  const std::string what = std::string(op) + "'s input " + std::to_string(i);
  const ListRef list = ctx.input_list(i);
  if (!list || list->none || list->items.size() != 2)
    fail(ErrorCode::kInvalidArgument,
         what + " must be a map: two tensors, its keys and its values, got " +
             std::to_string(list && !list->none ? list->items.size() : 0));
  const OwnedTensor& k = list->items[0];
  const OwnedTensor& v = list->items[1];
  for (const auto& [t, role, want] :
       {std::tuple{&k, "keys", key}, std::tuple{&v, "values", value}}) {
    if (t->desc.rank() != 1)
      fail(ErrorCode::kInvalidArgument,
           what + ": its " + role + " must be 1-D, got rank " + std::to_string(t->desc.rank()));
    if (t->desc.dtype != want)
      fail(ErrorCode::kInvalidArgument, what + ": its " + role + " must be " +
                                            std::string(dtype_name(want)) + ", got " +
                                            std::string(dtype_name(t->desc.dtype)));
  }
  if (k.desc.shape[0] != v.desc.shape[0])
    fail(ErrorCode::kInvalidArgument, what + " has " + std::to_string(k.desc.shape[0]) +
                                          " keys but " + std::to_string(v.desc.shape[0]) +
                                          " values");
  MapEntries m;
  m.size = static_cast<size_t>(k.desc.shape[0]);
  if (m.size == 0) return m;
  if (key == DType::kString) {
    m.str_keys = read_strings(ref_of(k));
  } else {
    m.int_keys = read_int64s(ref_of(k));
  }
  m.value_dtype = value;
  m.element_bytes = static_cast<size_t>(dtype_bytes_for(value, 1));
  m.values.resize(m.size * m.element_bytes);
  assign(Operand{row_major(value, v.desc.shape), m.values.data()}, src_of(ref_of(v)));
  return m;
}

OwnedTensor owned_vector(DType t, size_t n) {
  const TensorDesc desc = row_major(t, Dims{static_cast<int64_t>(n)});
  const auto bytes = static_cast<size_t>(dtype_bytes_for(t, static_cast<int64_t>(n)));
  if (bytes == 0) return {desc, nullptr};
  auto storage = std::make_shared<Storage>(host_allocator(), bytes);
  std::memset(storage->data(), 0, bytes);  // zero handles are empty strings
  return {desc, std::move(storage)};
}

OwnedTensor owned_strings(std::span<const std::string> text) {
  OwnedTensor t = owned_vector(DType::kString, text.size());
  t.strings = std::make_shared<StringArena>();
  auto* e = static_cast<StringElem*>(t.data());
  for (size_t k = 0; k < text.size(); ++k) e[k] = t.strings->store(text[k]);
  return t;
}

}  // namespace geon::cpu
