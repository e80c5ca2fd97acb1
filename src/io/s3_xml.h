// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The XML documents of the S3 REST API that the S3 file system reads and writes: ListObjectsV2
// results, error bodies, multipart-upload responses and the CompleteMultipartUpload request.
// Parsed with expat (untrusted bytes from the network: malformed input is a Corruption
// status, never a crash). Thread-safety: pure functions.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lancedb/status.h"

namespace lancedb::io {

struct S3Object {
  std::string key;
  int64_t size = 0;
  /// LastModified, microseconds since the Unix epoch; -1 when absent or unparsable.
  int64_t modified_micros = -1;
};

/// One page of ListObjectsV2.
struct S3ListPage {
  std::vector<S3Object> objects;
  /// The CommonPrefixes (with their trailing delimiter) when listed with a delimiter.
  std::vector<std::string> common_prefixes;
  bool is_truncated = false;
  std::string next_continuation_token;
};

/// An S3 <Error> body.
struct S3Error {
  std::string code;
  std::string message;
};

Result<S3ListPage> ParseListObjectsV2(std::string_view xml);
/// An <Error> document; an empty code when `xml` is not one (a body-less HEAD reply, HTML).
S3Error ParseS3Error(std::string_view xml);
/// The UploadId of an InitiateMultipartUploadResult.
Result<std::string> ParseInitiateMultipartUpload(std::string_view xml);
/// The body of CompleteMultipartUpload for parts 1..n with these ETags (quotes kept).
std::string CompleteMultipartUploadXml(const std::vector<std::string>& etags);
/// Parse S3's ISO 8601 timestamp ("2026-12-07T23:26:08.000Z") to microseconds since the
/// epoch; -1 when malformed.
int64_t ParseS3Timestamp(std::string_view text);

}  // namespace lancedb::io
