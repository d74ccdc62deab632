// cpu.generic's sequence family: its rows of the kernel table (generic/families.h).
#include "kernels/cpu/generic/families.h"
#include "kernels/cpu/generic/sequence/ops.h"

namespace geon::cpu {

std::span<const KernelEntry> sequence_rows() {
  static const KernelEntry rows[] = {
      {"", "SequenceEmpty", 11, supports_sequence_empty, create_sequence_empty},
      {"", "SequenceConstruct", 11, supports_sequence_construct, create_sequence_construct},
      {"", "SequenceInsert", 11, supports_sequence_insert, create_sequence_insert},
      {"", "SequenceErase", 11, supports_sequence_erase, create_sequence_erase},
      {"", "SequenceAt", 11, supports_sequence_at, create_sequence_at},
      {"", "SequenceLength", 11, supports_sequence_length, create_sequence_length},
      {"", "SplitToSequence", 11, supports_split_to_sequence, create_split_to_sequence},
      {"", "ConcatFromSequence", 11, supports_concat_from_sequence, create_concat_from_sequence},
      {"", "Optional", 15, supports_optional, create_optional},
      {"", "OptionalHasElement", 15, supports_optional_has_element, create_optional_has_element},
      {"", "OptionalGetElement", 15, supports_optional_get_element, create_optional_get_element},
  };
  return rows;
}

}  // namespace geon::cpu
