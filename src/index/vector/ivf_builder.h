// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Train and build an IVF index: k-means centroids, a stable (arrival-order) split of the rows
// into partitions, the quantizer, then each partition's storage and sub-index (partitions are
// built in parallel; each one is deterministic). Thread-safety: the function is thread-safe.

#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "index/vector/hnsw_index.h"
#include "index/vector/ivf_index.h"
#include "index/vector/pq_builder.h"

namespace lancedb::index::vector {

struct IvfBuildParams {
  DistanceType distance_type = DistanceType::kL2;
  int64_t num_partitions = 0;         ///< 0: from target_partition_size, else ~sqrt(rows)
  int64_t target_partition_size = 0;  ///< rows per partition when num_partitions is 0
  int max_iterations = 50;
  int64_t sample_rate = 256;
  std::optional<uint64_t> seed;  ///< absent: random training
  QuantizerType quantizer = QuantizerType::kFlat;
  size_t num_sub_vectors = 0;  ///< PQ; 0: DefaultNumSubVectors(dim)
  int num_bits = 8;            ///< PQ: 4 or 8
  SubIndexType sub_index = SubIndexType::kFlat;
  size_t m = 20;                 ///< HNSW
  size_t ef_construction = 300;  ///< HNSW
  int num_threads = 0;           ///< 0: one per core
  /// HNSW: build the graphs in Lance's form (lance_hnsw_write.h), for ToLanceIvfIndex.
  bool lance_hnsw = false;
  /// Called with a stage name and the fraction done in [0, 1].
  std::function<void(std::string_view stage, double fraction)> progress;
};

/// Return the default partition count for `num_rows` rows.
int64_t DefaultNumPartitions(int64_t num_rows, int64_t target_partition_size);

/// Build an index over `vectors` whose row ids are `row_ids`. Layout: vectors (num_rows, dim).
/// Errors: InvalidArgument on bad parameters (num_sub_vectors not dividing dim, more
/// partitions than rows, hamming, NaN values).
Result<std::unique_ptr<IvfIndex>> BuildIvfIndex(std::span<const float> vectors,
                                                std::span<const uint64_t> row_ids, size_t dim,
                                                const IvfBuildParams& params);

}  // namespace lancedb::index::vector
