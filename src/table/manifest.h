// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Manifest: one version of a Lance table (lance-format.md §1.2, §1.3) — the lance.table.Manifest
// proto, its IndexSection and (when present) the inline Transaction — plus the manifest file
// naming schemes of _versions/ (§1.1). Proto fields lancedb-cpp does not model (and whole
// IndexMetadata entries of unknown index types) are kept byte-for-byte and written back.
//
// Manifest file layout (§1.2):
//   [u32 len][IndexSection]   optional, at offset 0; Manifest.index_section = its offset
//   [u32 len][Transaction]    optional; Manifest.transaction_section = its offset
//   [u32 len][Manifest]       last
//   [u64 manifest_pos][u16 0][u16 2]["LANC"]
// Thread-safety: immutable once built.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/buffer.h"
#include "format/lance_schema.h"
#include "io/file_system.h"
#include "lancedb/status.h"
#include "table/proto/table.pb.h"
#include "table/proto/transaction.pb.h"

namespace lancedb::table {

namespace pb = ::lance::table;

/// Feature flags (Manifest.reader_feature_flags / writer_feature_flags), §1.3.
inline constexpr uint64_t kFlagDeletionFiles = 1;
inline constexpr uint64_t kFlagStableRowIds = 2;
inline constexpr uint64_t kFlagUseV2Format = 4;  // deprecated, ignored
inline constexpr uint64_t kFlagTableConfig = 8;
inline constexpr uint64_t kFlagBasePaths = 16;
inline constexpr uint64_t kFlagNoTransactionFiles = 32;
/// Flags this implementation can read.
inline constexpr uint64_t kKnownReaderFlags = 1 | 2 | 4 | 8 | 16 | 32;
/// Flags this implementation can honour when writing a new version.
inline constexpr uint64_t kKnownWriterFlags = 1 | 4 | 8 | 16 | 32;

inline constexpr std::string_view kWriterLibrary = "lancedb-cpp";
inline constexpr std::string_view kWriterVersion = "0.1.0";

/// How the files of _versions/ are named (§1.1).
enum class ManifestNaming : uint8_t {
  kV1,  // {version}.manifest
  kV2,  // {u64::MAX - version, 20 digits}.manifest (newest sorts first)
};

/// The file name (no directory) of `version` under `naming`.
std::string ManifestFileName(uint64_t version, ManifestNaming naming);
/// Parse a _versions/ entry name. Returns nullopt for anything that is not a manifest of the
/// main sequence (temporary files, detached "d…" manifests, the version hint).
std::optional<std::pair<uint64_t, ManifestNaming>> ParseManifestFileName(std::string_view name);

/// The versions present in `{root}/_versions`, ascending, and the naming scheme they use.
struct VersionListing {
  /// The naming of the newest version (V2 for an empty listing).
  ManifestNaming naming = ManifestNaming::kV2;
  std::vector<uint64_t> versions;
  /// Versions named with the V1 scheme (only), ascending. Empty unless the table uses V1
  /// naming or a migration to V2 (MigrateManifestNamingToV2) was cut short; a version present
  /// under both names (the copy made, the original not yet deleted) counts as V2.
  std::vector<uint64_t> v1_versions;

  /// How `version` (one of `versions`) is named.
  ManifestNaming NamingOf(uint64_t version) const;
};
/// List the manifests of the dataset at `root`. An empty listing means no dataset. A
/// directory mixing both naming schemes (an interrupted migration) is listed, each version
/// under the name it has; LanceDB refuses such a directory until the migration is rerun.
Result<VersionListing> ListVersionFiles(io::FileSystem& fs, const std::string& root);

/// Rename every manifest of the dataset at `root` named with the V1 scheme to the V2 scheme
/// (LanceDB's migrate_manifest_paths_v2); a no-op when there is none. A crash in the middle
/// leaves a table this library reads, and a later call finishes the migration (see the .cc).
/// Must not run while others write the table: a writer that read the V1 names may still
/// commit a V1-named manifest (a later call migrates it too). Corruption when a version has
/// two different manifests under the two names.
Status MigrateManifestNamingToV2(io::FileSystem& fs, const std::string& root);

/// The newest version of the dataset at `root` and its naming, found without listing
/// `_versions/` where it can be: from the version hint, probing the manifests after it until
/// one is missing; by listing when there is no usable hint. NotFound when there is no dataset.
Result<std::pair<uint64_t, ManifestNaming>> FindLatestVersion(io::FileSystem& fs,
                                                              const std::string& root);

class Manifest {
 public:
  /// Parse the bytes of a manifest file. Corruption (naming `name`) for a bad footer, bad
  /// offsets or undecodable protos; NotSupported for unknown reader feature flags.
  static Result<std::shared_ptr<const Manifest>> Parse(const Buffer& file, std::string_view name);
  /// Build from parts (a manifest being committed).
  static Result<std::shared_ptr<const Manifest>> Make(pb::Manifest proto,
                                                      pb::IndexSection index_section);

  /// Serialize into the manifest file container, with `transaction` inline when given.
  /// The stored offsets (index_section, transaction_section) are set accordingly.
  std::string Serialize(const pb::Transaction* transaction) const;

  const pb::Manifest& proto() const { return proto_; }
  const pb::IndexSection& index_section() const { return index_section_; }
  /// The inline transaction read from the file, or nullptr.
  const pb::Transaction* transaction() const { return transaction_ ? &*transaction_ : nullptr; }
  const format::LanceSchema& schema() const { return schema_; }
  uint64_t version() const { return proto_.version(); }
  int64_t timestamp_micros() const;
  /// "2.2", "2.0", … (inferred from the first data file when data_format is absent).
  std::string data_format_version() const;
  /// Rows not deleted, from fragment metadata (num_deleted_rows must be known).
  int64_t num_rows_from_metadata() const;

  /// NotSupported when the manifest has reader flags this implementation does not know.
  Status CheckReaderFlags() const;
  /// NotSupported when a new version may not be written on top of this one by this library
  /// (writer flags beyond kKnownWriterFlags | `also_known`).
  Status CheckWriterFlags(uint64_t also_known = 0) const;

  Manifest(pb::Manifest proto, pb::IndexSection index_section,
           std::optional<pb::Transaction> transaction, format::LanceSchema schema)
      : proto_(std::move(proto)),
        index_section_(std::move(index_section)),
        transaction_(std::move(transaction)),
        schema_(std::move(schema)) {}

 private:
  pb::Manifest proto_;
  pb::IndexSection index_section_;
  std::optional<pb::Transaction> transaction_;
  format::LanceSchema schema_;
};

using ManifestPtr = std::shared_ptr<const Manifest>;

/// Recompute reader/writer feature flags from the manifest's content (§1.3): 1 for deletion
/// files, 2 kept for stable row ids, 8 (writer) when config is set, 16 for base paths.
void ApplyFeatureFlags(pb::Manifest* manifest);
/// Stamp writer_version {lancedb-cpp, 0.1.0} and the commit timestamp (now).
void StampWriter(pb::Manifest* manifest);

/// Read and parse `{root}/_versions/{version}` under `naming`. NotFound naming the version
/// when the file does not exist.
Result<ManifestPtr> ReadManifest(io::FileSystem& fs, const std::string& root, uint64_t version,
                                 ManifestNaming naming);
/// The transaction that produced `manifest`: inline, else the _transactions/ file. NotFound
/// when neither exists.
Result<pb::Transaction> ReadTransaction(io::FileSystem& fs, const std::string& root,
                                        const Manifest& manifest);
/// The transaction that produced `version`, without decoding the rest of its manifest (the
/// fragment list): the manifest's fields are skipped on the wire up to its transaction section
/// or transaction file name. NotFound when the version does not exist; nullopt when it records
/// no transaction.
Result<std::optional<pb::Transaction>> ReadVersionTransaction(io::FileSystem& fs,
                                                              const std::string& root,
                                                              uint64_t version,
                                                              ManifestNaming naming);
/// Rewrite `_versions/latest_version_hint.json` ({"version":N}); best effort, errors ignored.
void WriteVersionHint(io::FileSystem& fs, const std::string& root, uint64_t version);

/// Convert between proto maps and ordered metadata (sorted by key).
array::KeyValueMetadata MetadataFromProto(const google::protobuf::Map<std::string, std::string>& m);
void MetadataToProto(const array::KeyValueMetadata& kv,
                     google::protobuf::Map<std::string, std::string>* m);

/// Whether two copies of a fragment (read from manifests possibly written by different
/// engines, which may encode them differently) name the same data files, holding the same
/// fields.
bool SameDataFiles(const pb::DataFragment& a, const pb::DataFragment& b);
/// Whether two copies of a fragment name the same deletion file (or none).
bool SameDeletionFile(const pb::DataFragment& a, const pb::DataFragment& b);

/// Fill the manifest schema fields (and schema_metadata) from `schema`.
void SetManifestSchema(const format::LanceSchema& schema, pb::Manifest* manifest);

}  // namespace lancedb::table
