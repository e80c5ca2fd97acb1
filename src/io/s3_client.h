// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// S3Client: one bucket's REST endpoint over libcurl. libcurl signs every request itself
// (CURLOPT_AWS_SIGV4, payload "UNSIGNED-PAYLOAD"); this class only builds URLs, canonical query
// strings and headers, and retries per the RetryPolicy. Thread-safety: internally synchronized
// (a pool of curl handles keeps connections alive between requests).

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "io/s3_options.h"
#include "io/s3_xml.h"
#include "lancedb/status.h"

namespace lancedb::io {

struct S3Request {
  std::string method = "GET";  // GET, HEAD, PUT, POST or DELETE
  std::string key;             // the object key; empty for the bucket itself
  /// Query parameters, unencoded; sent sorted and encoded (SigV4's canonical form).
  std::vector<std::pair<std::string, std::string>> query;
  /// Extra headers, "Name: value".
  std::vector<std::string> headers;
  std::span<const uint8_t> body;
};

struct S3Response {
  int64_t status = 0;
  std::string body;
  /// Response headers with lower-case names.
  std::map<std::string, std::string> headers;
  /// The <Error> body of a non-2xx response (code empty when it has none, as for HEAD).
  S3Error error;

  bool ok() const { return status >= 200 && status < 300; }
};

class S3Client {
 public:
  static Result<std::unique_ptr<S3Client>> Make(std::string bucket, S3Options options);
  ~S3Client();
  S3Client(const S3Client&) = delete;
  S3Client& operator=(const S3Client&) = delete;

  /// Send `request`, retrying transport errors and retryable statuses (RetryPolicy). A
  /// response of any status is a value; IOError only when no response came back (naming the
  /// endpoint, the curl error and the attempts made). A request may reach the store more than
  /// once (a retry, or libcurl's own resend on a fresh connection): callers of non-idempotent
  /// requests check the outcome (S3 file system: PutIfAbsent, multipart completion).
  Result<S3Response> Send(const S3Request& request);

  /// "s3://<bucket>/<key>", for messages.
  std::string UriOf(const std::string& key) const;
  /// An IOError (or NotFound for 404 NoSuchKey) describing a failed response to `method` on
  /// `key`.
  Status ErrorOf(const std::string& method, const std::string& key,
                 const S3Response& response) const;

  const S3Options& options() const { return options_; }
  const std::string& bucket() const { return bucket_; }

  /// The URL of `key` with `query` (canonical: sorted, RFC 3986 encoded), for these options.
  static std::string BuildUrl(const S3Options& options, const std::string& bucket,
                              const std::string& key,
                              std::vector<std::pair<std::string, std::string>> query);
  /// Percent-encode per SigV4 (unreserved characters kept; '/' kept when `keep_slash`).
  static std::string UriEncode(std::string_view s, bool keep_slash);

 private:
  S3Client(std::string bucket, S3Options options);
  /// One attempt. Sets *transport_code to the curl error when no response came back.
  Result<S3Response> SendOnce(const S3Request& request, int* transport_code);
  void* TakeHandle();
  void ReturnHandle(void* handle);

  const std::string bucket_;
  const S3Options options_;
  std::mutex mu_;
  std::vector<void*> idle_;  // CURL* handles, guarded by mu_
};

/// Whether a curl error code is worth another attempt (connection refused, reset, timeout).
bool IsRetryableTransportError(int curl_code);

}  // namespace lancedb::io
