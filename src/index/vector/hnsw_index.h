// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// HNSW (Malkov & Yashunin, 2018) as the sub-index of one IVF partition. Node ids are the
// partition's local rows in arrival order: the graph never reorders rows, and ids are 32-bit
// while every offset into vector storage is 64-bit, so a partition may hold more than 2^31
// bytes of vectors. Level 0 keeps up to 2*m neighbours per node (paper: M_max0), upper levels
// m (paper: M). Thread-safety: immutable after building; Search is thread-safe.

#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "index/vector/quantizer.h"

namespace lancedb::index::vector {

struct HnswParams {
  size_t m = 20;                 ///< LanceDB's `m` (Rust `num_edges`)
  size_t ef_construction = 300;  ///< candidate list size while inserting
  uint64_t seed = 42;            ///< level assignment
  int top_level = 15;            ///< the highest level a node is drawn (Lance's graphs: 6)
};

class HnswGraph final : public SubIndex {
 public:
  HnswGraph(int64_t num_nodes, size_t m);

  int64_t num_nodes() const { return static_cast<int64_t>(levels_.size()); }
  size_t m() const { return m_; }
  int max_level() const { return max_level_; }
  uint32_t entry_point() const { return entry_point_; }
  int level(uint32_t node) const { return levels_[node]; }
  /// Return the neighbours of `node` on `level`. REQUIRES: level <= level(node).
  std::span<const uint32_t> Neighbors(uint32_t node, int level) const {
    if (level == 0) return {&level0_[static_cast<size_t>(node) * 2 * m_], level0_count_[node]};
    return UpperNeighbors(node, level);
  }
  /// Hint that the level-0 neighbours of `node` will be read soon.
  void PrefetchNeighbors(uint32_t node) const {
    const uint32_t* list = &level0_[static_cast<size_t>(node) * 2 * m_];
    for (size_t i = 0; i < 2 * m_; i += 16) __builtin_prefetch(list + i);
    __builtin_prefetch(&level0_count_[node]);
  }

  void Search(const DistanceComputer& distances, int64_t num_rows,
              const SubIndexSearchParams& params, const RowPredicate& accept,
              TopK& out) const override;

  // Construction (used by the builder and by deserialisation).
  void SetLevel(uint32_t node, int level);
  void SetEntryPoint(uint32_t node, int max_level) {
    entry_point_ = node;
    max_level_ = max_level;
  }
  void SetNeighbors(uint32_t node, int level, std::span<const uint32_t> neighbors);

 private:
  size_t Capacity(int level) const { return level == 0 ? 2 * m_ : m_; }
  std::span<const uint32_t> UpperNeighbors(uint32_t node, int level) const;

  size_t m_;
  int max_level_ = -1;
  uint32_t entry_point_ = 0;
  std::vector<uint8_t> levels_;
  // Level 0. Layout: level0_ (num_nodes, 2m); level0_count_ (num_nodes).
  std::vector<uint32_t> level0_;
  std::vector<uint16_t> level0_count_;
  // Levels >= 1 of the few nodes that have them: node -> one list per level (index level - 1).
  std::unordered_map<uint32_t, std::vector<std::vector<uint32_t>>> upper_;
};

}  // namespace lancedb::index::vector
