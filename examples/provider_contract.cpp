// The provider contract, as ONNX Runtime uses an execution provider: the host owns the model,
// asks which nodes geon claims (get_capability), compiles each claimed subgraph into a session
// over its boundary values, and runs the nodes geon leaves unclaimed itself.
// Usage: provider_contract MODEL.onnx [PROVIDER.so]   (models/det_chain.onnx: MatMul, Det, Abs;
// the host lets geon use oneDNN's kernels only, so geon claims the MatMul and the host runs Det
// and Abs). Input element i is ((7 i % 17) - 8) / 8.
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "geon/geon.hpp"

namespace {

struct HostTensor {
  std::vector<float> data;
  std::vector<int64_t> shape;
};

// What the host knows of its own model (models/make_det_chain.py): each node's op and wiring.
struct HostNode {
  std::string op;
  std::vector<std::string> src;
  std::string dst;
};
const std::map<std::string, HostNode> kModel = {
    {"square", {"MatMul", {"x", "x"}, "a"}},
    {"det", {"Det", {"a"}, "d"}},
    {"abs", {"Abs", {"d"}, "y"}},
};

// The determinant of each n x n matrix of a [..., n, n] tensor (Gaussian elimination with
// partial pivoting, in double).
HostTensor det(const HostTensor& src) {
  const size_t rank = src.shape.size();
  const size_t n = static_cast<size_t>(src.shape.at(rank - 1));
  HostTensor dst{{}, {src.shape.begin(), src.shape.end() - 2}};
  for (size_t base = 0; base < src.data.size(); base += n * n) {
    std::vector<double> m(src.data.begin() + base, src.data.begin() + base + n * n);
    double d = 1;
    for (size_t c = 0; c < n; ++c) {
      size_t pivot = c;
      for (size_t r = c + 1; r < n; ++r)
        if (std::fabs(m[r * n + c]) > std::fabs(m[pivot * n + c])) pivot = r;
      if (pivot != c) {
        for (size_t k = 0; k < n; ++k) std::swap(m[c * n + k], m[pivot * n + k]);
        d = -d;
      }
      d *= m[c * n + c];
      if (m[c * n + c] == 0) break;
      for (size_t r = c + 1; r < n; ++r) {
        const double f = m[r * n + c] / m[c * n + c];
        for (size_t k = c; k < n; ++k) m[r * n + k] -= f * m[c * n + k];
      }
    }
    dst.data.push_back(static_cast<float>(d));
  }
  return dst;
}

// The host's own kernels, for whichever node the provider leaves to it.
HostTensor run_on_host(const HostNode& node, const std::map<std::string, HostTensor>& values) {
  const HostTensor& src = values.at(node.src[0]);
  HostTensor dst = src;
  if (node.op == "Det") return det(src);
  if (node.op == "Abs") {
    for (float& v : dst.data) v = std::fabs(v);
  } else if (node.op == "Add") {
    const HostTensor& other = values.at(node.src[1]);
    for (size_t i = 0; i < dst.data.size(); ++i) dst.data[i] += other.data[i];
  } else {
    throw std::runtime_error("the host has no kernel for " + node.op);
  }
  return dst;
}

void provider_contract(const std::string& model_path, const std::string& provider_path) {
  geon::api::Library lib(provider_path);

  // 1. Load the model for the contract, and ask what the provider claims under these options.
  geon::api::Model model(lib, model_path);
  geon::api::Options options(lib);
  // This host keeps everything but oneDNN's kernels for itself: geon may claim only what the
  // cpu.dnnl set runs.
  options.set("devices", "cpu.dnnl");
  geon::api::Capability capability(model, &options);
  std::printf("%zu nodes, %zu claimed subgraphs\n", model.node_count(),
              capability.subgraph_count());

  // 2. The host's values: the model input, [2, 3, 3].
  std::map<std::string, HostTensor> values;
  HostTensor& x = values["x"];
  x.shape = {2, 3, 3};
  for (int i = 0; i < 18; ++i) x.data.push_back(static_cast<float>(7 * i % 17 - 8) / 8.0f);

  // 3. Walk the nodes in topological order. A claimed node's subgraph is compiled and run once,
  // fed from the host's values by boundary name; an unclaimed node runs on the host.
  std::vector<bool> done(capability.subgraph_count(), false);
  for (size_t node = 0; node < model.node_count(); ++node) {
    const std::string name = model.node_name(node);
    const int64_t sg = capability.node_subgraph(node);
    if (sg < 0) {
      std::printf("node %s (%s): unclaimed (%s), run by the host\n", name.c_str(),
                  model.node_op(node).c_str(), capability.node_reason(node).c_str());
      const HostNode& host_node = kModel.at(name);
      values[host_node.dst] = run_on_host(host_node, values);
      continue;
    }
    std::printf("node %s (%s): subgraph %lld on %s\n", name.c_str(), model.node_op(node).c_str(),
                static_cast<long long>(sg), capability.subgraph_set(sg).c_str());
    if (done[sg]) continue;
    done[sg] = true;

    // 4. Compile the subgraph: a session whose inputs and outputs are its boundary values.
    geon::api::Session compiled = capability.compile(static_cast<size_t>(sg), &options);
    std::vector<geon::api::Feed> feeds;
    for (const geon::api::ValueInfo& info : compiled.inputs()) {
      const HostTensor& t = values.at(info.name);
      feeds.push_back({info.name, 1, t.shape, t.data.data(), t.data.size() * sizeof(float)});
    }

    // 5. Compute: run it, and keep its outputs as host values for the nodes after it.
    for (const geon::api::Tensor& out : compiled.run(feeds)) {
      const auto v = out.as<float>();
      values[out.name] = {{v.begin(), v.end()}, out.shape};
    }
  }

  // 6. The model's output, as the whole model computes it.
  const HostTensor& y = values.at("y");
  std::printf("output y: [%lld]\n", static_cast<long long>(y.shape.at(0)));
  const char* sep = "";
  for (float v : y.data) std::printf("%s%.9g", std::exchange(sep, " "), v);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s models/det_chain.onnx [PROVIDER.so]\n", argv[0]);
    return 2;
  }
  try {
    provider_contract(argv[1], argc == 3 ? argv[2] : GEON_PROVIDER_LIBRARY);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
