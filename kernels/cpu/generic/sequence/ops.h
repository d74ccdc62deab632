// The sequence family's entry points (sequence/rows.cc binds them to ops): the sequence ops,
// the optional ops, and Identity of a sequence or optional.
#pragma once

#include <memory>

#include "kernels/cpu/common.h"

namespace geon::cpu {

GEON_CPU_FAMILY(sequence_empty);  // sequence.cc
GEON_CPU_FAMILY(sequence_construct);
GEON_CPU_FAMILY(sequence_insert);
GEON_CPU_FAMILY(sequence_erase);
GEON_CPU_FAMILY(sequence_at);
GEON_CPU_FAMILY(sequence_length);
GEON_CPU_FAMILY(split_to_sequence);  // split_concat.cc
GEON_CPU_FAMILY(concat_from_sequence);
GEON_CPU_FAMILY(optional);  // optional.cc
GEON_CPU_FAMILY(optional_has_element);
GEON_CPU_FAMILY(optional_get_element);

// optional.cc: Identity of a list (generic/cast_clip.cc's Identity hands lists here).
std::unique_ptr<Kernel> create_list_identity();

}  // namespace geon::cpu
