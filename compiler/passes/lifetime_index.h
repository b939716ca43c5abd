// LifetimeIndex: the buffers placed so far, indexed by lifetime, so the memory planner finds the
// buffers live at the same time as a new one without scanning every placed buffer (a 1M-node chain
// would take hours that way). A segment tree over node indices: each buffer is held by the
// O(log T) tree nodes whose ranges tile its lifetime, and every tree node counts the entries in
// its subtree, so a query only descends where something overlapping was placed. A query costs
// O((k + 1) log T) for k buffers found. It does NOT know offsets or sizes: the planner does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace onnxc {

class LifetimeIndex {
 public:
  // Lifetimes are inclusive ranges of node indices in [0, horizon).
  explicit LifetimeIndex(int horizon, size_t buffers) : seen_(buffers, 0) {
    while (leaves_ < static_cast<size_t>(horizon)) leaves_ *= 2;
    held_.resize(2 * leaves_);
    count_.assign(2 * leaves_, 0);
  }

  void insert(uint32_t id, int first, int last) {
    size_t lo = static_cast<size_t>(first) + leaves_, hi = static_cast<size_t>(last) + leaves_ + 1;
    for (; lo < hi; lo /= 2, hi /= 2) {  // the canonical tiling of [first, last]
      if (lo & 1) hold(lo++, id);
      if (hi & 1) hold(--hi, id);
    }
  }

  // Calls visit(id) once for every inserted buffer whose lifetime meets [first, last].
  template <class Visit>
  void for_each_overlapping(int first, int last, Visit&& visit) {
    ++stamp_;
    walk(1, 0, leaves_ - 1, static_cast<size_t>(first), static_cast<size_t>(last), visit);
  }

 private:
  void hold(size_t node, uint32_t id) {
    held_[node].push_back(id);
    for (size_t n = node; n; n /= 2) ++count_[n];
  }

  template <class Visit>
  void walk(size_t node, size_t lo, size_t hi, size_t first, size_t last, Visit& visit) {
    if (!count_[node] || hi < first || lo > last) return;
    for (uint32_t id : held_[node])  // their lifetimes cover [lo, hi], which meets the query
      if (seen_[id] != stamp_) {
        seen_[id] = stamp_;
        visit(id);
      }
    if (lo == hi) return;
    size_t mid = lo + (hi - lo) / 2;
    walk(2 * node, lo, mid, first, last, visit);
    walk(2 * node + 1, mid + 1, hi, first, last, visit);
  }

  size_t leaves_ = 1;
  std::vector<std::vector<uint32_t>> held_;  // buffers whose lifetime covers the node's range
  std::vector<uint32_t> count_;              // entries held in the node's subtree
  std::vector<uint32_t> seen_;               // per buffer: the query that last reported it
  uint32_t stamp_ = 0;
};

}  // namespace onnxc
