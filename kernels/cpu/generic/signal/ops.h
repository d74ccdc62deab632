// The signal family's entry points: DFT (17: axis attribute; 20: axis input) and STFT (17) in
// dft.cc on the FFT of fft.h, and the Hann, Hamming and Blackman windows with MelWeightMatrix
// (17) in windows.cc. rows.cc binds them to op names; generic/table.cc appends those rows.
#pragma once

#include <memory>

#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {

Reason supports_dft(const Graph& g, const Node& n);
std::unique_ptr<Kernel> create_dft(const Graph& g, const Node& n);
Reason supports_stft(const Graph& g, const Node& n);
std::unique_ptr<Kernel> create_stft(const Graph& g, const Node& n);
// HannWindow, HammingWindow and BlackmanWindow: the op's name picks the coefficients.
Reason supports_window(const Graph& g, const Node& n);
std::unique_ptr<Kernel> create_window(const Graph& g, const Node& n);
Reason supports_mel_weight_matrix(const Graph& g, const Node& n);
std::unique_ptr<Kernel> create_mel_weight_matrix(const Graph& g, const Node& n);

// Transform lengths above this are refused (kResourceExhausted): the FFT's scratch grows with
// the length (Bluestein's up to 4n complex doubles per thread) even where the output is small.
inline constexpr int64_t kMaxDftLength = int64_t{1} << 24;

}  // namespace geon::cpu
