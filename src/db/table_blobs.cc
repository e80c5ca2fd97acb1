// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Blob payloads by row id (docs/format/blobs.md): the rows are taken with their blob column
// materialized, and external blobs are read from their URI.

#include <algorithm>
#include <optional>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "db/table_impl.h"
#include "format/blob.h"
#include "io/file_system.h"
#include "table/commit.h"
#include "table/operations.h"
#include "table/stable_row_ids.h"

namespace lancedb {

Status Table::FetchBlobs(const std::string& column, const std::vector<uint64_t>& row_ids,
                         ArrowArrayStream* out) const {
  (void)column;
  (void)row_ids;
  (void)out;
  return Status::NotSupported("FetchBlobs is not supported by this table");
}

Status Table::AddBases(const std::vector<TableBasePath>& bases) {
  (void)bases;
  return Status::NotSupported("AddBases is not supported by this table");
}

Result<std::vector<TableBasePath>> Table::ListBases() const {
  return Status::NotSupported("ListBases is not supported by this table");
}

namespace db {

namespace {

/// The bytes of the external blob at `uri`: [position, position + size), or all of it when
/// `size` is 0.
Result<std::string> ReadExternalBlob(const std::string& uri, uint64_t position, uint64_t size) {
  io::FileSystemPtr fs;
  std::string path;
  LANCEDB_RETURN_NOT_OK(format::OpenBlobLocation(uri, &fs, &path));
  if (size == 0) {
    LANCEDB_ASSIGN_OR_RETURN(auto bytes, fs->ReadFile(path));
    return std::string(bytes->view());
  }
  LANCEDB_ASSIGN_OR_RETURN(
      auto bytes, fs->ReadRange(path, static_cast<int64_t>(position), static_cast<int64_t>(size)));
  if (static_cast<uint64_t>(bytes->size()) != size) {
    return Status::IOError("External blob '" + uri + "' is shorter than its range [" +
                           std::to_string(position) + ", " + std::to_string(position + size) + ")");
  }
  return std::string(bytes->view());
}

Result<format::BlobEncoding> BlobColumnEncoding(const format::LanceSchema& schema,
                                                const std::string& column) {
  const format::LanceField* field = schema.FindTopLevel(column);
  if (field == nullptr) {
    std::string names;
    for (const auto& f : schema.fields()) names += (names.empty() ? "" : ", ") + f.name;
    return Status::InvalidArgument("Column '" + column + "' not found; columns are: " + names);
  }
  const format::BlobEncoding encoding = format::BlobEncodingOf(*field);
  if (encoding == format::BlobEncoding::kNone) {
    return Status::InvalidArgument("Column '" + column + "' is not a blob column");
  }
  return encoding;
}

}  // namespace

Status LocalTable::FetchBlobs(const std::string& column, const std::vector<uint64_t>& row_ids,
                              ArrowArrayStream* out) const {
  if (out == nullptr) return Status::InvalidArgument("FetchBlobs needs an output stream");
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto encoding, BlobColumnEncoding(ds->manifest().schema(), column));
  std::vector<uint64_t> addresses = row_ids;
  if (table::UsesStableRowIds(*ds)) {
    LANCEDB_ASSIGN_OR_RETURN(addresses, table::RowIdsToAddresses(*ds, row_ids));
  }
  LANCEDB_ASSIGN_OR_RETURN(auto taken, ds->Take(addresses, {column}, /*materialize_blobs=*/true));
  auto schema = array::schema({array::field(column, array::large_binary())});
  if (encoding == format::BlobEncoding::kLegacy) {  // the payloads themselves
    LANCEDB_ASSIGN_OR_RETURN(
        auto batch, array::RecordBatch::Make(schema, {taken->column(0)}, taken->num_rows()));
    return array::ExportRecordBatchReader(array::MakeVectorReader(schema, {batch}), out);
  }
  const array::ArrayData& blobs = *taken->column(0);
  const array::ArrayData& data = *blobs.children[0];
  const array::ArrayData& uri = *blobs.children[1];
  const array::ArrayData& position = *blobs.children[2];
  const array::ArrayData& size = *blobs.children[3];
  std::vector<std::optional<std::string>> values;
  values.reserve(static_cast<size_t>(blobs.length));
  for (int64_t i = 0; i < blobs.length; ++i) {
    const int64_t c = blobs.offset + i;
    if (blobs.IsNull(i)) {
      values.emplace_back();
    } else if (data.IsValid(c)) {
      values.emplace_back(std::string(data.GetView(c)));
    } else {
      const bool ranged = position.IsValid(c) && size.IsValid(c);
      LANCEDB_ASSIGN_OR_RETURN(auto bytes,
                               ReadExternalBlob(std::string(uri.GetView(c)),
                                                ranged ? position.GetValues<uint64_t>(1)[c] : 0,
                                                ranged ? size.GetValues<uint64_t>(1)[c] : 0));
      values.emplace_back(std::move(bytes));
    }
  }
  LANCEDB_ASSIGN_OR_RETURN(
      auto batch,
      array::RecordBatch::Make(schema, {array::MakeBinaryLike(array::large_binary(), values)},
                               static_cast<int64_t>(values.size())));
  return array::ExportRecordBatchReader(array::MakeVectorReader(schema, {batch}), out);
}

Status LocalTable::AddBases(const std::vector<TableBasePath>& bases) {
  if (bases.empty()) return Status::InvalidArgument("AddBases needs at least one base path");
  std::vector<table::pb::BasePath> protos;
  for (const auto& base : bases) {
    if (base.path.empty()) return Status::InvalidArgument("A base path must not be empty");
    auto parsed = format::ParseBlobLocation(base.path);
    if (!parsed.ok()) {
      return Status::InvalidArgument("Base path '" + base.path +
                                     "' is not a valid URI or path: " + parsed.status().message());
    }
    table::pb::BasePath proto;
    proto.set_id(base.id);
    if (base.name) proto.set_name(*base.name);
    proto.set_is_dataset_root(base.is_dataset_root);
    proto.set_path(base.path);
    protos.push_back(std::move(proto));
  }
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  table::UpdateBasesOperation op(std::move(protos));
  LANCEDB_ASSIGN_OR_RETURN(auto written, table::CommitOperation(latest, &op));
  Publish(written);
  return Status::OK();
}

Result<std::vector<TableBasePath>> LocalTable::ListBases() const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  std::vector<TableBasePath> out;
  for (const auto& base : ds->manifest().proto().base_paths()) {
    TableBasePath b;
    b.id = base.id();
    if (base.has_name()) b.name = base.name();
    b.is_dataset_root = base.is_dataset_root();
    b.path = base.path();
    out.push_back(std::move(b));
  }
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.id < y.id; });
  return out;
}

}  // namespace db
}  // namespace lancedb
