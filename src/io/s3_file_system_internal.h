// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The pieces the S3 file system and its output stream share: single-object requests over one
// S3Client. Private to src/io. Thread-safety: internally synchronized (as S3Client).

#pragma once

#include <memory>
#include <span>
#include <string>

#include "io/file_system.h"
#include "io/s3_client.h"

namespace lancedb::io {

class S3Objects {
 public:
  explicit S3Objects(std::unique_ptr<S3Client> client) : client_(std::move(client)) {}
  virtual ~S3Objects() = default;

  S3Client& client() const { return *client_; }
  /// HEAD `key`: the response of any status (404 when missing).
  Result<S3Response> Head(const std::string& key);
  /// PUT `data` at `key` in one request, replacing any object there.
  Status PutObject(const std::string& key, std::span<const uint8_t> data);
  /// DELETE `key`; OK when it is missing.
  Status DeleteObject(const std::string& key);
  /// One ListObjectsV2 page of the keys under `prefix` (grouped at `delimiter` unless empty),
  /// from `token` (empty: the first page), at most `max_keys` (0: the store's default, 1000).
  Result<S3ListPage> ListOnePage(const std::string& prefix, const std::string& delimiter,
                                 const std::string& token, int max_keys);

 private:
  const std::unique_ptr<S3Client> client_;
};

/// A stream writing `key`: buffered up to the multipart part size and written with one PUT, or
/// as a multipart upload once larger; published on Close(), aborted (no object, no parts left)
/// on Abort(), on a failure or when destroyed unclosed. REQUIRES: `objects` outlives it.
std::unique_ptr<OutputStream> NewS3OutputStream(S3Objects* objects, std::string key);

}  // namespace lancedb::io
