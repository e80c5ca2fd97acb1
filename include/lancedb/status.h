// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Status and Result<T>: the error model of every fallible lancedb-cpp function.
// Nothing in the library throws across its API; failures are returned as a Status
// carrying a code users act on and a message that names the problem.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace lancedb {

/// What went wrong, in the categories a caller can act on.
enum class StatusCode : int8_t {
  kOk = 0,
  kInvalidArgument = 1,
  kNotFound = 2,
  kAlreadyExists = 3,
  kIOError = 4,
  kCorruption = 5,
  kNotSupported = 6,
  kCommitConflict = 7,
  kCancelled = 8,
  kInternal = 9,
};

/// Return the name of a status code ("InvalidArgument", ...).
std::string_view StatusCodeName(StatusCode code);

/// The outcome of an operation: OK, or an error code with a message.
/// Immutable and cheap to copy when OK.
class [[nodiscard]] Status {
 public:
  Status() noexcept = default;
  Status(StatusCode code, std::string message);

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return {StatusCode::kInvalidArgument, std::move(msg)};
  }
  static Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
  static Status AlreadyExists(std::string msg) {
    return {StatusCode::kAlreadyExists, std::move(msg)};
  }
  static Status IOError(std::string msg) { return {StatusCode::kIOError, std::move(msg)}; }
  static Status Corruption(std::string msg) { return {StatusCode::kCorruption, std::move(msg)}; }
  static Status NotSupported(std::string msg) {
    return {StatusCode::kNotSupported, std::move(msg)};
  }
  /// A write conflicted with a concurrent one and cannot be rebased over it: retrying the same
  /// write will not help.
  static Status CommitConflict(std::string msg) {
    return {StatusCode::kCommitConflict, std::move(msg)};
  }
  /// A write was preempted by a concurrent one: executing it again on the newest version (a
  /// delete or update re-evaluates its predicate) can succeed. IsCommitConflict() is true too.
  static Status RetryableCommitConflict(std::string msg);
  static Status Cancelled(std::string msg) { return {StatusCode::kCancelled, std::move(msg)}; }
  static Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  const std::string& message() const;
  bool IsInvalidArgument() const { return code() == StatusCode::kInvalidArgument; }
  bool IsNotFound() const { return code() == StatusCode::kNotFound; }
  bool IsAlreadyExists() const { return code() == StatusCode::kAlreadyExists; }
  bool IsIOError() const { return code() == StatusCode::kIOError; }
  bool IsCorruption() const { return code() == StatusCode::kCorruption; }
  bool IsNotSupported() const { return code() == StatusCode::kNotSupported; }
  bool IsCommitConflict() const { return code() == StatusCode::kCommitConflict; }
  /// Whether this is a commit conflict that re-executing the write on the newest version can
  /// resolve.
  bool IsRetryable() const { return state_ != nullptr && state_->retryable; }

  /// Return "Code: message", or "OK".
  std::string ToString() const;

  /// Return a copy whose message is prefixed with `context` and ": ".
  Status WithContext(std::string_view context) const;

 private:
  struct State {
    StatusCode code;
    std::string message;
    bool retryable = false;
  };
  std::shared_ptr<const State> state_;
};

namespace internal {
/// Print `what` and `status` to stderr and abort.
[[noreturn]] void Die(const char* what, const Status& status);
}  // namespace internal

#ifndef NDEBUG
/// Abort when `condition` does not hold: internal invariants only, never user input. Compiled
/// out of release builds (the ASan/UBSan build of CI checks them).
#define LANCEDB_DCHECK(condition)                                                      \
  ((condition) ? void(0)                                                               \
               : ::lancedb::internal::Die("Check failed: " #condition " at " __FILE__, \
                                          ::lancedb::Status::OK()))
#define LANCEDB_DCHECK_OK(result) \
  ((result).ok()                  \
       ? void(0)                  \
       : ::lancedb::internal::Die("Result used without a value at " __FILE__, (result).status()))
#else
#define LANCEDB_DCHECK(condition) ((void)0)
#define LANCEDB_DCHECK_OK(result) ((void)0)
#endif

/// Either a value of type T or an error Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : repr_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  Result(Status status) : repr_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (std::get<Status>(repr_).ok()) {
      repr_ = Status::Internal("Result constructed from an OK status without a value");
    }
  }

  bool ok() const { return std::holds_alternative<T>(repr_); }
  /// The error, or OK when a value is held.
  Status status() const { return ok() ? Status::OK() : std::get<Status>(repr_); }

  /// REQUIRES: ok() (checked in debug builds).
  const T& ValueUnsafe() const& {
    LANCEDB_DCHECK_OK(*this);
    return *std::get_if<T>(&repr_);
  }
  T& ValueUnsafe() & {
    LANCEDB_DCHECK_OK(*this);
    return *std::get_if<T>(&repr_);
  }
  T MoveValueUnsafe() {
    LANCEDB_DCHECK_OK(*this);
    return std::move(*std::get_if<T>(&repr_));
  }
  /// Return the value, or abort the process printing the error (tools and tests only: the
  /// library never calls it).
  T ValueOrDie() && {
    if (!ok()) internal::Die("Result::ValueOrDie on an error", std::get<Status>(repr_));
    return std::move(*std::get_if<T>(&repr_));
  }
  const T& operator*() const& { return ValueUnsafe(); }
  T& operator*() & { return ValueUnsafe(); }
  const T* operator->() const { return &ValueUnsafe(); }
  T* operator->() { return &ValueUnsafe(); }

  /// Return the value, or `fallback` when this holds an error.
  T ValueOr(T fallback) && { return ok() ? MoveValueUnsafe() : std::move(fallback); }

 private:
  std::variant<T, Status> repr_;
};

}  // namespace lancedb

#define LANCEDB_CONCAT_IMPL(a, b) a##b
#define LANCEDB_CONCAT(a, b) LANCEDB_CONCAT_IMPL(a, b)

/// Return the Status of `expr` from the enclosing function when it is not OK.
#define LANCEDB_RETURN_NOT_OK(expr)            \
  do {                                         \
    ::lancedb::Status _lancedb_st = (expr);    \
    if (!_lancedb_st.ok()) return _lancedb_st; \
  } while (false)

#define LANCEDB_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                  \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = tmp.MoveValueUnsafe()

/// Evaluate a Result expression; on error return its Status, else assign the value to `lhs`.
#define LANCEDB_ASSIGN_OR_RETURN(lhs, rexpr) \
  LANCEDB_ASSIGN_OR_RETURN_IMPL(LANCEDB_CONCAT(_lancedb_res_, __LINE__), lhs, rexpr)
