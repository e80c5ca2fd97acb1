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
// Node n is local row n of the partition's storage. Thread-safety: immutable.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "array/array.h"
#include "index/vector/quantizer.h"
#include "index/vector/rust_heap.h"

namespace lancedb::index::vector {

class LanceHnswGraph final : public SubIndex {
 public:
  /// Read the graph of one partition: rows [start, start + length) of index.idx's columns
  /// `__vector_id` (uint32) and `__neighbors` (list<uint32>), laid out by `metadata` (the
  /// partition's entry of the `lance:hnsw` list: entry_point, level_offsets). `num_rows`:
  /// the rows of the partition's storage. Corruption for inconsistent content.
  static Result<std::unique_ptr<LanceHnswGraph>> Read(const array::ArrayData& vector_ids,
                                                      const array::ArrayData& neighbors,
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

  size_t num_nodes() const { return bottom_offsets_.size() - 1; }
  uint32_t entry_point() const { return entry_point_; }
  size_t num_levels() const { return 1 + upper_.size(); }

 private:
  /// An upper level: the nodes present and their neighbours.
  struct Level {
    std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> ranges;  // node -> [begin, end)
    std::vector<uint32_t> neighbors;
  };

  LanceHnswGraph() = default;
  std::vector<HeapNode> Beam(const DistanceComputer& distances, HeapNode entry, const Query& query,
                             const std::vector<uint8_t>* passing) const;
  std::vector<HeapNode> Flat(const DistanceComputer& distances, const Query& query,
                             const std::vector<uint8_t>& passing) const;

  uint32_t entry_point_ = 0;
  // Level 0, node n's neighbours: bottom_[bottom_offsets_[n], bottom_offsets_[n + 1]).
  std::vector<uint32_t> bottom_offsets_{0};
  std::vector<uint32_t> bottom_;
  std::vector<Level> upper_;  // levels 1, 2, ...
};

}  // namespace lancedb::index::vector
