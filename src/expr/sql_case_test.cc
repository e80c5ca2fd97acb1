// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Runs the data-driven SQL case files tests/sql/*.test (found through testdirs::SourceDir).
// Format, one directive per line ('#' starts a comment):
//   column: <name> <type>      a column of the input table (type as in CAST; `a.b int` makes
//                              member b of struct column a; `list<T>` for lists; also
//                              time64_us, time32_ms, duration_us, uint64, decimal(p,s),
//                              dictionary<T> with int32 indices, ...)
//   row: <v1>, <v2>, ...       one input row, each value a SQL literal (NULL, [1, 2], ...)
//   filter: <sql>              then   expect: <row indices, 0-based, or 'none'>
//   project: <sql>             then   expect: <v1> | <v2> | ...  (one rendered value per row)
//                              and optionally  type: <Arrow type of the result, as
//                              DataType::ToString prints it: int64, timestamp[us], ...>
//   error: <sql>               then   expect: <substring of the error message>
// Any other directive, a case without `expect:` and a misplaced `type:` fail the test.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "array/array.h"
#include "array/builder.h"
#include "common/test_dirs.h"
#include "expr/evaluator.h"
#include "expr/parser.h"

namespace lancedb::expr {
namespace LANCEDB_TEST_FILE_NS {

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
  if (name.rfind("dictionary<", 0) == 0 && name.back() == '>') {
    LANCEDB_ASSIGN_OR_RETURN(auto values, TypeFromName(name.substr(11, name.size() - 12)));
    return array::dictionary(array::int32(), values);
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

/// Reads one case file and runs its cases; every problem, with the file and line, goes to
/// failures(). Each directive is checked: an unknown directive, a case without `expect:`, an
/// `expect:` without a case and a `type:` anywhere but after a projection's `expect:` are
/// failures too, so that no line of a case file is silently skipped.
class CaseFileRunner {
 public:
  explicit CaseFileRunner(std::string name) : name_(std::move(name)) {}

  void Run(std::istream& in) {
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
      ++line_no;
      line = Trim(line);
      if (line.empty() || line[0] == '#') continue;
      const size_t colon = line.find(':');
      if (colon == std::string::npos) {
        Fail(line_no, "not a directive (<name>: <value>): '" + line + "'");
        continue;
      }
      if (!Directive(line_no, line.substr(0, colon), Trim(line.substr(colon + 1)))) return;
    }
    EndCase();
  }

  const std::vector<std::string>& failures() const { return failures_; }
  int num_cases() const { return num_cases_; }

 private:
  void Fail(int line_no, const std::string& what) {
    failures_.push_back(name_ + ":" + std::to_string(line_no) + ": " + what);
  }
  void CaseFail(const std::string& what) { Fail(sql_line_, sql_ + ": " + what); }

  /// Close the current case (a failure when it never got its `expect:`).
  void EndCase() {
    if (!kind_.empty() && !expected_) Fail(sql_line_, "case has no expect: line");
    kind_.clear();
    sql_.clear();
    expected_ = false;
    result_type_.reset();
    type_checked_ = false;
  }

  /// Handle one directive; false stops the file (the table cannot be built).
  bool Directive(int line_no, const std::string& key, const std::string& value) {
    if (key == "column" || key == "row") {
      EndCase();
      table_ = nullptr;
      if (key == "row") {
        file_.rows.push_back(SplitTop(value, ','));
        return true;
      }
      const size_t sp = value.find(' ');
      auto type = TypeFromName(Trim(value.substr(sp + 1)));
      if (sp == std::string::npos || !type.ok()) {
        Fail(line_no, "bad column: " + (type.ok() ? value : type.status().ToString()));
        return false;
      }
      file_.columns.emplace_back(value.substr(0, sp), *type);
      return true;
    }
    if (key == "filter" || key == "project" || key == "error") {
      EndCase();
      kind_ = key;
      sql_ = value;
      sql_line_ = line_no;
      return true;
    }
    if (key == "expect") {
      if (kind_.empty() || expected_) {
        Fail(line_no, "expect: without a filter:, project: or error: line before it");
        return true;
      }
      expected_ = true;
      return Expect(value);
    }
    if (key == "type") {
      if (kind_ != "project" || !expected_ || type_checked_) {
        Fail(line_no, "type: belongs right after the expect: of a project: case");
      } else if (result_type_ && *result_type_ != value) {
        CaseFail("type is " + *result_type_ + ", expected " + value);
      }
      type_checked_ = true;
      return true;
    }
    Fail(line_no, "unknown directive '" + key + "'");
    return true;
  }

  bool Expect(const std::string& value) {
    if (!table_) {
      auto t = BuildTable(file_);
      if (!t.ok()) {
        Fail(sql_line_, "building the table: " + t.status().ToString());
        return false;
      }
      table_ = *t;
    }
    ++num_cases_;
    if (kind_ == "error") {
      auto bound = ParseAndBind(sql_, *table_->schema());
      Status st = bound.status();
      if (bound.ok()) st = EvaluateVec(*bound->root, *table_).status();
      if (st.ok()) {
        CaseFail("expected an error");
      } else if (st.message().find(value) == std::string::npos) {
        CaseFail("error '" + st.message() + "' lacks '" + value + "'");
      }
      return true;
    }
    auto got = kind_ == "filter" ? FilterRows() : ProjectedValues();
    if (!got.ok()) {
      CaseFail(got.status().ToString());
    } else if (*got != value) {
      CaseFail("got '" + *got + "', expected '" + value + "'");
    }
    return true;
  }

  /// The rows a filter keeps: "0 2", or "none".
  Result<std::string> FilterRows() {
    LANCEDB_ASSIGN_OR_RETURN(auto bound, ParseFilter(sql_, *table_->schema()));
    LANCEDB_ASSIGN_OR_RETURN(auto rows, EvaluateFilter(bound, *table_));
    std::string got;
    for (int64_t r : rows) got += (got.empty() ? "" : " ") + std::to_string(r);
    return got.empty() ? "none" : got;
  }

  /// The values of a projection, "v1 | v2 | ..."; remembers their type.
  Result<std::string> ProjectedValues() {
    LANCEDB_ASSIGN_OR_RETURN(auto bound, ParseAndBind(sql_, *table_->schema()));
    LANCEDB_ASSIGN_OR_RETURN(auto arr, Evaluate(bound, *table_));
    std::string got;
    for (int64_t r = 0; r < arr->length; ++r) got += (r ? " | " : "") + Render(arr, r);
    result_type_ = arr->type->ToString();
    return got;
  }

  std::string name_;
  CaseFile file_;
  array::RecordBatchPtr table_;
  std::string kind_, sql_;
  int sql_line_ = 0;
  bool expected_ = false;
  /// The Arrow type of the last projection, for its `type:` line.
  std::optional<std::string> result_type_;
  bool type_checked_ = false;
  std::vector<std::string> failures_;
  int num_cases_ = 0;
};

/// Failures of the case file `text` (for testing the runner itself).
std::vector<std::string> RunText(const std::string& text) {
  std::istringstream in(text);
  CaseFileRunner runner("inline.test");
  runner.Run(in);
  return runner.failures();
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
    std::ifstream in(f);
    ASSERT_TRUE(in) << "cannot open " << f;
    CaseFileRunner runner(f.filename().string());
    runner.Run(in);
    for (const auto& failure : runner.failures()) ADD_FAILURE() << failure;
    num_cases += runner.num_cases();
  }
  std::cout << "ran " << num_cases << " SQL cases from " << files.size() << " files\n";
}

constexpr char kTable[] = "column: x int\nrow: 1\nrow: 2\n";

TEST(SqlCaseRunner, PassingCasesReportNothing) {
  EXPECT_EQ(RunText(std::string(kTable) +
                    "filter: x > 1\nexpect: 1\nproject: x + 1\nexpect: 2 | 3\ntype: int64\n"
                    "project: x\nexpect: 1 | 2\nerror: y\nexpect: not found\n"),
            std::vector<std::string>{});
}

TEST(SqlCaseRunner, WrongTypeFails) {
  auto failures =
      RunText(std::string(kTable) + "project: x * 2.0\nexpect: 2.0 | 4.0\ntype: int64\n");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("type is double, expected int64"), std::string::npos) << failures[0];
}

TEST(SqlCaseRunner, UnknownDirectiveFails) {
  auto failures = RunText(std::string(kTable) + "filter: x > 1\nexpect: 1\ntypo: int64\n");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("inline.test:6: unknown directive 'typo'"), std::string::npos)
      << failures[0];
  EXPECT_EQ(RunText(std::string(kTable) + "filter x > 1\n").size(), 1u);
}

TEST(SqlCaseRunner, MisplacedDirectivesFail) {
  // type: before expect:, after a filter, twice; a case without expect:; a stray expect:.
  EXPECT_EQ(RunText(std::string(kTable) + "project: x\ntype: int32\nexpect: 1 | 2\n").size(), 1u);
  EXPECT_EQ(RunText(std::string(kTable) + "filter: x > 1\nexpect: 1\ntype: bool\n").size(), 1u);
  EXPECT_EQ(
      RunText(std::string(kTable) + "project: x\nexpect: 1 | 2\ntype: int32\ntype: int32\n").size(),
      1u);
  EXPECT_EQ(RunText(std::string(kTable) + "filter: x > 1\nfilter: x > 0\nexpect: 0 1\n").size(),
            1u);
  EXPECT_EQ(RunText(std::string(kTable) + "filter: x > 1\n").size(), 1u);
  EXPECT_EQ(RunText(std::string(kTable) + "expect: 1\n").size(), 1u);
  EXPECT_EQ(RunText(std::string(kTable) + "filter: x > 1\nexpect: 1\nexpect: 1\n").size(), 1u);
}

TEST(SqlCaseRunner, WrongResultsFail) {
  EXPECT_EQ(RunText(std::string(kTable) + "filter: x > 1\nexpect: 0\n").size(), 1u);
  EXPECT_EQ(RunText(std::string(kTable) + "project: x\nexpect: 1 | 3\n").size(), 1u);
  EXPECT_EQ(RunText(std::string(kTable) + "error: x + 1\nexpect: anything\n").size(), 1u);
  EXPECT_EQ(RunText(std::string(kTable) + "error: y\nexpect: other message\n").size(), 1u);
  EXPECT_EQ(RunText("column: x nosuchtype\nrow: 1\nfilter: x > 1\nexpect: none\n").size(), 1u);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::expr
