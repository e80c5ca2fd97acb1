// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// A binary heap that moves its entries exactly as Rust's std::collections::BinaryHeap does
// (push: sift up while strictly greater than the parent; pop: the last entry replaces the
// root, sinks to the bottom along the greater children — the right one on ties — and sifts
// up; into_sorted_vec: heap sort, ascending). LanceDB's HNSW search keeps its candidates and
// results in such heaps ordered by distance alone, so which of several equally distant nodes
// it expands first or keeps at the cut-off depends on these moves; reproducing them makes
// ties resolve as in LanceDB. Thread-safety: externally synchronized.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace lancedb::index::vector {

/// A node of a graph search: a distance and a local row number.
struct HeapNode {
  float distance;
  uint32_t id;
};

/// kMin = false: a max-heap on distance (Rust's BinaryHeap<OrderedNode>); kMin = true: a
/// min-heap (BinaryHeap<Reverse<OrderedNode>>).
template <bool kMin>
class RustHeap {
 public:
  bool empty() const { return data_.empty(); }
  size_t size() const { return data_.size(); }
  /// REQUIRES: !empty().
  const HeapNode& top() const { return data_[0]; }
  void reserve(size_t n) { data_.reserve(n); }

  void Push(HeapNode node) {
    data_.push_back(node);
    SiftUp(0, data_.size() - 1);
  }

  /// Remove and return the top. REQUIRES: !empty().
  HeapNode Pop() {
    HeapNode item = data_.back();
    data_.pop_back();
    if (!data_.empty()) {
      std::swap(item, data_[0]);
      SiftDownToBottom(0);
    }
    return item;
  }

  /// The entries in ascending order of the heap's ordering, as into_sorted_vec leaves them.
  std::vector<HeapNode> IntoSortedVec() && {
    for (size_t end = data_.size(); end > 1;) {
      --end;
      std::swap(data_[0], data_[end]);
      SiftDownRange(0, end);
    }
    return std::move(data_);
  }

 private:
  // a <= b in the heap's ordering (distances are never NaN here).
  static bool Le(const HeapNode& a, const HeapNode& b) {
    return kMin ? b.distance <= a.distance : a.distance <= b.distance;
  }
  static bool Lt(const HeapNode& a, const HeapNode& b) { return !Le(b, a); }

  void SiftUp(size_t start, size_t pos) {
    const HeapNode elem = data_[pos];
    while (pos > start) {
      const size_t parent = (pos - 1) / 2;
      if (Le(elem, data_[parent])) break;
      data_[pos] = data_[parent];
      pos = parent;
    }
    data_[pos] = elem;
  }

  void SiftDownToBottom(size_t pos) {
    const size_t end = data_.size();
    const size_t start = pos;
    const HeapNode elem = data_[pos];
    size_t child = 2 * pos + 1;
    while (end >= 2 && child <= end - 2) {
      if (Le(data_[child], data_[child + 1])) ++child;
      data_[pos] = data_[child];
      pos = child;
      child = 2 * pos + 1;
    }
    if (child == end - 1) {
      data_[pos] = data_[child];
      pos = child;
    }
    data_[pos] = elem;
    SiftUp(start, pos);
  }

  void SiftDownRange(size_t pos, size_t end) {
    const HeapNode elem = data_[pos];
    size_t child = 2 * pos + 1;
    while (end >= 2 && child <= end - 2) {
      if (Le(data_[child], data_[child + 1])) ++child;
      if (!Lt(elem, data_[child])) {
        data_[pos] = elem;
        return;
      }
      data_[pos] = data_[child];
      pos = child;
      child = 2 * pos + 1;
    }
    if (child == end - 1 && Lt(elem, data_[child])) {
      data_[pos] = data_[child];
      pos = child;
    }
    data_[pos] = elem;
  }

  std::vector<HeapNode> data_;
};

}  // namespace lancedb::index::vector
