// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Read the vector index segments LanceDB builds (type URL "/lance.index.pb.VectorIndexDetails",
// Lance's IVF layout in `index.idx` and `auxiliary.idx`; docs/format/lance-vector-index.md) into
// an IvfIndex whose searches give LanceDB's results: the same partitions probed, the same
// candidates and the same (approximate) distances. Read: IVF_FLAT, IVF_PQ, IVF_SQ and
// IVF_HNSW_FLAT / _SQ / _PQ (their graphs: lance_hnsw_graph.h), IVF_RQ as pylance 12 writes it
// (lance_rq_storage.h), hamming IVF_FLAT / IVF_HNSW_FLAT on uint8 vectors. Other RQ layouts and
// the layouts of older
// Lance versions are NotSupported; their rows are then searched exactly by the caller.
// Thread-safety: the function is thread-safe.
#pragma once

#include <memory>
#include <string>

#include "index/vector/ivf_index.h"
#include "io/file_system.h"

namespace lancedb::index::vector {

/// Load the Lance IVF index in `dir`; `*index_type` receives LanceDB's type name ("IVF_PQ").
/// NotSupported for a type or layout not read; Corruption naming the file for inconsistent
/// content.
Result<std::unique_ptr<IvfIndex>> ReadLanceIvfIndexFiles(const io::FileSystemPtr& fs,
                                                         const std::string& dir,
                                                         std::string* index_type);

/// The metric of the FLAT storage of a Lance IVF_FLAT index of `distance_type`: the index
/// metric (IndexMetric), but kCosine for cosine on a float16 column (`half_precision`), which
/// LanceDB scores by 1 - cos against its stored rows.
DistanceType LanceFlatMetric(DistanceType distance_type, bool half_precision);

/// How LanceDB searches a Lance IVF index (FLAT storage or not; on a float16 column or not).
IvfSearchStyle LanceSearchStyle(bool flat, DistanceType distance_type, bool half_precision);

}  // namespace lancedb::index::vector
