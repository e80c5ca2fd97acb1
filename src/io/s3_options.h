// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// S3Options: how an s3:// URI reaches its store — endpoint, region, credentials, timeouts,
// retries — parsed from LanceDB's storage option keys, with the standard AWS_* environment
// variables and the shared credentials file as fallbacks (docs/object-storage.md lists them).
// Pure functions; no network. Thread-safety: immutable values.

#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "io/retry_policy.h"
#include "lancedb/status.h"

namespace lancedb::io {

/// Reads one environment variable (std::nullopt when unset); injected so tests need no real
/// environment.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

/// The process environment.
EnvLookup ProcessEnv();

struct S3Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty: none
  /// Where they came from, for error messages ("storage options", "environment", a file).
  std::string source;
};

struct S3Options {
  /// Empty: AWS itself, https://s3.<region>.amazonaws.com.
  std::string endpoint;
  std::string region = "us-east-1";
  bool allow_http = false;
  /// https://<bucket>.<host>/<key> instead of https://<host>/<bucket>/<key>.
  bool virtual_hosted_style = false;
  /// Send unsigned requests (public buckets); no credentials needed.
  bool skip_signature = false;
  S3Credentials credentials;
  /// Whole-request and connection-establishment limits of one attempt.
  std::chrono::milliseconds timeout{30000};
  std::chrono::milliseconds connect_timeout{5000};
  RetryPolicy retry;
  /// Writes larger than this go up in parts of this size (S3's minimum part is 5 MiB).
  int64_t multipart_part_size = 8 << 20;
  /// Commit even when the store ignores conditional puts (If-None-Match), accepting that two
  /// racing writers may overwrite each other's version.
  bool allow_unsafe_commit = false;

  /// The endpoint requests go to: `endpoint`, or AWS's for `region`.
  std::string EffectiveEndpoint() const;
};

/// Parse the object-store keys of `storage_options` (case-insensitive; `new_table_*` keys are
/// skipped, they are the table layer's), falling back to `env` and the shared credentials
/// file. InvalidArgument for an unknown key or a malformed value, naming it; InvalidArgument
/// when no credentials are found and aws_skip_signature is not set.
Result<S3Options> ParseS3Options(const std::map<std::string, std::string>& storage_options,
                                 const EnvLookup& env);

/// Whether `key` (lower case) is an object-store option ParseS3Options understands.
bool IsS3OptionKey(const std::string& key);

/// Parse a duration: "30s", "500ms", "2m", "1h", "1.5 seconds", or a bare number of seconds.
Result<std::chrono::milliseconds> ParseDuration(const std::string& key, const std::string& value);

/// Read `profile` from an AWS shared credentials file's text (INI). NotFound when the profile
/// or its keys are missing.
Result<S3Credentials> ParseSharedCredentials(const std::string& text, const std::string& profile);

}  // namespace lancedb::io
