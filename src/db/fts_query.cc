// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The full-text query values and builder (include/lancedb/fts_query.h), LanceDB's JSON form of
// a query, and the Table defaults for tables without full-text search.

#include <nlohmann/json.hpp>

#include "lancedb/table.h"

namespace lancedb {

FullTextQuery FullTextQuery::Match(std::string query, std::string column) {
  FullTextQuery q;
  q.kind = Kind::kMatch;
  q.query = std::move(query);
  q.column = std::move(column);
  return q;
}

FullTextQuery FullTextQuery::Phrase(std::string query, std::string column, uint32_t slop) {
  FullTextQuery q = Match(std::move(query), std::move(column));
  q.kind = Kind::kPhrase;
  q.slop = slop;
  return q;
}

FullTextQuery FullTextQuery::MultiMatch(std::string query, std::vector<std::string> columns,
                                        std::vector<float> boosts) {
  FullTextQuery q = Match(std::move(query));
  q.kind = Kind::kMultiMatch;
  q.columns = std::move(columns);
  q.boosts = std::move(boosts);
  return q;
}

FullTextQuery FullTextQuery::Boolean(std::vector<std::pair<FtsOccur, FullTextQuery>> clauses) {
  FullTextQuery q;
  q.kind = Kind::kBoolean;
  for (auto& [occur, child] : clauses) {
    q.occurs.push_back(occur);
    q.children.push_back(std::move(child));
  }
  return q;
}

FullTextQuery FullTextQuery::Boost(FullTextQuery positive, FullTextQuery negative,
                                   float negative_boost) {
  FullTextQuery q;
  q.kind = Kind::kBoost;
  q.children = {std::move(positive), std::move(negative)};
  q.negative_boost = negative_boost;
  return q;
}

namespace {

using nlohmann::json;

Status Bad(const std::string& what) {
  return Status::InvalidArgument("Invalid full-text query JSON: " + what);
}

Result<FullTextQuery> FromJson(const json& j, int depth) {
  if (depth > 64) return Bad("nested too deeply");
  if (!j.is_object() || j.size() != 1) return Bad("expected an object with one query kind");
  const std::string kind = j.begin().key();
  const json& body = j.begin().value();
  if (!body.is_object()) return Bad("the body of '" + kind + "' is not an object");
  auto str = [&](const char* key) -> Result<std::string> {
    if (!body.contains(key)) return std::string();
    if (!body[key].is_string()) return Bad(std::string("'") + key + "' must be a string");
    return body[key].get<std::string>();
  };
  auto uint = [&](const char* key, uint32_t fallback) -> Result<uint32_t> {
    if (!body.contains(key) || body[key].is_null()) return fallback;
    if (!body[key].is_number_integer() || body[key].get<int64_t>() < 0) {
      return Bad(std::string("'") + key + "' must be a non-negative integer");
    }
    return body[key].get<uint32_t>();
  };
  FullTextQuery q;
  if (kind == "match") {
    q.kind = FullTextQuery::Kind::kMatch;
    LANCEDB_ASSIGN_OR_RETURN(q.column, str("column"));
    LANCEDB_ASSIGN_OR_RETURN(q.query, str("terms"));
    if (body.contains("boost")) {
      if (!body["boost"].is_number()) return Bad("'boost' must be a number");
      q.boost = body["boost"].get<float>();
    }
    if (body.contains("fuzziness") && body["fuzziness"].is_null()) {
      q.fuzziness.reset();
    } else {
      LANCEDB_ASSIGN_OR_RETURN(q.fuzziness, uint("fuzziness", 0));
    }
    LANCEDB_ASSIGN_OR_RETURN(q.max_expansions, uint("max_expansions", 50));
    LANCEDB_ASSIGN_OR_RETURN(q.prefix_length, uint("prefix_length", 0));
    LANCEDB_ASSIGN_OR_RETURN(auto op, str("operator"));
    if (op == "And" || op == "AND" || op == "and") {
      q.op = FtsOperator::kAnd;
    } else if (op.empty() || op == "Or" || op == "OR" || op == "or") {
      q.op = FtsOperator::kOr;
    } else {
      return Bad("unknown operator '" + op + "' (expected And or Or)");
    }
  } else if (kind == "phrase") {
    q.kind = FullTextQuery::Kind::kPhrase;
    LANCEDB_ASSIGN_OR_RETURN(q.column, str("column"));
    LANCEDB_ASSIGN_OR_RETURN(q.query, str("terms"));
    LANCEDB_ASSIGN_OR_RETURN(q.slop, uint("slop", 0));
  } else if (kind == "multi_match") {
    q.kind = FullTextQuery::Kind::kMultiMatch;
    LANCEDB_ASSIGN_OR_RETURN(q.query, str("query"));
    if (!body.contains("columns") || !body["columns"].is_array()) return Bad("'columns' missing");
    for (const auto& c : body["columns"]) {
      if (!c.is_string()) return Bad("'columns' must hold strings");
      q.columns.push_back(c.get<std::string>());
    }
    LANCEDB_ASSIGN_OR_RETURN(auto op, str("operator"));
    if (op == "And" || op == "AND" || op == "and") {
      q.op = FtsOperator::kAnd;
    } else if (!op.empty() && op != "Or" && op != "OR" && op != "or") {
      return Bad("unknown operator '" + op + "' (expected And or Or)");
    }
    if (body.contains("boost") && body["boost"].is_array()) {
      for (const auto& b : body["boost"]) {
        if (!b.is_number()) return Bad("'boost' must hold numbers");
        q.boosts.push_back(b.get<float>());
      }
    }
  } else if (kind == "boolean") {
    q.kind = FullTextQuery::Kind::kBoolean;
    const std::pair<const char*, FtsOccur> roles[] = {
        {"should", FtsOccur::kShould}, {"must", FtsOccur::kMust}, {"must_not", FtsOccur::kMustNot}};
    for (const auto& [key, occur] : roles) {
      if (!body.contains(key)) continue;
      if (!body[key].is_array()) return Bad(std::string("'") + key + "' must be a list");
      for (const auto& child : body[key]) {
        LANCEDB_ASSIGN_OR_RETURN(auto c, FromJson(child, depth + 1));
        q.children.push_back(std::move(c));
        q.occurs.push_back(occur);
      }
    }
  } else if (kind == "boost") {
    q.kind = FullTextQuery::Kind::kBoost;
    if (!body.contains("positive") || !body.contains("negative")) {
      return Bad("'boost' needs 'positive' and 'negative'");
    }
    LANCEDB_ASSIGN_OR_RETURN(auto pos, FromJson(body["positive"], depth + 1));
    LANCEDB_ASSIGN_OR_RETURN(auto neg, FromJson(body["negative"], depth + 1));
    q.children = {std::move(pos), std::move(neg)};
    if (body.contains("negative_boost")) {
      if (!body["negative_boost"].is_number()) return Bad("'negative_boost' must be a number");
      q.negative_boost = body["negative_boost"].get<float>();
    }
  } else {
    return Bad("unknown query kind '" + kind +
               "' (expected match, phrase, multi_match, boolean or boost)");
  }
  return q;
}

}  // namespace

Result<FullTextQuery> ParseFullTextQueryJson(std::string_view text) {
  auto j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Bad("not valid JSON");
  return FromJson(j, 0);
}

FtsQuery& FtsQuery::Limit(int64_t limit) {
  request_.base.limit = limit;
  return *this;
}

FtsQuery& FtsQuery::Offset(int64_t offset) {
  request_.base.offset = offset;
  return *this;
}

FtsQuery& FtsQuery::Where(const std::string& filter) {
  auto& f = request_.base.filter;
  f = f && !f->empty() ? "(" + *f + ") AND (" + filter + ")" : filter;
  return *this;
}

FtsQuery& FtsQuery::Postfilter() {
  request_.prefilter = false;
  return *this;
}

FtsQuery& FtsQuery::Select(std::vector<std::string> columns) {
  request_.base.select = SelectKind::kColumns;
  request_.base.columns = std::move(columns);
  request_.base.dynamic.clear();
  return *this;
}

FtsQuery& FtsQuery::WithRowId(bool with_row_id) {
  request_.base.with_row_id = with_row_id;
  return *this;
}

FtsQuery& FtsQuery::WithRowAddress(bool with_row_address) {
  request_.base.with_row_address = with_row_address;
  return *this;
}

FtsQuery& FtsQuery::OrderBy(std::vector<ColumnOrdering> ordering) {
  request_.base.order_by = std::move(ordering);
  return *this;
}

FtsQuery& FtsQuery::FastSearch(bool fast) {
  request_.fast_search = fast;
  return *this;
}

Status FtsQuery::Execute(ArrowArrayStream* out) const {
  return table_->ExecuteFtsQuery(request_, out);
}

Status FtsQuery::OutputSchema(ArrowSchema* out) const {
  return table_->FtsQuerySchema(request_, out);
}

Result<std::string> FtsQuery::ExplainPlan(bool verbose) const {
  return table_->ExplainFtsQuery(request_, verbose);
}

FtsQuery Table::Search(FullTextQuery query) const {
  FtsQueryRequest request;
  request.query = std::move(query);
  return FtsQuery(shared_from_this(), std::move(request));
}

Status Table::ExecuteFtsQuery(const FtsQueryRequest&, ArrowArrayStream*) const {
  return Status::NotSupported("Full-text search is not supported by this table");
}

Status Table::FtsQuerySchema(const FtsQueryRequest&, ArrowSchema*) const {
  return Status::NotSupported("Full-text search is not supported by this table");
}

Result<std::string> Table::ExplainFtsQuery(const FtsQueryRequest&, bool) const {
  return Status::NotSupported("Full-text search is not supported by this table");
}

Status Table::CreateFtsIndex(const std::string&, const FtsIndexConfig&, const CreateIndexOptions&) {
  return Status::NotSupported("create_fts_index is not supported by this table");
}

}  // namespace lancedb
