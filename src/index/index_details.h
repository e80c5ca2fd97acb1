// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// How list_indices describes one index segment: its type name and LanceDB's `index_details`
// JSON, for the indices lancedb-cpp builds and for those LanceDB built (whose vector details are
// Lance's VectorIndexDetails, src/index/proto/lance_vector_index.proto).
// Thread-safety: the functions are thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "lancedb/status.h"
#include "table/dataset.h"
#include "table/manifest.h"

namespace lancedb::index {

/// Lance's type URL of its vector indices.
inline constexpr char kLanceVectorIndexTypeUrl[] = "/lance.index.pb.VectorIndexDetails";

/// LanceDB's type name of segment `meta`: "IVF_PQ", "IVF_HNSW_SQ", ..., "BTREE", "BITMAP",
/// "LABEL_LIST", "FTS"; "UNKNOWN" for a type URL lancedb-cpp does not know. A vector index
/// also sets `*distance_type` ("l2", "cosine", "dot", "hamming") when given.
std::string IndexTypeName(const table::pb::IndexMetadata& meta,
                          std::string* distance_type = nullptr);

/// The `index_details` JSON object LanceDB reports for segment `meta` of `dataset`:
/// - FTS: the analysis options of the index's metadata.lance (every key of its `params`);
/// - vector: {"metric_type", "hnsw"?, "compression"?, "runtime_hints"?}, Lance's layout; the
///   indices lancedb-cpp builds record no runtime hints;
/// - BTREE, BITMAP, LABEL_LIST: {}.
/// Empty for an unknown type URL. IOError / Corruption when an FTS index's metadata cannot be
/// read.
Result<std::string> IndexDetailsJson(const table::Dataset& dataset,
                                     const table::pb::IndexMetadata& meta);

/// The JSON of Lance's serialized VectorIndexDetails (`bytes`); "{}" for an empty (legacy)
/// message. Corruption when the bytes do not parse.
Result<std::string> LanceVectorDetailsJson(std::string_view bytes);

}  // namespace lancedb::index
