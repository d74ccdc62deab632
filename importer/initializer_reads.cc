// Cut payloads read by a few threads, the largest first, each thread taking the next one left.
#include "importer/initializer_reads.h"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>

#include "importer/proto.h"

namespace geon::importer {
namespace {

// Past a few threads the copies wait on memory, not on page faults.
constexpr int kMaxReadThreads = 4;

int read_threads(int asked, size_t payloads) {
  const int n = asked > 0 ? asked : static_cast<int>(std::thread::hardware_concurrency());
  return std::min({std::max(n, 1), kMaxReadThreads, static_cast<int>(payloads)});
}

}  // namespace

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
  const int threads = read_threads(st.opt->threads, order.size());
  if (threads < 2 || total < st.opt->read_ahead_bytes) return {};
  // Largest first, so that no thread is left with one big tensor when the rest are done.
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return cut[a]->size > cut[b]->size; });

  std::vector<DecodedInitializer> out(cut.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  const auto work = [&] {
    for (size_t k; !failed.load(std::memory_order_relaxed) && (k = next++) < order.size();) {
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
  };
  std::vector<std::thread> helpers;
  helpers.reserve(static_cast<size_t>(threads - 1));  // no throw once a thread runs
  for (int h = 1; h < threads; ++h) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no thread to be had: fewer threads read it all the same
    }
  }
  work();
  for (std::thread& h : helpers) h.join();
  return out;
}

}  // namespace geon::importer
