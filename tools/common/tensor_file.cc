#include "tools/common/tensor_file.h"

#include <cstring>

#include "tools/common/npy.h"
#include "tools/common/tensor_proto.h"

namespace geon::tools {

HostTensor read_tensor_file(const std::string& path) {
  auto ends_with = [&](const char* ext) {
    const size_t n = std::strlen(ext);
    return path.size() >= n && path.compare(path.size() - n, n, ext) == 0;
  };
  if (ends_with(".npy")) return read_npy(path);
  if (ends_with(".pb")) return read_tensor_proto(path);
  throw ToolError(path + ": unknown tensor file type (expected .npy or .pb)");
}

geon::api::Feed to_feed(const HostTensor& t) {
  return geon::api::Feed{t.name, t.dtype, t.shape, t.data.data(), t.data.size()};
}

HostTensor from_result(const geon::api::Result& r, size_t i) {
  return from_view(r.view(i), r.name(i));
}

HostTensor from_view(const GeonTensor& v, const std::string& name) {
  HostTensor t;
  t.name = name;
  t.dtype = v.dtype;
  if (v.rank > 0 && v.shape) t.shape.assign(v.shape, v.shape + v.rank);
  // Checked against the shape so that a short buffer can never be read past its end.
  const int64_t count = element_count(t.shape, "output '" + t.name + "'");
  if (t.dtype == kString) {
    if (v.bytes < static_cast<uint64_t>(count) * sizeof(GeonString))
      throw ToolError("output '" + t.name + "': the provider returned " + std::to_string(v.bytes) +
                      " bytes for " + std::to_string(count) + " string handles");
    const auto* h = static_cast<const GeonString*>(v.data);
    std::vector<std::string> strings;
    for (int64_t k = 0; k < count; ++k)
      strings.emplace_back(h[k].size ? std::string(h[k].data, h[k].size) : std::string());
    set_strings(t, std::move(strings));
    return t;
  }
  const size_t need = dtype_bits(t.dtype) ? byte_size(t.dtype, count, t.name) : 0;
  if (v.bytes < need) {
    throw ToolError("output '" + t.name + "': the provider returned " + std::to_string(v.bytes) +
                    " bytes for " + shape_string(t.shape) + " of " + dtype_name(t.dtype));
  }
  if (need)
    t.data.assign(static_cast<const std::byte*>(v.data),
                  static_cast<const std::byte*>(v.data) + need);
  return t;
}

}  // namespace geon::tools
