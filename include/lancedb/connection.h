// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Connection: a database — a directory (local path, memory:// or s3://) holding one Lance dataset
// per table, named `<table>.lance`. Mirrors LanceDB's `lancedb::connect(uri)` and `Connection`.
// Thread-safety: internally synchronized; share one Connection between threads freely.

#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lancedb/arrow_c.h"
#include "lancedb/status.h"
#include "lancedb/table.h"

namespace lancedb {

struct ConnectOptions {
  /// How often a table handle checks for versions written by others: unset = never (until
  /// CheckoutLatest), zero = before every read, otherwise at most that often.
  std::optional<std::chrono::milliseconds> read_consistency_interval;
  /// Storage options: LanceDB's `new_table_*` keys, and for s3:// URIs the object-store keys
  /// (aws_access_key_id, aws_region, aws_endpoint, allow_http, ...; docs/object-storage.md).
  /// Connect fails with InvalidArgument on an unknown object-store key.
  std::map<std::string, std::string> storage_options;
};

enum class CreateTableMode {
  kCreate,     ///< fail with AlreadyExists if the table exists
  kOverwrite,  ///< replace the existing table's content with a new version
  kExistOk,    ///< open the existing table (its schema must match), ignoring the data
};

/// Which version of which table Connection::CloneTable copies, and how.
struct CloneTableOptions {
  /// The source version (default: its latest); exclusive with source_tag.
  std::optional<uint64_t> source_version;
  /// A tag of the source naming the version (and branch) to clone.
  std::optional<std::string> source_tag;
  /// Reference the source's files (true) or copy them (false).
  bool is_shallow = true;
};

struct ListTablesResponse {
  std::vector<std::string> tables;
  /// Pass as page_token to get the next page; empty when there are no more tables.
  std::string page_token;
};

class Connection {
 public:
  virtual ~Connection() = default;

  virtual const std::string& uri() const = 0;

  /// Names of the tables, sorted; those after `start_after`, at most `limit` (0 = all).
  virtual Result<std::vector<std::string>> TableNames(const std::string& start_after = "",
                                                      int64_t limit = 0) const = 0;
  /// One page of table names; `page_token` is the last name of the previous page.
  virtual Result<ListTablesResponse> ListTables(const std::string& page_token = "",
                                                std::optional<int64_t> limit = {}) const = 0;

  /// Create a table from a stream of record batches (consumed and released).
  /// `storage_options` are this table's, over the connection's: LanceDB's `new_table_*` keys
  /// set how a new table is created (and are not passed on to storage); other keys go to
  /// storage. They do not change an existing table (kOverwrite, kExistOk).
  /// InvalidArgument / NotSupported for a bad `new_table_*` value.
  virtual Result<std::shared_ptr<Table>> CreateTable(
      const std::string& name, ArrowArrayStream* data,
      CreateTableMode mode = CreateTableMode::kCreate,
      const std::map<std::string, std::string>& storage_options = {}) = 0;
  /// Create an empty table with a schema (released); `storage_options` as for CreateTable.
  virtual Result<std::shared_ptr<Table>> CreateEmptyTable(
      const std::string& name, ArrowSchema* schema, CreateTableMode mode = CreateTableMode::kCreate,
      const std::map<std::string, std::string>& storage_options = {}) = 0;
  /// Open a table at its latest version, or pinned to `version` (read-only).
  virtual Result<std::shared_ptr<Table>> OpenTable(const std::string& name,
                                                   std::optional<uint64_t> version = {}) = 0;
  /// Open branch `branch` of a table ("main" or "" for main) at its latest version, or pinned
  /// to `version` (read-only). NotFound for an unknown table, branch or version.
  virtual Result<std::shared_ptr<Table>> OpenBranch(const std::string& name,
                                                    const std::string& branch,
                                                    std::optional<uint64_t> version = {});
  /// Create table `target` as a clone of the Lance dataset at `source_uri` (LanceDB
  /// clone_table). A shallow clone references the source's files (Lance's Clone operation with
  /// base paths) and is registered in the source so that cleaning the source keeps them; a deep
  /// clone copies them. Writes to either never change the other. InvalidArgument for a bad
  /// name or both source_version and source_tag; AlreadyExists, NotFound for a missing source,
  /// version or tag; NotSupported for a shallow clone across file systems.
  virtual Result<std::shared_ptr<Table>> CloneTable(const std::string& target,
                                                    const std::string& source_uri,
                                                    const CloneTableOptions& options = {});
  /// Delete a table and all its versions. NotFound when missing.
  virtual Status DropTable(const std::string& name) = 0;
  virtual Status DropAllTables() = 0;

  // Tables at a chosen location. A directory namespace (LanceDB's `connect_namespace("dir")`)
  // keeps a table's dataset in a directory of its choosing under the database root, such as
  // `a1b2c3d4_ns$table`, rather than in `<name>.lance`. `location` is that directory: one path
  // component relative to the root (InvalidArgument for an empty one, `.`, `..`, or one with a
  // `/`, `\` or NUL). `name` is what Table::name() reports. Otherwise these behave as
  // CreateTable, CreateEmptyTable, OpenTable and DropTable. NotSupported by default.

  virtual Result<std::shared_ptr<Table>> CreateTableAt(
      const std::string& location, const std::string& name, ArrowArrayStream* data,
      CreateTableMode mode = CreateTableMode::kCreate,
      const std::map<std::string, std::string>& storage_options = {});
  virtual Result<std::shared_ptr<Table>> CreateEmptyTableAt(
      const std::string& location, const std::string& name, ArrowSchema* schema,
      CreateTableMode mode = CreateTableMode::kCreate,
      const std::map<std::string, std::string>& storage_options = {});
  virtual Result<std::shared_ptr<Table>> OpenTableAt(const std::string& location,
                                                     const std::string& name,
                                                     std::optional<uint64_t> version = {});
  /// Delete the dataset directory `location`. NotFound when missing.
  virtual Status DropTableAt(const std::string& location);
};

/// Connect to the database at `uri`: a local directory (created on first write) or
/// `memory://name`, a new empty database in memory that lives as long as the connection or its
/// tables (each memory:// connection is its own, as in LanceDB). InvalidArgument /
/// NotSupported for malformed or unsupported URIs.
Result<std::shared_ptr<Connection>> Connect(const std::string& uri, ConnectOptions options = {});

}  // namespace lancedb
