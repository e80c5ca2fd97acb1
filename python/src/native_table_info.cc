// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Native functions for table statistics, manifest naming and adding rows with progress
// reports, registered on lancedb_cpp._native by native.cc. They take the Table as first
// argument; the Python API (lancedb_cpp/table.py, _stats.py, _write_progress.py) wraps them.

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "arrow_capsule.h"
#include "lancedb/lancedb.h"
#include "native_evolution.h"

namespace nb = nanobind;

namespace lancedb::python {
namespace {

/// LanceDB's stats() dict: {total_bytes, num_rows, num_indices, fragment_stats: {num_fragments,
/// num_small_fragments, lengths: {min, max, mean, p25, p50, p75, p99}}}.
nb::dict StatsPy(const Table& table) {
  TableStatistics stats = CallWithoutGil([&] { return table.Stats(); });
  const FragmentSummaryStats& l = stats.fragment_stats.lengths;
  nb::dict lengths;
  lengths["min"] = l.min;
  lengths["max"] = l.max;
  lengths["mean"] = l.mean;
  lengths["p25"] = l.p25;
  lengths["p50"] = l.p50;
  lengths["p75"] = l.p75;
  lengths["p99"] = l.p99;
  nb::dict fragments;
  fragments["num_fragments"] = stats.fragment_stats.num_fragments;
  fragments["num_small_fragments"] = stats.fragment_stats.num_small_fragments;
  fragments["lengths"] = lengths;
  nb::dict d;
  d["total_bytes"] = stats.total_bytes;
  d["num_rows"] = stats.num_rows;
  d["num_indices"] = stats.num_indices;
  d["fragment_stats"] = fragments;
  return d;
}

/// LanceDB's progress dict: {output_rows, output_bytes, total_rows, elapsed_seconds,
/// active_tasks, total_tasks, done}.
nb::dict ProgressDict(const WriteProgress& p) {
  nb::dict d;
  d["output_rows"] = p.output_rows;
  d["output_bytes"] = p.output_bytes;
  if (p.total_rows) {
    d["total_rows"] = *p.total_rows;
  } else {
    d["total_rows"] = nb::none();
  }
  d["elapsed_seconds"] = std::chrono::duration<double>(p.elapsed).count();
  d["active_tasks"] = p.active_tasks;
  d["total_tasks"] = p.total_tasks;
  d["done"] = p.done;
  return d;
}

/// Add rows, calling `callback(dict)` with each progress report under the GIL. As in LanceDB,
/// an exception of the callback does not stop the add (it goes to sys.unraisablehook).
uint64_t AddWithProgressPy(Table& table, nb::handle data, const std::string& mode,
                           std::optional<uint64_t> total_rows, nb::object callback,
                           bool allow_external_blob_outside_bases) {
  AddOptions options;
  options.allow_external_blob_outside_bases = allow_external_blob_outside_bases;
  if (mode == "append") {
    options.mode = AddMode::kAppend;
  } else if (mode == "overwrite") {
    options.mode = AddMode::kOverwrite;
  } else {
    throw nb::value_error(("mode must be 'append' or 'overwrite', got '" + mode + "'").c_str());
  }
  options.total_rows = total_rows;
  auto held = std::make_shared<nb::object>(std::move(callback));
  options.progress = [held](const WriteProgress& p) {
    nb::gil_scoped_acquire acquire;
    try {
      (*held)(ProgressDict(p));
    } catch (nb::python_error& e) {
      e.discard_as_unraisable("lancedb_cpp add progress callback");
    }
  };
  ArrowArrayStream stream = TakeStream(data);
  // The callback is released on return, with the GIL held.
  return CallWithoutGil([&] { return table.Add(&stream, options); }).version;
}

/// Little-endian u64s packed as bytes (numpy.frombuffer reads them without a copy per item).
nb::bytes PackIds(const std::vector<uint64_t>& ids) {
  return nb::bytes(reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(uint64_t));
}

/// (inserted, updated, deleted, rebuild_reason, from_timestamp_nanos, to_timestamp_nanos); the
/// id lists as packed u64 bytes.
std::tuple<nb::bytes, nb::bytes, nb::bytes, std::string, int64_t, int64_t> ChangedRowsPy(
    const Table& table, uint64_t from_version, uint64_t to_version) {
  RowChanges c = CallWithoutGil([&] { return table.ChangedRows(from_version, to_version); });
  return {PackIds(c.inserted), PackIds(c.updated),     PackIds(c.deleted),
          c.rebuild_reason,    c.from_timestamp_nanos, c.to_timestamp_nanos};
}

/// Unpack little-endian u64s packed as bytes.
std::vector<uint64_t> UnpackIds(const nb::bytes& packed, const char* what) {
  if (packed.size() % sizeof(uint64_t) != 0) {
    throw nb::value_error((std::string(what) + " must hold packed u64 values").c_str());
  }
  std::vector<uint64_t> ids(packed.size() / sizeof(uint64_t));
  if (!ids.empty()) std::memcpy(ids.data(), packed.c_str(), packed.size());
  return ids;
}

nb::bytes RowAddressesWhereInPy(const Table& table, const std::string& column, nb::bytes values) {
  std::vector<uint64_t> keys = UnpackIds(values, "values");
  std::vector<uint64_t> addresses =
      CallWithoutGil([&] { return table.RowAddressesWhereIn(column, keys); });
  return PackIds(addresses);
}

uint64_t ReplaceRowsPy(Table& table, uint64_t read_version, nb::bytes row_addresses,
                       nb::handle new_rows,
                       std::optional<std::vector<std::pair<std::string, std::string>>> metadata) {
  std::vector<uint64_t> addresses = UnpackIds(row_addresses, "row_addresses");
  ArrowArrayStream stream = TakeStream(new_rows);
  return CallWithoutGil(
      [&] { return table.ReplaceRows(read_version, addresses, &stream, metadata); });
}

}  // namespace

void RegisterTableInfo(nb::module_& m) {
  m.def("table_stats", &StatsPy, nb::arg("table"),
        "Table statistics as LanceDB's stats() dict, for the version the table reads.");
  m.def(
      "uses_v2_manifest_paths",
      [](const Table& table) {
        return CallWithoutGil([&] { return table.UsesV2ManifestPaths(); });
      },
      nb::arg("table"), "Whether the newest manifest is named with the V2 scheme.");
  m.def(
      "migrate_manifest_paths_v2",
      [](Table& table) { CallWithoutGil([&] { return table.MigrateManifestPathsV2(); }); },
      nb::arg("table"), "Rename V1-named manifests to the V2 scheme.");
  m.def("add_with_progress", &AddWithProgressPy, nb::arg("table"), nb::arg("data"), nb::arg("mode"),
        nb::arg("total_rows").none(), nb::arg("callback"),
        nb::arg("allow_external_blob_outside_bases") = false,
        "Add rows from an Arrow stream, reporting progress to callback(dict); the new version.");
  m.def("changed_rows", &ChangedRowsPy, nb::arg("table"), nb::arg("from_version"),
        nb::arg("to_version"),
        "Stable row ids inserted, updated and deleted between two versions (packed u64 bytes), "
        "the reason they cannot be diffed ('' when they can) and the versions' commit times "
        "(ns).");
  m.def("row_addresses_where_in", &RowAddressesWhereInPy, nb::arg("table"), nb::arg("column"),
        nb::arg("values"),
        "Row addresses (packed u64 bytes) of the rows whose integer column holds one of values "
        "(packed u64 bytes), in scan order.");
  m.def("replace_rows", &ReplaceRowsPy, nb::arg("table"), nb::arg("read_version"),
        nb::arg("row_addresses"), nb::arg("new_rows"), nb::arg("schema_metadata").none(),
        "Delete rows (packed u64 row addresses), append new rows and set the schema metadata in "
        "one commit on exactly read_version + 1; the new version.");
}

}  // namespace lancedb::python
