// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// LocalTable: the Table implementation over a Lance dataset on a FileSystem.
// Thread-safety: internally synchronized. The current snapshot (a shared immutable Dataset) is
// swapped under a mutex that is never held during storage I/O; writes run without holding it
// and rely on the table layer's optimistic commit to serialize with every other writer
// (threads, processes, LanceDB).

#pragma once

#include <chrono>
#include <optional>

#include "array/array.h"
#include "common/mutex.h"
#include "lancedb/table.h"
#include "table/dataset.h"

namespace lancedb::db {

class LocalTable : public Table {
 public:
  LocalTable(std::string name, table::DatasetPtr dataset,
             std::optional<std::chrono::milliseconds> read_consistency_interval,
             std::optional<uint64_t> pinned_version);

  const std::string& name() const override { return name_; }
  std::string uri() const override;
  Status GetSchema(ArrowSchema* out) const override;
  Result<uint64_t> version() const override;
  Result<int64_t> CountRows() const override;
  Result<int64_t> CountRows(const std::string& filter) const override;
  Status ExecuteQuery(const QueryRequest& request, ArrowArrayStream* out) const override;
  Status QuerySchema(const QueryRequest& request, ArrowSchema* out) const override;
  Result<std::string> ExplainQuery(const QueryRequest& request, bool verbose) const override;
  Result<std::string> AnalyzeQuery(const QueryRequest& request) const override;
  Status ExecuteVectorQuery(const VectorQueryRequest& request,
                            ArrowArrayStream* out) const override;
  Status VectorQuerySchema(const VectorQueryRequest& request, ArrowSchema* out) const override;
  Result<std::string> ExplainVectorQuery(const VectorQueryRequest& request,
                                         bool verbose) const override;
  Result<std::string> AnalyzeVectorQuery(const VectorQueryRequest& request) const override;
  Status ExecuteFtsQuery(const FtsQueryRequest& request, ArrowArrayStream* out) const override;
  Status FtsQuerySchema(const FtsQueryRequest& request, ArrowSchema* out) const override;
  Result<std::string> ExplainFtsQuery(const FtsQueryRequest& request, bool verbose) const override;
  Status ExecuteHybridQuery(const HybridQueryRequest& request,
                            ArrowArrayStream* out) const override;
  Status CreateIndex(const std::string& column, const VectorIndexConfig& config,
                     const CreateIndexOptions& options) override;
  Status CreateScalarIndex(const std::string& column, ScalarIndexType type,
                           const CreateIndexOptions& options) override;
  Status CreateFtsIndex(const std::string& column, const FtsIndexConfig& config,
                        const CreateIndexOptions& options) override;
  Result<std::vector<IndexInfo>> ListIndices() const override;
  Result<std::vector<std::pair<std::string, uint32_t>>> Tokenize(
      std::string_view query, const std::optional<std::string>& column,
      const std::optional<std::string>& index_name) const override;
  Result<IndexStatistics> IndexStats(const std::string& name) const override;
  Status PrewarmIndex(const std::string& name) const override;
  Status DropIndex(const std::string& name) override;
  Status WaitForIndex(const std::vector<std::string>& names,
                      std::chrono::milliseconds timeout) const override;
  Status OptimizeIndices(const CreateIndexOptions& options) override;
  Result<DeleteResult> Delete(const std::string& where) override;
  Result<UpdateResult> Update(
      const std::optional<std::string>& where,
      const std::vector<std::pair<std::string, std::string>>& updates) override;
  using Table::Add;
  Result<AddResult> Add(ArrowArrayStream* data, const AddOptions& options) override;
  Result<MergeResult> ExecuteMergeInsert(const MergeInsertRequest& request,
                                         ArrowArrayStream* data) override;
  Result<AddColumnsResult> ExecuteAddColumns(const AddColumnsRequest& request) override;
  Result<uint64_t> AlterColumns(const std::vector<ColumnAlteration>& alterations) override;
  Result<uint64_t> DropColumns(const std::vector<std::string>& columns) override;
  Result<uint64_t> UpdateFieldMetadata(const std::vector<FieldMetadataUpdate>& updates) override;
  Result<uint64_t> SetUnenforcedPrimaryKey(const std::vector<std::string>& columns) override;
  Result<AddColumnsResult> AddComputedColumns(
      const std::vector<std::pair<std::string, std::string>>& columns) override;
  Result<RefreshColumnResult> RefreshColumn(const std::string& column,
                                            const RefreshColumnOptions& options) override;
  Status Scan(const ScanRequest& request, ArrowArrayStream* out) const override;
  Status FetchBlobs(const std::string& column, const std::vector<uint64_t>& row_ids,
                    ArrowArrayStream* out) const override;
  Status AddBases(const std::vector<TableBasePath>& bases) override;
  Result<std::vector<TableBasePath>> ListBases() const override;
  Result<std::vector<TableVersion>> ListVersions() const override;
  Status Checkout(uint64_t version) override;
  Status CheckoutLatest() override;
  Status Restore() override;
  Result<TableStatistics> Stats() const override;
  Result<bool> UsesV2ManifestPaths() const override;
  Status MigrateManifestPathsV2() override;
  Result<CompactionStats> Compact(const CompactionOptions& options) override;
  Result<RemovalStats> Prune(const PruneOptions& options) override;
  Result<std::map<std::string, TagInfo>> ListTags() const override;
  Result<uint64_t> GetTagVersion(const std::string& tag) const override;
  Status CreateTag(const std::string& tag, uint64_t version) override;
  Status UpdateTag(const std::string& tag, uint64_t version) override;
  Status DeleteTag(const std::string& tag) override;
  Status CheckoutTag(const std::string& tag) override;
  std::optional<std::string> current_branch() const override;
  Result<std::map<std::string, BranchInfo>> ListBranches() const override;
  Result<std::shared_ptr<Table>> CreateBranch(const std::string& name,
                                              const std::optional<std::string>& from_ref,
                                              std::optional<uint64_t> from_version) override;
  Result<std::shared_ptr<Table>> CheckoutBranch(const std::string& name,
                                                std::optional<uint64_t> version) const override;
  Status DeleteBranch(const std::string& name) override;
  Result<BranchDiff> DiffBranch(const std::string& from_branch) const override;
  Result<CherryPickResult> CherryPick(const std::string& from_branch, bool dry_run) override;
  Result<RowChanges> ChangedRows(uint64_t from_version, uint64_t to_version) const override;
  Result<std::vector<uint64_t>> RowAddressesWhereIn(
      const std::string& column, const std::vector<uint64_t>& values) const override;
  Result<uint64_t> ReplaceRows(
      uint64_t read_version, const std::vector<uint64_t>& row_addresses, ArrowArrayStream* new_rows,
      const std::optional<std::vector<std::pair<std::string, std::string>>>& schema_metadata)
      override;

  /// Add batches from the in-memory column layer (used by the C++ bridge and Python).
  Result<AddResult> AddReader(array::RecordBatchReader* reader, const AddOptions& options);
  /// The snapshot reads go to (refreshed per the read consistency interval).
  Result<table::DatasetPtr> Snapshot() const;

 private:
  Status CheckWritable() const;
  /// Append or overwrite on the newest version with `params` (on `expected_version` only, when
  /// set: AddOptions::expected_version).
  Result<AddResult> AddWith(array::RecordBatchReader* reader, AddMode mode,
                            table::WriteParams params,
                            std::optional<uint64_t> expected_version = {});
  /// One execution of Update on the newest version.
  Result<UpdateResult> UpdateOnce(const std::optional<std::string>& where,
                                  const std::vector<std::pair<std::string, std::string>>& updates);
  /// One execution of RefreshColumn on the newest version.
  Result<RefreshColumnResult> RefreshColumnOnce(const std::string& column,
                                                const RefreshColumnOptions& options);
  Result<table::DatasetPtr> LatestForWrite() const;
  void Publish(const table::DatasetPtr& dataset) LANCEDB_EXCLUDES(mu_);
  /// The current snapshot, without refreshing it.
  table::DatasetPtr Current() const LANCEDB_EXCLUDES(mu_);
  /// A handle on `dataset` sharing this handle's name and settings.
  std::shared_ptr<Table> Sibling(table::DatasetPtr dataset, std::optional<uint64_t> pinned) const;
  /// Fill the versions, row counts, columns and indexes of a diff of `source` against
  /// `target` (result->diff.parent_version set), and the columns a cherry-pick promotes.
  Status DescribeDiff(const table::DatasetPtr& target, const table::DatasetPtr& source,
                      CherryPickResult* result) const;
  /// Diff (and, unless dry_run, apply) a cherry-pick of `from_branch` onto this handle's branch.
  Result<CherryPickResult> RunCherryPick(const std::string& from_branch, bool dry_run,
                                         table::DatasetPtr* committed) const;

  const std::string name_;
  const std::optional<std::chrono::milliseconds> read_consistency_interval_;
  mutable Mutex mu_;
  mutable table::DatasetPtr dataset_ LANCEDB_GUARDED_BY(mu_);
  mutable std::chrono::steady_clock::time_point last_refresh_ LANCEDB_GUARDED_BY(mu_);
  std::optional<uint64_t> pinned_version_ LANCEDB_GUARDED_BY(mu_);
};

/// Check a table name: non-empty, only letters, digits, '_', '-' and '.', not "." or "..".
Status ValidateTableName(const std::string& name);

}  // namespace lancedb::db
