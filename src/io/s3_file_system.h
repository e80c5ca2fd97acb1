// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The FileSystem of one S3 bucket (AWS or any S3-compatible store), over S3Client. Its paths
// are the URIs "s3://<bucket>/<key>" that ResolveUri returns (or "/<key>"); directories are
// key prefixes ending in '/', implied by the objects under them, as on every object store.
//
// Commit guarantee: PutIfAbsent is a PUT with "If-None-Match: *", which S3 (since 2024) and
// most S3-compatible stores apply atomically: of two racing writers one gets 412 and reports
// AlreadyExists. Before the first PutIfAbsent the file system checks that the store honours
// the header (a probe object put twice under its root, then deleted); when it does not, every
// PutIfAbsent fails with NotSupported unless storage option allow_unsafe_commit=true.
// docs/object-storage.md describes the guarantee for users.
//
// Thread-safety: internally synchronized.

#pragma once

#include <string>

#include "io/file_system.h"
#include "io/s3_options.h"

namespace lancedb::io {

/// Make the file system of `bucket` with `options`. `root_key` (the key prefix of the URI
/// that was resolved, "" for the bucket's top) is where the conditional-put probe is written.
/// No request is sent until the first operation.
Result<FileSystemPtr> MakeS3FileSystem(const std::string& bucket, const std::string& root_key,
                                       S3Options options);

/// Split "s3://<bucket>/<key>" into bucket and key (trailing '/' removed). InvalidArgument
/// when the bucket name is empty or not a valid S3 bucket name.
Status ParseS3Uri(const std::string& uri, std::string* bucket, std::string* key);

}  // namespace lancedb::io
