// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Exact k-nearest-neighbour search over vectors in memory, multithreaded over chunks (one
// chunk per fragment or batch) with a bounded heap per task. Thread-safety: the functions are
// thread-safe; TopK is externally synchronized.

#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "index/vector/distance.h"
#include "lancedb/status.h"

namespace lancedb::index::vector {

/// One search result: a distance and the row's id (row address or row id, as the caller gave).
struct Neighbor {
  float distance;
  uint64_t row_id;
  /// Order by distance, ties by row id (so results are deterministic).
  friend bool operator<(const Neighbor& a, const Neighbor& b) {
    return a.distance < b.distance || (a.distance == b.distance && a.row_id < b.row_id);
  }
  friend bool operator==(const Neighbor& a, const Neighbor& b) = default;
};

/// Keep the k smallest neighbours seen (a bounded max-heap).
class TopK {
 public:
  explicit TopK(size_t k) : k_(k) { heap_.reserve(k + 1); }
  /// Offer a candidate; NaN distances are ignored.
  void Push(float distance, uint64_t row_id);
  /// Return the distance a candidate must beat to enter (infinity while not full).
  float threshold() const {
    return heap_.size() < k_ ? std::numeric_limits<float>::infinity() : heap_.front().distance;
  }
  bool full() const { return heap_.size() >= k_; }
  size_t size() const { return heap_.size(); }
  size_t k() const { return k_; }
  /// Add every entry of `other`.
  void Merge(const TopK& other);
  /// Return the entries sorted by distance (ties by row id).
  std::vector<Neighbor> Sorted() const;

 private:
  size_t k_;
  std::vector<Neighbor> heap_;  // max-heap by operator<
};

/// A dense matrix of vectors in one chunk. Layout: data (num_rows, dim) of `element_type`.
/// `row_ids` (may be null: ids are first_row_id + row) and `validity` (LSB bitmap, may be
/// null: all valid) have num_rows entries. The memory must outlive the search.
struct VectorChunk {
  ElementType element_type = ElementType::kFloat32;
  const void* data = nullptr;
  int64_t num_rows = 0;
  const uint64_t* row_ids = nullptr;
  uint64_t first_row_id = 0;
  const uint8_t* validity = nullptr;
};

struct FlatSearchOptions {
  size_t k = 10;
  DistanceType distance_type = DistanceType::kL2;
  /// Keep only lower_bound <= distance < upper_bound (LanceDB's distance_range).
  std::optional<float> lower_bound;
  std::optional<float> upper_bound;
  int num_threads = 0;  ///< 0: one per core
};

/// Return the k nearest rows of `chunks` to `query` (raw elements of the chunks' type, `dim`
/// of them; `dim` counts bytes for hamming), sorted by distance.
/// Errors: InvalidArgument on mixed element types, hamming on non-uint8, k == 0.
Result<std::vector<Neighbor>> FlatSearch(std::span<const VectorChunk> chunks, size_t dim,
                                         const void* query, const FlatSearchOptions& options);

/// Run FlatSearch for each of `num_queries` queries. Layout: queries (num_queries, dim).
/// Returns one sorted list per query, in query order.
Result<std::vector<std::vector<Neighbor>>> FlatSearchBatch(std::span<const VectorChunk> chunks,
                                                           size_t dim, const void* queries,
                                                           int64_t num_queries,
                                                           const FlatSearchOptions& options);

}  // namespace lancedb::index::vector
