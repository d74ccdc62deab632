// Cycle-free grouping of a DAG's nodes by colour, for the partitioner: nodes of one colour are
// merged into as few groups as possible such that contracting every group to a single node
// keeps the graph acyclic. Graph-free, so it can be tested on bare edge lists.
#pragma once

#include <span>
#include <vector>

namespace geon {

struct Grouping {
  std::vector<int> group_of;             // per node; -1 for uncoloured nodes
  std::vector<std::vector<int>> groups;  // members ascending; groups in a runnable order
  std::vector<int> colour;               // per group
};

// colour[n] >= 0: the colour of node n; -1: the node stays alone and is not reported (its
// edges still count for cycles). preds[n]: n's predecessors, all < n (the node indices are a
// topological order). The result is maximal: no two groups of one colour can be merged.
Grouping group_by_colour(std::span<const int> colour, const std::vector<std::vector<int>>& preds);

}  // namespace geon
