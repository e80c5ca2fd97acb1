// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "expr/arrow_type_name.h"

#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

namespace lancedb::expr {

namespace {

/// Recursive descent over one type name. Tokens: words (letters, digits, '_', and the 'µ' of
/// "µs"), integers (with a sign), double-quoted and single-quoted strings, punctuation.
class TypeNameParser {
 public:
  explicit TypeNameParser(std::string_view text) : s_(text) {}

  Result<array::DataTypePtr> ParseAll() {
    LANCEDB_ASSIGN_OR_RETURN(auto type, ParseType());
    SkipSpace();
    if (i_ != s_.size()) return Error("unexpected '" + std::string(s_.substr(i_)) + "'");
    return type;
  }

 private:
  Status Error(const std::string& what) const {
    return Status::InvalidArgument("Unsupported type '" + std::string(s_) +
                                   "' in arrow_cast: " + what);
  }
  void SkipSpace() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool Accept(char c) {
    SkipSpace();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  Status Expect(char c) {
    if (Accept(c)) return Status::OK();
    return Error(std::string("expected '") + c + "'");
  }
  std::string Word() {
    SkipSpace();
    size_t j = i_;
    while (j < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[j])) || s_[j] == '_' ||
                             static_cast<unsigned char>(s_[j]) >= 0x80)) {
      ++j;
    }
    std::string w(s_.substr(i_, j - i_));
    i_ = j;
    return w;
  }
  bool PeekWord(std::string_view w) {
    SkipSpace();
    return s_.substr(i_, w.size()) == w;
  }
  Result<int64_t> Integer() {
    SkipSpace();
    size_t j = i_;
    if (j < s_.size() && (s_[j] == '-' || s_[j] == '+')) ++j;
    const size_t digits = j;
    while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]))) ++j;
    if (j == digits) return Error("expected an integer");
    int64_t v = std::strtoll(std::string(s_.substr(i_, j - i_)).c_str(), nullptr, 10);
    i_ = j;
    return v;
  }
  /// A quoted string ('x' with '' escaping, or "x" with \" escaping).
  Result<std::string> Quoted() {
    SkipSpace();
    if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'')) return Error("expected a string");
    const char q = s_[i_++];
    std::string out;
    while (i_ < s_.size()) {
      char c = s_[i_++];
      if (q == '"' && c == '\\' && i_ < s_.size()) {
        out.push_back(s_[i_++]);
      } else if (c == q) {
        if (q == '\'' && i_ < s_.size() && s_[i_] == '\'') {
          out.push_back(s_[i_++]);
          continue;
        }
        return out;
      } else {
        out.push_back(c);
      }
    }
    return Error("unterminated string");
  }

  Result<array::TimeUnit> Unit() {
    const std::string w = Word();
    if (w == "s" || w == "Second") return array::TimeUnit::kSecond;
    if (w == "ms" || w == "Millisecond") return array::TimeUnit::kMilli;
    if (w == "µs" || w == "us" || w == "Microsecond") return array::TimeUnit::kMicro;
    if (w == "ns" || w == "Nanosecond") return array::TimeUnit::kNano;
    return Error("unknown time unit '" + w + "'");
  }

  /// `[non-null ]Type[, field: 'name']` inside List(...) and friends.
  Result<array::FieldPtr> ItemField(bool allow_field_name) {
    bool nullable = true;
    if (PeekWord("non-null")) {
      i_ += 8;
      nullable = false;
    }
    LANCEDB_ASSIGN_OR_RETURN(auto type, ParseType());
    std::string name = "item";
    if (allow_field_name && Accept(',')) {
      if (Word() != "field" || !Accept(':')) return Error("expected field: 'name'");
      LANCEDB_ASSIGN_OR_RETURN(name, Quoted());
    }
    return array::field(name, std::move(type), nullable);
  }

  Result<array::DataTypePtr> Timestamp() {
    LANCEDB_RETURN_NOT_OK(Expect('('));
    LANCEDB_ASSIGN_OR_RETURN(auto unit, Unit());
    std::string tz;
    if (Accept(',')) {
      SkipSpace();
      if (PeekWord("None")) {
        Word();
      } else if (PeekWord("Some")) {
        Word();
        LANCEDB_RETURN_NOT_OK(Expect('('));
        LANCEDB_ASSIGN_OR_RETURN(tz, Quoted());
        LANCEDB_RETURN_NOT_OK(Expect(')'));
      } else {
        LANCEDB_ASSIGN_OR_RETURN(tz, Quoted());
      }
    }
    LANCEDB_RETURN_NOT_OK(Expect(')'));
    return array::timestamp(unit, tz);
  }

  Result<array::DataTypePtr> Struct() {
    LANCEDB_RETURN_NOT_OK(Expect('('));
    std::vector<array::FieldPtr> fields;
    if (!Accept(')')) {
      do {
        LANCEDB_ASSIGN_OR_RETURN(auto name, Quoted());
        LANCEDB_RETURN_NOT_OK(Expect(':'));
        LANCEDB_ASSIGN_OR_RETURN(auto item, ItemField(false));
        fields.push_back(array::field(name, item->type(), item->nullable()));
      } while (Accept(','));
      LANCEDB_RETURN_NOT_OK(Expect(')'));
    }
    return array::struct_(std::move(fields));
  }

  Result<array::DataTypePtr> ParseType() {
    const std::string w = Word();
    if (w.empty()) return Error("expected a type name");
    static const std::pair<const char*, array::DataTypePtr (*)()> kSimple[] = {
        {"Null", array::null},
        {"Boolean", array::boolean},
        {"Int8", array::int8},
        {"Int16", array::int16},
        {"Int32", array::int32},
        {"Int64", array::int64},
        {"UInt8", array::uint8},
        {"UInt16", array::uint16},
        {"UInt32", array::uint32},
        {"UInt64", array::uint64},
        {"Float16", array::float16},
        {"Float32", array::float32},
        {"Float64", array::float64},
        {"Utf8", array::utf8},
        {"LargeUtf8", array::large_utf8},
        {"Binary", array::binary},
        {"LargeBinary", array::large_binary},
        {"Date32", array::date32},
        {"Date64", array::date64}};
    for (const auto& [name, make] : kSimple) {
      if (w == name) return make();
    }
    if (w == "Timestamp") return Timestamp();
    if (w == "Time32" || w == "Time64" || w == "Duration") {
      LANCEDB_RETURN_NOT_OK(Expect('('));
      LANCEDB_ASSIGN_OR_RETURN(auto unit, Unit());
      LANCEDB_RETURN_NOT_OK(Expect(')'));
      if (w == "Duration") return array::duration(unit);
      return w == "Time32" ? array::time32(unit) : array::time64(unit);
    }
    if (w == "FixedSizeBinary" || w == "Decimal128") {
      LANCEDB_RETURN_NOT_OK(Expect('('));
      LANCEDB_ASSIGN_OR_RETURN(int64_t a, Integer());
      if (w == "FixedSizeBinary") {
        LANCEDB_RETURN_NOT_OK(Expect(')'));
        if (a < 0) return Error("negative width");
        return array::fixed_size_binary(static_cast<int32_t>(a));
      }
      LANCEDB_RETURN_NOT_OK(Expect(','));
      LANCEDB_ASSIGN_OR_RETURN(int64_t b, Integer());
      LANCEDB_RETURN_NOT_OK(Expect(')'));
      if (a < 1 || a > 38 || b > a || b < -38) return Error("invalid precision or scale");
      return array::decimal128(static_cast<int32_t>(a), static_cast<int32_t>(b));
    }
    if (w == "List" || w == "LargeList") {
      LANCEDB_RETURN_NOT_OK(Expect('('));
      LANCEDB_ASSIGN_OR_RETURN(auto item, ItemField(true));
      LANCEDB_RETURN_NOT_OK(Expect(')'));
      return w == "List" ? array::list(item) : array::large_list(item);
    }
    if (w == "FixedSizeList") {
      LANCEDB_RETURN_NOT_OK(Expect('('));
      LANCEDB_ASSIGN_OR_RETURN(int64_t size, Integer());
      SkipSpace();
      if (!Accept(',') && Word() != "x") return Error("expected 'x' after the list size");
      LANCEDB_ASSIGN_OR_RETURN(auto item, ItemField(true));
      LANCEDB_RETURN_NOT_OK(Expect(')'));
      if (size < 0) return Error("negative list size");
      return array::fixed_size_list(item, static_cast<int32_t>(size));
    }
    if (w == "Struct") return Struct();
    if (w == "Dictionary") {
      LANCEDB_RETURN_NOT_OK(Expect('('));
      LANCEDB_ASSIGN_OR_RETURN(auto index, ParseType());
      LANCEDB_RETURN_NOT_OK(Expect(','));
      LANCEDB_ASSIGN_OR_RETURN(auto value, ParseType());
      LANCEDB_RETURN_NOT_OK(Expect(')'));
      if (!array::IsValidDictionaryIndexType(*index)) return Error("invalid dictionary index");
      return array::dictionary(index, value);
    }
    static const char* kUnsupported[] = {"Utf8View",  "BinaryView", "ListView",     "LargeListView",
                                         "Decimal32", "Decimal64",  "Decimal256",   "Interval",
                                         "Map",       "Union",      "RunEndEncoded"};
    for (const char* name : kUnsupported) {
      if (w == name) {
        return Status::NotSupported("arrow_cast to " + std::string(s_) +
                                    " is not supported by lancedb-cpp");
      }
    }
    return Error("unknown type name '" + w + "'");
  }

  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

Result<array::DataTypePtr> ParseArrowTypeName(std::string_view text) {
  return TypeNameParser(text).ParseAll();
}

}  // namespace lancedb::expr
