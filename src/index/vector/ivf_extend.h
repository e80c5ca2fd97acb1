// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Incremental indexing: add rows to the partitions of a trained IVF index without retraining
// (centroids and quantizer unchanged). Thread-safety: mutates the index; externally
// synchronized (use on an index not yet shared).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "index/vector/hnsw_index.h"
#include "index/vector/ivf_index.h"

namespace lancedb::index::vector {

/// Supplies the original vectors (user space) of partition `p`'s existing rows, in order.
/// Layout: (rows, dim).
using PartitionVectors = std::function<Result<std::vector<float>>(int64_t p)>;

/// Append `vectors` (row ids `row_ids`, user space) to their nearest partitions, encoded with
/// the index's quantizer. New rows follow the existing ones (arrival order). With an HNSW
/// sub-index the graphs of the partitions that grow are rebuilt over old and new rows, using
/// `existing` for the old rows' vectors (a Lance-form index's in Lance's form, with the
/// parameters of its graphs: lance_hnsw_write.h). Layout: vectors (num_rows, dim).
Status ExtendIvfIndex(IvfIndex* index, std::span<const float> vectors,
                      std::span<const uint64_t> row_ids, const HnswParams& hnsw,
                      const PartitionVectors& existing);

}  // namespace lancedb::index::vector
