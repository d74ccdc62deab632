// The argument checks every backend's evaluate applies before planning a pass, shared so that
// the CPU and CUDA engines accept and reject exactly the same operands with the same messages.
#pragma once

#include <string>

#include "core/desc/desc.h"

namespace geon {

// Shape/stride ranks agree, lengths are >= 0, data is present unless the view is empty, and
// the view does not reach before its storage. `what` names the operand in the message.
void check_operand(const TensorDesc& d, const void* data, const std::string& what);

// Throws unless every element of d is a distinct storage element: a destination element
// written twice would make the result depend on order.
void check_not_self_overlapping(const TensorDesc& d);

// True when the byte ranges the two views can touch intersect (both in one address space).
bool ranges_intersect(const void* a, const TensorDesc& da, const void* b, const TensorDesc& db);

}  // namespace geon
