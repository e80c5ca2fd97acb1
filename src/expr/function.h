// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Built-in SQL functions. Each function is one record (FunctionDef): its names, its arity,
// how a call binds (argument checks and coercions, the result type) and how it evaluates.
// The records are grouped by family, one file each (functions_string.cc, functions_regex.cc,
// functions_math.cc, functions_conditional.cc, functions_temporal.cc, functions_array.cc);
// adding a function means adding one record to its family. Thread-safety: the records are
// immutable; FindFunction is safe to call from any thread.

#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "array/array.h"
#include "expr/bound.h"
#include "expr/vec.h"

namespace lancedb::expr {

struct FunctionDef;

/// One call being bound. A bind function checks and coerces `args` in place and sets the
/// result's `kind` and `type`; it may attach precompiled `state` (a regex), or set
/// `replacement`, a node that stands for the whole call (now() binds to a literal).
/// Externally synchronized.
class FunctionBinding {
 public:
  FunctionBinding(const FunctionDef& def, std::string name, size_t position,
                  std::vector<BoundPtr> args, std::optional<int64_t>* statement_now)
      : def(def),
        name(std::move(name)),
        position(position),
        args(std::move(args)),
        statement_now_(statement_now) {}

  /// Check that argument `i` is of `kind` (or converts to it implicitly: NULL, an integer
  /// for a float, a literal for a string, ...) and coerce it; a type error otherwise.
  Status Want(size_t i, ValueKind kind);
  /// Want(i, kind) for every argument.
  Status WantAll(ValueKind kind);
  /// Coerce every argument to their common kind and return it.
  Result<ValueKind> Unify(const char* what);
  /// A type error at the call: "Type error at position N: <what>".
  Status Error(const std::string& what) const;
  /// Set the result.
  void Set(ValueKind result_kind, array::DataTypePtr result_type) {
    kind = result_kind;
    type = std::move(result_type);
  }
  /// now() of the statement (microseconds since the epoch), taken at its first use.
  int64_t StatementNow();

  const FunctionDef& def;
  /// The name as written (an alias shows as such in messages).
  const std::string name;
  const size_t position;
  std::vector<BoundPtr> args;
  ValueKind kind = ValueKind::kNull;
  array::DataTypePtr type;
  std::shared_ptr<const void> state;
  BoundPtr replacement;

 private:
  std::optional<int64_t>* statement_now_;
};

/// One call being evaluated over a batch: the bound call, its evaluated arguments and the
/// result, pre-sized. Externally synchronized.
struct FunctionCall {
  /// The bound call: result kind and type, bound arguments (literal parts), state.
  const BoundExpr& expr;
  /// The evaluated arguments, one Vec each (functions may move out of them).
  std::vector<Vec>& args;
  const array::RecordBatch& batch;
  /// num_rows of the batch.
  size_t length;
  /// Whether row i of the result is valid so far.
  bool IsValid(const Vec& out, size_t i) const { return out.valid.empty() || out.valid[i]; }
};

/// How NULL arguments reach the result.
enum class NullHandling : uint8_t {
  /// A NULL in any argument makes the row NULL: `out` arrives with that validity (and every
  /// row NULL when an argument is the NULL literal); the function fills the valid rows.
  kPropagate,
  /// The function decides: `out` arrives with no validity (every row valid).
  kCustom,
};

/// Shorthands for the function tables.
inline constexpr auto kPropagate = NullHandling::kPropagate;
inline constexpr auto kCustom = NullHandling::kCustom;

using BindFunctionFn = Status (*)(FunctionBinding& call);
using EvaluateFunctionFn = Status (*)(FunctionCall& call, Vec* out);

inline constexpr int kVariadic = -1;

/// A built-in function. Immutable.
struct FunctionDef {
  static constexpr size_t kMaxNames = 3;
  /// The SQL name, then its aliases (lower case); unused entries are empty.
  std::array<std::string_view, kMaxNames> names;
  int min_args;
  /// kVariadic: no upper bound.
  int max_args;
  NullHandling nulls;
  BindFunctionFn bind;
  /// Unused when bind always sets a replacement.
  EvaluateFunctionFn evaluate;
};

/// The function called `name` (case-sensitive, as the parser lower-cases names), or nullptr.
const FunctionDef* FindFunction(std::string_view name);

/// The families (function registry order does not matter: names are unique).
std::span<const FunctionDef> StringFunctions();
std::span<const FunctionDef> RegexFunctions();
std::span<const FunctionDef> MathFunctions();
std::span<const FunctionDef> ConditionalFunctions();
std::span<const FunctionDef> TemporalFunctions();
std::span<const FunctionDef> ArrayFunctions();

/// Evaluate one bound function call over `batch`.
Result<Vec> EvaluateFunction(const BoundExpr& e, const array::RecordBatch& batch);

}  // namespace lancedb::expr
