// Constant folding for the data-movement ops of the shape family (Transpose, Slice, Concat,
// Pad, Tile, Expand, Split, ...): the result is a view of the constant input (a description
// from core/desc/views.h) copied into fresh row-major storage by the engine's assign; string
// tensors are copied element by element. Every fold is bounded by the importer's limits
// before anything is allocated.
#pragma once

#include <memory>
#include <optional>
#include <span>

#include "importer/rule.h"

namespace geon::importer {

// The product of dims, or nullopt when it overflows int64 or a dim is negative.
std::optional<int64_t> checked_count(std::span<const int64_t> dims);

// Whether folding is on and an output of n elements of dtype t is within the per-value limit.
bool fold_fits(const RuleContext& c, DType t, int64_t n);

// The constant data of input i, or null. Inputs that are graph inputs with an initializer
// (overridable at run time) do not count as constant.
const TensorData* constant_input(const RuleContext& c, int i);

// in's elements, in the same row-major order, under another shape of the same element count
// (Reshape, Flatten, Squeeze, Unsqueeze, Identity): shares in's storage, copies nothing.
std::shared_ptr<const TensorData> reshaped_data(const TensorData& in, const Dims& shape);

// Sets output `out`'s data to `data` that shares an input's storage (nothing is allocated, so
// the folding limits do not apply); does nothing when folding is off.
void share_data(RuleContext& c, int out, std::shared_ptr<const TensorData> data);

// A fresh row-major tensor with the contents of `view`, a description over in's storage;
// null when over the limit or when the dtype cannot be copied.
std::shared_ptr<TensorData> materialize(const RuleContext& c, const TensorData& in,
                                        const TensorDesc& view);

// Copies the elements `src_view` of src into the elements `dst_view` of dst (equal shapes or
// src broadcastable to dst). False when the dtype cannot be copied.
bool copy_region(TensorData& dst, const TensorDesc& dst_view, const TensorData& src,
                 const TensorDesc& src_view);

// Fills every element of dst with element 0 of `value` (a one-element tensor). False when the
// dtypes cannot be converted.
bool fill(TensorData& dst, const TensorData& value);

}  // namespace geon::importer
