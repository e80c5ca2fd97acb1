// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The HNSW side of writing IVF_HNSW_FLAT / _SQ / _PQ indices in the layout LanceDB builds
// (docs/format/lance-vector-index.md, "IVF_HNSW_*"): lancedb-cpp's graph builder run with
// Lance's level cap and kept in Lance's form (LanceHnswGraph, with the build distances and
// parameters index.idx records), and the graph columns of index.idx. Searching the graph in
// memory and searching it read back from the file give the same results.
// Thread-safety: the functions are thread-safe.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "array/array.h"
#include "index/vector/flat_storage.h"
#include "index/vector/hnsw_index.h"
#include "index/vector/ivf_index.h"
#include "index/vector/lance_hnsw_graph.h"

namespace lancedb::index::vector {

/// Build the graph of one partition over `vectors` (the index space: normalized for cosine,
/// the index metric), nodes in row order, with lancedb-cpp's builder (seeded by params.seed)
/// and Lance's parameters: levels 0..6 (max_level 7), level 0 up to 2m neighbours, the
/// others m; each neighbour stored with its distance to the node.
std::unique_ptr<LanceHnswGraph> BuildLanceHnsw(const FlatStorage& vectors,
                                               const HnswParams& params);

/// `fallback` with m and ef_construction of the first non-empty Lance graph of `index` (the
/// parameters its graphs were built with), to build more graphs alike.
HnswParams LanceHnswBuildParams(const IvfIndex& index, HnswParams fallback);

/// The vectors a Lance-form partition storage stands for, to rebuild its graph after rows
/// were dropped: FLAT the vectors, SQ the decoded codes (start + code * step), PQ the code
/// words (plus `centroid` for residual codes). NotSupported for other storages.
/// Layout: result (rows, dim); centroid (dim).
Result<std::vector<float>> DecodeLanceStorage(const Quantizer& quantizer,
                                              const PartitionStorage& storage,
                                              std::span<const float> centroid);

/// index.idx's content for the graphs of an index whose sub-indices are all LanceHnswGraph:
/// the graphs one after the other in partition order, each level after level.
struct LanceHnswColumns {
  array::ArrayPtr vector_ids;  ///< uint32
  array::ArrayPtr neighbors;   ///< list<uint32>
  array::ArrayPtr distances;   ///< list<float>
  std::string metadata;        ///< `lance:hnsw`: JSON list of each partition's graph metadata
  std::vector<uint32_t> rows;  ///< rows of each partition
};

/// InvalidArgument when a sub-index of `index` is not a LanceHnswGraph.
Result<LanceHnswColumns> MakeLanceHnswColumns(const IvfIndex& index);

}  // namespace lancedb::index::vector
