// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Table: a handle on one table (a Lance dataset). Mirrors LanceDB's Rust `Table`. Data goes in
// and out through the Arrow C Stream Interface, so any Arrow implementation can feed and read it.
// Thread-safety: internally synchronized; one handle may be shared by many threads. Reads see
// the handle's current version; writes always apply to the newest version on storage.

#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lancedb/arrow_c.h"
#include "lancedb/branch.h"
#include "lancedb/fts_query.h"
#include "lancedb/index.h"
#include "lancedb/maintenance.h"
#include "lancedb/merge_insert.h"
#include "lancedb/query.h"
#include "lancedb/schema_evolution.h"
#include "lancedb/status.h"
#include "lancedb/vector_query.h"

namespace lancedb {

struct AddResult {
  uint64_t version = 0;
};

/// Result of Table::Delete.
struct DeleteResult {
  uint64_t num_deleted_rows = 0;
  /// The version committed (the unchanged current version when nothing matched).
  uint64_t version = 0;
};

/// Result of Table::Update.
struct UpdateResult {
  uint64_t rows_updated = 0;
  /// The version committed (the unchanged current version when nothing matched).
  uint64_t version = 0;
};

enum class AddMode { kAppend, kOverwrite };

/// A progress report of Table::Add (LanceDB's WriteProgress).
struct WriteProgress {
  /// Time since the add started.
  std::chrono::nanoseconds elapsed{0};
  /// Rows read from the input so far.
  uint64_t output_rows = 0;
  /// Bytes so far: the in-memory size of the batches read, until data files are written;
  /// from then on the size of the data files written.
  uint64_t output_bytes = 0;
  /// Rows expected (AddOptions::total_rows); always set when `done` (to the rows read when the
  /// input did not say).
  std::optional<uint64_t> total_rows;
  /// Write tasks running (1 while writing, 0 when done) and in all (one writer).
  uint32_t active_tasks = 0;
  uint32_t total_tasks = 1;
  /// The last report, sent once whether the add succeeded or failed.
  bool done = false;
};

/// Options of Table::Add.
struct AddOptions {
  AddMode mode = AddMode::kAppend;
  /// Called after each input batch is read, after each data file is written, and once with
  /// `done` at the end, on the adding thread; never concurrently.
  std::function<void(const WriteProgress&)> progress;
  /// Rows the input holds, when the caller knows (reported as WriteProgress::total_rows).
  std::optional<uint64_t> total_rows;
  /// kOverwrite only: commit only as the version after this one (read-modify-write of a whole
  /// table); CommitConflict (retryable) when the table is at another version or another writer
  /// commits first. InvalidArgument with kAppend.
  std::optional<uint64_t> expected_version;
  /// Blob v2 columns: store an external URI outside every registered base path as its
  /// absolute URI (base id 0). When false (the default) such a URI fails the add with
  /// InvalidArgument and nothing is written; a URI under a registered base is stored relative
  /// to it either way (see Table::AddBases).
  bool allow_external_blob_outside_bases = false;
};

/// A location registered on a table (a Lance manifest base path). External blob URIs under
/// a registered base that is not a dataset root are stored relative to it.
struct TableBasePath {
  /// 0 when registering: the next free id is assigned.
  uint32_t id = 0;
  std::optional<std::string> name;
  /// A dataset root (shallow clones, branches) rather than a plain directory; external blobs
  /// are never stored relative to one.
  bool is_dataset_root = false;
  /// A URI ("file:///data/media", "memory://x") or a local path, stored as given.
  std::string path;
};

struct TableVersion {
  uint64_t version = 0;
  int64_t timestamp_micros = 0;  ///< commit time, microseconds since the epoch
  std::vector<std::pair<std::string, std::string>> metadata;
};

struct ScanRequest {
  /// Columns to return, in order; empty = all columns.
  std::vector<std::string> columns;
  /// Append the `_rowid` column (uint64).
  bool with_row_id = false;
  /// Append the `_rowaddr` column (uint64 row address), after `_rowid`.
  bool with_row_address = false;
  /// Rows per batch.
  int64_t batch_size = 8192;
};

/// A tag: a name for a version (Lance `_refs/tags/<name>.json`).
struct TagInfo {
  /// The branch the version is on; nullopt for main.
  std::optional<std::string> branch;
  uint64_t version = 0;
  /// Size in bytes of the tagged version's manifest.
  uint64_t manifest_size = 0;
};

/// Result of Table::ChangedRows: stable row ids (`_rowid` on a table with stable row ids), each
/// list sorted ascending.
struct RowChanges {
  std::vector<uint64_t> inserted;  ///< live in the newer version only
  std::vector<uint64_t> updated;   ///< live in both, rewritten in between
  std::vector<uint64_t> deleted;   ///< live in the older version only
  /// Non-empty (naming the cause) when the lists cannot describe the difference: a Restore,
  /// Overwrite or DataReplacement in between, a version no longer on storage, or `to` older
  /// than `from`. The lists are then empty.
  std::string rebuild_reason;
  /// Commit times of the two versions, nanoseconds since the epoch (a table dropped and
  /// created again reuses version numbers, never their commit times).
  int64_t from_timestamp_nanos = 0;
  int64_t to_timestamp_nanos = 0;
};

class Table : public std::enable_shared_from_this<Table> {
 public:
  virtual ~Table() = default;

  virtual const std::string& name() const = 0;
  /// The table's location (a directory ending in `.lance`; the table's root on a branch too).
  virtual std::string uri() const = 0;
  /// Export the schema of the current version.
  virtual Status GetSchema(ArrowSchema* out) const = 0;
  /// The version this handle reads.
  virtual Result<uint64_t> version() const = 0;
  virtual Result<int64_t> CountRows() const = 0;
  /// Rows where the SQL `filter` is TRUE (all rows when empty). InvalidArgument for a bad
  /// filter (syntax error with position, unknown column, type error).
  virtual Result<int64_t> CountRows(const std::string& filter) const = 0;
  /// Sizes, row counts and fragment statistics of the version this handle reads (LanceDB
  /// `stats`; maintenance.h).
  virtual Result<TableStatistics> Stats() const;
  /// Whether the newest manifest is named with Lance's V2 scheme (zero-padded, inverted
  /// version numbers), as tables created with enable_v2_manifest_paths are.
  virtual Result<bool> UsesV2ManifestPaths() const;
  /// Rename every manifest named with the V1 scheme to the V2 scheme (LanceDB
  /// `migrate_manifest_paths_v2`); a no-op when there is none. Versions, tags and time travel
  /// are unchanged. Must not run while others write the table (as in LanceDB). A crash in the
  /// middle leaves a table this library reads; calling again finishes the migration.
  /// NotSupported when a version is checked out (as for every write).
  virtual Status MigrateManifestPathsV2();

  /// Start a plain query (all rows, all columns) over the current version.
  lancedb::Query Query() const;
  /// A query returning the rows at `offsets` (positions among the live rows), in order.
  lancedb::Query TakeOffsets(std::vector<uint64_t> offsets) const;
  /// A query returning the rows with `row_ids` (as returned in `_rowid`), in order.
  lancedb::Query TakeRowIds(std::vector<uint64_t> row_ids) const;
  /// Execute a query request (what Query::Execute calls).
  virtual Status ExecuteQuery(const QueryRequest& request, ArrowArrayStream* out) const = 0;
  /// The schema `request` returns.
  virtual Status QuerySchema(const QueryRequest& request, ArrowSchema* out) const = 0;
  /// The plan of `request` as text (Query::ExplainPlan).
  virtual Result<std::string> ExplainQuery(const QueryRequest& request, bool verbose) const;
  /// Run `request` and return its plan with measured counters (Query::AnalyzePlan).
  virtual Result<std::string> AnalyzeQuery(const QueryRequest& request) const;
  /// Start a nearest-neighbour query for `vector` (vector_query.h; LanceDB `vector_search`).
  lancedb::VectorQuery VectorSearch(std::vector<float> vector) const;
  /// Start a multivector (late interaction) query: `vectors` are one query against a
  /// multivector column (Query::NearestToMultivector).
  lancedb::VectorQuery MultivectorSearch(std::vector<std::vector<float>> vectors) const;
  /// Execute a vector query request (what VectorQuery::Execute calls).
  virtual Status ExecuteVectorQuery(const VectorQueryRequest& request,
                                    ArrowArrayStream* out) const = 0;
  /// The schema the vector query `request` returns.
  virtual Status VectorQuerySchema(const VectorQueryRequest& request, ArrowSchema* out) const = 0;
  /// The plan of a vector query as text (VectorQuery::ExplainPlan).
  virtual Result<std::string> ExplainVectorQuery(const VectorQueryRequest& request,
                                                 bool verbose) const;
  /// Run a vector query and return its plan with measured counters (VectorQuery::AnalyzePlan).
  virtual Result<std::string> AnalyzeVectorQuery(const VectorQueryRequest& request) const;
  /// Start a full-text query (fts_query.h; LanceDB `search(text)` / `full_text_search`).
  lancedb::FtsQuery Search(FullTextQuery query) const;
  /// Execute a full-text query request (what FtsQuery::Execute calls).
  virtual Status ExecuteFtsQuery(const FtsQueryRequest& request, ArrowArrayStream* out) const;
  /// The schema the full-text query `request` returns.
  virtual Status FtsQuerySchema(const FtsQueryRequest& request, ArrowSchema* out) const;
  /// The plan of a full-text query as text.
  virtual Result<std::string> ExplainFtsQuery(const FtsQueryRequest& request, bool verbose) const;
  /// Start a hybrid query: nearest rows to `vector` and full-text matches of `text`, fused by
  /// reciprocal rank (fts_query.h).
  lancedb::HybridQuery HybridSearch(std::vector<float> vector, FullTextQuery text) const;
  /// Execute a hybrid query request (what HybridQuery::Execute calls).
  virtual Status ExecuteHybridQuery(const HybridQueryRequest& request, ArrowArrayStream* out) const;

  /// Build a vector index on `column` and commit it (index.h). The name defaults to
  /// "{column}_idx"; AlreadyExists when the name is taken and !options.replace. InvalidArgument
  /// for a missing or non-vector column or bad parameters; the table is then unchanged.
  virtual Status CreateIndex(const std::string& column, const VectorIndexConfig& config,
                             const CreateIndexOptions& options = {}) = 0;
  /// Build a scalar index on `column` (LanceDB's create_scalar_index). InvalidArgument for a
  /// missing column or one whose type does not suit `type` (a BITMAP on a vector, a
  /// LABEL_LIST on a non-list); AlreadyExists for an existing name without `replace`.
  virtual Status CreateScalarIndex(const std::string& column, ScalarIndexType type,
                                   const CreateIndexOptions& options = {});
  /// Build an FTS (inverted) index on the string column `column` (LanceDB's create_fts_index /
  /// create_index(config=FTS(...))). InvalidArgument for a missing or non-string column or a
  /// bad option (unknown tokenizer or language, ...); AlreadyExists for an existing name
  /// without `replace`. Nothing is written on error.
  virtual Status CreateFtsIndex(const std::string& column, const FtsIndexConfig& config,
                                const CreateIndexOptions& options = {});
  /// The table's indices, ordered by name.
  virtual Result<std::vector<IndexInfo>> ListIndices() const = 0;
  /// Statistics of index `name`; NotFound when there is none.
  virtual Result<IndexStatistics> IndexStats(const std::string& name) const = 0;
  /// Load index `name` into the caches searches use, so that the first query does not pay
  /// for opening it (LanceDB's prewarm_index). NotFound when there is none.
  virtual Status PrewarmIndex(const std::string& name) const;
  /// Remove index `name`; NotFound when there is none.
  virtual Status DropIndex(const std::string& name) = 0;
  /// Wait until the indices `names` cover every row. Indices build synchronously here, so this
  /// checks that they exist (NotFound otherwise) and returns.
  virtual Status WaitForIndex(const std::vector<std::string>& names,
                              std::chrono::milliseconds timeout) const = 0;
  /// Add the rows not yet covered to every vector index, without retraining.
  virtual Status OptimizeIndices(const CreateIndexOptions& options = {}) = 0;
  /// Analyze `query` with the options stored in FTS index `index_name`, or in the only FTS
  /// index on `column` (give exactly one; LanceDB's tokenize): tokens and positions as
  /// lancedb::Tokenize returns them. InvalidArgument when both or neither are given, when the
  /// column has no FTS index or several, or when no index has that name or it is not an FTS
  /// index; NotFound for a column the schema lacks.
  virtual Result<std::vector<std::pair<std::string, uint32_t>>> Tokenize(
      std::string_view query, const std::optional<std::string>& column,
      const std::optional<std::string>& index_name) const;

  /// Delete the rows where the SQL predicate `where` is TRUE. Commits a new version unless no
  /// row matches (then reports 0 and the current version).
  virtual Result<DeleteResult> Delete(const std::string& where) = 0;
  /// Set columns to SQL expressions (evaluated against the old row) in the rows where `where`
  /// is TRUE (every row when unset or empty). Every expression is bound and type-checked
  /// before any data is read; a failure leaves the table unchanged. Commits a new version
  /// unless no row matches.
  virtual Result<UpdateResult> Update(
      const std::optional<std::string>& where,
      const std::vector<std::pair<std::string, std::string>>& updates) = 0;

  /// Start a merge insert keyed on the columns `on` (merge_insert.h).
  MergeInsertBuilder MergeInsert(std::vector<std::string> on);
  /// Execute a merge insert request (what MergeInsertBuilder::Execute calls).
  virtual Result<MergeResult> ExecuteMergeInsert(const MergeInsertRequest& request,
                                                 ArrowArrayStream* data);

  /// Start adding columns (schema_evolution.h).
  AddColumnsBuilder AddColumns();
  /// Execute an add-columns request (what AddColumnsBuilder::Execute calls).
  virtual Result<AddColumnsResult> ExecuteAddColumns(const AddColumnsRequest& request);
  /// Rename columns (dot paths for struct members), make them nullable. Returns the version.
  virtual Result<uint64_t> AlterColumns(const std::vector<ColumnAlteration>& alterations);
  /// Drop columns (dot paths allowed); InvalidArgument when none would remain.
  virtual Result<uint64_t> DropColumns(const std::vector<std::string>& columns);
  /// Change field metadata (merge by default; see FieldMetadataUpdate).
  virtual Result<uint64_t> UpdateFieldMetadata(const std::vector<FieldMetadataUpdate>& updates);
  /// Declare the table's unenforced primary key: one column (a dot path for a struct member)
  /// of type int32, int64, utf8, large_utf8, binary, large_binary or fixed_size_binary, not
  /// nullable, nor any struct it is in. Lance's field metadata records it
  /// (`lance-schema:unenforced-primary-key:position`); uniqueness is not checked. Returns the
  /// new version. InvalidArgument, with LanceDB's messages, for no column, more than one
  /// column (compound keys are not supported), a key already set (it cannot be changed), a
  /// missing column, an unsupported type or a nullable column; nothing is committed then.
  virtual Result<uint64_t> SetUnenforcedPrimaryKey(const std::vector<std::string>& columns);
  /// Declare computed columns, (name, SQL expression) in declaration order: an expression may
  /// read the columns declared before it. The columns are added with no values (NULL) and their
  /// expressions recorded in their field metadata (schema_evolution.h); RefreshColumn fills
  /// them. AlreadyExists for a name in use; InvalidArgument "Invalid expression for column
  /// 'c': ..." for an expression that does not bind or has no type. Nothing is committed on
  /// error.
  virtual Result<AddColumnsResult> AddComputedColumns(
      const std::vector<std::pair<std::string, std::string>>& columns);
  /// Fill the rows of computed column `column` that hold no value (NULL): its expression is
  /// evaluated over them in batches, a failing batch row by row, so a row whose expression
  /// fails is counted in rows_failed and left unfilled. Publishes the values with a Merge
  /// commit that rewrites the column in the fragments holding such rows, then records the
  /// refresh in the field metadata (a second commit); commits nothing when no row gets a value.
  /// A concurrent write that conflicts makes it run again on the newest version. NotFound
  /// "Column 'c' was not found"; InvalidArgument "Column 'c' is not a computed column";
  /// Cancelled when options.cancel is set.
  virtual Result<RefreshColumnResult> RefreshColumn(const std::string& column,
                                                    const RefreshColumnOptions& options = {});

  /// Add rows from a stream (consumed and released). The schema must match the table's.
  virtual Result<AddResult> Add(ArrowArrayStream* data, const AddOptions& options) = 0;
  Result<AddResult> Add(ArrowArrayStream* data, AddMode mode = AddMode::kAppend) {
    AddOptions options;
    options.mode = mode;
    return Add(data, options);
  }
  /// Stream the rows of the current version.
  virtual Status Scan(const ScanRequest& request, ArrowArrayStream* out) const = 0;
  /// Stream the payloads of blob column `column` (v2 or legacy) at the rows with `row_ids` (as
  /// returned in `_rowid`), in that order: one large_binary column named `column`, null for a
  /// null blob. External blobs are read from their URI. InvalidArgument when `column` is not a
  /// blob column or a row id is not in this version.
  virtual Status FetchBlobs(const std::string& column, const std::vector<uint64_t>& row_ids,
                            ArrowArrayStream* out) const;
  /// Register base paths in one commit (Lance's add_bases). InvalidArgument (nothing
  /// committed) for an empty or malformed path, a name or path already registered or given
  /// twice (as in Lance 12, a second unnamed base conflicts with the first), or an id already
  /// taken.
  virtual Status AddBases(const std::vector<TableBasePath>& bases);
  /// The base paths registered in the current version, by id.
  virtual Result<std::vector<TableBasePath>> ListBases() const;

  /// Every version of the table, oldest first.
  virtual Result<std::vector<TableVersion>> ListVersions() const = 0;
  /// Pin the handle to `version` (read-only until CheckoutLatest). NotFound when missing.
  virtual Status Checkout(uint64_t version) = 0;
  /// Follow the newest version again.
  virtual Status CheckoutLatest() = 0;
  /// Commit the checked-out version's content as the newest version, and follow it.
  virtual Status Restore() = 0;

  /// Rewrite small fragments (and ones with many deleted rows) into larger ones.
  virtual Result<CompactionStats> Compact(const CompactionOptions& options = {});
  /// Remove old versions and the files only they use.
  virtual Result<RemovalStats> Prune(const PruneOptions& options = {});
  /// Compact, then prune (LanceDB `optimize`).
  Result<OptimizeStats> Optimize(const OptimizeOptions& options = {});

  /// Every tag of the table (of every branch), by name.
  virtual Result<std::map<std::string, TagInfo>> ListTags() const;
  /// The version `tag` points to (NotFound for an unknown tag).
  virtual Result<uint64_t> GetTagVersion(const std::string& tag) const;
  /// Tag `version` of the handle's branch (AlreadyExists for an existing tag; NotFound for a
  /// missing version; InvalidArgument for a bad name).
  virtual Status CreateTag(const std::string& tag, uint64_t version);
  /// Move an existing tag to `version` of the handle's branch.
  virtual Status UpdateTag(const std::string& tag, uint64_t version);
  virtual Status DeleteTag(const std::string& tag);
  /// Pin the handle to the version `tag` points to (as Checkout), moving it to the tag's branch.
  virtual Status CheckoutTag(const std::string& tag);

  /// The branch the handle is on; nullopt for main (lancedb/branch.h).
  virtual std::optional<std::string> current_branch() const;
  /// Every branch of the table, by name.
  virtual Result<std::map<std::string, BranchInfo>> ListBranches() const;
  /// Create branch `name` from the latest version of main, or of `from_ref` (a branch or, when
  /// no branch has that name, a tag), or from its version `from_version`; return a writable
  /// handle on the new branch. InvalidArgument for a bad name, AlreadyExists for an existing
  /// branch, NotFound for an unknown source or version; nothing is written on error.
  virtual Result<std::shared_ptr<Table>> CreateBranch(
      const std::string& name, const std::optional<std::string>& from_ref = {},
      std::optional<uint64_t> from_version = {});
  /// A handle on branch `name` ("main" or "" for main) at its latest version (writable), or
  /// pinned read-only to `version`. NotFound for an unknown branch or version.
  virtual Result<std::shared_ptr<Table>> CheckoutBranch(const std::string& name,
                                                        std::optional<uint64_t> version = {}) const;
  /// Delete branch `name` and its files. NotFound when missing; InvalidArgument while this
  /// handle is on it, a tag points into it or another branch was created from it.
  virtual Status DeleteBranch(const std::string& name);
  /// How `from_branch` differs from this handle's branch, which it must have been created from.
  virtual Result<BranchDiff> DiffBranch(const std::string& from_branch) const;
  /// Replay the commits `from_branch` made since it was created from this handle's branch onto
  /// it (a dry run only checks). Conflicts are reported in the result, never as an error, and
  /// commit nothing. InvalidArgument / NotFound for a bad or unknown branch name.
  virtual Result<CherryPickResult> CherryPick(const std::string& from_branch, bool dry_run = false);

  // Incremental maintenance (materialized views) ------------------------------------------

  /// The rows inserted, updated and deleted between versions `from_version` and `to_version`
  /// of this table (its branch). Compaction, index and schema-only changes are no row changes.
  /// InvalidArgument when the table has no stable row ids; NotFound for a missing version.
  virtual Result<RowChanges> ChangedRows(uint64_t from_version, uint64_t to_version) const;
  /// Row addresses (`_rowaddr`) of the rows of the version this handle reads whose uint64
  /// column `column` holds one of `values` (any order, duplicates allowed), in scan order: what
  /// ReplaceRows removes when the rows to replace are known by a key (a materialized view's
  /// `__source_row_id`). Nulls match nothing. InvalidArgument for a missing or non-uint64
  /// column.
  virtual Result<std::vector<uint64_t>> RowAddressesWhereIn(
      const std::string& column, const std::vector<uint64_t>& values) const;
  /// In one commit on top of version `read_version`, which must still be the newest: delete
  /// the rows at `row_addresses` (`_rowaddr` values of that version), append `new_rows` (the
  /// table's schema) and, when given, replace the schema metadata. CommitConflict, with nothing
  /// written, when another writer committed after `read_version`. Returns the new version.
  virtual Result<uint64_t> ReplaceRows(
      uint64_t read_version, const std::vector<uint64_t>& row_addresses, ArrowArrayStream* new_rows,
      const std::optional<std::vector<std::pair<std::string, std::string>>>& schema_metadata);
};

}  // namespace lancedb
