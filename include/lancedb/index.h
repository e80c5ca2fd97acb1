// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Index configuration and description types of the public API, with LanceDB's names and
// defaults (lancedb.index / lancedb::index::vector builders). Plain value types; thread-compatible.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lancedb/status.h"

namespace lancedb {

/// The vector index types LanceDB accepts (wire names in comments).
enum class VectorIndexType : uint8_t {
  kIvfFlat,      ///< IVF_FLAT (hamming on uint8 vectors too, as IVF_HNSW_FLAT)
  kIvfPq,        ///< IVF_PQ (the default for vector columns)
  kIvfSq,        ///< IVF_SQ
  kIvfRq,        ///< IVF_RQ (RaBitQ, 1 to 9 bits)
  kIvfHnswFlat,  ///< IVF_HNSW_FLAT
  kIvfHnswSq,    ///< IVF_HNSW_SQ
  kIvfHnswPq,    ///< IVF_HNSW_PQ
};

/// Return LanceDB's name of `type` ("IVF_PQ", ...).
std::string_view VectorIndexTypeName(VectorIndexType type);

/// Parse "IVF_PQ", "ivf_pq", "IvfPq", "HnswSq", "IvfHnswSq", ... InvalidArgument otherwise.
Result<VectorIndexType> ParseVectorIndexType(std::string_view name);

/// Parameters of a vector index (LanceDB's IvfPq(...), HnswSq(...), ... and the legacy
/// create_index keywords). Unset optionals take LanceDB's defaults at build time.
struct VectorIndexConfig {
  VectorIndexType index_type = VectorIndexType::kIvfPq;
  /// "l2" (default), "cosine", "dot"; "hamming" (uint8 columns): IVF_FLAT, IVF_HNSW_FLAT.
  std::string distance_type = "l2";
  /// Default: rows / target_partition_size when that is set, else ~sqrt(rows).
  std::optional<int64_t> num_partitions;
  std::optional<int64_t> target_partition_size;
  /// PQ: default dim/16 when divisible, else dim/8, else 1. Must divide the dimension.
  std::optional<int64_t> num_sub_vectors;
  /// PQ: 4 or 8 (default 8). RQ: 1 to 9 (default 1; 1 only in the own layout).
  std::optional<int> num_bits;
  /// k-means iterations (default 50).
  int max_iterations = 50;
  /// Training uses at most num_partitions * sample_rate rows (default 256).
  int64_t sample_rate = 256;
  /// HNSW: edges per node (default 20; Rust `num_edges`).
  int64_t m = 20;
  /// HNSW: candidate list size while building (default 300).
  int64_t ef_construction = 300;
  /// Seeded, reproducible training; absent means random.
  std::optional<uint64_t> seed;
  /// "cuda" / "mps" in LanceDB. Not available here; combined with a seed it is an error.
  std::optional<std::string> accelerator;
  /// Every vector index is written in the layout LanceDB builds
  /// (docs/format/lance-vector-index.md), which LanceDB searches and extends; true writes
  /// lancedb-cpp's own layout instead (docs/format/vector-index.md), as tables written by
  /// earlier versions may hold.
  bool own_layout = false;

  static VectorIndexConfig IvfFlat() { return Of(VectorIndexType::kIvfFlat); }
  static VectorIndexConfig IvfPq() { return Of(VectorIndexType::kIvfPq); }
  static VectorIndexConfig IvfSq() { return Of(VectorIndexType::kIvfSq); }
  static VectorIndexConfig IvfRq() { return Of(VectorIndexType::kIvfRq); }
  static VectorIndexConfig HnswFlat() { return Of(VectorIndexType::kIvfHnswFlat); }
  static VectorIndexConfig HnswSq() { return Of(VectorIndexType::kIvfHnswSq); }
  static VectorIndexConfig HnswPq() { return Of(VectorIndexType::kIvfHnswPq); }

 private:
  static VectorIndexConfig Of(VectorIndexType t) {
    VectorIndexConfig c;
    c.index_type = t;
    return c;
  }
};

/// Options of create_index common to all index kinds.
struct CreateIndexOptions {
  /// Index name; empty means "{column}_idx".
  std::string name;
  /// Replace an index of the same name (default); false makes an existing name an error.
  bool replace = true;
  /// Called with a stage name and the fraction of it done, in [0, 1].
  std::function<void(std::string_view stage, double fraction)> progress;
};

/// The scalar index types (LanceDB's BTree(), Bitmap(), LabelList()).
enum class ScalarIndexType : uint8_t {
  kBTree,      ///< BTREE: sorted pages; equality, ranges, IN, IS NULL on orderable columns
  kBitmap,     ///< BITMAP: a row bitmap per distinct value (low-cardinality columns)
  kLabelList,  ///< LABEL_LIST: a row bitmap per list item (array_has_any / array_has_all)
};

/// "BTREE", "BITMAP", "LABEL_LIST".
std::string_view ScalarIndexTypeName(ScalarIndexType type);
/// Parse "BTREE", "btree", "BITMAP", "LABEL_LIST", "LabelList", ... InvalidArgument otherwise.
Result<ScalarIndexType> ParseScalarIndexType(std::string_view name);

/// One index as list_indices() reports it (LanceDB's IndexConfig), its segments merged.
struct IndexInfo {
  std::string name;
  std::string index_type;  ///< "IVF_PQ", "BTREE", "FTS", ...
  std::vector<std::string> columns;
  std::string index_uuid;  ///< of the first segment in the manifest
  std::string type_url;
  std::vector<uint64_t> fragment_ids;  ///< fragments covered
  uint64_t dataset_version = 0;        ///< version the first segment was built on
  int32_t index_version = 0;           ///< on-disk format version of the first segment
  /// Creation time of the earliest segment, in milliseconds since the epoch; nullopt when no
  /// segment records one.
  std::optional<uint64_t> created_at_millis;
  /// Live (not deleted) rows of the fragments the index covers.
  int64_t num_indexed_rows = 0;
  /// Live rows of the table the index does not cover (count_rows - num_indexed_rows).
  int64_t num_unindexed_rows = 0;
  /// Sum of the sizes of every segment's files as the manifest records them; nullopt when a
  /// segment does not record its files (indices written before Lance tracked them).
  std::optional<uint64_t> size_bytes;
  int32_t num_segments = 0;
  /// Type-specific details as a JSON object, as LanceDB reports them: the analysis options of
  /// an FTS index, the metric, quantizer and graph parameters of a vector index, "{}" for
  /// BTREE, BITMAP and LABEL_LIST; empty for an index of unknown type.
  std::string details_json;
};

/// index_stats(name) (LanceDB's IndexStatistics).
struct IndexStatistics {
  int64_t num_indexed_rows = 0;
  int64_t num_unindexed_rows = 0;
  std::string index_type;
  std::string distance_type;
  int64_t num_indices = 0;  ///< segments
};

}  // namespace lancedb
