// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Schema evolution of a Lance dataset (lance-format.md §1.3):
//  * adding columns writes one new data file per existing fragment holding only the new
//    columns (their field ids above the schema's max) and commits a Merge transaction (105)
//    with the new schema and fragment list; existing data files are not touched;
//  * renaming, relaxing nullability, changing field metadata and dropping columns only change
//    the schema, committed as a Project transaction (109); dropped columns' data stays in the
//    files (their ids are no longer in the schema) until compaction rewrites them.
// Thread-safety: stateless functions over immutable snapshots.

#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "table/commit.h"
#include "table/dataset.h"

namespace lancedb::table {

/// Compute the new columns for a batch of existing rows (every physical row of a fragment,
/// deleted ones included, in order). Must return exactly `rows.num_rows()` rows with the
/// schema given to AddColumns.
using ColumnGenerator =
    std::function<Result<array::RecordBatchPtr>(const array::RecordBatch& rows)>;

/// Add `new_columns` to every fragment of `dataset`. `generator` receives the columns
/// `read_columns` (all columns when empty) and returns the new columns; when `generator` is
/// null the new columns are all NULL (no data is read). InvalidArgument for a name that
/// exists already or a non-nullable all-null column.
Result<DatasetPtr> AddColumns(const DatasetPtr& dataset, const array::Schema& new_columns,
                              const std::vector<std::string>& read_columns,
                              const ColumnGenerator& generator, int64_t batch_size = 8192);

/// Change the type of columns or struct members (`casts`: dot path, new type). Each top-level
/// column holding a cast field is rewritten whole: each fragment gets a new data file with the
/// converted column, where the cast fields have new field ids and the others keep theirs, and
/// the column's ids are tombstoned (field id -2) in the files that held them; committed as a
/// Merge transaction. Older versions keep reading the old files with the old schema.
/// `convert` turns one batch of the old top-level column into its new type (same length).
/// `finish`, when set, changes the new schema's fields further (renames, nullability) in the
/// same commit. InvalidArgument for a missing path or one through a non-struct field.
using ColumnConverter = std::function<Result<array::ArrayPtr>(const array::ArrayPtr& column,
                                                              const array::DataTypePtr& type)>;
using SchemaFinisher =
    std::function<Result<std::vector<format::LanceField>>(std::vector<format::LanceField> fields)>;
Result<DatasetPtr> CastColumns(const DatasetPtr& dataset,
                               const std::vector<std::pair<std::string, array::DataTypePtr>>& casts,
                               const ColumnConverter& convert, int64_t batch_size = 8192,
                               const SchemaFinisher& finish = nullptr);

/// Replace the values of top-level column `column` in some fragments: `values` maps a fragment
/// id to the fragment's whole new column (one value per physical row, deleted rows included).
/// Each listed fragment gets a new data file holding the column under its current field ids,
/// which are tombstoned (-2) in the fragment's older files; other fragments are unchanged. The
/// schema is unchanged. Committed as a Merge transaction (a concurrent append or rewrite makes
/// it a retryable CommitConflict). InvalidArgument for a missing column, an unknown fragment or
/// a length that is not the fragment's physical row count; a failed write leaves nothing.
Result<DatasetPtr> ReplaceColumnValues(const DatasetPtr& dataset, const std::string& column,
                                       const std::map<uint64_t, array::ArrayPtr>& values);

/// Commit `schema` (same field ids as the dataset's, possibly fewer fields, other names,
/// nullability or metadata) with the fragments unchanged (a Project transaction).
Result<DatasetPtr> CommitProjectedSchema(const DatasetPtr& dataset, format::LanceSchema schema);

/// Add data files to existing fragments with a new schema (Merge transaction); the field ids in
/// `tombstoned` are marked -2 in the fragments' existing files (a cast column's old ids).
class MergeColumnsOperation : public Operation {
 public:
  MergeColumnsOperation(std::map<uint64_t, pb::DataFile> added, format::LanceSchema schema,
                        std::set<int32_t> tombstoned = {})
      : added_(std::move(added)), schema_(std::move(schema)), tombstoned_(std::move(tombstoned)) {}
  std::string_view name() const override { return "Merge"; }
  bool supports_stable_row_ids() const override { return true; }
  Status Build(CommitAttempt* attempt) override;

 private:
  std::map<uint64_t, pb::DataFile> added_;
  format::LanceSchema schema_;
  std::set<int32_t> tombstoned_;
};

/// Add one data file to some fragments, tombstoning the field ids in `tombstoned` in their
/// existing files (Merge transaction; the schema is unchanged).
class ReplaceColumnOperation : public Operation {
 public:
  ReplaceColumnOperation(std::map<uint64_t, pb::DataFile> added, std::set<int32_t> tombstoned)
      : added_(std::move(added)), tombstoned_(std::move(tombstoned)) {}
  std::string_view name() const override { return "Merge"; }
  bool supports_stable_row_ids() const override { return true; }
  Status Build(CommitAttempt* attempt) override;

 private:
  std::map<uint64_t, pb::DataFile> added_;
  std::set<int32_t> tombstoned_;
};

/// Replace the schema, keeping the fragments (Project transaction).
class ProjectOperation : public Operation {
 public:
  explicit ProjectOperation(format::LanceSchema schema) : schema_(std::move(schema)) {}
  std::string_view name() const override { return "Project"; }
  bool supports_stable_row_ids() const override { return true; }
  Status Build(CommitAttempt* attempt) override;

 private:
  format::LanceSchema schema_;
};

}  // namespace lancedb::table
