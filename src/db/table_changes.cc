// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Table::ChangedRows, Table::RowAddressesWhereIn and Table::ReplaceRows: what incremental
// maintenance (materialized views) needs from a table — the row changes between two versions
// (table/row_changes.h) and one guarded commit that lands on exactly the next version
// (table/merge_rows.h).

#include "array/c_bridge.h"
#include "db/table_impl.h"
#include "table/manifest.h"
#include "table/merge_rows.h"
#include "table/row_changes.h"

namespace lancedb {

namespace {
Status NoRowChanges() {
  return Status::NotSupported("Row change tracking is not supported by this table");
}
}  // namespace

Result<RowChanges> Table::ChangedRows(uint64_t, uint64_t) const { return NoRowChanges(); }
Result<std::vector<uint64_t>> Table::RowAddressesWhereIn(const std::string&,
                                                         const std::vector<uint64_t>&) const {
  return NoRowChanges();
}
Result<uint64_t> Table::ReplaceRows(
    uint64_t, const std::vector<uint64_t>&, ArrowArrayStream*,
    const std::optional<std::vector<std::pair<std::string, std::string>>>&) {
  return NoRowChanges();
}

namespace db {
namespace {
int64_t TimestampNanos(const table::Dataset& ds) {
  const auto& ts = ds.manifest().proto().timestamp();
  return ts.seconds() * 1000000000 + ts.nanos();
}
}  // namespace

Result<RowChanges> LocalTable::ChangedRows(uint64_t from_version, uint64_t to_version) const {
  table::DatasetPtr current = Current();
  LANCEDB_ASSIGN_OR_RETURN(auto from,
                           table::Dataset::Open(current->fs(), current->path(), from_version));
  LANCEDB_ASSIGN_OR_RETURN(auto to,
                           table::Dataset::Open(current->fs(), current->path(), to_version));
  LANCEDB_ASSIGN_OR_RETURN(auto diff, table::DiffRows(*from, *to));
  RowChanges out;
  out.inserted = std::move(diff.inserted);
  out.updated = std::move(diff.updated);
  out.deleted = std::move(diff.deleted);
  out.rebuild_reason = std::move(diff.rebuild_reason);
  out.from_timestamp_nanos = TimestampNanos(*from);
  out.to_timestamp_nanos = TimestampNanos(*to);
  return out;
}

Result<std::vector<uint64_t>> LocalTable::RowAddressesWhereIn(
    const std::string& column, const std::vector<uint64_t>& values) const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return table::RowAddressesWhereIn(*ds, column, values);
}

Result<uint64_t> LocalTable::ReplaceRows(
    uint64_t read_version, const std::vector<uint64_t>& row_addresses, ArrowArrayStream* new_rows,
    const std::optional<std::vector<std::pair<std::string, std::string>>>& schema_metadata) {
  if (new_rows == nullptr || new_rows->release == nullptr) {
    return Status::InvalidArgument("ReplaceRows requires a valid ArrowArrayStream");
  }
  LANCEDB_ASSIGN_OR_RETURN(auto reader, array::ImportArrayStream(new_rows));
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  if (latest->version() != read_version) {
    return Status::CommitConflict("Table '" + name_ + "' was changed after version " +
                                  std::to_string(read_version) + " (now at version " +
                                  std::to_string(latest->version()) + ")");
  }
  table::MergeChanges changes;
  changes.removed = row_addresses;
  table::MergeRowsOptions options;
  options.schema_metadata = schema_metadata;
  options.fail_if_moved = true;
  LANCEDB_ASSIGN_OR_RETURN(auto written,
                           table::MergeRows(latest, changes, reader.get(), nullptr, options));
  Publish(written);
  return written->version();
}

}  // namespace db
}  // namespace lancedb
