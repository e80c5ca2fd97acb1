// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// A hand-written lexer and precedence-climbing parser. Binding powers follow sqlparser-rs:
// OR 5 < AND 10 < NOT 15 < IS 17 < comparisons, [NOT] IN/BETWEEN/LIKE 20 < || 25 < + - 30
// < * / % 40 < unary minus 50 < :: 60.

#include "expr/parser.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

#include "expr/arrow_type_name.h"

namespace lancedb::expr {

namespace {

enum class Tok : uint8_t { kEnd, kIdent, kQuotedIdent, kString, kBinary, kNumber, kSymbol };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // identifier / string content / bytes / number / symbol
  size_t pos = 0;
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Words that end an expression (and so are never column names).
bool IsReservedWord(const std::string& lower) {
  static const char* kReserved[] = {"and",  "or",   "is",   "in",  "between", "like", "ilike",
                                    "then", "when", "else", "end", "as",      "from", "not"};
  for (const char* r : kReserved) {
    if (lower == r) return true;
  }
  return false;
}

Status SyntaxError(size_t pos, const std::string& what) {
  return Status::InvalidArgument("Syntax error at position " + std::to_string(pos + 1) + ": " +
                                 what);
}

/// The bytes of an even number of hexadecimal digits; nullopt if `hex` is not that.
std::optional<std::string> DecodeHex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

Result<std::vector<Token>> Lex(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.pos = i;
    if ((c == 'x' || c == 'X') && i + 1 < s.size() && s[i + 1] == '\'') {
      // X'CAFE': a binary literal, two hexadecimal digits a byte.
      size_t j = i + 2;
      while (j < s.size() && s[j] != '\'') ++j;
      if (j == s.size()) return SyntaxError(i, "unterminated binary literal");
      auto bytes = DecodeHex(s.substr(i + 2, j - i - 2));
      if (!bytes) {
        return SyntaxError(i, "invalid binary literal " + std::string(s.substr(i, j + 1 - i)) +
                                  ": expected an even number of hexadecimal digits");
      }
      t.kind = Tok::kBinary;
      t.text = std::move(*bytes);
      i = j + 1;
    } else if (c == '0' && i + 1 < s.size() && s[i + 1] == 'x') {
      // 0xCAFE: a binary literal too (an odd digit count takes a leading 0, as DataFusion).
      size_t j = i + 2;
      while (j < s.size() && std::isxdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) {
        return SyntaxError(
            i, "invalid hexadecimal literal starting " + std::string(s.substr(i, j + 1 - i)));
      }
      std::string digits(s.substr(i + 2, j - i - 2));
      if (digits.size() % 2 != 0) digits.insert(digits.begin(), '0');
      t.kind = Tok::kBinary;
      t.text = *DecodeHex(digits);
      i = j;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
               static_cast<unsigned char>(c) >= 0x80) {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' ||
                              static_cast<unsigned char>(s[j]) >= 0x80)) {
        ++j;
      }
      t.kind = Tok::kIdent;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() &&
                std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j < s.size() && s[j] == '.') {
        ++j;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      }
      if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
        if (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) {
          j = k;
          while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        }
      }
      t.kind = Tok::kNumber;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (c == '\'' || c == '`' || c == '"') {
      // Quoted string or identifier; the quote is escaped by doubling it.
      size_t j = i + 1;
      std::string text;
      bool closed = false;
      while (j < s.size()) {
        if (s[j] == c) {
          if (j + 1 < s.size() && s[j + 1] == c) {
            text.push_back(c);
            j += 2;
            continue;
          }
          closed = true;
          ++j;
          break;
        }
        text.push_back(s[j++]);
      }
      if (!closed) {
        return SyntaxError(
            i, std::string("unterminated ") + (c == '\'' ? "string literal" : "quoted identifier"));
      }
      t.kind = c == '\'' ? Tok::kString : Tok::kQuotedIdent;
      t.text = std::move(text);
      i = j;
    } else {
      static const char* kTwo[] = {"<=", ">=", "<>", "!=", "==", "||", "::"};
      t.kind = Tok::kSymbol;
      for (const char* two : kTwo) {
        if (s.substr(i, 2) == two) t.text = two;
      }
      if (t.text.empty()) {
        if (std::string_view("+-*/%=<>(),.[]").find(c) == std::string_view::npos) {
          return SyntaxError(i, std::string("unexpected character '") + c + "'");
        }
        t.text = std::string(1, c);
      }
      i += t.text.size();
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.pos = s.size();
  out.push_back(end);
  return out;
}

std::shared_ptr<Node> MakeNode(NodeKind kind, size_t pos) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->position = pos;
  return n;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : toks_(std::move(tokens)) {}

  Result<NodePtr> ParseAll() {
    LANCEDB_ASSIGN_OR_RETURN(auto e, ParseExpr(0));
    if (Peek().kind != Tok::kEnd) return Expected("an operator or the end of the expression");
    return e;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    return toks_[std::min(idx_ + ahead, toks_.size() - 1)];
  }
  Token Next() {
    Token t = Peek();
    if (idx_ < toks_.size() - 1) ++idx_;
    return t;
  }
  bool IsKeyword(const Token& t, std::string_view kw) const {
    return t.kind == Tok::kIdent && Lower(t.text) == kw;
  }
  bool IsSymbol(const Token& t, std::string_view sym) const {
    return t.kind == Tok::kSymbol && t.text == sym;
  }
  bool AcceptKeyword(std::string_view kw) {
    if (!IsKeyword(Peek(), kw)) return false;
    Next();
    return true;
  }
  bool AcceptSymbol(std::string_view sym) {
    if (!IsSymbol(Peek(), sym)) return false;
    Next();
    return true;
  }
  static std::string Describe(const Token& t) {
    switch (t.kind) {
      case Tok::kEnd:
        return "end of input";
      case Tok::kString:
        return "'" + t.text + "'";
      case Tok::kBinary:
        return "binary literal";
      case Tok::kQuotedIdent:
        return "`" + t.text + "`";
      default:
        return "'" + t.text + "'";
    }
  }
  Status Expected(const std::string& what) const {
    return SyntaxError(Peek().pos, "expected " + what + ", found " + Describe(Peek()));
  }
  Status ExpectSymbol(std::string_view sym) {
    if (AcceptSymbol(sym)) return Status::OK();
    return Expected("'" + std::string(sym) + "'");
  }
  Status ExpectKeyword(std::string_view kw) {
    if (AcceptKeyword(kw)) return Status::OK();
    std::string upper(kw);
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return Expected(upper);
  }

  /// The binding power of the infix operator at the cursor, or 0.
  int InfixPower() const {
    const Token& t = Peek();
    if (t.kind == Tok::kSymbol) {
      const std::string& s = t.text;
      if (s == "=" || s == "==" || s == "!=" || s == "<>" || s == "<" || s == "<=" || s == ">" ||
          s == ">=")
        return 20;
      if (s == "||") return 25;
      if (s == "+" || s == "-") return 30;
      if (s == "*" || s == "/" || s == "%") return 40;
      if (s == "::") return 60;
      return 0;
    }
    if (t.kind != Tok::kIdent) return 0;
    std::string kw = Lower(t.text);
    if (kw == "or") return 5;
    if (kw == "and") return 10;
    if (kw == "is") return 17;
    if (kw == "in" || kw == "between" || kw == "like" || kw == "ilike") return 20;
    if (kw == "not") {
      std::string next = Lower(Peek(1).text);
      if (Peek(1).kind == Tok::kIdent &&
          (next == "in" || next == "between" || next == "like" || next == "ilike"))
        return 20;
    }
    return 0;
  }

  Result<NodePtr> ParseExpr(int min_power) {
    LANCEDB_ASSIGN_OR_RETURN(NodePtr left, ParsePrefix());
    while (true) {
      int power = InfixPower();
      if (power == 0 || power <= min_power) break;
      LANCEDB_ASSIGN_OR_RETURN(left, ParseInfix(std::move(left), power));
    }
    return left;
  }

  Result<NodePtr> ParseInfix(NodePtr left, int power) {
    Token t = Next();
    if (t.kind == Tok::kSymbol) {
      if (t.text == "::") {
        auto n = MakeNode(NodeKind::kCast, t.pos);
        LANCEDB_ASSIGN_OR_RETURN(n->cast_type, ParseType());
        n->args = {std::move(left)};
        return NodePtr(n);
      }
      auto n = MakeNode(NodeKind::kBinary, t.pos);
      static const std::pair<const char*, BinaryOp> kOps[] = {
          {"=", BinaryOp::kEq},  {"==", BinaryOp::kEq},    {"!=", BinaryOp::kNe},
          {"<>", BinaryOp::kNe}, {"<", BinaryOp::kLt},     {"<=", BinaryOp::kLe},
          {">", BinaryOp::kGt},  {">=", BinaryOp::kGe},    {"+", BinaryOp::kAdd},
          {"-", BinaryOp::kSub}, {"*", BinaryOp::kMul},    {"/", BinaryOp::kDiv},
          {"%", BinaryOp::kMod}, {"||", BinaryOp::kConcat}};
      for (const auto& [sym, op] : kOps) {
        if (t.text == sym) n->op = op;
      }
      LANCEDB_ASSIGN_OR_RETURN(auto right, ParseExpr(power));
      n->args = {std::move(left), std::move(right)};
      return NodePtr(n);
    }
    std::string kw = Lower(t.text);
    if (kw == "and" || kw == "or") {
      auto n = MakeNode(NodeKind::kBinary, t.pos);
      n->op = kw == "and" ? BinaryOp::kAnd : BinaryOp::kOr;
      LANCEDB_ASSIGN_OR_RETURN(auto right, ParseExpr(power));
      n->args = {std::move(left), std::move(right)};
      return NodePtr(n);
    }
    if (kw == "is") {
      auto n = MakeNode(NodeKind::kIs, t.pos);
      n->negated = AcceptKeyword("not");
      if (AcceptKeyword("null")) {
        n->is_what = IsWhat::kNull;
      } else if (AcceptKeyword("true")) {
        n->is_what = IsWhat::kTrue;
      } else if (AcceptKeyword("false")) {
        n->is_what = IsWhat::kFalse;
      } else if (AcceptKeyword("unknown")) {
        n->is_what = IsWhat::kNull;
      } else {
        return Expected("NULL, TRUE, FALSE or NOT after IS");
      }
      n->args = {std::move(left)};
      return NodePtr(n);
    }
    bool negated = false;
    if (kw == "not") {
      negated = true;
      t = Next();
      kw = Lower(t.text);
    }
    if (kw == "in") {
      auto n = MakeNode(NodeKind::kIn, t.pos);
      n->negated = negated;
      LANCEDB_RETURN_NOT_OK(ExpectSymbol("("));
      n->args.push_back(std::move(left));
      if (IsKeyword(Peek(), "select"))
        return Expected("a list of values (subqueries are not supported)");
      do {
        LANCEDB_ASSIGN_OR_RETURN(auto item, ParseExpr(0));
        n->args.push_back(std::move(item));
      } while (AcceptSymbol(","));
      LANCEDB_RETURN_NOT_OK(ExpectSymbol(")"));
      return NodePtr(n);
    }
    if (kw == "between") {
      auto n = MakeNode(NodeKind::kBetween, t.pos);
      n->negated = negated;
      // The bounds bind tighter than AND.
      LANCEDB_ASSIGN_OR_RETURN(auto low, ParseExpr(20));
      LANCEDB_RETURN_NOT_OK(ExpectKeyword("and"));
      LANCEDB_ASSIGN_OR_RETURN(auto high, ParseExpr(20));
      n->args = {std::move(left), std::move(low), std::move(high)};
      return NodePtr(n);
    }
    auto n = MakeNode(NodeKind::kLike, t.pos);
    n->negated = negated;
    n->case_insensitive = kw == "ilike";
    LANCEDB_ASSIGN_OR_RETURN(auto pattern, ParseExpr(20));
    n->args = {std::move(left), std::move(pattern)};
    if (AcceptKeyword("escape")) {
      LANCEDB_ASSIGN_OR_RETURN(auto esc, ParseExpr(20));
      n->args.push_back(std::move(esc));
    }
    return NodePtr(n);
  }

  Result<NodePtr> ParsePrefix() {
    const Token t = Peek();
    switch (t.kind) {
      case Tok::kEnd:
        return Expected("an expression");
      case Tok::kNumber:
        return ParseNumber();
      case Tok::kString: {
        Next();
        auto n = MakeNode(NodeKind::kLiteral, t.pos);
        n->literal.kind = LiteralKind::kString;
        n->literal.string_value = t.text;
        return NodePtr(n);
      }
      case Tok::kBinary: {
        Next();
        auto n = MakeNode(NodeKind::kLiteral, t.pos);
        n->literal.kind = LiteralKind::kBinary;
        n->literal.string_value = t.text;
        return NodePtr(n);
      }
      case Tok::kQuotedIdent:
        return ParseColumn();
      case Tok::kSymbol:
        return ParseSymbolPrefix();
      case Tok::kIdent:
        return ParseWordPrefix();
    }
    return Expected("an expression");
  }

  Result<NodePtr> ParseNumber() {
    Token t = Next();
    auto n = MakeNode(NodeKind::kLiteral, t.pos);
    bool is_float = t.text.find_first_of(".eE") != std::string::npos;
    if (!is_float) {
      errno = 0;
      char* end = nullptr;
      long long v = std::strtoll(t.text.c_str(), &end, 10);
      if (errno == 0) {
        n->literal.kind = LiteralKind::kInt;
        n->literal.int_value = v;
        return NodePtr(n);
      }
      // Above INT64_MAX: a uint64 literal (as DataFusion), else a float.
      errno = 0;
      unsigned long long u = std::strtoull(t.text.c_str(), &end, 10);
      if (errno == 0) {
        n->literal.kind = LiteralKind::kInt;
        n->literal.is_unsigned = true;
        n->literal.int_value = static_cast<int64_t>(u);
        return NodePtr(n);
      }
    }
    n->literal.kind = LiteralKind::kFloat;
    n->literal.float_value = std::strtod(t.text.c_str(), nullptr);
    return NodePtr(n);
  }

  Result<NodePtr> ParseSymbolPrefix() {
    Token t = Next();
    if (t.text == "(") {
      LANCEDB_ASSIGN_OR_RETURN(auto inner, ParseExpr(0));
      LANCEDB_RETURN_NOT_OK(ExpectSymbol(")"));
      return inner;
    }
    if (t.text == "-" || t.text == "+") {
      LANCEDB_ASSIGN_OR_RETURN(auto operand, ParseExpr(50));
      if (t.text == "+") return operand;
      // Fold "-<number>" into the literal so that -9223372036854775808 parses.
      if (operand->kind == NodeKind::kLiteral) {
        auto lit = std::make_shared<Node>(*operand);
        lit->position = t.pos;
        if (lit->literal.kind == LiteralKind::kInt && lit->literal.is_unsigned) {
          const uint64_t u = static_cast<uint64_t>(lit->literal.int_value);
          lit->literal.is_unsigned = false;
          if (u == (uint64_t{1} << 63)) {
            lit->literal.int_value = INT64_MIN;
          } else {
            lit->literal.kind = LiteralKind::kFloat;
            lit->literal.float_value = -static_cast<double>(u);
          }
          return NodePtr(lit);
        }
        if (lit->literal.kind == LiteralKind::kInt && lit->literal.int_value != INT64_MIN) {
          lit->literal.int_value = -lit->literal.int_value;
          return NodePtr(lit);
        }
        if (lit->literal.kind == LiteralKind::kFloat) {
          lit->literal.float_value = -lit->literal.float_value;
          return NodePtr(lit);
        }
      }
      auto n = MakeNode(NodeKind::kNegate, t.pos);
      n->args = {std::move(operand)};
      return NodePtr(n);
    }
    if (t.text == "[") {
      auto n = MakeNode(NodeKind::kArray, t.pos);
      if (!AcceptSymbol("]")) {
        do {
          LANCEDB_ASSIGN_OR_RETURN(auto item, ParseExpr(0));
          n->args.push_back(std::move(item));
        } while (AcceptSymbol(","));
        LANCEDB_RETURN_NOT_OK(ExpectSymbol("]"));
      }
      return NodePtr(n);
    }
    --idx_;
    return Expected("an expression");
  }

  Result<NodePtr> ParseWordPrefix() {
    const Token t = Peek();
    const std::string kw = Lower(t.text);
    if (kw == "null" || kw == "true" || kw == "false") {
      Next();
      auto n = MakeNode(NodeKind::kLiteral, t.pos);
      n->literal.kind = kw == "null" ? LiteralKind::kNull : LiteralKind::kBool;
      n->literal.bool_value = kw == "true";
      return NodePtr(n);
    }
    if (kw == "not") {
      Next();
      auto n = MakeNode(NodeKind::kNot, t.pos);
      LANCEDB_ASSIGN_OR_RETURN(auto operand, ParseExpr(15));
      n->args = {std::move(operand)};
      return NodePtr(n);
    }
    if ((kw == "date" || kw == "timestamp") && Peek(1).kind == Tok::kString) {
      Next();
      Token str = Next();
      auto n = MakeNode(NodeKind::kLiteral, t.pos);
      if (kw == "date") {
        auto days = ParseDate(str.text);
        if (!days.ok()) return SyntaxError(str.pos, days.status().message());
        n->literal.kind = LiteralKind::kDate;
        n->literal.int_value = *days;
      } else {
        auto micros = ParseTimestamp(str.text);
        if (!micros.ok()) return SyntaxError(str.pos, micros.status().message());
        n->literal.kind = LiteralKind::kTimestamp;
        n->literal.int_value = *micros;
      }
      return NodePtr(n);
    }
    if (kw == "time" && Peek(1).kind == Tok::kString) {
      // TIME '12:30:00': a string cast to time, checked now.
      Next();
      Token str = Next();
      auto parsed = ParseTime(str.text);
      if (!parsed.ok()) return SyntaxError(str.pos, parsed.status().message());
      auto lit = MakeNode(NodeKind::kLiteral, str.pos);
      lit->literal.kind = LiteralKind::kString;
      lit->literal.string_value = str.text;
      auto n = MakeNode(NodeKind::kCast, t.pos);
      n->cast_type = array::time64(array::TimeUnit::kNano);
      n->args = {std::move(lit)};
      return NodePtr(n);
    }
    if (kw == "interval" && Peek(1).kind == Tok::kString) {
      // INTERVAL '1 day 2 hours' [unit]: a duration in microseconds.
      Next();
      Token str = Next();
      std::string text = str.text;
      if (Peek().kind == Tok::kIdent && !IsReservedWord(Lower(Peek().text))) {
        text += " " + Next().text;
      }
      auto micros = ParseInterval(text);
      if (!micros.ok()) {
        if (micros.status().code() == StatusCode::kNotSupported) {
          return Status::NotSupported(micros.status().message() + " at position " +
                                      std::to_string(str.pos + 1));
        }
        return SyntaxError(str.pos, micros.status().message());
      }
      auto lit = MakeNode(NodeKind::kLiteral, str.pos);
      lit->literal.kind = LiteralKind::kInt;
      lit->literal.int_value = *micros;
      auto n = MakeNode(NodeKind::kCast, t.pos);
      n->cast_type = array::duration(array::TimeUnit::kMicro);
      n->args = {std::move(lit)};
      return NodePtr(n);
    }
    if (kw == "case") return ParseCase();
    if (kw == "cast" && IsSymbol(Peek(1), "(")) {
      Next();
      Next();
      auto n = MakeNode(NodeKind::kCast, t.pos);
      LANCEDB_ASSIGN_OR_RETURN(auto operand, ParseExpr(0));
      LANCEDB_RETURN_NOT_OK(ExpectKeyword("as"));
      LANCEDB_ASSIGN_OR_RETURN(n->cast_type, ParseType());
      LANCEDB_RETURN_NOT_OK(ExpectSymbol(")"));
      n->args = {std::move(operand)};
      return NodePtr(n);
    }
    if ((kw == "current_date" || kw == "current_timestamp") && !IsSymbol(Peek(1), "(")) {
      Next();
      auto n = MakeNode(NodeKind::kFunction, t.pos);
      n->name = kw == "current_date" ? "current_date" : "now";
      return NodePtr(n);
    }
    if (IsReservedWord(kw)) return Expected("an expression");
    if (IsSymbol(Peek(1), "(")) return ParseFunction();
    return ParseColumn();
  }

  Result<NodePtr> ParseColumn() {
    auto n = MakeNode(NodeKind::kColumn, Peek().pos);
    while (true) {
      Token t = Next();
      if (t.kind != Tok::kIdent && t.kind != Tok::kQuotedIdent) {
        --idx_;
        return Expected("a column name");
      }
      n->path.push_back(t.text);
      if (!IsSymbol(Peek(), ".")) break;
      Next();
    }
    return NodePtr(n);
  }

  Result<NodePtr> ParseCase() {
    auto n = MakeNode(NodeKind::kCase, Next().pos);
    if (!IsKeyword(Peek(), "when")) {
      n->has_operand = true;
      LANCEDB_ASSIGN_OR_RETURN(auto operand, ParseExpr(0));
      n->args.push_back(std::move(operand));
    }
    if (!IsKeyword(Peek(), "when")) return Expected("WHEN");
    while (AcceptKeyword("when")) {
      LANCEDB_ASSIGN_OR_RETURN(auto cond, ParseExpr(0));
      LANCEDB_RETURN_NOT_OK(ExpectKeyword("then"));
      LANCEDB_ASSIGN_OR_RETURN(auto value, ParseExpr(0));
      n->args.push_back(std::move(cond));
      n->args.push_back(std::move(value));
    }
    if (AcceptKeyword("else")) {
      n->has_else = true;
      LANCEDB_ASSIGN_OR_RETURN(auto value, ParseExpr(0));
      n->args.push_back(std::move(value));
    }
    LANCEDB_RETURN_NOT_OK(ExpectKeyword("end"));
    return NodePtr(n);
  }

  Result<NodePtr> ParseFunction() {
    Token name = Next();
    Next();  // (
    auto n = MakeNode(NodeKind::kFunction, name.pos);
    n->name = Lower(name.text);
    if (n->name == "make_array") n->kind = NodeKind::kArray;
    if (n->name == "extract") {
      // EXTRACT(field FROM expr) -> date_part('field', expr)
      Token field = Next();
      if (field.kind != Tok::kIdent && field.kind != Tok::kString) {
        --idx_;
        return Expected("a date part (YEAR, MONTH, ...)");
      }
      auto part = MakeNode(NodeKind::kLiteral, field.pos);
      part->literal.kind = LiteralKind::kString;
      part->literal.string_value = Lower(field.text);
      LANCEDB_RETURN_NOT_OK(ExpectKeyword("from"));
      LANCEDB_ASSIGN_OR_RETURN(auto operand, ParseExpr(0));
      LANCEDB_RETURN_NOT_OK(ExpectSymbol(")"));
      n->name = "date_part";
      n->args = {std::move(part), std::move(operand)};
      return NodePtr(n);
    }
    if (AcceptSymbol(")")) return NodePtr(n);
    LANCEDB_ASSIGN_OR_RETURN(auto first, ParseExpr(0));
    n->args.push_back(std::move(first));
    if ((n->name == "substring" || n->name == "substr") && AcceptKeyword("from")) {
      // SUBSTRING(s FROM start [FOR length])
      LANCEDB_ASSIGN_OR_RETURN(auto start, ParseExpr(0));
      n->args.push_back(std::move(start));
      if (AcceptKeyword("for")) {
        LANCEDB_ASSIGN_OR_RETURN(auto len, ParseExpr(0));
        n->args.push_back(std::move(len));
      }
    } else {
      while (AcceptSymbol(",")) {
        LANCEDB_ASSIGN_OR_RETURN(auto arg, ParseExpr(0));
        n->args.push_back(std::move(arg));
      }
    }
    LANCEDB_RETURN_NOT_OK(ExpectSymbol(")"));
    if (n->name == "arrow_cast") return ArrowCast(std::move(n));
    return NodePtr(n);
  }

  /// arrow_cast(expr, 'Arrow type name') -> CAST(expr AS type), as DataFusion.
  static Result<NodePtr> ArrowCast(std::shared_ptr<Node> call) {
    if (call->args.size() != 2) {
      return Status::InvalidArgument("arrow_cast needs 2 arguments, " +
                                     std::to_string(call->args.size()) + " given");
    }
    const Node& type_arg = *call->args[1];
    if (type_arg.kind != NodeKind::kLiteral || type_arg.literal.kind != LiteralKind::kString) {
      return Status::InvalidArgument(
          "arrow_cast requires its second argument to be a constant string, got " +
          ToSql(type_arg));
    }
    auto n = MakeNode(NodeKind::kCast, call->position);
    LANCEDB_ASSIGN_OR_RETURN(n->cast_type, ParseArrowTypeName(type_arg.literal.string_value));
    n->args = {call->args[0]};
    return NodePtr(n);
  }

  Result<array::DataTypePtr> ParseType() {
    size_t pos = Peek().pos;
    if (Peek().kind != Tok::kIdent) return Expected("a type name");
    std::string name = Lower(Next().text);
    // Multi-word names and parameters: DOUBLE PRECISION, INT UNSIGNED, VARCHAR(10), ...
    while (Peek().kind == Tok::kIdent &&
           (IsKeyword(Peek(), "precision") || IsKeyword(Peek(), "unsigned") ||
            IsKeyword(Peek(), "varying"))) {
      name += " " + Lower(Next().text);
    }
    std::vector<int64_t> params;
    if (AcceptSymbol("(")) {
      while (!IsSymbol(Peek(), ")") && Peek().kind != Tok::kEnd) {
        Token p = Next();
        if (p.kind == Tok::kNumber) params.push_back(std::strtoll(p.text.c_str(), nullptr, 10));
      }
      LANCEDB_RETURN_NOT_OK(ExpectSymbol(")"));
    }
    if ((name == "decimal" || name == "numeric") && !params.empty()) {
      const int64_t precision = params[0], scale = params.size() > 1 ? params[1] : 0;
      if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
        return SyntaxError(pos, "DECIMAL(" + std::to_string(precision) + ", " +
                                    std::to_string(scale) +
                                    ") needs 1 <= precision <= 38 and 0 <= scale <= precision");
      }
      return array::decimal128(static_cast<int32_t>(precision), static_cast<int32_t>(scale));
    }
    auto type = ParseTypeName(name);
    if (!type.ok()) return SyntaxError(pos, type.status().message());
    return type;
  }

  std::vector<Token> toks_;
  size_t idx_ = 0;
};

}  // namespace

Result<NodePtr> Parse(std::string_view sql) {
  LANCEDB_ASSIGN_OR_RETURN(auto tokens, Lex(sql));
  Parser parser(std::move(tokens));
  return parser.ParseAll();
}

}  // namespace lancedb::expr
