// Cut payloads read on the session's pool: one initializer a part, the largest first.
#include "importer/initializer_reads.h"

#include <algorithm>
#include <atomic>

#include "core/engine/thread_pool.h"
#include "importer/proto.h"

namespace geon::importer {

std::string initializer_where(const std::string& graph_where, const onnx::TensorProto& t) {
  return graph_where + ": initializer '" + t.name() + "'";
}

std::vector<DecodedInitializer> decode_cut_initializers(const onnx::GraphProto& gp,
                                                        const BuildState& st,
                                                        const std::string& graph_where) {
  const std::vector<std::optional<Payload>>& cut = *st.cut;
  std::vector<int> order;
  int64_t total = 0;
  for (int i = 0; i < static_cast<int>(cut.size()); ++i)
    if (cut[i]) {
      order.push_back(i);
      total += cut[i]->size;
    }
  ThreadPool* pool = st.opt->pool;
  if (!pool || pool->size() < 2 || order.size() < 2 || total < st.opt->read_ahead_bytes) return {};
  // Largest first: the pool hands out parts in order, so no thread is left with one big tensor
  // when the rest are done.
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return cut[a]->size > cut[b]->size; });

  std::vector<DecodedInitializer> out(cut.size());
  std::atomic<bool> failed{false};
  const int parts = static_cast<int>(std::min<size_t>(order.size(), ThreadPool::kMaxParts));
  pool->run(parts, [&](int part) {
    for (size_t k = static_cast<size_t>(part); k < order.size(); k += static_cast<size_t>(parts)) {
      if (failed.load(std::memory_order_relaxed)) return;
      const int i = order[k];
      const onnx::TensorProto& t = gp.initializer(i);
      const CutRawData raw{st.payloads, *cut[i]};
      try {
        out[i].data = decode_tensor(t, st.opt->base_dir, initializer_where(graph_where, t), &raw);
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
