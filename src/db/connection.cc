// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// LocalConnection: a database directory on a FileSystem; each table is the Lance dataset
// `<uri>/<name>.lance`. Thread-safety: stateless apart from immutable configuration.

#include <algorithm>

#include "array/c_bridge.h"
#include "db/new_table_options.h"
#include "db/table_impl.h"
#include "io/file_system.h"
#include "lancedb/lancedb.h"
#include "table/branches.h"
#include "table/clone.h"
#include "table/tags.h"

namespace lancedb {
namespace db {
namespace {

constexpr std::string_view kTableSuffix = ".lance";

class LocalConnection : public Connection {
 public:
  LocalConnection(std::string uri, io::FileSystemPtr fs, std::string root, ConnectOptions options)
      : uri_(std::move(uri)),
        fs_(std::move(fs)),
        root_(std::move(root)),
        options_(std::move(options)) {}

  const std::string& uri() const override { return uri_; }

  Result<std::vector<std::string>> TableNames(const std::string& start_after,
                                              int64_t limit) const override {
    LANCEDB_ASSIGN_OR_RETURN(auto entries, fs_->ListDir(root_));
    std::vector<std::string> names;
    for (const auto& e : entries) {
      if (!e.is_dir || e.name.size() <= kTableSuffix.size()) continue;
      if (!e.name.ends_with(kTableSuffix)) continue;
      std::string name = e.name.substr(0, e.name.size() - kTableSuffix.size());
      if (!start_after.empty() && name <= start_after) continue;
      names.push_back(std::move(name));
    }
    std::sort(names.begin(), names.end());
    if (limit > 0 && static_cast<int64_t>(names.size()) > limit) names.resize(limit);
    return names;
  }

  Result<ListTablesResponse> ListTables(const std::string& page_token,
                                        std::optional<int64_t> limit) const override {
    if (limit && *limit < 0) return Status::InvalidArgument("limit must not be negative");
    LANCEDB_ASSIGN_OR_RETURN(auto all, TableNames(page_token, 0));
    ListTablesResponse response;
    if (limit && *limit > 0 && static_cast<int64_t>(all.size()) > *limit) {
      all.resize(*limit);
      response.page_token = all.back();
    }
    response.tables = std::move(all);
    return response;
  }

  Result<std::shared_ptr<Table>> CreateTable(
      const std::string& name, ArrowArrayStream* data, CreateTableMode mode,
      const std::map<std::string, std::string>& storage_options) override {
    if (data == nullptr || data->release == nullptr) {
      return Status::InvalidArgument("CreateTable requires a valid ArrowArrayStream");
    }
    // Take ownership first: the stream is released on every path, errors included.
    LANCEDB_ASSIGN_OR_RETURN(auto reader, array::ImportArrayStream(data));
    LANCEDB_RETURN_NOT_OK(ValidateTableName(name));
    return CreateFromReader(name, TablePath(name), reader.get(), mode, storage_options);
  }

  Result<std::shared_ptr<Table>> CreateEmptyTable(
      const std::string& name, ArrowSchema* schema, CreateTableMode mode,
      const std::map<std::string, std::string>& storage_options) override {
    if (schema == nullptr || schema->release == nullptr) {
      return Status::InvalidArgument("CreateEmptyTable requires a valid ArrowSchema");
    }
    LANCEDB_ASSIGN_OR_RETURN(auto imported, array::ImportSchema(schema));
    LANCEDB_RETURN_NOT_OK(ValidateTableName(name));
    auto reader = array::MakeVectorReader(imported, {});
    return CreateFromReader(name, TablePath(name), reader.get(), mode, storage_options);
  }

  Result<std::shared_ptr<Table>> CreateTableAt(
      const std::string& location, const std::string& name, ArrowArrayStream* data,
      CreateTableMode mode, const std::map<std::string, std::string>& storage_options) override {
    if (data == nullptr || data->release == nullptr) {
      return Status::InvalidArgument("CreateTableAt requires a valid ArrowArrayStream");
    }
    LANCEDB_ASSIGN_OR_RETURN(auto reader, array::ImportArrayStream(data));
    LANCEDB_ASSIGN_OR_RETURN(auto path, LocationPath(location));
    return CreateFromReader(name, path, reader.get(), mode, storage_options);
  }

  Result<std::shared_ptr<Table>> CreateEmptyTableAt(
      const std::string& location, const std::string& name, ArrowSchema* schema,
      CreateTableMode mode, const std::map<std::string, std::string>& storage_options) override {
    if (schema == nullptr || schema->release == nullptr) {
      return Status::InvalidArgument("CreateEmptyTableAt requires a valid ArrowSchema");
    }
    LANCEDB_ASSIGN_OR_RETURN(auto imported, array::ImportSchema(schema));
    LANCEDB_ASSIGN_OR_RETURN(auto path, LocationPath(location));
    auto reader = array::MakeVectorReader(imported, {});
    return CreateFromReader(name, path, reader.get(), mode, storage_options);
  }

  Result<std::shared_ptr<Table>> OpenTableAt(const std::string& location, const std::string& name,
                                             std::optional<uint64_t> version) override {
    LANCEDB_ASSIGN_OR_RETURN(auto path, LocationPath(location));
    return OpenPath(name, path, version);
  }

  Status DropTableAt(const std::string& location) override {
    LANCEDB_ASSIGN_OR_RETURN(auto path, LocationPath(location));
    LANCEDB_ASSIGN_OR_RETURN(bool exists, fs_->Exists(path));
    if (!exists) return Status::NotFound("No table directory '" + location + "'");
    return fs_->DeleteDirRecursive(path);
  }

  Result<std::shared_ptr<Table>> CreateFromReader(
      const std::string& name, const std::string& path, array::RecordBatchReader* reader,
      CreateTableMode mode, const std::map<std::string, std::string>& table_options) {
    auto existing = table::Dataset::Open(fs_, path);
    if (existing.ok()) {
      if (mode == CreateTableMode::kCreate) {
        return Status::AlreadyExists("Table '" + name + "' already exists");
      }
      if (mode == CreateTableMode::kExistOk) {
        if (!(*existing)->schema()->Equals(*reader->schema())) {
          return Status::InvalidArgument(
              "Table '" + name + "' already exists with a different schema: " +
              (*existing)->schema()->ToString() + " vs " + reader->schema()->ToString());
        }
        return Wrap(name, *existing, std::nullopt);
      }
      // A new table's rows are user data: no external blob outside the registered bases.
      table::WriteParams overwrite;
      overwrite.allow_external_blob_outside_bases = false;
      LANCEDB_ASSIGN_OR_RETURN(auto written, (*existing)->Overwrite(reader, overwrite));
      return Wrap(name, written, std::nullopt);
    }
    if (!existing.status().IsNotFound()) return existing.status();
    table::WriteParams params;
    params.mode = table::WriteMode::kCreate;
    params.allow_external_blob_outside_bases = false;
    // The table's `new_table_*` keys override the connection's; local and memory:// storage
    // take no other options (StorageOnlyOptions is what an object store would get).
    LANCEDB_RETURN_NOT_OK(ApplyNewTableOptions(
        MergeStorageOptions(options_.storage_options, table_options), &params));
    auto written = table::Dataset::Write(fs_, path, reader, params);
    if (!written.ok()) {
      // A failed create leaves nothing behind, unless someone else created the table meanwhile.
      if (!written.status().IsAlreadyExists()) (void)fs_->DeleteDirRecursive(path);
      if (written.status().IsAlreadyExists()) {
        return Status::AlreadyExists("Table '" + name + "' already exists");
      }
      return written.status();
    }
    return Wrap(name, *written, std::nullopt);
  }

  Result<std::shared_ptr<Table>> OpenTable(const std::string& name,
                                           std::optional<uint64_t> version) override {
    LANCEDB_RETURN_NOT_OK(ValidateTableName(name));
    return OpenPath(name, TablePath(name), version);
  }

  Result<std::shared_ptr<Table>> OpenPath(const std::string& name, const std::string& path,
                                          std::optional<uint64_t> version) {
    auto ds = table::Dataset::Open(fs_, path, version);
    if (!ds.ok()) {
      if (ds.status().IsNotFound() && !version) {
        return Status::NotFound("Table '" + name + "' was not found");
      }
      return ds.status();
    }
    return Wrap(name, *ds, version);
  }

  Result<std::shared_ptr<Table>> OpenBranch(const std::string& name, const std::string& branch,
                                            std::optional<uint64_t> version) override {
    LANCEDB_RETURN_NOT_OK(ValidateTableName(name));
    LANCEDB_ASSIGN_OR_RETURN(auto normalized, table::NormalizeBranchName(branch));
    const std::string path = TablePath(name);
    if (normalized) {
      auto found = table::GetBranch(*fs_, path, *normalized);
      if (!found.ok()) {
        LANCEDB_ASSIGN_OR_RETURN(bool exists, fs_->Exists(path));
        if (!exists) return Status::NotFound("Table '" + name + "' was not found");
        return found.status();
      }
    }
    auto ds = table::Dataset::Open(fs_, table::BranchDatasetPath(path, normalized), version);
    if (!ds.ok()) {
      if (ds.status().IsNotFound() && !version) {
        return Status::NotFound("Table '" + name + "' was not found");
      }
      return ds.status();
    }
    return Wrap(name, *ds, version);
  }

  Result<std::shared_ptr<Table>> CloneTable(const std::string& target,
                                            const std::string& source_uri,
                                            const CloneTableOptions& options) override {
    LANCEDB_RETURN_NOT_OK(ValidateTableName(target));
    if (options.source_version && options.source_tag) {
      return Status::InvalidArgument("Cannot specify both source_version and source_tag");
    }
    io::FileSystemPtr source_fs;
    std::string source_path;
    LANCEDB_RETURN_NOT_OK(
        io::ResolveUri(source_uri, options_.storage_options, &source_fs, &source_path));
    // A memory:// source is a table of this connection's own store (another memory://
    // connection's tables are out of reach, as in LanceDB).
    if (source_uri.starts_with("memory://") && uri_.starts_with("memory://")) source_fs = fs_;
    std::optional<std::string> branch;
    std::optional<uint64_t> version = options.source_version;
    if (options.source_tag) {
      auto tag = table::GetTag(*source_fs, source_path, *options.source_tag);
      if (!tag.ok()) return tag.status().WithContext("Cannot clone '" + source_uri + "'");
      branch = tag->branch;
      version = tag->version;
    }
    auto source =
        table::Dataset::Open(source_fs, table::BranchDatasetPath(source_path, branch), version);
    if (!source.ok()) {
      if (source.status().IsNotFound() && !version) {
        return Status::NotFound("No Lance dataset at '" + source_uri + "' to clone");
      }
      return source.status().WithContext("Cannot clone '" + source_uri + "'");
    }
    const std::string path = TablePath(target);
    LANCEDB_ASSIGN_OR_RETURN(bool exists, fs_->Exists(path));
    if (exists) return Status::AlreadyExists("Table '" + target + "' already exists");
    table::CloneOptions clone;
    clone.shallow = options.is_shallow;
    clone.ref_name = options.source_tag;
    auto cloned = table::CloneDataset(*source, fs_, path, clone);
    if (!cloned.ok()) {
      if (!cloned.status().IsAlreadyExists()) (void)fs_->DeleteDirRecursive(path);
      return cloned.status();
    }
    if (options.is_shallow) {
      // Record the clone where its files live, so that cleaning the source keeps them.
      const std::string stored = table::StoredRootPath(*fs_, path);
      for (const auto& base : (*cloned)->manifest().proto().base_paths()) {
        if (!base.is_dataset_root()) continue;
        Status st = table::RegisterClone(*fs_, base.path(), stored, (*cloned)->version());
        if (!st.ok()) {
          (void)fs_->DeleteDirRecursive(path);
          return st.WithContext("Cannot register the clone in '" + base.path() + "'");
        }
      }
    }
    return Wrap(target, *cloned, std::nullopt);
  }

  Status DropTable(const std::string& name) override {
    LANCEDB_RETURN_NOT_OK(ValidateTableName(name));
    std::string path = TablePath(name);
    LANCEDB_ASSIGN_OR_RETURN(bool exists, fs_->Exists(path));
    if (!exists) return Status::NotFound("Table '" + name + "' was not found");
    return fs_->DeleteDirRecursive(path);
  }

  Status DropAllTables() override {
    LANCEDB_ASSIGN_OR_RETURN(auto names, TableNames("", 0));
    for (const auto& name : names) LANCEDB_RETURN_NOT_OK(DropTable(name));
    return Status::OK();
  }

 private:
  std::string TablePath(const std::string& name) const {
    return io::JoinPath(root_, name + std::string(kTableSuffix));
  }

  Result<std::string> LocationPath(const std::string& location) const {
    if (location.empty() || location == "." || location == ".." ||
        location.find_first_of(std::string_view("/\\\0", 3)) != std::string::npos) {
      return Status::InvalidArgument("Invalid table location '" + location +
                                     "': it must be one directory name under the database root");
    }
    return io::JoinPath(root_, location);
  }

  std::shared_ptr<Table> Wrap(const std::string& name, table::DatasetPtr ds,
                              std::optional<uint64_t> version) {
    return std::make_shared<LocalTable>(name, std::move(ds), options_.read_consistency_interval,
                                        version);
  }

  std::string uri_;
  io::FileSystemPtr fs_;
  std::string root_;
  ConnectOptions options_;
};

}  // namespace
}  // namespace db

Result<std::shared_ptr<Table>> Connection::OpenBranch(const std::string&, const std::string&,
                                                      std::optional<uint64_t>) {
  return Status::NotSupported("Branches are not supported by this connection");
}

Result<std::shared_ptr<Table>> Connection::CloneTable(const std::string&, const std::string&,
                                                      const CloneTableOptions&) {
  return Status::NotSupported("clone_table is not supported by this connection");
}

Result<std::shared_ptr<Table>> Connection::CreateTableAt(
    const std::string&, const std::string&, ArrowArrayStream* data, CreateTableMode,
    const std::map<std::string, std::string>&) {
  if (data != nullptr && data->release != nullptr) data->release(data);
  return Status::NotSupported("Tables at a location are not supported by this connection");
}

Result<std::shared_ptr<Table>> Connection::CreateEmptyTableAt(
    const std::string&, const std::string&, ArrowSchema* schema, CreateTableMode,
    const std::map<std::string, std::string>&) {
  if (schema != nullptr && schema->release != nullptr) schema->release(schema);
  return Status::NotSupported("Tables at a location are not supported by this connection");
}

Result<std::shared_ptr<Table>> Connection::OpenTableAt(const std::string&, const std::string&,
                                                       std::optional<uint64_t>) {
  return Status::NotSupported("Tables at a location are not supported by this connection");
}

Status Connection::DropTableAt(const std::string&) {
  return Status::NotSupported("Tables at a location are not supported by this connection");
}

Result<std::shared_ptr<Connection>> Connect(const std::string& uri, ConnectOptions options) {
  io::FileSystemPtr fs;
  std::string root;
  LANCEDB_RETURN_NOT_OK(io::ResolveUri(uri, options.storage_options, &fs, &root));
  // Every memory:// connection is its own empty database, as in LanceDB: two connections to
  // the same memory:// URI do not see each other's tables.
  if (uri.starts_with("memory://")) fs = io::NewMemoryFileSystem();
  if (options.read_consistency_interval && options.read_consistency_interval->count() < 0) {
    return Status::InvalidArgument("read_consistency_interval must not be negative");
  }
  return std::shared_ptr<Connection>(std::make_shared<db::LocalConnection>(
      uri, std::move(fs), std::move(root), std::move(options)));
}

const char* Version() { return "0.1.0"; }

}  // namespace lancedb
