// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// MergeInsert: LanceDB's `merge_insert` builder. Rows of the input are matched with rows of the
// table on key columns; matched rows can be replaced by the input row, input rows without a
// match inserted, and table rows without a match deleted:
//
//   upsert                 WhenMatchedUpdateAll().WhenNotMatchedInsertAll()
//   insert-if-not-exists   WhenNotMatchedInsertAll()
//   replace a range        WhenMatchedUpdateAll().WhenNotMatchedInsertAll()
//                            .WhenNotMatchedBySourceDelete("month = 3")
//
// Thread-safety: a builder is a value (externally synchronized); Execute may run concurrently
// with any other reader or writer of the table.

#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lancedb/arrow_c.h"
#include "lancedb/status.h"

namespace lancedb {

class Table;

/// The full description of a merge; what the builder fills in.
struct MergeInsertRequest {
  /// Key columns (top-level); a row matches when all are equal (NULL never matches).
  std::vector<std::string> on;
  bool when_matched_update_all = false;
  /// Only update matched rows where this SQL condition is TRUE. Columns are qualified as
  /// `target.<col>` (the table row) and `source.<col>` (the input row).
  std::optional<std::string> when_matched_update_condition;
  bool when_not_matched_insert_all = false;
  bool when_not_matched_by_source_delete = false;
  /// Only delete unmatched table rows where this SQL condition (on the table's columns) holds.
  std::optional<std::string> when_not_matched_by_source_condition;
  /// Give up retrying commit conflicts after this long (the first attempt always runs).
  std::chrono::milliseconds timeout{30000};
  /// The timeout bounds the first attempt too: a merge still running at the deadline commits
  /// nothing and fails with Cancelled ("merge insert timed out"), as LanceDB's explicit timeout.
  /// Set by MergeInsertBuilder::Timeout.
  bool timeout_applies_to_first_attempt = false;
};

/// Result of a merge insert.
struct MergeResult {
  /// The version committed (the unchanged current version when nothing changed).
  uint64_t version = 0;
  uint64_t num_inserted_rows = 0;
  uint64_t num_updated_rows = 0;
  uint64_t num_deleted_rows = 0;
  /// Attempts made (1 + retries after commit conflicts).
  uint32_t num_attempts = 0;
};

class MergeInsertBuilder {
 public:
  MergeInsertBuilder(std::shared_ptr<Table> table, std::vector<std::string> on);

  /// Replace matched table rows with the input row (where `condition` is TRUE, when given).
  MergeInsertBuilder& WhenMatchedUpdateAll(std::optional<std::string> condition = {});
  /// Insert input rows that match no table row.
  MergeInsertBuilder& WhenNotMatchedInsertAll();
  /// Delete table rows that match no input row (where `condition` is TRUE, when given).
  MergeInsertBuilder& WhenNotMatchedBySourceDelete(std::optional<std::string> condition = {});
  /// Run for at most `timeout`, retries after commit conflicts included: a merge still running
  /// at the deadline commits nothing and fails with Cancelled ("merge insert timed out"), as
  /// LanceDB's explicit timeout. Without it, retries stop after 30 s and the first attempt is
  /// not bounded.
  MergeInsertBuilder& Timeout(std::chrono::milliseconds timeout);

  /// Run the merge with `data` (consumed and released). The data must hold every column of the
  /// table with the table's types; keys must be unique in the data (InvalidArgument otherwise).
  /// Table rows that are not touched stay in their fragments (replaced and deleted rows are
  /// marked in deletion files). On a table with stable row ids an updated row keeps its
  /// `_rowid` and an inserted row gets a new one.
  Result<MergeResult> Execute(ArrowArrayStream* data);

  const MergeInsertRequest& request() const { return request_; }

 private:
  std::shared_ptr<Table> table_;
  MergeInsertRequest request_;
};

}  // namespace lancedb
