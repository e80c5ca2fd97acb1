// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The bounded top-k LanceDB keeps while it searches an IVF index: a max-heap of k entries
// ordered by distance alone (Rust's std BinaryHeap), a candidate replacing the top only when
// strictly closer. Which of several equally distant candidates survive depends on the order
// they are offered in and on the heap's sift order, both reproduced here so that ties (frequent
// with few PQ sub-vectors) resolve as in LanceDB. Thread-safety: externally synchronized.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "index/vector/flat_search.h"

namespace lancedb::index::vector {

class LanceHeap {
 public:
  explicit LanceHeap(size_t k) : k_(k) { heap_.reserve(k + 1); }

  /// Offer a candidate; NaN distances are ignored.
  void Offer(float distance, uint64_t id) {
    if (k_ == 0 || std::isnan(distance)) return;
    if (heap_.size() < k_) {
      heap_.push_back({distance, id});
      SiftUp(heap_.size() - 1);
    } else if (heap_[0].distance > distance) {
      Pop();
      heap_.push_back({distance, id});
      SiftUp(heap_.size() - 1);
    }
  }

  /// Whether the heap holds k entries.
  bool full() const { return heap_.size() >= k_; }
  /// The greatest distance held. REQUIRES: not empty.
  float worst() const { return heap_[0].distance; }

  /// The entries in the heap's storage order (the order LanceDB passes them on in).
  const std::vector<Neighbor>& entries() const { return heap_; }

 private:
  // BinaryHeap::sift_up: move the entry at `pos` up while it is greater than its parent.
  void SiftUp(size_t pos) {
    const Neighbor entry = heap_[pos];
    while (pos > 0) {
      const size_t parent = (pos - 1) / 2;
      if (entry.distance <= heap_[parent].distance) break;
      heap_[pos] = heap_[parent];
      pos = parent;
    }
    heap_[pos] = entry;
  }

  // BinaryHeap::pop: the last entry replaces the root, sinks to the bottom along the greater
  // children (the right one on ties), then sifts up.
  void Pop() {
    const Neighbor last = heap_.back();
    heap_.pop_back();
    if (heap_.empty()) return;
    const size_t end = heap_.size();
    size_t pos = 0;
    size_t child = 1;
    while (end >= 2 && child <= end - 2) {
      child += heap_[child].distance <= heap_[child + 1].distance ? 1 : 0;
      heap_[pos] = heap_[child];
      pos = child;
      child = 2 * pos + 1;
    }
    if (child == end - 1) {
      heap_[pos] = heap_[child];
      pos = child;
    }
    heap_[pos] = last;
    SiftUp(pos);
  }

  size_t k_;
  std::vector<Neighbor> heap_;
};

}  // namespace lancedb::index::vector
