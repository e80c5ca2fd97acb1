// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// An IVF index in memory: centroids (the coarse quantizer), one quantizer shared by all
// partitions, and per partition the row ids (arrival order), the encoded vectors and a
// sub-index. Thread-safety: immutable after building; Search is thread-safe.

#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "index/vector/flat_search.h"
#include "index/vector/quantizer.h"

namespace lancedb::index::vector {

enum class SubIndexType : uint8_t { kFlat = 0, kHnsw = 1 };

/// How a search reports the distances of an index on cosine vectors, which it finds as squared
/// L2 between normalized vectors.
enum class CosineReport : uint8_t {
  kHalved = 0,   ///< d / 2 = 1 - cos (lancedb-cpp's indices; Lance's FLAT storage)
  kAsFound = 1,  ///< d itself (Lance's PQ and SQ storages report it so)
};

/// The search behaviours in which lancedb-cpp's own indices and LanceDB's differ.
struct IvfSearchStyle {
  CosineReport cosine = CosineReport::kHalved;
  /// Keep the best rows as LanceDB does, so that equally distant rows resolve as in LanceDB:
  /// one top-k for all the probed FLAT / PQ / SQ partitions (lance_heap.h; partitions in probe
  /// order, rows in storage order), or each HNSW partition's own k (lance_hnsw_graph.h); the
  /// best k of those ranked by (distance, row id).
  bool as_lancedb = false;
  /// Dot distances are the storage's as LanceDB reports them (its RQ storage estimates -x.y,
  /// where the index metric is 1 - x.y less 1): bounds apply to them as they are, and the
  /// search hands them on less 1 (the query layer adds 1 to dot distances).
  bool dot_as_found = false;
  /// The index is on a float16 column: LanceDB rounds the normalized cosine query to float16.
  bool half_precision = false;
  /// The index is on a float64 column: LanceDB normalizes the cosine query in double precision
  /// (its values then differ from a float normalization by an ulp, which can move an 8-bit
  /// RQ lookup-table entry by one step).
  bool double_precision = false;
};

struct IvfPartition {
  std::vector<uint64_t> row_ids;  ///< in arrival order; local row r has id row_ids[r]
  std::unique_ptr<PartitionStorage> storage;
  std::unique_ptr<SubIndex> sub_index;
};

struct IvfSearchParams {
  size_t k = 10;
  size_t nprobes = 20;
  /// HNSW breadth; 0: 1.5 * k (of the refined candidate count when refining).
  size_t ef = 0;
  /// Re-rank k * refine_factor candidates with `exact_distance` (0: no refine).
  size_t refine_factor = 0;
  /// Exact distance (user metric) of a row id to the query; required when refining.
  std::function<float(uint64_t row_id)> exact_distance;
  /// Prefilter on row ids; null accepts all.
  std::function<bool(uint64_t row_id)> accept;
  /// Distance range [lower, upper) in the distances the query reports (dot: 1 - x.y). Only
  /// style().as_lancedb indices apply it while scanning, as LanceDB does; the caller filters
  /// the results of the others.
  float lower_bound = -std::numeric_limits<float>::infinity();
  float upper_bound = std::numeric_limits<float>::infinity();
};

class IvfIndex {
 public:
  /// Layout: centroids (num_partitions, dim).
  IvfIndex(size_t dim, DistanceType distance_type, std::vector<float> centroids,
           std::unique_ptr<Quantizer> quantizer, SubIndexType sub_index_type,
           std::vector<IvfPartition> partitions, IvfSearchStyle style = {})
      : dim_(dim),
        distance_type_(distance_type),
        centroids_(std::move(centroids)),
        quantizer_(std::move(quantizer)),
        sub_index_type_(sub_index_type),
        partitions_(std::move(partitions)),
        style_(style) {}

  size_t dim() const { return dim_; }
  DistanceType distance_type() const { return distance_type_; }
  int64_t num_partitions() const { return static_cast<int64_t>(partitions_.size()); }
  /// Layout: (num_partitions, dim).
  std::span<const float> centroids() const { return centroids_; }
  const Quantizer& quantizer() const { return *quantizer_; }
  SubIndexType sub_index_type() const { return sub_index_type_; }
  const IvfSearchStyle& style() const { return style_; }
  const IvfPartition& partition(int64_t p) const { return partitions_[p]; }
  /// Mutable partition, for extending an index before it is shared (ivf_extend.h).
  IvfPartition* mutable_partition(int64_t p) { return &partitions_[p]; }
  int64_t num_rows() const;

  /// Return the ids of the `nprobes` partitions nearest to `query` (index space), nearest
  /// first.
  std::vector<uint32_t> FindPartitions(std::span<const float> query, size_t nprobes) const;

  /// Return up to k neighbours of `query` (user metric), sorted.
  /// Errors: InvalidArgument on a wrong dimension or a NaN in the query.
  Result<std::vector<Neighbor>> Search(std::span<const float> query,
                                       const IvfSearchParams& params) const;

  /// Prepare a query for this index (normalized for cosine). Layout: (dim).
  Result<std::vector<float>> PrepareQuery(std::span<const float> query) const;

 private:
  size_t dim_;
  DistanceType distance_type_;
  std::vector<float> centroids_;
  std::unique_ptr<Quantizer> quantizer_;
  SubIndexType sub_index_type_;
  std::vector<IvfPartition> partitions_;
  IvfSearchStyle style_;

  /// The candidates of the probed partitions, best first (index metric).
  std::vector<Neighbor> SearchPartitions(std::span<const float> query, size_t k,
                                         const IvfSearchParams& params) const;
  /// The same, kept as LanceDB keeps them (style_.as_lancedb).
  std::vector<Neighbor> SearchPartitionsAsLance(std::span<const float> query, size_t k,
                                                const IvfSearchParams& params) const;
  /// The best k local rows of a partition whose sub-index is LanceDB's HNSW graph
  /// (lance_hnsw_graph.h), nearest first; `in_range` takes the storage's distances.
  static std::vector<Neighbor> SearchLanceHnsw(const IvfPartition& part,
                                               const DistanceComputer& distances, size_t k,
                                               const IvfSearchParams& params,
                                               const std::function<bool(float)>& in_range);
};

}  // namespace lancedb::index::vector
