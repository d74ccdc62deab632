// cpu.generic's maps family: its rows of the kernel table (generic/families.h). The ai.onnx.ml
// ops that make or read map values.
#include "kernels/cpu/generic/families.h"
#include "kernels/cpu/generic/maps/ops.h"

namespace geon::cpu {

std::span<const KernelEntry> maps_rows() {
  static const KernelEntry rows[] = {
      {"ai.onnx.ml", "ZipMap", 1, supports_zip_map, create_zip_map},
      {"ai.onnx.ml", "DictVectorizer", 1, supports_dict_vectorizer, create_dict_vectorizer},
      {"ai.onnx.ml", "CastMap", 1, supports_cast_map, create_cast_map},
  };
  return rows;
}

}  // namespace geon::cpu
