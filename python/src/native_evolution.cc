// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "native_evolution.h"

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "arrow_capsule.h"
#include "lancedb/lancedb.h"

namespace nb = nanobind;

namespace lancedb::python {
namespace {

using MergeTuple = std::tuple<uint64_t, uint64_t, uint64_t, uint64_t, uint32_t>;

MergeTuple MergeInsertPy(Table& table, nb::handle data, std::vector<std::string> on,
                         bool update_all, std::optional<std::string> update_where, bool insert_all,
                         bool delete_by_source, std::optional<std::string> delete_condition,
                         std::optional<double> timeout) {
  MergeInsertRequest request;
  request.on = std::move(on);
  request.when_matched_update_all = update_all;
  request.when_matched_update_condition = std::move(update_where);
  request.when_not_matched_insert_all = insert_all;
  request.when_not_matched_by_source_delete = delete_by_source;
  request.when_not_matched_by_source_condition = std::move(delete_condition);
  if (timeout) {
    if (!std::isfinite(*timeout) || *timeout < 0) {
      throw nb::value_error("timeout must be a non-negative number of seconds");
    }
    request.timeout = std::chrono::milliseconds(static_cast<int64_t>(*timeout * 1000.0));
    request.timeout_applies_to_first_attempt = true;  // an explicit timeout, as LanceDB's
  }
  ArrowArrayStream stream = TakeStream(data);
  MergeResult r = CallWithoutGil([&] { return table.ExecuteMergeInsert(request, &stream); });
  return {r.version, r.num_inserted_rows, r.num_updated_rows, r.num_deleted_rows, r.num_attempts};
}

std::map<std::string, std::pair<uint64_t, uint64_t>> ListTagsPy(const Table& table) {
  auto tags = CallWithoutGil([&] { return table.ListTags(); });
  std::map<std::string, std::pair<uint64_t, uint64_t>> out;
  for (const auto& [name, tag] : tags) out[name] = {tag.version, tag.manifest_size};
  return out;
}

/// A BatchUdf calling the Python function `fn(batch: pa.RecordBatch) -> pa.RecordBatch` (the
/// Python side normalizes the result to the output schema). Runs with the GIL held.
BatchUdf PythonUdf(nb::object fn) {
  auto holder = std::make_shared<nb::object>(std::move(fn));
  return [holder](ArrowSchema* in_schema, ArrowArray* in, ArrowArray* out) -> Status {
    nb::gil_scoped_acquire gil;
    try {
      nb::object pa = nb::module_::import_("pyarrow");
      nb::object batch = pa.attr("RecordBatch")
                             .attr("_import_from_c")(reinterpret_cast<uintptr_t>(in),
                                                     reinterpret_cast<uintptr_t>(in_schema));
      nb::object result = (*holder)(batch);
      ArrowSchema out_schema{};
      result.attr("_export_to_c")(reinterpret_cast<uintptr_t>(out),
                                  reinterpret_cast<uintptr_t>(&out_schema));
      if (out_schema.release) out_schema.release(&out_schema);
      return Status::OK();
    } catch (nb::python_error& e) {
      if (in->release) in->release(in);
      if (in_schema->release) in_schema->release(in_schema);
      return Status::InvalidArgument(std::string("The add_columns function raised: ") + e.what());
    }
  };
}

uint64_t AddColumnsPy(Table& table,
                      std::optional<std::vector<std::pair<std::string, std::string>>> sql,
                      nb::handle schema, nb::object fn, std::vector<std::string> read_columns,
                      int64_t batch_size) {
  AddColumnsRequest request;
  request.read_columns = std::move(read_columns);
  request.batch_size = batch_size;
  if (sql) {
    request.transform = ColumnTransform::SqlExpressions(std::move(*sql));
  } else if (!schema.is_none()) {
    ArrowSchema c_schema = TakeSchema(schema);
    request.transform = fn.is_none() ? ColumnTransform::AllNulls(&c_schema)
                                     : ColumnTransform::Udf(&c_schema, PythonUdf(fn));
  }
  auto result = CallWithoutGil([&] { return table.ExecuteAddColumns(request); });
  return result.version;
}

using AlterTuple =
    std::tuple<std::string, std::optional<std::string>, std::optional<bool>, nb::object>;

uint64_t AlterColumnsPy(Table& table, std::vector<AlterTuple> alterations) {
  std::vector<ColumnAlteration> alts;
  for (auto& [path, rename, nullable, data_type] : alterations) {
    ColumnAlteration a;
    a.path = path;
    a.rename = rename;
    a.nullable = nullable;
    if (!data_type.is_none()) {
      ArrowSchema type = TakeSchema(data_type);  // a pyarrow DataType (__arrow_c_schema__)
      a.data_type = std::shared_ptr<ArrowSchema>(new ArrowSchema(type), [](ArrowSchema* s) {
        if (s->release) s->release(s);
        delete s;
      });
    }
    alts.push_back(std::move(a));
  }
  return CallWithoutGil([&] { return table.AlterColumns(alts); });
}

using MetadataTuple =
    std::tuple<std::string, std::vector<std::pair<std::string, std::optional<std::string>>>, bool>;

uint64_t UpdateFieldMetadataPy(Table& table, std::vector<MetadataTuple> updates) {
  std::vector<FieldMetadataUpdate> ups;
  for (auto& [path, metadata, replace] : updates) {
    ups.push_back(FieldMetadataUpdate{path, metadata, replace});
  }
  return CallWithoutGil([&] { return table.UpdateFieldMetadata(ups); });
}

std::tuple<uint64_t, uint64_t, uint64_t, uint64_t> CompactPy(Table& table, int64_t target,
                                                             int64_t max_rows_per_group,
                                                             bool materialize, double threshold,
                                                             std::optional<int> num_threads) {
  CompactionOptions o;
  o.target_rows_per_fragment = target;
  o.max_rows_per_group = max_rows_per_group;
  o.materialize_deletions = materialize;
  o.materialize_deletions_threshold = threshold;
  o.num_threads = num_threads;
  auto s = CallWithoutGil([&] { return table.Compact(o); });
  return {s.fragments_removed, s.fragments_added, s.files_removed, s.files_added};
}

std::pair<uint64_t, uint64_t> PrunePy(Table& table, std::optional<double> older_than,
                                      bool delete_unverified, bool error_if_tagged_old_versions) {
  PruneOptions o;
  if (older_than) {
    if (!std::isfinite(*older_than) || *older_than < 0) {
      throw nb::value_error("cleanup_older_than must be a non-negative duration");
    }
    o.older_than = std::chrono::seconds(static_cast<int64_t>(*older_than));
  }
  o.delete_unverified = delete_unverified;
  o.error_if_tagged_old_versions = error_if_tagged_old_versions;
  auto s = CallWithoutGil([&] { return table.Prune(o); });
  return {s.bytes_removed, s.old_versions_removed};
}

/// A flag a refresh polls to stop early; set from any thread (Python's Job.cancel).
struct CancelToken {
  std::shared_ptr<std::atomic<bool>> flag = std::make_shared<std::atomic<bool>>(false);
};

using RefreshTuple = std::tuple<uint64_t, uint64_t, uint64_t, uint64_t, std::optional<uint64_t>>;

RefreshTuple RefreshColumnPy(Table& table, const std::string& column, const CancelToken* cancel) {
  RefreshColumnOptions options;
  if (cancel != nullptr) options.cancel = cancel->flag;
  auto r = CallWithoutGil([&] { return table.RefreshColumn(column, options); });
  return {r.rows_assigned, r.rows_failed, r.rows_remaining, r.source_version, r.published_version};
}

}  // namespace

void RegisterEvolution(nb::module_& m) {
  nb::class_<CancelToken>(m, "CancelToken", "A cancellation flag polled by a running refresh.")
      .def(nb::init<>())
      .def("cancel", [](CancelToken& t) { t.flag->store(true); })
      .def_prop_ro("cancelled", [](const CancelToken& t) { return t.flag->load(); });
  m.def(
      "add_computed_columns",
      [](Table& t, std::vector<std::pair<std::string, std::string>> columns) {
        return CallWithoutGil([&] { return t.AddComputedColumns(columns); }).version;
      },
      nb::arg("table"), nb::arg("columns"),
      "Declare computed columns (name, SQL expression); return the version.");
  m.def("refresh_column", &RefreshColumnPy, nb::arg("table"), nb::arg("column"),
        nb::arg("cancel").none() = nb::none(),
        "Fill a computed column's unfilled rows; (rows_assigned, rows_failed, rows_remaining, "
        "source_version, published_version or None).");
  m.def("add_columns", &AddColumnsPy, nb::arg("table"), nb::arg("sql").none(),
        nb::arg("schema").none(), nb::arg("fn").none(), nb::arg("read_columns"),
        nb::arg("batch_size") = 8192,
        "Add columns from SQL expressions, an all-null schema, or a batch function; return "
        "the version.");
  m.def("alter_columns", &AlterColumnsPy, nb::arg("table"), nb::arg("alterations"));
  m.def(
      "drop_columns",
      [](Table& t, std::vector<std::string> columns) {
        return CallWithoutGil([&] { return t.DropColumns(columns); });
      },
      nb::arg("table"), nb::arg("columns"));
  m.def("update_field_metadata", &UpdateFieldMetadataPy, nb::arg("table"), nb::arg("updates"));
  m.def(
      "set_unenforced_primary_key",
      [](Table& table, const std::vector<std::string>& columns) {
        return CallWithoutGil([&] { return table.SetUnenforcedPrimaryKey(columns); });
      },
      nb::arg("table"), nb::arg("columns"), "Declare the unenforced primary key; the new version.");
  m.def("compact", &CompactPy, nb::arg("table"), nb::arg("target_rows_per_fragment"),
        nb::arg("max_rows_per_group"), nb::arg("materialize_deletions"),
        nb::arg("materialize_deletions_threshold"), nb::arg("num_threads").none());
  m.def("prune", &PrunePy, nb::arg("table"), nb::arg("older_than").none(),
        nb::arg("delete_unverified"), nb::arg("error_if_tagged_old_versions") = true);
  m.def("merge_insert", &MergeInsertPy, nb::arg("table"), nb::arg("data"), nb::arg("on"),
        nb::arg("update_all"), nb::arg("update_where").none(), nb::arg("insert_all"),
        nb::arg("delete_by_source"), nb::arg("delete_condition").none(), nb::arg("timeout").none(),
        "Merge an Arrow stream into the table; return (version, inserted, updated, deleted, "
        "attempts).");
  m.def("list_tags", &ListTagsPy, nb::arg("table"),
        "Every tag as name -> (version, manifest_size).");
  m.def(
      "get_tag_version",
      [](const Table& t, const std::string& tag) {
        return CallWithoutGil([&] { return t.GetTagVersion(tag); });
      },
      nb::arg("table"), nb::arg("tag"));
  m.def(
      "create_tag",
      [](Table& t, const std::string& tag, uint64_t version) {
        CallWithoutGil([&] { return t.CreateTag(tag, version); });
      },
      nb::arg("table"), nb::arg("tag"), nb::arg("version"));
  m.def(
      "update_tag",
      [](Table& t, const std::string& tag, uint64_t version) {
        CallWithoutGil([&] { return t.UpdateTag(tag, version); });
      },
      nb::arg("table"), nb::arg("tag"), nb::arg("version"));
  m.def(
      "delete_tag",
      [](Table& t, const std::string& tag) { CallWithoutGil([&] { return t.DeleteTag(tag); }); },
      nb::arg("table"), nb::arg("tag"));
  m.def(
      "checkout_tag",
      [](Table& t, const std::string& tag) { CallWithoutGil([&] { return t.CheckoutTag(tag); }); },
      nb::arg("table"), nb::arg("tag"));
}

}  // namespace lancedb::python
