// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "lancedb/status.h"

#include <cstdio>
#include <cstdlib>

namespace lancedb {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "InvalidArgument";
    case StatusCode::kNotFound:
      return "NotFound";
    case StatusCode::kAlreadyExists:
      return "AlreadyExists";
    case StatusCode::kIOError:
      return "IOError";
    case StatusCode::kCorruption:
      return "Corruption";
    case StatusCode::kNotSupported:
      return "NotSupported";
    case StatusCode::kCommitConflict:
      return "CommitConflict";
    case StatusCode::kCancelled:
      return "Cancelled";
    case StatusCode::kInternal:
      return "Internal";
  }
  return "Unknown";
}

Status::Status(StatusCode code, std::string message) {
  if (code != StatusCode::kOk) {
    state_ = std::make_shared<const State>(State{code, std::move(message)});
  }
}

Status Status::RetryableCommitConflict(std::string msg) {
  Status st;
  st.state_ =
      std::make_shared<const State>(State{StatusCode::kCommitConflict, std::move(msg), true});
  return st;
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return state_ ? state_->message : kEmpty;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(code()));
  out += ": ";
  out += message();
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string msg(context);
  msg += ": ";
  msg += message();
  Status st;
  st.state_ = std::make_shared<const State>(State{code(), std::move(msg), IsRetryable()});
  return st;
}

namespace internal {

void Die(const char* what, const Status& status) {
  std::fprintf(stderr, "lancedb-cpp: %s: %s\n", what, status.ToString().c_str());
  std::abort();
}

}  // namespace internal

}  // namespace lancedb
