// Greedy merging in topological order with ancestor bitsets over groups, then a pairwise pass
// that merges whatever the greedy order missed, so the grouping is maximal.
#include "core/runtime/grouping.h"

#include <algorithm>
#include <cstdint>
#include <queue>

#include "core/base/error.h"

namespace geon {
namespace {

class Bits {
 public:
  explicit Bits(size_t n = 0) : w_((n + 63) / 64, 0) {}
  bool test(int i) const { return (w_[i >> 6] >> (i & 63)) & 1; }
  void set(int i) { w_[i >> 6] |= uint64_t{1} << (i & 63); }
  void reset(int i) { w_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  void merge(const Bits& o) {
    for (size_t k = 0; k < w_.size(); ++k) w_[k] |= o.w_[k];
  }

 private:
  std::vector<uint64_t> w_;
};

// Groups of a DAG being contracted. anc[g] holds the groups with a path into g (g excluded).
struct Contraction {
  const std::vector<std::vector<int>>& preds;
  size_t n;
  std::vector<int> group_of;
  std::vector<int> colour;
  std::vector<std::vector<int>> members;
  std::vector<Bits> anc;
  std::vector<bool> alive;

  // Distinct groups holding a predecessor of any node in `nodes`, other than `self`.
  std::vector<int> pred_groups(const std::vector<int>& nodes, int self) const {
    std::vector<int> out;
    for (int m : nodes)
      for (int p : preds[m]) {
        const int pg = group_of[p];
        if (pg != self && pg >= 0 && std::find(out.begin(), out.end(), pg) == out.end())
          out.push_back(pg);
      }
    return out;
  }

  int new_group(int node, int c, const std::vector<int>& pgs) {
    const int id = static_cast<int>(members.size());
    members.push_back({node});
    colour.push_back(c);
    alive.push_back(true);
    Bits a(n);
    for (int p : pgs) {
      a.set(p);
      a.merge(anc[p]);
    }
    anc.push_back(std::move(a));
    group_of[node] = id;
    return id;
  }

  // Adding the newest node (nothing depends on it yet) to g makes a cycle exactly when a
  // predecessor group other than g is reachable from g.
  bool can_join(int g, const std::vector<int>& pgs) const {
    for (int p : pgs)
      if (p != g && anc[p].test(g)) return false;
    return true;
  }

  void join(int node, int g, const std::vector<int>& pgs) {
    Bits added(n);
    for (int p : pgs)
      if (p != g) {
        added.set(p);
        added.merge(anc[p]);
      }
    members[g].push_back(node);
    group_of[node] = g;
    anc[g].merge(added);
    for (size_t h = 0; h < anc.size(); ++h)
      if (alive[h] && static_cast<int>(h) != g && anc[h].test(g)) anc[h].merge(added);
  }

  // Recomputes every ancestor set from the group edges, in a topological order of the groups
  // (which it returns). Throws if the contraction has a cycle (a bug here, never the input's).
  std::vector<int> recompute() {
    const size_t ng = members.size();
    std::vector<std::vector<int>> gpreds(ng), succs(ng);
    std::vector<int> indeg(ng, 0);
    for (size_t g = 0; g < ng; ++g) {
      if (!alive[g]) continue;
      gpreds[g] = pred_groups(members[g], static_cast<int>(g));
      for (int p : gpreds[g]) succs[p].push_back(static_cast<int>(g));
      indeg[g] = static_cast<int>(gpreds[g].size());
    }
    // Ties go to the group with the smallest first node, so the order follows the graph's.
    auto later = [&](int a, int b) { return members[a][0] > members[b][0]; };
    std::priority_queue<int, std::vector<int>, decltype(later)> ready(later);
    for (size_t g = 0; g < ng; ++g)
      if (alive[g] && indeg[g] == 0) ready.push(static_cast<int>(g));
    std::vector<int> order;
    while (!ready.empty()) {
      const int g = ready.top();
      ready.pop();
      order.push_back(g);
      anc[g] = Bits(n);
      for (int p : gpreds[g]) {
        anc[g].set(p);
        anc[g].merge(anc[p]);
      }
      for (int s : succs[g])
        if (--indeg[s] == 0) ready.push(s);
    }
    size_t live = 0;
    for (size_t g = 0; g < ng; ++g) live += alive[g];
    if (order.size() != live) fail(ErrorCode::kInternal, "partition: contracted graph has a cycle");
    return order;
  }

  // Merging a and b (one colour) is safe when no path joins them through a third group.
  bool can_merge(int a, int b) const {
    for (int p : pred_groups(members[b], b))
      if (p != a && (anc[p].test(a))) return false;
    for (int p : pred_groups(members[a], a))
      if (p != b && (anc[p].test(b))) return false;
    return true;
  }

  void merge(int a, int b) {
    for (int m : members[b]) group_of[m] = a;
    members[a].insert(members[a].end(), members[b].begin(), members[b].end());
    std::sort(members[a].begin(), members[a].end());
    members[b].clear();
    alive[b] = false;
  }
};

}  // namespace

Grouping group_by_colour(std::span<const int> colour, const std::vector<std::vector<int>>& preds) {
  const size_t n = colour.size();
  Contraction c{preds, n, std::vector<int>(n, -1), {}, {}, {}, {}};
  for (size_t i = 0; i < n; ++i) {
    const int node = static_cast<int>(i);
    for (int p : preds[i])
      require(p >= 0 && p < node, "group_by_colour: predecessors must come earlier");
    const std::vector<int> pgs = c.pred_groups({node}, -1);
    if (colour[i] < 0) {
      c.new_group(node, -1, pgs);
      continue;
    }
    // Prefer a group that feeds this node (keeps data on one device), newest first; then any
    // other group of the colour.
    int target = -1;
    for (auto it = pgs.rbegin(); it != pgs.rend() && target < 0; ++it)
      if (c.colour[*it] == colour[i] && c.can_join(*it, pgs)) target = *it;
    for (int g = static_cast<int>(c.members.size()) - 1; g >= 0 && target < 0; --g)
      if (c.alive[g] && c.colour[g] == colour[i] && c.can_join(g, pgs)) target = g;
    if (target >= 0)
      c.join(node, target, pgs);
    else
      c.new_group(node, colour[i], pgs);
  }
  // The greedy order can miss merges (a node joins one group and so links two others); merge
  // pairs until none is possible.
  std::vector<int> order = c.recompute();
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t x = 0; x < order.size() && !merged; ++x)
      for (size_t y = x + 1; y < order.size() && !merged; ++y) {
        const int a = order[x], b = order[y];
        if (c.colour[a] < 0 || c.colour[a] != c.colour[b] || !c.can_merge(a, b)) continue;
        c.merge(a, b);
        order = c.recompute();
        merged = true;
      }
  }
  Grouping out;
  out.group_of.assign(n, -1);
  for (int g : order) {
    if (c.colour[g] < 0) continue;
    const int id = static_cast<int>(out.groups.size());
    for (int m : c.members[g]) out.group_of[m] = id;
    out.groups.push_back(c.members[g]);
    out.colour.push_back(c.colour[g]);
  }
  return out;
}

}  // namespace geon
