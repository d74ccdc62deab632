// The values of sequence and optional types in a run. A list's element count is only known
// when it is built, so the executor keeps lists beside its memory plan; their tensors are
// dense and on the host (OwnedTensor, executor.h).
#pragma once

#include <memory>
#include <vector>

#include "core/graph/graph.h"

namespace geon {

struct OwnedTensor;

// A seq(T) value: its tensors in order. An optional(...) value: `none`, or what it wraps (one
// tensor for optional(tensor), the elements for optional(seq)). A map(K, V) value: two 1-D
// tensors of equal length, its keys then its values; a seq(map) value: two per map, in order.
// Immutable once built, so a value is shared (Identity, SequenceAt's source) rather than copied.
struct ListValue {
  bool none = false;
  std::vector<OwnedTensor> items;
};
using ListRef = std::shared_ptr<const ListValue>;

// Whether a value is held as a ListValue at run time.
inline bool is_list_type(const ValueType& t) {
  return t.kind == TypeKind::kSequence || t.kind == TypeKind::kOptional || t.kind == TypeKind::kMap;
}

}  // namespace geon
