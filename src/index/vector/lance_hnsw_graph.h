// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The HNSW graph of one partition of a LanceDB-built IVF_HNSW_* index, read from `index.idx`
// (docs/format/lance-vector-index.md, "IVF_HNSW_*"), searched as LanceDB searches it so that
// the same nodes are visited, in the same order, and ties resolve the same way:
//   - from the entry point, a greedy descent through levels top..1 (move to the strictly
//     closest neighbour, neighbours in stored order, until none is closer);
//   - on level 0 a best-first search of breadth ef: candidates in a min-heap, results in a
//     max-heap of ef (rust_heap.h); a popped candidate farther than the worst of ef results
//     ends it; a neighbour enters the candidates when not farther than the worst result (or
//     fewer than ef are held), and the results when it passes the filter and the range;
//   - with a filter passing every node the search is unfiltered; passing fewer than 10% of
//     the nodes, the passing nodes are scored exactly (a max-heap of k); otherwise the graph
//     is searched with the filter applied to the results only;
//   - the first k of the results, sorted.
// Node n is local row n of the partition's storage. The graph keeps what index.idx stores
// (levels, neighbours with their build distances, entry point, build parameters) so that it
// can be written back (lance_hnsw_write.h). Thread-safety: immutable.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "array/array.h"
#include "index/vector/quantizer.h"
#include "index/vector/rust_heap.h"

namespace lancedb::index::vector {

/// The build parameters a graph records (the `params` of its `lance:hnsw` metadata).
struct LanceHnswParams {
  size_t max_level = 7;  ///< levels stored per graph (0 .. max_level - 1)
  size_t m = 20;
  size_t ef_construction = 300;
  std::optional<size_t> prefetch_distance = 2;
};

/// One level of a graph as index.idx stores it: the nodes present (level 0: every node, in
/// order; LanceDB lists the others ascending), node i's neighbours at [offsets[i], offsets[i + 1])
/// of `neighbors` in stored order, and their distances to it (build-time, parallel to `neighbors`).
struct LanceHnswLevel {
  std::vector<uint32_t> nodes;
  std::vector<uint32_t> offsets{0};
  std::vector<uint32_t> neighbors;
  std::vector<float> distances;
};

class LanceHnswGraph final : public SubIndex {
 public:
  /// Make a graph of `levels` (level 0 first; the levels above the last given are empty).
  /// InvalidArgument when level 0 does not list nodes 0..n-1, a level's lists disagree in
  /// length, an upper level lists a node twice or one that is not a node, a neighbour is not
  /// a node, the entry point is not a node (of a non-empty graph), or there are more levels
  /// than params.max_level.
  static Result<std::unique_ptr<LanceHnswGraph>> Make(uint32_t entry_point, LanceHnswParams params,
                                                      std::vector<LanceHnswLevel> levels);

  /// Read the graph of one partition: rows [start, start + length) of index.idx's columns
  /// `__vector_id` (uint32), `__neighbors` (list<uint32>) and `_distance` (list<float>; null:
  /// distances 0), laid out by `metadata` (the partition's entry of the `lance:hnsw` list:
  /// entry_point, params, level_offsets). `num_rows`: the rows of the partition's storage.
  /// Corruption for inconsistent content.
  static Result<std::unique_ptr<LanceHnswGraph>> Read(const array::ArrayData& vector_ids,
                                                      const array::ArrayData& neighbors,
                                                      const array::ArrayData* distances,
                                                      int64_t start, int64_t length,
                                                      const std::string& metadata, size_t num_rows);

  struct Query {
    size_t k = 10;
    size_t ef = 15;  ///< REQUIRES: ef >= k
    /// Local rows the results may hold; null: all.
    RowPredicate accept;
    /// Distances (as the storage computes them) the results may hold; null: all.
    std::function<bool(float)> in_range;
  };

  /// Return up to k (local row, distance) pairs, nearest first, as LanceDB finds them.
  std::vector<Neighbor> SearchAsLance(const DistanceComputer& distances, const Query& query) const;

  /// SubIndex: SearchAsLance with ef = params.ef (0: k + k / 2, at least k).
  void Search(const DistanceComputer& distances, int64_t num_rows,
              const SubIndexSearchParams& params, const RowPredicate& accept,
              TopK& out) const override;

  size_t num_nodes() const { return levels_.empty() ? 0 : levels_[0].nodes.size(); }
  uint32_t entry_point() const { return entry_point_; }
  /// The non-empty levels (0 for an empty graph).
  size_t num_levels() const { return levels_.size(); }
  const LanceHnswParams& params() const { return params_; }
  /// The non-empty levels, level 0 first, as stored.
  const std::vector<LanceHnswLevel>& levels() const { return levels_; }

 private:
  LanceHnswGraph() = default;
  std::vector<HeapNode> Beam(const DistanceComputer& distances, HeapNode entry, const Query& query,
                             const std::vector<uint8_t>* passing) const;
  std::vector<HeapNode> Flat(const DistanceComputer& distances, const Query& query,
                             const std::vector<uint8_t>& passing) const;

  uint32_t entry_point_ = 0;
  LanceHnswParams params_;
  // Level 0 holds node n at position n; an upper level l's positions: positions_[l - 1].
  std::vector<LanceHnswLevel> levels_;
  std::vector<std::unordered_map<uint32_t, uint32_t>> positions_;
};

}  // namespace lancedb::index::vector
