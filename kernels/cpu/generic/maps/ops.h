// The maps family of cpu.generic (maps/rows.cc binds it to ops): the ai.onnx.ml ops that make
// or read map values. A map is held as a ListValue of two 1-D tensors, keys then values; a
// seq(map) as two per map (core/runtime/values.h).
#pragma once

#include "kernels/cpu/common.h"

namespace geon::cpu {

GEON_CPU_FAMILY(zip_map);          // zip_map.cc
GEON_CPU_FAMILY(dict_vectorizer);  // dict_vectorizer.cc
GEON_CPU_FAMILY(cast_map);         // cast_map.cc

}  // namespace geon::cpu
