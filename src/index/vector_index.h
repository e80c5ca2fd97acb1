// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Vector indices over a table snapshot: build (train, assign, encode), persist under
// `_indices/<uuid>/` as Lance files, register in the manifest with a CreateIndex commit, load
// back (cached per process by uuid) and search. Layout and registration:
// docs/format/vector-index.md. The rows of fragments an index segment does not cover must be
// searched exactly by the caller (VectorIndex::covers()).
//
// Thread-safety: the functions are thread-safe; a loaded VectorIndex is immutable and shared.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "index/vector/ivf_builder.h"
#include "index/vector/ivf_index.h"
#include "lancedb/index.h"
#include "table/dataset.h"
#include "table/manifest.h"

namespace lancedb::index {

/// Type URL of lancedb-cpp's vector index details (IndexMetadata.index_details).
inline constexpr char kVectorIndexTypeUrl[] = "/lancedb_cpp.VectorIndexDetails";
/// IndexMetadata.index_version written for vector indices.
inline constexpr int32_t kVectorIndexVersion = 1;

/// Check `config` for a column of dimension `dim` with `num_rows` rows and resolve LanceDB's
/// defaults into builder parameters. InvalidArgument naming the problem.
Result<vector::IvfBuildParams> ResolveVectorIndexParams(const VectorIndexConfig& config, size_t dim,
                                                        int64_t num_rows);

/// Build a vector index on `column` of `dataset` (a vector column: fixed_size_list of float16,
/// float32 or float64) and commit it. Returns the committed snapshot. Errors leave the table
/// unchanged and no index files behind: InvalidArgument (no such column, not a vector column,
/// bad parameters), AlreadyExists (name taken and !options.replace), NotSupported (stable row
/// ids), CommitConflict.
Result<table::DatasetPtr> CreateVectorIndex(const table::DatasetPtr& dataset,
                                            const std::string& column,
                                            const VectorIndexConfig& config,
                                            const CreateIndexOptions& options = {});

/// Search parameters of a loaded index.
struct VectorSearchParams {
  size_t k = 10;
  size_t nprobes = 20;
  /// Re-rank k * refine_factor candidates with exact distances read from the table (0: off).
  size_t refine_factor = 0;
  /// HNSW search breadth (0: 1.5 k).
  size_t ef = 0;
  /// Prefilter on row addresses; null accepts all.
  std::function<bool(uint64_t row_address)> accept;
  /// Refine source (optional): the vector column of fragment `fragment_id` over all its
  /// physical rows (deleted ones included), or null when unavailable. Without it, or when it
  /// gives null for a candidate's fragment, refine takes the candidates from the table.
  std::function<Result<array::ArrayPtr>(uint64_t fragment_id)> fragment_vectors;
  /// Distance range [lower, upper), applied while scanning by the indices LanceDB built (as
  /// LanceDB does); the caller filters the results of the others.
  float lower_bound = -std::numeric_limits<float>::infinity();
  float upper_bound = std::numeric_limits<float>::infinity();
};

/// One loaded index segment. Immutable; shared through the process-wide cache.
class VectorIndex {
 public:
  /// Load the segment `meta` of `dataset` (cached by uuid): a lancedb-cpp index
  /// (kVectorIndexTypeUrl) or one LanceDB built (kLanceVectorIndexTypeUrl, of a type
  /// vector/lance_ivf_read.h reads). NotSupported for other type URLs and LanceDB types not
  /// read; Corruption for damaged files.
  static Result<std::shared_ptr<const VectorIndex>> Load(const table::Dataset& dataset,
                                                         const table::pb::IndexMetadata& meta);

  const std::string& name() const { return name_; }
  const std::string& uuid() const { return uuid_; }
  const std::string& column() const { return column_; }
  const std::string& index_type() const { return index_type_; }
  /// Fragment ids covered, ascending.
  const std::vector<uint64_t>& fragment_ids() const { return fragment_ids_; }
  bool covers(uint64_t fragment_id) const;
  const vector::IvfIndex& ivf() const { return *ivf_; }

  /// Return up to k (row address, distance) pairs nearest to `query`, closest first, among the
  /// rows of covered fragments still in `dataset` (deleted rows are NOT filtered: pass them to
  /// params.accept). With refine_factor, `dataset` supplies the exact vectors.
  /// InvalidArgument for a query of the wrong dimension or with NaN.
  Result<std::vector<vector::Neighbor>> Search(std::span<const float> query,
                                               const VectorSearchParams& params,
                                               const table::Dataset& dataset) const;

  VectorIndex(std::string name, std::string uuid, std::string column, std::string index_type,
              std::vector<uint64_t> fragment_ids, std::unique_ptr<vector::IvfIndex> ivf)
      : name_(std::move(name)),
        uuid_(std::move(uuid)),
        column_(std::move(column)),
        index_type_(std::move(index_type)),
        fragment_ids_(std::move(fragment_ids)),
        ivf_(std::move(ivf)),
        row_fragments_(RowFragments(*ivf_)) {}

 private:
  /// The fragment ids (address >> 32) of the ids in `ivf`'s partitions, ascending, unique.
  static std::vector<uint64_t> RowFragments(const vector::IvfIndex& ivf);

  std::string name_, uuid_, column_, index_type_;
  std::vector<uint64_t> fragment_ids_;
  std::unique_ptr<vector::IvfIndex> ivf_;
  /// Fragments the segment's rows name when its ids are row addresses: a compaction that
  /// rewrote rows without remapping this segment leaves rows of fragments it no longer covers.
  std::vector<uint64_t> row_fragments_;
};

/// Load every vector index segment on `column` of `dataset` that lancedb-cpp reads: its own and
/// LanceDB's IVF_FLAT, IVF_PQ and IVF_SQ. The segments of other LanceDB types are left out, so
/// that their fragments count as not covered (searched exactly).
Result<std::vector<std::shared_ptr<const VectorIndex>>> LoadVectorIndices(
    const table::Dataset& dataset, const std::string& column);

/// Replace the distances of `neighbors` (row addresses of `dataset`) with the exact distances
/// between `query` and the rows' `column` vectors, in the kernels' units (l2: squared; cosine:
/// 1 - cos; dot: -x.y), drop the rows whose vector is null or whose distance is NaN, and sort.
/// LanceDB does this to the index's candidates when some fragments are not indexed, before it
/// merges them with the exact results of those fragments.
Status RerankExactly(const table::Dataset& dataset, const std::string& column,
                     vector::DistanceType type, std::span<const float> query,
                     std::vector<vector::Neighbor>* neighbors);

/// Rewrite the vector index segment `meta` of `read` for a compaction (table::IndexRemapFn):
/// its rows moved by `map` (nullopt: deleted), covering `new_fragments`, under a new uuid. Only
/// segments in Lance's layout that lancedb-cpp writes (IVF_FLAT, IVF_PQ, IVF_SQ on a float16,
/// float32 or float64 column; hamming IVF_FLAT on uint8) are rewritten, as LanceDB remaps them
/// (float64 values at float32 precision); nullopt for the others, which then no longer cover
/// the rewritten fragments.
Result<std::optional<table::pb::IndexMetadata>> RemapVectorIndex(
    const table::Dataset& read, const table::pb::IndexMetadata& meta,
    const std::function<std::optional<uint64_t>(uint64_t)>& map,
    const std::vector<uint64_t>& new_fragments);

/// Drop every cached loaded index (tests).
void ClearVectorIndexCache();

/// Decode a portable roaring fragment bitmap. Corruption for bad bytes.
Result<std::vector<uint64_t>> DecodeFragmentBitmap(const std::string& bytes);
/// Encode fragment ids as a portable 32-bit roaring bitmap.
std::string EncodeFragmentBitmap(const std::vector<uint64_t>& fragment_ids);

/// Whether `type` is a multivector column type LanceDB indexes: a list (or large list) of
/// fixed-size lists of float16, float32 or float64.
bool IsMultivectorType(const array::DataType& type);

/// Read `column` (a vector column) with row addresses, restricted to the fragments accepted
/// by `fragment_filter` (null: all). Layout: vectors (rows, dim). Rows with a null vector are
/// skipped. For a multivector column every vector of a row is read, each with the row's
/// address (the addresses repeat).
Status ReadVectorColumn(const table::Dataset& dataset, const std::string& column,
                        const std::function<bool(uint64_t fragment_id)>& fragment_filter,
                        size_t* dim, std::vector<float>* vectors,
                        std::vector<uint64_t>* row_addresses);

}  // namespace lancedb::index
