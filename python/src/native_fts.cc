// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Full-text search bindings: FTS index creation, full-text queries (the query tree as LanceDB's
// JSON form) and tokenize().

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arrow_capsule.h"
#include "lancedb/lancedb.h"
#include "native_vector.h"

namespace nb = nanobind;

namespace lancedb::python {
namespace {

FtsQueryRequest MakeFtsRequest(const std::string& query_json, std::optional<std::string> filter,
                               std::optional<std::vector<std::string>> columns,
                               std::optional<int64_t> limit, int64_t offset, bool with_row_id,
                               bool prefilter, bool fast_search) {
  if (offset < 0) throw nb::value_error("offset must not be negative");
  auto query = ParseFullTextQueryJson(query_json);
  if (!query.ok()) RaiseStatus(query.status());
  FtsQueryRequest r;
  r.query = std::move(*query);
  r.base.filter = std::move(filter);
  if (columns) {
    r.base.select = SelectKind::kColumns;
    r.base.columns = std::move(*columns);
  }
  r.base.limit = limit;
  r.base.offset = offset;
  r.base.with_row_id = with_row_id;
  r.prefilter = prefilter;
  r.fast_search = fast_search;
  return r;
}

#define LANCEDB_FTS_ARGS                                                             \
  const std::string &query_json, std::optional<std::string> filter,                  \
      std::optional<std::vector<std::string>> columns, std::optional<int64_t> limit, \
      int64_t offset, bool with_row_id, bool prefilter, bool fast_search
#define LANCEDB_FTS_FORWARD                                                                 \
  query_json, std::move(filter), std::move(columns), limit, offset, with_row_id, prefilter, \
      fast_search

std::unique_ptr<StreamExport> FtsQueryPy(const Table& table, LANCEDB_FTS_ARGS) {
  auto request = MakeFtsRequest(LANCEDB_FTS_FORWARD);
  ArrowArrayStream out{};
  RunWithoutGil([&] { return table.ExecuteFtsQuery(request, &out); });
  return std::make_unique<StreamExport>(out);
}

std::unique_ptr<SchemaExport> FtsQuerySchemaPy(const Table& table, LANCEDB_FTS_ARGS) {
  auto request = MakeFtsRequest(LANCEDB_FTS_FORWARD);
  ArrowSchema out{};
  RunWithoutGil([&] { return table.FtsQuerySchema(request, &out); });
  return std::make_unique<SchemaExport>(out);
}

std::string FtsExplainPy(const Table& table, bool verbose, LANCEDB_FTS_ARGS) {
  auto request = MakeFtsRequest(LANCEDB_FTS_FORWARD);
  std::string text;
  RunWithoutGil([&]() -> Status {
    auto r = table.ExplainFtsQuery(request, verbose);
    if (!r.ok()) return r.status();
    text = std::move(*r);
    return Status::OK();
  });
  return text;
}

FtsIndexConfig MakeConfig(bool with_position, std::string base_tokenizer, std::string language,
                          std::optional<int64_t> max_token_length, bool lower_case, bool stem,
                          bool remove_stop_words,
                          std::optional<std::vector<std::string>> custom_stop_words,
                          bool ascii_folding, int64_t ngram_min_length, int64_t ngram_max_length,
                          bool prefix_only, int64_t block_size) {
  auto check = [](int64_t v, const char* name) {
    if (v < 0 || v > 0xFFFFFFFFll) {
      throw nb::value_error((std::string(name) + " must be a non-negative 32-bit integer").c_str());
    }
    return static_cast<uint32_t>(v);
  };
  FtsIndexConfig c;
  c.with_position = with_position;
  c.base_tokenizer = std::move(base_tokenizer);
  c.language = std::move(language);
  if (max_token_length) {
    c.max_token_length = check(*max_token_length, "max_token_length");
  } else {
    c.max_token_length.reset();
  }
  c.lower_case = lower_case;
  c.stem = stem;
  c.remove_stop_words = remove_stop_words;
  c.custom_stop_words = std::move(custom_stop_words);
  c.ascii_folding = ascii_folding;
  c.ngram_min_length = check(ngram_min_length, "ngram_min_length");
  c.ngram_max_length = check(ngram_max_length, "ngram_max_length");
  c.prefix_only = prefix_only;
  c.block_size = check(block_size, "block_size");
  return c;
}

#define LANCEDB_ANALYSIS_ARGS                                                                      \
  bool with_position, std::string base_tokenizer, std::string language,                            \
      std::optional<int64_t> max_token_length, bool lower_case, bool stem, bool remove_stop_words, \
      std::optional<std::vector<std::string>> custom_stop_words, bool ascii_folding,               \
      int64_t ngram_min_length, int64_t ngram_max_length, bool prefix_only, int64_t block_size
#define LANCEDB_ANALYSIS_FORWARD                                                               \
  with_position, std::move(base_tokenizer), std::move(language), max_token_length, lower_case, \
      stem, remove_stop_words, std::move(custom_stop_words), ascii_folding, ngram_min_length,  \
      ngram_max_length, prefix_only, block_size

void CreateFtsIndexPy(Table& table, const std::string& column, const std::string& name,
                      bool replace, std::optional<int64_t> memory_limit,
                      std::optional<int64_t> num_workers, LANCEDB_ANALYSIS_ARGS) {
  FtsIndexConfig config = MakeConfig(LANCEDB_ANALYSIS_FORWARD);
  if (memory_limit) {
    if (*memory_limit < 0) throw nb::value_error("memory_limit must not be negative");
    config.memory_limit_mib = static_cast<uint64_t>(*memory_limit);
  }
  if (num_workers) {
    if (*num_workers < 0) throw nb::value_error("num_workers must not be negative");
    if (*num_workers > 0) config.num_workers = static_cast<uint32_t>(*num_workers);
  }
  CreateIndexOptions options;
  options.name = name;
  options.replace = replace;
  RunWithoutGil([&] { return table.CreateFtsIndex(column, config, options); });
}

std::vector<std::pair<std::string, uint32_t>> TokenizePy(const std::string& text,
                                                         LANCEDB_ANALYSIS_ARGS) {
  FtsIndexConfig config = MakeConfig(LANCEDB_ANALYSIS_FORWARD);
  auto r = Tokenize(text, config);
  if (!r.ok()) RaiseStatus(r.status());
  return std::move(*r);
}

/// Table::Tokenize with LanceDB's messages: "Invalid input, ..." for a bad argument, "Schema
/// Error: ..." for a column the table lacks.
std::vector<std::pair<std::string, uint32_t>> TableTokenizePy(
    const Table& table, const std::string& query, const std::optional<std::string>& column,
    const std::optional<std::string>& index_name) {
  if (column.has_value() == index_name.has_value()) {
    throw nb::value_error("Specify exactly one of 'column' or 'index_name'");
  }
  std::optional<Result<std::vector<std::pair<std::string, uint32_t>>>> r;
  {
    nb::gil_scoped_release release;
    r.emplace(table.Tokenize(query, column, index_name));
  }
  if (r->status().IsNotFound())
    throw nb::value_error(("Schema Error: " + r->status().message()).c_str());
  if (r->status().IsInvalidArgument()) {
    throw nb::value_error(("Invalid input, " + r->status().message()).c_str());
  }
  if (!r->ok()) RaiseStatus(r->status());
  return std::move(**r);
}

}  // namespace

void BindFullTextSearch(nb::module_& m) {
  m.def("table_tokenize", &TableTokenizePy, nb::arg("table"), nb::arg("query"),
        nb::arg("column") = nb::none(), nb::arg("index_name") = nb::none(),
        "Tokenize `query` with the options of a table's FTS index: (text, position) pairs.");
  auto query_args = [] {
    return std::make_tuple(nb::arg("table"), nb::arg("query_json"), nb::arg("filter") = nb::none(),
                           nb::arg("columns") = nb::none(), nb::arg("limit") = nb::none(),
                           nb::arg("offset") = 0, nb::arg("with_row_id") = false,
                           nb::arg("prefilter") = true, nb::arg("fast_search") = false);
  };
  std::apply(
      [&](auto... a) {
        m.def("fts_query", &FtsQueryPy, a..., "Run a full-text query; an Arrow stream holder.");
        m.def("fts_query_schema", &FtsQuerySchemaPy, a..., "The schema a full-text query returns.");
      },
      query_args());
  std::apply(
      [&](auto table, auto... rest) {
        m.def("fts_explain", &FtsExplainPy, table, nb::arg("verbose") = false, rest...,
              "The plan of a full-text query, as text.");
      },
      query_args());
  auto analysis = [] {
    return std::make_tuple(
        nb::arg("with_position") = false, nb::arg("base_tokenizer") = "simple",
        nb::arg("language") = "English", nb::arg("max_token_length") = 40,
        nb::arg("lower_case") = true, nb::arg("stem") = true, nb::arg("remove_stop_words") = true,
        nb::arg("custom_stop_words") = nb::none(), nb::arg("ascii_folding") = true,
        nb::arg("ngram_min_length") = 3, nb::arg("ngram_max_length") = 3,
        nb::arg("prefix_only") = false, nb::arg("block_size") = 128);
  };
  std::apply(
      [&](auto... a) {
        m.def("create_fts_index", &CreateFtsIndexPy, nb::arg("table"), nb::arg("column"),
              nb::arg("name") = "", nb::arg("replace") = true, nb::arg("memory_limit") = nb::none(),
              nb::arg("num_workers") = nb::none(), a..., "Build an FTS index and commit it.");
        m.def("tokenize", &TokenizePy, nb::arg("text"), a...,
              "The query tokens of `text`: (text, position) pairs.");
      },
      analysis());
}

}  // namespace lancedb::python
