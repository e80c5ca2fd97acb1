// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Runs the data-driven SQL case files tests/sql/*.test (found through testdirs::SourceDir).
// Format, one directive per line ('#' starts a comment):
//   column: <name> <type>      a column of the input table (type as in CAST; `a.b int` makes
//                              member b of struct column a; `list<T>` for lists; also
//                              time64_us, time32_ms, duration_us, uint64, decimal(p,s), ...)
//   row: <v1>, <v2>, ...       one input row, each value a SQL literal (NULL, [1, 2], ...)
//   filter: <sql>              then   expect: <row indices, 0-based, or 'none'>
//   project: <sql>             then   expect: <v1> | <v2> | ...  (one rendered value per row)
//                              and optionally  type: <arrow type name>
//   error: <sql>               then   expect: <substring of the error message>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "array/array.h"
#include "array/builder.h"
#include "common/test_dirs.h"
#include "expr/evaluator.h"
#include "expr/parser.h"

namespace lancedb::expr {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

/// Split on `sep` outside quotes and brackets.
std::vector<std::string> SplitTop(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  char quote = 0;
  for (char c : s) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '`') {
      quote = c;
    } else if (c == '[' || c == '(') {
      ++depth;
    } else if (c == ']' || c == ')') {
      --depth;
    } else if (c == sep && depth == 0) {
      out.push_back(Trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(Trim(cur));
  return out;
}

Result<array::DataTypePtr> TypeFromName(const std::string& name) {
  if (name.rfind("list<", 0) == 0 && name.back() == '>') {
    LANCEDB_ASSIGN_OR_RETURN(auto item, TypeFromName(name.substr(5, name.size() - 6)));
    return array::list(item);
  }
  if (name == "timestamp_us") return array::timestamp(array::TimeUnit::kMicro);
  if (name == "timestamp_ms") return array::timestamp(array::TimeUnit::kMilli);
  if (name == "float16") return array::float16();
  if (name == "large_utf8") return array::large_utf8();
  if (name == "time64_us") return array::time64(array::TimeUnit::kMicro);
  if (name == "time64_ns") return array::time64(array::TimeUnit::kNano);
  if (name == "time32_ms") return array::time32(array::TimeUnit::kMilli);
  if (name == "time32_s") return array::time32(array::TimeUnit::kSecond);
  if (name == "duration_us") return array::duration(array::TimeUnit::kMicro);
  if (name == "duration_ms") return array::duration(array::TimeUnit::kMilli);
  if (name == "uint64") return array::uint64();
  int precision = 0, scale = 0;
  if (std::sscanf(name.c_str(), "decimal(%d,%d)", &precision, &scale) == 2) {
    return array::decimal128(precision, scale);
  }
  return ParseTypeName(name);
}

std::string Render(const array::ArrayPtr& arr, int64_t i);

std::string RenderList(const array::ArrayPtr& arr, int64_t i) {
  auto [b, e] = arr->GetListRange(i);
  std::string out = "[";
  for (int64_t j = b; j < e; ++j) out += (j > b ? ", " : "") + Render(arr->children[0], j);
  return out + "]";
}

std::string Render(const array::ArrayPtr& arr, int64_t i) {
  if (arr->IsNull(i)) return "NULL";
  auto kind = KindOf(*arr->type);
  if (!kind.ok()) return "?";
  if (*kind == ValueKind::kList) return RenderList(arr, i);
  if (*kind == ValueKind::kStruct) return "{struct}";
  auto one = array::Slice(arr, i, 1);
  auto v = FromArray(one, *kind);
  if (!v.ok()) return "?";
  auto s = CastVec(v.MoveValueUnsafe(), ValueKind::kString);
  if (!s.ok()) return "?";
  return std::string(s->strings[0]);
}

struct CaseFile {
  std::vector<std::pair<std::string, array::DataTypePtr>> columns;
  std::vector<std::vector<std::string>> rows;
};

Result<array::RecordBatchPtr> BuildTable(const CaseFile& f) {
  auto empty = array::RecordBatch::Make(array::schema({}), {}, 1).ValueOr(nullptr);
  // Flat columns first; dotted names are grouped into structs afterwards.
  std::vector<array::ArrayPtr> flat;
  for (size_t c = 0; c < f.columns.size(); ++c) {
    std::vector<array::ArrayPtr> cells;
    for (const auto& row : f.rows) {
      if (row.size() != f.columns.size()) return Status::InvalidArgument("row width mismatch");
      LANCEDB_ASSIGN_OR_RETURN(auto bound, ParseAndBind(row[c], *empty->schema()));
      LANCEDB_ASSIGN_OR_RETURN(auto v, EvaluateVec(*bound.root, *empty));
      LANCEDB_ASSIGN_OR_RETURN(auto cell, ToArray(v, f.columns[c].second));
      cells.push_back(cell);
    }
    LANCEDB_ASSIGN_OR_RETURN(auto col, array::Concatenate(cells));
    flat.push_back(col);
  }
  std::vector<array::FieldPtr> fields;
  std::vector<array::ArrayPtr> columns;
  std::map<std::string, size_t> structs;
  std::vector<std::pair<std::vector<array::FieldPtr>, std::vector<array::ArrayPtr>>> members;
  for (size_t c = 0; c < f.columns.size(); ++c) {
    const std::string& name = f.columns[c].first;
    size_t dot = name.find('.');
    if (dot == std::string::npos) {
      fields.push_back(array::field(name, f.columns[c].second));
      columns.push_back(flat[c]);
      continue;
    }
    std::string parent = name.substr(0, dot);
    if (!structs.count(parent)) {
      structs[parent] = fields.size();
      fields.push_back(nullptr);
      columns.push_back(nullptr);
      members.emplace_back();
    }
    auto& m = members[static_cast<size_t>(std::distance(structs.begin(), structs.find(parent)))];
    m.first.push_back(array::field(name.substr(dot + 1), f.columns[c].second));
    m.second.push_back(flat[c]);
  }
  for (const auto& [parent, idx] : structs) {
    auto& m = members[static_cast<size_t>(std::distance(structs.begin(), structs.find(parent)))];
    auto type = array::struct_(m.first);
    fields[idx] = array::field(parent, type);
    columns[idx] = array::MakeStruct(type, m.second);
  }
  return array::RecordBatch::Make(array::schema(fields), columns,
                                  static_cast<int64_t>(f.rows.size()));
}

void RunFile(const std::filesystem::path& path, int* num_cases) {
  std::ifstream in(path);
  std::string line;
  CaseFile file;
  array::RecordBatchPtr table;
  std::string kind, sql, type;
  int line_no = 0, sql_line = 0;
  while (std::getline(in, line)) {
    ++line_no;
    line = Trim(line);
    if (line.empty() || line[0] == '#') continue;
    size_t colon = line.find(':');
    ASSERT_NE(colon, std::string::npos) << path << ":" << line_no << ": bad line";
    std::string key = line.substr(0, colon);
    std::string value = Trim(line.substr(colon + 1));
    const std::string where =
        path.filename().string() + ":" + std::to_string(sql_line) + ": " + sql;
    if (key == "column") {
      size_t sp = value.find(' ');
      auto t = TypeFromName(Trim(value.substr(sp + 1)));
      ASSERT_TRUE(t.ok()) << path << ":" << line_no << ": " << t.status().ToString();
      file.columns.emplace_back(value.substr(0, sp), *t);
      table = nullptr;
    } else if (key == "row") {
      file.rows.push_back(SplitTop(value, ','));
      table = nullptr;
    } else if (key == "filter" || key == "project" || key == "error") {
      kind = key;
      sql = value;
      sql_line = line_no;
      type.clear();
    } else if (key == "type") {
      type = value;
    } else if (key == "expect") {
      if (!table) {
        auto t = BuildTable(file);
        ASSERT_TRUE(t.ok()) << path << ": building the table: " << t.status().ToString();
        table = *t;
      }
      ++*num_cases;
      if (kind == "error") {
        auto bound = ParseAndBind(sql, *table->schema());
        Status st = bound.status();
        if (bound.ok()) st = EvaluateVec(*bound->root, *table).status();
        EXPECT_FALSE(st.ok()) << where << ": expected an error";
        EXPECT_NE(st.message().find(value), std::string::npos)
            << where << ": error '" << st.message() << "' lacks '" << value << "'";
      } else if (kind == "filter") {
        auto bound = ParseFilter(sql, *table->schema());
        ASSERT_TRUE(bound.ok()) << where << ": " << bound.status().ToString();
        auto rows = EvaluateFilter(*bound, *table);
        ASSERT_TRUE(rows.ok()) << where << ": " << rows.status().ToString();
        std::string got;
        for (int64_t r : *rows) got += (got.empty() ? "" : " ") + std::to_string(r);
        if (got.empty()) got = "none";
        EXPECT_EQ(got, value) << where;
      } else {
        auto bound = ParseAndBind(sql, *table->schema());
        ASSERT_TRUE(bound.ok()) << where << ": " << bound.status().ToString();
        auto arr = Evaluate(*bound, *table);
        ASSERT_TRUE(arr.ok()) << where << ": " << arr.status().ToString();
        std::string got;
        for (int64_t r = 0; r < (*arr)->length; ++r) got += (r ? " | " : "") + Render(*arr, r);
        EXPECT_EQ(got, value) << where;
        if (!type.empty()) {
          EXPECT_EQ((*arr)->type->ToString(), type) << where;
        }
      }
    } else {
      FAIL() << path << ":" << line_no << ": unknown directive '" << key << "'";
    }
  }
}

TEST(SqlCases, AllCaseFilesPass) {
  const std::filesystem::path dir = testdirs::SourceDir() / "tests" / "sql";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".test") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  int num_cases = 0;
  for (const auto& f : files) {
    SCOPED_TRACE(f.filename().string());
    RunFile(f, &num_cases);
  }
  std::cout << "ran " << num_cases << " SQL cases from " << files.size() << " files\n";
}

}  // namespace
}  // namespace lancedb::expr
