// The op families of cpu.generic that live in folders of their own (generic/<family>/). Each
// folder's rows.cc lists its ops; generic/table.cc appends every family's rows to the table,
// so adding an op to a family touches only that folder.
#pragma once

#include <span>

#include "core/runtime/kernel.h"

namespace geon::cpu {

std::span<const KernelEntry> training_rows();   // losses and the preview.training optimisers
std::span<const KernelEntry> indexing_rows();   // gathers, scatters, selections by index
std::span<const KernelEntry> layout_rows();     // rearrangements and linear algebra
std::span<const KernelEntry> signal_rows();     // DFT, STFT, windows, mel filters
std::span<const KernelEntry> ordering_rows();   // arg-extrema, TopK, scans, more reductions
std::span<const KernelEntry> quant_rows();      // quantization and integer matmul/conv
std::span<const KernelEntry> vision_rows();     // sampling grids, detection, deformable conv
std::span<const KernelEntry> attention_rows();  // the newest attention and state-space ops
std::span<const KernelEntry> text_rows();       // strings and the ai.onnx.ml ops
std::span<const KernelEntry> sequence_rows();   // sequences and optionals
std::span<const KernelEntry> maps_rows();       // ai.onnx.ml's ops on maps (ZipMap, CastMap...)

}  // namespace geon::cpu
