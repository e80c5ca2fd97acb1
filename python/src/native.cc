// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// lancedb_cpp._native: a thin nanobind layer over the C++ API (include/lancedb). The Python API
// in lancedb_cpp/ builds on it. Every engine call runs with the GIL released; engine errors
// become Python exceptions in one place, ThrowStatus.

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "arrow_capsule.h"
#include "lancedb/lancedb.h"
#include "native_branches.h"
#include "native_evolution.h"
#include "native_vector.h"

namespace nb = nanobind;

namespace lancedb::python {
namespace {

/// Raise the Python exception for a failed status; the engine's message is kept as is.
/// InvalidArgument, NotFound, AlreadyExists -> ValueError (as LanceDB: invalid input, missing
/// table or column, schema mismatch); NotSupported -> NotImplementedError; IOError -> OSError;
/// CommitConflict -> lancedb_cpp.exceptions.CommitConflictError (an OSError, as LanceDB's
/// commit conflicts) with `retryable`; everything else -> RuntimeError.
[[noreturn]] void ThrowStatus(const Status& status) {
  if (status.IsCommitConflict()) {
    nb::object cls = nb::module_::import_("lancedb_cpp.exceptions").attr("CommitConflictError");
    nb::object error = cls(status.message(), status.IsRetryable());
    PyErr_SetObject(cls.ptr(), error.ptr());
    throw nb::python_error();
  }
  PyObject* type = PyExc_RuntimeError;
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kAlreadyExists:
      type = PyExc_ValueError;
      break;
    case StatusCode::kNotSupported:
      type = PyExc_NotImplementedError;
      break;
    case StatusCode::kIOError:
      type = PyExc_OSError;
      break;
    default:
      break;
  }
  std::string message = status.message();
  if (type == PyExc_RuntimeError) {
    message = std::string(StatusCodeName(status.code())) + ": " + message;
  }
  PyErr_SetString(type, message.c_str());
  throw nb::python_error();
}

void Check(const Status& status) {
  if (!status.ok()) ThrowStatus(status);
}

template <typename T>
T Unwrap(Result<T> result) {
  if (!result.ok()) ThrowStatus(result.status());
  return result.MoveValueUnsafe();
}

/// Run `fn` with the GIL released and return its (unwrapped) value.
template <typename Fn>
auto WithoutGil(Fn&& fn) {
  using R = decltype(fn());
  if constexpr (std::is_same_v<R, Status>) {
    Status status;
    {
      nb::gil_scoped_release release;
      status = fn();
    }
    Check(status);
  } else {
    std::optional<R> result;
    {
      nb::gil_scoped_release release;
      result.emplace(fn());
    }
    return Unwrap(std::move(*result));
  }
}

CreateTableMode ParseCreateMode(const std::string& mode) {
  if (mode == "create") return CreateTableMode::kCreate;
  if (mode == "overwrite") return CreateTableMode::kOverwrite;
  if (mode == "exist_ok") return CreateTableMode::kExistOk;
  throw nb::value_error(
      ("mode must be 'create', 'overwrite' or 'exist_ok', got '" + mode + "'").c_str());
}

AddMode ParseAddMode(const std::string& mode) {
  if (mode == "append") return AddMode::kAppend;
  if (mode == "overwrite") return AddMode::kOverwrite;
  throw nb::value_error(("mode must be 'append' or 'overwrite', got '" + mode + "'").c_str());
}

std::shared_ptr<Connection> ConnectPy(const std::string& uri,
                                      std::optional<double> read_consistency_interval,
                                      std::map<std::string, std::string> storage_options) {
  ConnectOptions options;
  if (read_consistency_interval) {
    if (!std::isfinite(*read_consistency_interval) || *read_consistency_interval < 0) {
      throw nb::value_error("read_consistency_interval must be a non-negative duration");
    }
    options.read_consistency_interval = std::chrono::milliseconds(
        static_cast<int64_t>(std::llround(*read_consistency_interval * 1000.0)));
  }
  options.storage_options = std::move(storage_options);
  return WithoutGil([&] { return Connect(uri, std::move(options)); });
}

std::shared_ptr<Table> CreateTablePy(Connection& conn, const std::string& name, nb::handle data,
                                     const std::string& mode,
                                     const std::map<std::string, std::string>& storage_options) {
  CreateTableMode m = ParseCreateMode(mode);
  ArrowArrayStream stream = TakeStream(data);
  return WithoutGil([&] { return conn.CreateTable(name, &stream, m, storage_options); });
}

std::shared_ptr<Table> CreateTableAtPy(Connection& conn, const std::string& location,
                                       const std::string& name, nb::handle data,
                                       const std::string& mode,
                                       const std::map<std::string, std::string>& storage_options) {
  CreateTableMode m = ParseCreateMode(mode);
  ArrowArrayStream stream = TakeStream(data);
  return WithoutGil(
      [&] { return conn.CreateTableAt(location, name, &stream, m, storage_options); });
}

std::shared_ptr<Table> CreateEmptyTableAtPy(
    Connection& conn, const std::string& location, const std::string& name, nb::handle schema,
    const std::string& mode, const std::map<std::string, std::string>& storage_options) {
  CreateTableMode m = ParseCreateMode(mode);
  ArrowSchema c_schema = TakeSchema(schema);
  return WithoutGil(
      [&] { return conn.CreateEmptyTableAt(location, name, &c_schema, m, storage_options); });
}

std::shared_ptr<Table> CreateEmptyTablePy(
    Connection& conn, const std::string& name, nb::handle schema, const std::string& mode,
    const std::map<std::string, std::string>& storage_options) {
  CreateTableMode m = ParseCreateMode(mode);
  ArrowSchema c_schema = TakeSchema(schema);
  return WithoutGil([&] { return conn.CreateEmptyTable(name, &c_schema, m, storage_options); });
}

std::unique_ptr<SchemaExport> SchemaPy(const Table& table) {
  ArrowSchema out{};
  WithoutGil([&] { return table.GetSchema(&out); });
  return std::make_unique<SchemaExport>(out);
}

uint64_t AddPy(Table& table, nb::handle data, const std::string& mode,
               std::optional<uint64_t> expected_version, bool allow_external_blob_outside_bases) {
  AddOptions options;
  options.allow_external_blob_outside_bases = allow_external_blob_outside_bases;
  options.mode = ParseAddMode(mode);
  options.expected_version = expected_version;
  ArrowArrayStream stream = TakeStream(data);
  return WithoutGil([&] { return table.Add(&stream, options); }).version;
}

std::unique_ptr<StreamExport> ScanPy(const Table& table, std::vector<std::string> columns,
                                     bool with_row_id, int64_t batch_size, bool with_row_address) {
  if (batch_size <= 0) throw nb::value_error("batch_size must be positive");
  ScanRequest request;
  request.columns = std::move(columns);
  request.with_row_id = with_row_id;
  request.with_row_address = with_row_address;
  request.batch_size = batch_size;
  ArrowArrayStream out{};
  WithoutGil([&] { return table.Scan(request, &out); });
  return std::make_unique<StreamExport>(out);
}

std::unique_ptr<StreamExport> FetchBlobsPy(const Table& table, const std::string& column,
                                           std::vector<uint64_t> row_ids) {
  ArrowArrayStream out{};
  WithoutGil([&] { return table.FetchBlobs(column, row_ids, &out); });
  return std::make_unique<StreamExport>(out);
}

QueryRequest MakeRequest(std::optional<std::string> filter,
                         std::optional<std::vector<std::string>> columns,
                         std::optional<std::vector<std::pair<std::string, std::string>>> dynamic,
                         std::optional<int64_t> limit, int64_t offset, bool with_row_id,
                         int64_t max_batch_length,
                         std::optional<std::vector<uint64_t>> take_offsets,
                         std::optional<std::vector<uint64_t>> take_row_ids, OrderingArg order_by,
                         bool with_row_address, std::optional<std::vector<uint64_t>> fragment_ids) {
  if (offset < 0) throw nb::value_error("offset must not be negative");
  if (max_batch_length <= 0) throw nb::value_error("batch size must be positive");
  QueryRequest request;
  request.filter = std::move(filter);
  if (dynamic) {
    request.select = SelectKind::kDynamic;
    request.dynamic = std::move(*dynamic);
  } else if (columns) {
    request.select = SelectKind::kColumns;
    request.columns = std::move(*columns);
  }
  if (limit && *limit > 0) request.limit = limit;
  request.offset = offset;
  request.with_row_id = with_row_id;
  request.max_batch_length = max_batch_length;
  request.take_offsets = std::move(take_offsets);
  request.take_row_ids = std::move(take_row_ids);
  request.order_by = ToOrdering(std::move(order_by));
  request.with_row_address = with_row_address;
  request.fragment_ids = std::move(fragment_ids);
  return request;
}

#define LANCEDB_QUERY_ARGS                                                                      \
  std::optional<std::string> filter, std::optional<std::vector<std::string>> columns,           \
      std::optional<std::vector<std::pair<std::string, std::string>>> dynamic,                  \
      std::optional<int64_t> limit, int64_t offset, bool with_row_id, int64_t max_batch_length, \
      std::optional<std::vector<uint64_t>> take_offsets,                                        \
      std::optional<std::vector<uint64_t>> take_row_ids, OrderingArg order_by,                  \
      bool with_row_address, std::optional<std::vector<uint64_t>> fragment_ids
#define LANCEDB_QUERY_FORWARD                                                                  \
  std::move(filter), std::move(columns), std::move(dynamic), limit, offset, with_row_id,       \
      max_batch_length, std::move(take_offsets), std::move(take_row_ids), std::move(order_by), \
      with_row_address, std::move(fragment_ids)

std::unique_ptr<StreamExport> QueryPy(const Table& table, LANCEDB_QUERY_ARGS) {
  QueryRequest request = MakeRequest(LANCEDB_QUERY_FORWARD);
  ArrowArrayStream out{};
  WithoutGil([&] { return table.ExecuteQuery(request, &out); });
  return std::make_unique<StreamExport>(out);
}

std::unique_ptr<SchemaExport> QuerySchemaPy(const Table& table, LANCEDB_QUERY_ARGS) {
  QueryRequest request = MakeRequest(LANCEDB_QUERY_FORWARD);
  ArrowSchema out{};
  WithoutGil([&] { return table.QuerySchema(request, &out); });
  return std::make_unique<SchemaExport>(out);
}

std::string ExplainQueryPy(const Table& table, bool verbose, LANCEDB_QUERY_ARGS) {
  QueryRequest request = MakeRequest(LANCEDB_QUERY_FORWARD);
  return WithoutGil([&] { return table.ExplainQuery(request, verbose); });
}

std::string AnalyzeQueryPy(const Table& table, LANCEDB_QUERY_ARGS) {
  QueryRequest request = MakeRequest(LANCEDB_QUERY_FORWARD);
  return WithoutGil([&] { return table.AnalyzeQuery(request); });
}

using VersionTuple =
    std::tuple<uint64_t, int64_t, std::vector<std::pair<std::string, std::string>>>;

std::vector<VersionTuple> ListVersionsPy(const Table& table) {
  auto versions = WithoutGil([&] { return table.ListVersions(); });
  std::vector<VersionTuple> out;
  out.reserve(versions.size());
  for (auto& v : versions) out.emplace_back(v.version, v.timestamp_micros, std::move(v.metadata));
  return out;
}

}  // namespace

void RaiseStatus(const Status& status) { ThrowStatus(status); }

}  // namespace lancedb::python

NB_MODULE(_native, m) {
  using namespace lancedb;          // NOLINT(google-build-using-namespace)
  using namespace lancedb::python;  // NOLINT(google-build-using-namespace)
#if defined(__GLIBC__)
  // glibc raises its mmap threshold each time a large block is freed, after which the writers'
  // page-sized buffers come from the heap, where fragmentation keeps freed memory resident: a
  // 10M-row create_table then held 2.4 GiB. A fixed 1 MiB threshold keeps large buffers in
  // mmap'd memory, returned on free. The environment's MALLOC_MMAP_THRESHOLD_ takes precedence.
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") == nullptr) mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
  m.doc() = "Native core of lancedb_cpp: connections and tables over the C++ engine.";
  m.attr("__version__") = Version();
  RegisterArrowExports(m);

  nb::class_<Connection>(m, "Connection", "A database: a directory of Lance tables.")
      .def_prop_ro("uri", &Connection::uri)
      .def(
          "table_names",
          [](const Connection& c, const std::string& start_after, int64_t limit) {
            return WithoutGil([&] { return c.TableNames(start_after, limit); });
          },
          nb::arg("start_after") = "", nb::arg("limit") = 0,
          "Sorted table names after `start_after`, at most `limit` (0 = all).")
      .def(
          "list_tables",
          [](const Connection& c, const std::string& page_token, std::optional<int64_t> limit) {
            auto r = WithoutGil([&] { return c.ListTables(page_token, limit); });
            return std::make_pair(std::move(r.tables), std::move(r.page_token));
          },
          nb::arg("page_token") = "", nb::arg("limit") = nb::none(),
          "One page of table names and the next page token ('' at the end).")
      .def("create_table", &CreateTablePy, nb::arg("name"), nb::arg("data"),
           nb::arg("mode") = "create",
           nb::arg("storage_options") = std::map<std::string, std::string>{},
           "Create a table from an Arrow stream (capsule or __arrow_c_stream__ object).")
      .def("create_empty_table", &CreateEmptyTablePy, nb::arg("name"), nb::arg("schema"),
           nb::arg("mode") = "create",
           nb::arg("storage_options") = std::map<std::string, std::string>{},
           "Create an empty table from an Arrow schema.")
      .def(
          "open_table",
          [](Connection& c, const std::string& name, std::optional<uint64_t> version) {
            return WithoutGil([&] { return c.OpenTable(name, version); });
          },
          nb::arg("name"), nb::arg("version") = nb::none(), "Open a table, optionally pinned.")
      .def(
          "drop_table",
          [](Connection& c, const std::string& name) {
            WithoutGil([&] { return c.DropTable(name); });
          },
          nb::arg("name"))
      .def("drop_all_tables", [](Connection& c) { WithoutGil([&] { return c.DropAllTables(); }); })
      .def("create_table_at", &CreateTableAtPy, nb::arg("location"), nb::arg("name"),
           nb::arg("data"), nb::arg("mode") = "create",
           nb::arg("storage_options") = std::map<std::string, std::string>{},
           "Create a table whose dataset is the directory `location` under the root.")
      .def("create_empty_table_at", &CreateEmptyTableAtPy, nb::arg("location"), nb::arg("name"),
           nb::arg("schema"), nb::arg("mode") = "create",
           nb::arg("storage_options") = std::map<std::string, std::string>{},
           "Create an empty table whose dataset is the directory `location` under the root.")
      .def(
          "open_table_at",
          [](Connection& c, const std::string& location, const std::string& name,
             std::optional<uint64_t> version) {
            return WithoutGil([&] { return c.OpenTableAt(location, name, version); });
          },
          nb::arg("location"), nb::arg("name"), nb::arg("version") = nb::none(),
          "Open the table whose dataset is the directory `location` under the root.")
      .def(
          "drop_table_at",
          [](Connection& c, const std::string& location) {
            WithoutGil([&] { return c.DropTableAt(location); });
          },
          nb::arg("location"), "Delete the table directory `location` under the root.");

  nb::class_<Table>(m, "Table", "A handle on one table; safe to share between threads.")
      .def_prop_ro("name", &Table::name)
      .def_prop_ro("uri", &Table::uri)
      .def("schema", &SchemaPy, "The current schema, as an __arrow_c_schema__ holder.")
      .def("version", [](const Table& t) { return WithoutGil([&] { return t.version(); }); })
      .def("count_rows", [](const Table& t) { return WithoutGil([&] { return t.CountRows(); }); })
      .def(
          "count_rows_where",
          [](const Table& t, const std::string& filter) {
            return WithoutGil([&] { return t.CountRows(filter); });
          },
          nb::arg("filter"), "Count the rows where the SQL filter is true.")
      .def("query", &QueryPy, nb::arg("filter") = nb::none(), nb::arg("columns") = nb::none(),
           nb::arg("dynamic") = nb::none(), nb::arg("limit") = nb::none(), nb::arg("offset") = 0,
           nb::arg("with_row_id") = false, nb::arg("max_batch_length") = 1024,
           nb::arg("take_offsets") = nb::none(), nb::arg("take_row_ids") = nb::none(),
           nb::arg("order_by") = nb::none(), nb::arg("with_row_address") = false,
           nb::arg("fragment_ids") = nb::none(), "Run a plain query; stream the result.")
      .def("query_schema", &QuerySchemaPy, nb::arg("filter") = nb::none(),
           nb::arg("columns") = nb::none(), nb::arg("dynamic") = nb::none(),
           nb::arg("limit") = nb::none(), nb::arg("offset") = 0, nb::arg("with_row_id") = false,
           nb::arg("max_batch_length") = 1024, nb::arg("take_offsets") = nb::none(),
           nb::arg("take_row_ids") = nb::none(), nb::arg("order_by") = nb::none(),
           nb::arg("with_row_address") = false, nb::arg("fragment_ids") = nb::none(),
           "The schema a query returns.")
      .def("explain_query", &ExplainQueryPy, nb::arg("verbose") = false,
           nb::arg("filter") = nb::none(), nb::arg("columns") = nb::none(),
           nb::arg("dynamic") = nb::none(), nb::arg("limit") = nb::none(), nb::arg("offset") = 0,
           nb::arg("with_row_id") = false, nb::arg("max_batch_length") = 1024,
           nb::arg("take_offsets") = nb::none(), nb::arg("take_row_ids") = nb::none(),
           nb::arg("order_by") = nb::none(), nb::arg("with_row_address") = false,
           nb::arg("fragment_ids") = nb::none(), "The plan of a plain query, as text.")
      .def("analyze_query", &AnalyzeQueryPy, nb::arg("filter") = nb::none(),
           nb::arg("columns") = nb::none(), nb::arg("dynamic") = nb::none(),
           nb::arg("limit") = nb::none(), nb::arg("offset") = 0, nb::arg("with_row_id") = false,
           nb::arg("max_batch_length") = 1024, nb::arg("take_offsets") = nb::none(),
           nb::arg("take_row_ids") = nb::none(), nb::arg("order_by") = nb::none(),
           nb::arg("with_row_address") = false, nb::arg("fragment_ids") = nb::none(),
           "Run a plain query and return its plan with measured counters.")
      .def(
          "delete",
          [](Table& t, const std::string& where) {
            auto r = WithoutGil([&] { return t.Delete(where); });
            return std::make_pair(r.num_deleted_rows, r.version);
          },
          nb::arg("where"), "Delete matching rows; return (num_deleted_rows, version).")
      .def(
          "update",
          [](Table& t, std::optional<std::string> where,
             std::vector<std::pair<std::string, std::string>> updates) {
            auto r = WithoutGil([&] { return t.Update(where, updates); });
            return std::make_pair(r.rows_updated, r.version);
          },
          nb::arg("where").none(), nb::arg("updates"),
          "Set columns to SQL expressions in matching rows; return (rows_updated, version).")
      .def("add", &AddPy, nb::arg("data"), nb::arg("mode") = "append",
           nb::arg("expected_version") = nb::none(),
           nb::arg("allow_external_blob_outside_bases") = false,
           "Add rows from an Arrow stream; return the new version. With expected_version "
           "(overwrite only), commit only as the version after it. External blob URIs outside "
           "the registered base paths need allow_external_blob_outside_bases.")
      .def("scan", &ScanPy, nb::arg("columns") = std::vector<std::string>{},
           nb::arg("with_row_id") = false, nb::arg("batch_size") = 8192,
           nb::arg("with_row_address") = false, "Stream the rows of the current version.")
      .def("fetch_blobs", &FetchBlobsPy, nb::arg("column"), nb::arg("row_ids"),
           "Stream the payloads of a blob v2 column at these row ids (one large_binary column).")
      .def("list_versions", &ListVersionsPy,
           "Every version as (version, timestamp in microseconds, metadata pairs).")
      .def(
          "checkout",
          [](Table& t, uint64_t version) { WithoutGil([&] { return t.Checkout(version); }); },
          nb::arg("version"))
      .def("checkout_latest", [](Table& t) { WithoutGil([&] { return t.CheckoutLatest(); }); })
      .def("restore", [](Table& t) { WithoutGil([&] { return t.Restore(); }); });

  m.def("connect", &ConnectPy, nb::arg("uri"), nb::arg("read_consistency_interval") = nb::none(),
        nb::arg("storage_options") = std::map<std::string, std::string>{},
        "Connect to a database; read_consistency_interval in seconds (None = manual).");
  RegisterEvolution(m);
  RegisterBranches(m);
  RegisterTableInfo(m);
  BindVectorSearch(m);
  BindFullTextSearch(m);
}
