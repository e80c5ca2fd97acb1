// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// External blob URIs and the registered base paths they may be relative to
// (docs/format/blobs.md "External blobs and base paths"). A blob v2 external descriptor holds
// either `blob_id` 0 and an absolute URI, or the id of a registered base path (a manifest
// BasePath that is not a dataset root) and a path relative to it. A URI is written relative to
// the registered base whose path is its longest prefix (compared by store and by decoded path
// segments); outside every base it is refused unless the writer allows absolute URIs.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/file_system.h"
#include "lancedb/status.h"

namespace lancedb::format {

/// A location split into its store and its path: "file" for local paths and file URIs, else
/// "<scheme>://<authority>"; `segments` are percent-decoded, without empty, "." or ".." ones.
struct BlobLocation {
  std::string store;
  std::vector<std::string> segments;
};

/// Parse a URI ("scheme://authority/path", "file:/path", "file:///path") or a local path
/// (relative ones are taken from the working directory). InvalidArgument for an empty string,
/// a URI with a scheme but no "//" (other than file:) and a bad percent escape.
Result<BlobLocation> ParseBlobLocation(std::string_view uri);

/// The absolute URI of a location: "file:///a/b" or "<store>/a/b", segments percent-encoded.
std::string BlobLocationUri(const BlobLocation& location);

/// The file system and path of an external blob's absolute URI (file URIs percent-decoded;
/// other schemes as io::ResolveUri serves them).
Status OpenBlobLocation(std::string_view uri, io::FileSystemPtr* fs, std::string* path);

/// A registered base path (a manifest BasePath).
struct BlobBase {
  uint32_t id = 0;
  std::string path;
  bool is_dataset_root = false;
};

/// How an external blob is stored: `base_id` 0 with an absolute URI, or a registered base
/// and the path relative to it.
struct BlobReference {
  uint32_t base_id = 0;
  std::string uri;
};

/// The base paths of one table version, for writing and reading external blobs. Immutable.
class ExternalBlobBases {
 public:
  ExternalBlobBases() = default;
  explicit ExternalBlobBases(std::vector<BlobBase> bases) : bases_(std::move(bases)) {}

  /// How `uri` is stored: relative to the registered non-root base with the longest matching
  /// path, else (with `allow_outside`) as its normalized absolute URI. InvalidArgument with
  /// LanceDB's message when it is outside every base and not allowed, or not an absolute URI.
  Result<BlobReference> Reference(std::string_view uri, bool allow_outside) const;

  /// The absolute URI of a stored reference: `uri` itself for base 0, else the base's path
  /// joined with the relative path. Corruption for an unknown base id.
  Result<std::string> Resolve(uint32_t base_id, std::string_view uri) const;

  const std::vector<BlobBase>& bases() const { return bases_; }

 private:
  std::vector<BlobBase> bases_;
};

}  // namespace lancedb::format
