// ai.onnx.ml TreeEnsemble (opset 5): every tree of the ensemble walked per row of X, each leaf
// reached adding its weight to its target (sum, average, min or max), then the post
// transform. The trees are checked once, at create(): every node and leaf id in range and
// every walk bounded, so a malformed ensemble is refused instead of looping or reading out of
// bounds.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "core/base/error.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {
namespace {

enum Mode { kLeq = 0, kLt, kGte, kGt, kEq, kNeq, kMember };

struct Ensemble {
  std::vector<int64_t> feature, mode, true_id, false_id;
  std::vector<uint8_t> true_leaf, false_leaf, missing_true;
  std::vector<double> split;
  std::vector<std::vector<double>> members;  // per node (MEMBER nodes only)
  std::vector<int64_t> leaf_target;
  std::vector<double> leaf_weight;
  std::vector<int64_t> roots;
  std::vector<uint8_t> root_is_leaf;
  int64_t targets = 0;
  int aggregate = 1, post = 0;
};

std::vector<int64_t> ints_of(const Node& n, const char* name) {
  const Attribute* a = n.attr(name);
  return a ? a->ints : std::vector<int64_t>{};
}

std::vector<double> doubles_of(const Node& n, const char* name) {
  std::vector<double> out;
  if (const Attribute* a = n.attr(name); a && a->t)
    for (int64_t k = 0; k < a->t->elements(); ++k) out.push_back(element_as_double(*a->t, k));
  return out;
}

std::shared_ptr<Ensemble> build(const Node& n) {
  auto e = std::make_shared<Ensemble>();
  e->feature = ints_of(n, "nodes_featureids");
  e->true_id = ints_of(n, "nodes_truenodeids");
  e->false_id = ints_of(n, "nodes_falsenodeids");
  const std::vector<int64_t> tl = ints_of(n, "nodes_trueleafs"),
                             fl = ints_of(n, "nodes_falseleafs");
  e->true_leaf.assign(tl.begin(), tl.end());
  e->false_leaf.assign(fl.begin(), fl.end());
  const size_t nodes = e->feature.size();
  for (double m : doubles_of(n, "nodes_modes")) e->mode.push_back(static_cast<int64_t>(m));
  e->split = doubles_of(n, "nodes_splits");
  e->leaf_target = ints_of(n, "leaf_targetids");
  e->leaf_weight = doubles_of(n, "leaf_weights");
  e->roots = ints_of(n, "tree_roots");
  e->targets = attr_int(n, "n_targets", 1);
  e->aggregate = static_cast<int>(attr_int(n, "aggregate_function", 1));
  e->post = static_cast<int>(attr_int(n, "post_transform", 0));
  require(e->targets >= 1 && e->targets <= (int64_t{1} << 24), [&] {
    return "attribute 'n_targets' must be 1 to 2^24, got " + std::to_string(e->targets);
  });
  require(e->aggregate >= 0 && e->aggregate <= 3, "attribute 'aggregate_function' must be 0 to 3");
  require(e->post >= 0 && e->post <= 4, "attribute 'post_transform' must be 0 to 4");
  for (size_t s : {e->true_id.size(), e->false_id.size(), e->true_leaf.size(), e->false_leaf.size(),
                   e->mode.size(), e->split.size()})
    require(s == nodes, [&] {
      return "the nodes_* attributes must all have " + std::to_string(nodes) +
             " entries (one per node)";
    });
  const size_t leaves = e->leaf_target.size();
  require(e->leaf_weight.size() == leaves,
          "attribute 'leaf_weights' must have one entry per "
          "'leaf_targetids' entry");
  for (size_t k = 0; k < leaves; ++k)
    require(e->leaf_target[k] >= 0 && e->leaf_target[k] < e->targets, [&] {
      return "leaf " + std::to_string(k) + " has target " + std::to_string(e->leaf_target[k]) +
             ", out of range for n_targets " + std::to_string(e->targets);
    });
  const std::vector<int64_t> miss = ints_of(n, "nodes_missing_value_tracks_true");
  e->missing_true.assign(nodes, 0);
  for (size_t k = 0; k < nodes && k < miss.size(); ++k) e->missing_true[k] = miss[k] != 0;
  // Members: one NaN-terminated run of values per MEMBER node, in node order.
  const std::vector<double> mv = doubles_of(n, "membership_values");
  e->members.resize(nodes);
  size_t at = 0;
  for (size_t k = 0; k < nodes; ++k) {
    require(e->mode[k] >= kLeq && e->mode[k] <= kMember, [&] {
      return "node " + std::to_string(k) + " has mode " + std::to_string(e->mode[k]);
    });
    require(e->feature[k] >= 0,
            [&] { return "node " + std::to_string(k) + " has a negative feature id"; });
    auto check = [&](int64_t id, bool leaf, const char* which) {
      const size_t limit = leaf ? leaves : nodes;
      require(id >= 0 && static_cast<size_t>(id) < limit, [&] {
        return "node " + std::to_string(k) + "'s " + which + " id " + std::to_string(id) +
               " is out of range (" + std::to_string(limit) + (leaf ? " leaves)" : " nodes)");
      });
    };
    check(e->true_id[k], e->true_leaf[k] != 0, "true");
    check(e->false_id[k], e->false_leaf[k] != 0, "false");
    if (e->mode[k] != kMember) continue;
    require(at < mv.size(), [&] {
      return "attribute 'membership_values' has no set for node " + std::to_string(k);
    });
    while (at < mv.size() && !std::isnan(mv[at])) e->members[k].push_back(mv[at++]);
    ++at;  // the NaN that ends the set
  }
  for (int64_t r : e->roots) {
    require(r >= 0 && static_cast<size_t>(r) < nodes, [&] {
      return "tree root " + std::to_string(r) + " is out of range (" + std::to_string(nodes) +
             " nodes)";
    });
    // A root whose both branches are the same leaf is a single-leaf tree (the reference
    // evaluator's reading).
    e->root_is_leaf.push_back(e->true_leaf[r] && e->false_leaf[r] &&
                              e->true_id[r] == e->false_id[r]);
  }
  return e;
}

bool goes_true(const Ensemble& e, size_t k, double x) {
  if (std::isnan(x) && e.missing_true[k]) return true;
  const double s = e.split[k];
  switch (e.mode[k]) {
    case kLeq:
      return x <= s;
    case kLt:
      return x < s;
    case kGte:
      return x >= s;
    case kGt:
      return x > s;
    case kEq:
      return x == s;
    case kNeq:
      return x != s;
    default: {
      const auto& m = e.members[k];
      return std::find(m.begin(), m.end(), x) != m.end();
    }
  }
}

// The leaf a row reaches from root r; the walk is bounded by the node count (a cycle fails).
size_t walk(const Ensemble& e, size_t t, const double* row, int64_t features) {
  size_t k = static_cast<size_t>(e.roots[t]);
  if (e.root_is_leaf[t]) return static_cast<size_t>(e.true_id[k]);
  for (size_t steps = 0; steps <= e.feature.size(); ++steps) {
    if (e.feature[k] >= features)
      fail(ErrorCode::kOutOfRange, "node " + std::to_string(k) + " reads feature " +
                                       std::to_string(e.feature[k]) + " but X has " +
                                       std::to_string(features));
    const bool t_ = goes_true(e, k, row[e.feature[k]]);
    const int64_t next = t_ ? e.true_id[k] : e.false_id[k];
    if (t_ ? e.true_leaf[k] : e.false_leaf[k]) return static_cast<size_t>(next);
    k = static_cast<size_t>(next);
  }
  fail(ErrorCode::kInvalidArgument, "tree " + std::to_string(t) + " has a cycle");
}

double erf_inv(double x) {
  // Giles' single-precision approximation refined by two Newton steps on erf.
  double w = -std::log((1.0 - x) * (1.0 + x)), p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941})
      p = c + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                     0.00943887047, 1.00167406, 2.83297682})
      p = c + p * w;
  }
  double y = p * x;
  for (int i = 0; i < 2; ++i) y -= (std::erf(y) - x) / (2.0 / std::sqrt(M_PI) * std::exp(-y * y));
  return y;
}

void post_transform(int post, double* v, int64_t n) {
  if (post == 1 || post == 3) {  // softmax (3: zeros stay zero and take no share)
    double mx = -std::numeric_limits<double>::infinity(), sum = 0;
    for (int64_t i = 0; i < n; ++i)
      if (post == 1 || v[i] != 0) mx = std::max(mx, v[i]);
    for (int64_t i = 0; i < n; ++i) {
      if (post == 3 && v[i] == 0) continue;
      v[i] = std::exp(v[i] - mx);
      sum += v[i];
    }
    for (int64_t i = 0; i < n; ++i)
      if (post == 1 || v[i] != 0) v[i] /= sum;
  } else if (post == 2) {
    for (int64_t i = 0; i < n; ++i) v[i] = 1.0 / (1.0 + std::exp(-v[i]));
  } else if (post == 4) {
    for (int64_t i = 0; i < n; ++i) v[i] = std::sqrt(2.0) * erf_inv(2.0 * v[i] - 1.0);
  }
}

}  // namespace

Reason supports_tree_ensemble(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  if (t != DType::kFloat && t != DType::kDouble && t != DType::kFloat16)
    return "input 0 is " + std::string(dtype_name(t)) +
           "; TreeEnsemble takes float, double or "
           "float16";
  try {
    build(n);
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

std::unique_ptr<Kernel> create_tree_ensemble(const Graph&, const Node& n) {
  std::shared_ptr<const Ensemble> e = build(n);
  return make_node_kernel(n, [e](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    require(x.desc.rank() == 2, [&] { return "X must be [N, F], got " + to_string(x.desc); });
    const int64_t rows = x.desc.shape[0], features = x.desc.shape[1];
    const Dims shape{rows, e->targets};
    check_output_size(x.desc.dtype, shape, "the output");
    const TensorRef& dst = ctx.output(0, shape);
    const std::vector<double> xs = read_doubles(x);
    std::vector<double> out(static_cast<size_t>(rows * e->targets));
    const size_t trees = e->roots.size();
    // MIN / MAX start from the dtype's largest value (the reference evaluator's finfo.max).
    const double big = x.desc.dtype == DType::kDouble  ? std::numeric_limits<double>::max()
                       : x.desc.dtype == DType::kFloat ? std::numeric_limits<float>::max()
                                                       : 65504.0;
    parallel_rows(rows, static_cast<int64_t>(trees) * 16 + 1, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        double* o = out.data() + r * e->targets;
        const double init = e->aggregate == 2 ? big : e->aggregate == 3 ? -big : 0.0;
        std::fill(o, o + e->targets, init);
        for (size_t t = 0; t < trees; ++t) {
          const size_t leaf = walk(*e, t, xs.data() + r * features, features);
          double& slot = o[e->leaf_target[leaf]];
          const double w = e->leaf_weight[leaf];
          if (e->aggregate == 2)
            slot = std::min(slot, w);
          else if (e->aggregate == 3)
            slot = std::max(slot, w);
          else
            slot += e->aggregate == 0 ? w / static_cast<double>(trees) : w;
        }
        post_transform(e->post, o, e->targets);
      }
    });
    if (!out.empty())
      assign(dst_of(dst), ConstOperand(row_major(DType::kDouble, shape), out.data()));
  });
}

}  // namespace geon::cpu
