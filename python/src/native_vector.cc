// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "native_vector.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "arrow_capsule.h"
#include "lancedb/lancedb.h"

namespace nb = nanobind;

namespace lancedb::python {
namespace {

/// The keyword arguments of vector_query / vector_query_schema, as lancedb_cpp/_vector.py
/// passes them.
struct VectorArgs {
  std::vector<std::vector<float>> vectors;
  std::optional<std::string> column;
  std::optional<std::string> distance_type;
  std::optional<std::string> filter;
  std::optional<std::vector<std::string>> columns;
  std::optional<std::vector<std::pair<std::string, std::string>>> dynamic;
  std::optional<int64_t> limit;
  int64_t offset = 0;
  bool with_row_id = false;
  int64_t max_batch_length = 1024;
  bool prefilter = true;
  std::optional<int64_t> minimum_nprobes;
  std::optional<int64_t> maximum_nprobes;
  std::optional<int64_t> refine_factor;
  std::optional<int64_t> ef;
  std::optional<double> lower_bound;
  std::optional<double> upper_bound;
  bool bypass_vector_index = false;
  bool fast_search = false;
  OrderingArg order_by;
  bool with_row_address = false;
};

VectorQueryRequest MakeVectorRequest(VectorArgs a) {
  if (a.offset < 0) throw nb::value_error("offset must not be negative");
  if (a.max_batch_length <= 0) throw nb::value_error("batch size must be positive");
  auto non_negative = [](const std::optional<int64_t>& v, const char* name) {
    if (v && *v < 0) throw nb::value_error((std::string(name) + " must not be negative").c_str());
  };
  non_negative(a.minimum_nprobes, "minimum_nprobes");
  non_negative(a.maximum_nprobes, "maximum_nprobes");
  non_negative(a.refine_factor, "refine_factor");
  non_negative(a.ef, "ef");
  VectorQueryRequest r;
  r.vectors = std::move(a.vectors);
  r.column = std::move(a.column);
  r.distance_type = std::move(a.distance_type);
  r.base.filter = std::move(a.filter);
  if (a.dynamic) {
    r.base.select = SelectKind::kDynamic;
    r.base.dynamic = std::move(*a.dynamic);
  } else if (a.columns) {
    r.base.select = SelectKind::kColumns;
    r.base.columns = std::move(*a.columns);
  }
  r.base.limit = a.limit;
  r.base.offset = a.offset;
  r.base.with_row_id = a.with_row_id;
  r.base.max_batch_length = a.max_batch_length;
  r.prefilter = a.prefilter;
  if (a.minimum_nprobes) r.minimum_nprobes = static_cast<size_t>(*a.minimum_nprobes);
  if (a.maximum_nprobes) r.maximum_nprobes = static_cast<size_t>(*a.maximum_nprobes);
  if (a.refine_factor) r.refine_factor = static_cast<uint32_t>(*a.refine_factor);
  if (a.ef) r.ef = static_cast<size_t>(*a.ef);
  if (a.lower_bound) r.lower_bound = static_cast<float>(*a.lower_bound);
  if (a.upper_bound) r.upper_bound = static_cast<float>(*a.upper_bound);
  r.bypass_vector_index = a.bypass_vector_index;
  r.fast_search = a.fast_search;
  r.base.order_by = ToOrdering(std::move(a.order_by));
  r.base.with_row_address = a.with_row_address;
  return r;
}

#define LANCEDB_VECTOR_ARGS                                                                     \
  std::vector<std::vector<float>> vectors, std::optional<std::string> column,                   \
      std::optional<std::string> distance_type, std::optional<std::string> filter,              \
      std::optional<std::vector<std::string>> columns,                                          \
      std::optional<std::vector<std::pair<std::string, std::string>>> dynamic,                  \
      std::optional<int64_t> limit, int64_t offset, bool with_row_id, int64_t max_batch_length, \
      bool prefilter, std::optional<int64_t> minimum_nprobes,                                   \
      std::optional<int64_t> maximum_nprobes, std::optional<int64_t> refine_factor,             \
      std::optional<int64_t> ef, std::optional<double> lower_bound,                             \
      std::optional<double> upper_bound, bool bypass_vector_index, bool fast_search,            \
      OrderingArg order_by, bool with_row_address
#define LANCEDB_VECTOR_FORWARD                                                                    \
  VectorArgs {                                                                                    \
    std::move(vectors), std::move(column), std::move(distance_type), std::move(filter),           \
        std::move(columns), std::move(dynamic), limit, offset, with_row_id, max_batch_length,     \
        prefilter, minimum_nprobes, maximum_nprobes, refine_factor, ef, lower_bound, upper_bound, \
        bypass_vector_index, fast_search, std::move(order_by), with_row_address                   \
  }

std::unique_ptr<StreamExport> VectorQueryPy(const Table& table, LANCEDB_VECTOR_ARGS) {
  VectorQueryRequest request = MakeVectorRequest(LANCEDB_VECTOR_FORWARD);
  ArrowArrayStream out{};
  RunWithoutGil([&] { return table.ExecuteVectorQuery(request, &out); });
  return std::make_unique<StreamExport>(out);
}

std::unique_ptr<SchemaExport> VectorQuerySchemaPy(const Table& table, LANCEDB_VECTOR_ARGS) {
  VectorQueryRequest request = MakeVectorRequest(LANCEDB_VECTOR_FORWARD);
  ArrowSchema out{};
  RunWithoutGil([&] { return table.VectorQuerySchema(request, &out); });
  return std::make_unique<SchemaExport>(out);
}

std::string VectorExplainPy(const Table& table, bool verbose, LANCEDB_VECTOR_ARGS) {
  VectorQueryRequest request = MakeVectorRequest(LANCEDB_VECTOR_FORWARD);
  std::optional<Result<std::string>> text;
  {
    nb::gil_scoped_release release;
    text.emplace(table.ExplainVectorQuery(request, verbose));
  }
  if (!text->ok()) RaiseStatus(text->status());
  return **text;
}

std::string VectorAnalyzePy(const Table& table, LANCEDB_VECTOR_ARGS) {
  VectorQueryRequest request = MakeVectorRequest(LANCEDB_VECTOR_FORWARD);
  std::optional<Result<std::string>> text;
  {
    nb::gil_scoped_release release;
    text.emplace(table.AnalyzeVectorQuery(request));
  }
  if (!text->ok()) RaiseStatus(text->status());
  return **text;
}

std::vector<nb::dict> ListIndicesPy(const Table& table) {
  std::optional<Result<std::vector<IndexInfo>>> result;
  {
    nb::gil_scoped_release release;
    result.emplace(table.ListIndices());
  }
  auto& list = *result;
  if (!list.ok()) RaiseStatus(list.status());
  std::vector<nb::dict> out;
  for (const auto& info : *list) {
    nb::dict d;
    d["name"] = info.name;
    d["index_type"] = info.index_type;
    d["columns"] = info.columns;
    d["index_uuid"] = info.index_uuid;
    d["type_url"] = info.type_url;
    d["fragment_ids"] = info.fragment_ids;
    d["dataset_version"] = info.dataset_version;
    d["index_version"] = info.index_version;
    d["created_at_millis"] =
        info.created_at_millis ? nb::cast(*info.created_at_millis) : nb::none();
    d["num_indexed_rows"] = info.num_indexed_rows;
    d["num_unindexed_rows"] = info.num_unindexed_rows;
    d["size_bytes"] = info.size_bytes ? nb::cast(*info.size_bytes) : nb::none();
    d["num_segments"] = info.num_segments;
    d["details_json"] = info.details_json.empty() ? nb::none() : nb::cast(info.details_json);
    out.push_back(std::move(d));
  }
  return out;
}

nb::object IndexStatsPy(const Table& table, const std::string& name) {
  std::optional<Result<IndexStatistics>> result;
  {
    nb::gil_scoped_release release;
    result.emplace(table.IndexStats(name));
  }
  auto& stats = *result;
  if (stats.status().IsNotFound()) return nb::none();
  if (!stats.ok()) RaiseStatus(stats.status());
  nb::dict d;
  d["num_indexed_rows"] = stats->num_indexed_rows;
  d["num_unindexed_rows"] = stats->num_unindexed_rows;
  d["index_type"] = stats->index_type;
  if (stats->distance_type.empty()) {
    d["distance_type"] = nb::none();  // scalar indices have none
  } else {
    d["distance_type"] = stats->distance_type;
  }
  d["num_indices"] = stats->num_indices;
  return d;
}

/// A progress callback calling the Python `callback(stage, fraction)` under the GIL; its
/// exceptions are not propagated into the engine.
std::function<void(std::string_view, double)> ProgressCallback(nb::object callback) {
  if (callback.is_none()) return nullptr;
  auto held = std::make_shared<nb::object>(std::move(callback));
  return [held](std::string_view stage, double fraction) {
    nb::gil_scoped_acquire acquire;
    try {
      (*held)(std::string(stage), fraction);
    } catch (nb::python_error& e) {
      e.discard_as_unraisable("lancedb_cpp index progress callback");
    }
  };
}

void CreateIndexPy(Table& table, const std::string& column, const std::string& index_type,
                   const std::string& distance_type, std::optional<int64_t> num_partitions,
                   std::optional<int64_t> target_partition_size,
                   std::optional<int64_t> num_sub_vectors, std::optional<int> num_bits,
                   int max_iterations, int64_t sample_rate, int64_t m, int64_t ef_construction,
                   std::optional<uint64_t> seed, std::optional<std::string> accelerator,
                   const std::string& name, bool replace, nb::object progress) {
  auto type = ParseVectorIndexType(index_type);
  if (!type.ok()) RaiseStatus(type.status());
  VectorIndexConfig config;
  config.index_type = *type;
  config.distance_type = distance_type;
  config.num_partitions = num_partitions;
  config.target_partition_size = target_partition_size;
  config.num_sub_vectors = num_sub_vectors;
  config.num_bits = num_bits;
  config.max_iterations = max_iterations;
  config.sample_rate = sample_rate;
  config.m = m;
  config.ef_construction = ef_construction;
  config.seed = seed;
  config.accelerator = std::move(accelerator);
  CreateIndexOptions options;
  options.name = name;
  options.replace = replace;
  options.progress = ProgressCallback(std::move(progress));
  RunWithoutGil([&] { return table.CreateIndex(column, config, options); });
}

}  // namespace

void BindVectorSearch(nb::module_& m) {
  auto args = [] {
    return std::make_tuple(nb::arg("table"), nb::arg("vectors"), nb::arg("column") = nb::none(),
                           nb::arg("distance_type") = nb::none(), nb::arg("filter") = nb::none(),
                           nb::arg("columns") = nb::none(), nb::arg("dynamic") = nb::none(),
                           nb::arg("limit") = nb::none(), nb::arg("offset") = 0,
                           nb::arg("with_row_id") = false, nb::arg("max_batch_length") = 1024,
                           nb::arg("prefilter") = true, nb::arg("minimum_nprobes") = nb::none(),
                           nb::arg("maximum_nprobes") = nb::none(),
                           nb::arg("refine_factor") = nb::none(), nb::arg("ef") = nb::none(),
                           nb::arg("lower_bound") = nb::none(), nb::arg("upper_bound") = nb::none(),
                           nb::arg("bypass_vector_index") = false, nb::arg("fast_search") = false,
                           nb::arg("order_by") = nb::none(), nb::arg("with_row_address") = false);
  };
  std::apply(
      [&](auto... a) {
        m.def("vector_query", &VectorQueryPy, a...,
              "Run a nearest-neighbour query; returns an Arrow stream holder.");
        m.def("vector_query_schema", &VectorQuerySchemaPy, a...,
              "The schema a nearest-neighbour query returns.");
        m.def("vector_analyze", &VectorAnalyzePy, a...,
              "Run a nearest-neighbour query; its plan with measured counters.");
      },
      args());
  std::apply(
      [&](auto table, auto... rest) {
        m.def("vector_explain", &VectorExplainPy, table, nb::arg("verbose") = false, rest...,
              "The plan of a nearest-neighbour query, as text.");
      },
      args());
  m.def("create_index", &CreateIndexPy, nb::arg("table"), nb::arg("column"),
        nb::arg("index_type") = "IVF_PQ", nb::arg("distance_type") = "l2",
        nb::arg("num_partitions") = nb::none(), nb::arg("target_partition_size") = nb::none(),
        nb::arg("num_sub_vectors") = nb::none(), nb::arg("num_bits") = nb::none(),
        nb::arg("max_iterations") = 50, nb::arg("sample_rate") = 256, nb::arg("m") = 20,
        nb::arg("ef_construction") = 300, nb::arg("seed") = nb::none(),
        nb::arg("accelerator") = nb::none(), nb::arg("name") = "", nb::arg("replace") = true,
        nb::arg("progress") = nb::none(), "Build a vector index and commit it.");
  m.def(
      "create_scalar_index",
      [](Table& table, const std::string& column, const std::string& index_type,
         const std::string& name, bool replace) {
        auto type = ParseScalarIndexType(index_type);
        if (!type.ok()) RaiseStatus(type.status());
        CreateIndexOptions options;
        options.name = name;
        options.replace = replace;
        RunWithoutGil([&] { return table.CreateScalarIndex(column, *type, options); });
      },
      nb::arg("table"), nb::arg("column"), nb::arg("index_type") = "BTREE", nb::arg("name") = "",
      nb::arg("replace") = true, "Build a BTREE, BITMAP or LABEL_LIST index and commit it.");
  m.def("list_indices", &ListIndicesPy, nb::arg("table"), "The table's indices, as dicts.");
  m.def("index_stats", &IndexStatsPy, nb::arg("table"), nb::arg("name"),
        "Statistics of an index as a dict, or None when there is no such index.");
  m.def(
      "prewarm_index",
      [](const Table& table, const std::string& name) {
        Status st;
        {
          nb::gil_scoped_release release;
          st = table.PrewarmIndex(name);
        }
        // LanceDB raises RuntimeError("lance error: Lance index not found: name=...").
        if (st.IsNotFound()) throw std::runtime_error("lance error: " + st.message());
        if (!st.ok()) RaiseStatus(st);
      },
      nb::arg("table"), nb::arg("name"), "Load an index into the caches searches use.");
  m.def(
      "drop_index",
      [](Table& table, const std::string& name) {
        RunWithoutGil([&] { return table.DropIndex(name); });
      },
      nb::arg("table"), nb::arg("name"), "Remove an index.");
  m.def(
      "wait_for_index",
      [](const Table& table, const std::vector<std::string>& names, double timeout_seconds) {
        if (!std::isfinite(timeout_seconds) || timeout_seconds < 0) {
          throw nb::value_error("timeout must be a non-negative duration");
        }
        auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000));
        RunWithoutGil([&] { return table.WaitForIndex(names, timeout); });
      },
      nb::arg("table"), nb::arg("names"), nb::arg("timeout_seconds"),
      "Check that the indices exist (they build synchronously).");
  m.def(
      "optimize_indices",
      [](Table& table, nb::object progress) {
        CreateIndexOptions options;
        options.progress = ProgressCallback(std::move(progress));
        RunWithoutGil([&] { return table.OptimizeIndices(options); });
      },
      nb::arg("table"), nb::arg("progress") = nb::none(),
      "Add unindexed rows to every index without retraining.");
}

}  // namespace lancedb::python
