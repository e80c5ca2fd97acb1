// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// File, column and metadata names shared by the two halves of ivf_persist (format version 1;
// docs/format/vector-index.md).
#pragma once

#include <string_view>

#include "index/vector/index_file_columns.h"
#include "index/vector/pq_builder.h"
#include "index/vector/quantizer.h"
#include "index/vector/rq_builder.h"

namespace lancedb::index::vector {

inline constexpr char kQuantizerFile[] = "quantizer.idx";
inline constexpr char kHnswFile[] = "hnsw.idx";

// index.idx columns.
inline constexpr char kCentroidColumn[] = "centroid";
inline constexpr char kOffsetColumn[] = "offset";
inline constexpr char kLengthColumn[] = "length";
inline constexpr char kHnswOffsetColumn[] = "hnsw_offset";
inline constexpr char kHnswLengthColumn[] = "hnsw_length";
inline constexpr char kHnswEntryColumn[] = "hnsw_entry_point";
inline constexpr char kHnswMaxLevelColumn[] = "hnsw_max_level";
// auxiliary.idx columns.
inline constexpr char kRowIdColumn[] = "_rowid";
inline constexpr char kFlatColumn[] = "flat";
inline constexpr char kNormColumn[] = "__norm";
inline constexpr char kFactorColumn[] = "__factor";
// hnsw.idx columns.
inline constexpr char kVectorIdColumn[] = "__vector_id";
inline constexpr char kLevelColumn[] = "__level";
inline constexpr char kNeighborsColumn[] = "__neighbors";

// index.idx parameters: one schema metadata entry kMetaKey whose value is "key=value" lines
// (a single entry, so that the file bytes do not depend on protobuf map order).
inline constexpr char kMetaKey[] = "lancedb_cpp:index";
inline constexpr char kMetaFormatVersion[] = "format_version";
inline constexpr char kMetaIndexType[] = "index_type";
inline constexpr char kMetaDistanceType[] = "distance_type";
inline constexpr char kMetaDimension[] = "dimension";
inline constexpr char kMetaNumPartitions[] = "num_partitions";
inline constexpr char kMetaQuantizer[] = "quantizer";
inline constexpr char kMetaSubIndex[] = "sub_index";
inline constexpr char kMetaNumSubVectors[] = "num_sub_vectors";
inline constexpr char kMetaNumBits[] = "num_bits";
inline constexpr char kMetaUseResidual[] = "use_residual";
inline constexpr char kMetaHnswM[] = "hnsw_m";
inline constexpr char kMetaHnswEfConstruction[] = "hnsw_ef_construction";
inline constexpr char kMetaSeed[] = "seed";

/// Return "FLAT", "PQ", "SQ" or "RQ".
inline std::string_view QuantizerName(QuantizerType type) {
  switch (type) {
    case QuantizerType::kPq:
      return "PQ";
    case QuantizerType::kSq:
      return "SQ";
    case QuantizerType::kRq:
      return "RQ";
    case QuantizerType::kFlat:
      break;
  }
  return "FLAT";
}

/// Return the auxiliary.idx code column of a quantizer (PQ, SQ, RQ).
inline const char* CodeColumnName(QuantizerType type) {
  switch (type) {
    case QuantizerType::kPq:
      return "__pq_code";
    case QuantizerType::kSq:
      return "__sq_code";
    default:
      return "_rabit_codes";
  }
}

/// Return the bytes per row of a quantizer's codes (0 for FLAT). `dim` is the vector dimension.
inline int32_t CodeWidth(const Quantizer& q, size_t dim) {
  if (auto* pq = dynamic_cast<const ProductQuantizer*>(&q)) {
    return static_cast<int32_t>(pq->num_sub_vectors());
  }
  if (auto* rq = dynamic_cast<const RabitQuantizer*>(&q))
    return static_cast<int32_t>(rq->code_bytes());
  return q.type() == QuantizerType::kSq ? static_cast<int32_t>(dim) : 0;
}

}  // namespace lancedb::index::vector
