// Initializer payloads read on the session's pool: one initializer a part, the largest first.
#include "importer/initializer_reads.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <span>

#include "core/base/error.h"
#include "core/desc/desc.h"
#include "core/dtype/dtype.h"
#include "core/engine/thread_pool.h"
#include "importer/proto.h"

namespace geon::importer {

std::string initializer_where(const std::string& graph_where, const onnx::TensorProto& t) {
  return graph_where + ": initializer '" + t.name() + "'";
}

std::shared_ptr<TensorData> decode_initializer(const onnx::TensorProto& t, const BuildState& st,
                                               const std::optional<Payload>& cut,
                                               const std::string& where) {
  const CutRawData raw{st.payloads, cut.value_or(Payload{})};
  return decode_tensor(t, st.opt->base_dir, where, cut ? &raw : nullptr);
}

namespace {

// What t's external data weighs as its dtype and dims tell, to order the reads and weigh them
// against the threshold; 0 where they tell nothing sound (decoding t then says what is wrong).
int64_t external_bytes(const onnx::TensorProto& t) {
  const std::optional<DType> dtype = dtype_from_onnx(t.data_type());
  if (!dtype || *dtype == DType::kString) return 0;
  try {
    return dtype_bytes_for(*dtype, element_count(std::span(t.dims().data(), t.dims().size())));
  } catch (const Error&) {  // a negative dim, or a count that overflows
    return 0;
  }
}

}  // namespace

std::vector<DecodedInitializer> decode_initializers_ahead(const onnx::GraphProto& gp,
                                                          const BuildState& st,
                                                          const std::string& graph_where) {
  const std::vector<std::optional<Payload>>& cut = *st.cut;
  std::vector<int> order;
  std::vector<int64_t> weight(cut.size(), 0);
  int64_t total = 0;
  for (int i = 0; i < static_cast<int>(cut.size()); ++i) {
    if (cut[i])
      weight[i] = cut[i]->size;
    else if (gp.initializer(i).data_location() == onnx::TensorProto::EXTERNAL)
      weight[i] = external_bytes(gp.initializer(i));
    else
      continue;
    order.push_back(i);
    total = std::min(total, std::numeric_limits<int64_t>::max() - weight[i]) + weight[i];
  }
  ThreadPool* pool = st.opt->pool;
  if (!pool || pool->size() < 2 || order.size() < 2 || total < st.opt->read_ahead_bytes) return {};
  // Largest first: the pool hands out parts in order, so no thread is left with one big tensor
  // when the rest are done.
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return weight[a] > weight[b]; });

  std::vector<DecodedInitializer> out(cut.size());
  std::atomic<bool> failed{false};
  const int parts = static_cast<int>(std::min<size_t>(order.size(), ThreadPool::kMaxParts));
  pool->run(parts, [&](int part) {
    for (size_t k = static_cast<size_t>(part); k < order.size(); k += static_cast<size_t>(parts)) {
      if (failed.load(std::memory_order_relaxed)) return;
      const int i = order[k];
      const onnx::TensorProto& t = gp.initializer(i);
      try {
        out[i].data = decode_initializer(t, st, cut[i], initializer_where(graph_where, t));
      } catch (...) {
        // The in-order loop raises it; what is not decoded by then it decodes itself.
        out[i].error = std::current_exception();
        failed = true;
      }
    }
  });
  return out;
}

}  // namespace geon::importer
