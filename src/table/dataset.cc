// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Dataset: opening versions, accessors, row counts and version listing (lance-format.md §1.1).

#include "table/dataset.h"

#include <cstdio>
#include <cstring>
#include <random>

#include "common/random.h"
#include "table/dataset_impl.h"
#include "table/deletion.h"

namespace lancedb::table {

namespace {

Result<VersionListing> ListExisting(io::FileSystem& fs, const std::string& path) {
  LANCEDB_ASSIGN_OR_RETURN(auto listing, ListVersionFiles(fs, path));
  if (listing.versions.empty()) {
    return Status::NotFound("Dataset '" + path + "' not found (no manifests under _versions/)");
  }
  return listing;
}

}  // namespace

std::string NewUuid() {
  uint64_t hi = RandomU64();
  uint64_t lo = RandomU64();
  hi = (hi & ~uint64_t{0xF000}) | 0x4000;                      // version 4
  lo = (lo & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);  // variant 10
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return buf;
}

std::string NewDataFileName() {
  uint8_t bytes[16];
  uint64_t a = RandomU64();
  uint64_t b = RandomU64();
  std::memcpy(bytes, &a, 8);
  std::memcpy(bytes + 8, &b, 8);
  std::string name;
  for (int i = 0; i < 3; ++i) {
    for (int bit = 7; bit >= 0; --bit) name += ((bytes[i] >> bit) & 1) ? '1' : '0';
  }
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 3; i < 16; ++i) {
    name += kHex[bytes[i] >> 4];
    name += kHex[bytes[i] & 0xF];
  }
  return name + ".lance";
}

Result<std::string> DataFilePath(const pb::Manifest& manifest, const std::string& root,
                                 const pb::DataFile& file) {
  bool dataset_root = true;
  LANCEDB_ASSIGN_OR_RETURN(
      std::string base,
      ResolveBaseRoot(manifest, root,
                      file.has_base_id() ? std::optional<uint32_t>(file.base_id()) : std::nullopt,
                      &dataset_root));
  return dataset_root ? io::JoinPath(io::JoinPath(base, "data"), file.path())
                      : io::JoinPath(base, file.path());
}

Result<DatasetPtr> MakeDataset(io::FileSystemPtr fs, std::string path, ManifestPtr manifest,
                               ManifestNaming naming) {
  auto impl = std::make_unique<Dataset::Impl>();
  auto schema = manifest->schema().ToArrow();
  if (!schema.ok()) {
    return schema.status().WithContext("Dataset '" + path + "' version " +
                                       std::to_string(manifest->version()));
  }
  impl->schema = *schema;
  impl->fs = std::move(fs);
  impl->path = std::move(path);
  impl->manifest = std::move(manifest);
  impl->naming = naming;
  return std::make_shared<const Dataset>(std::move(impl));
}

Dataset::Dataset(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Dataset::~Dataset() = default;

Result<DatasetPtr> Dataset::Open(io::FileSystemPtr fs, std::string path,
                                 std::optional<uint64_t> version) {
  if (version) {
    // A given version is read by name, without listing _versions/ (tables with thousands of
    // versions): under the V2 naming, else the V1 naming.
    for (ManifestNaming naming : {ManifestNaming::kV2, ManifestNaming::kV1}) {
      auto manifest = ReadManifest(*fs, path, *version, naming);
      if (manifest.ok()) return MakeDataset(std::move(fs), std::move(path), *manifest, naming);
      if (!manifest.status().IsNotFound()) return manifest.status();
    }
  }
  if (!version) {
    LANCEDB_ASSIGN_OR_RETURN(auto latest, FindLatestVersion(*fs, path));
    LANCEDB_ASSIGN_OR_RETURN(auto manifest, ReadManifest(*fs, path, latest.first, latest.second));
    return MakeDataset(std::move(fs), std::move(path), manifest, latest.second);
  }
  LANCEDB_ASSIGN_OR_RETURN(auto listing, ListExisting(*fs, path));
  uint64_t target = *version;
  auto manifest = ReadManifest(*fs, path, target, listing.NamingOf(target));
  if (!manifest.ok()) {
    if (manifest.status().IsNotFound() && version) {
      // Lance's words, for a version past the latest as for one cleaned up.
      return Status::NotFound("Version " + std::to_string(target) +
                              " no longer exists. Was it cleaned up?");
    }
    return manifest.status();
  }
  return MakeDataset(std::move(fs), std::move(path), *manifest, listing.naming);
}

const std::string& Dataset::path() const { return impl_->path; }
const io::FileSystemPtr& Dataset::fs() const { return impl_->fs; }
uint64_t Dataset::version() const { return impl_->manifest->version(); }
const Manifest& Dataset::manifest() const { return *impl_->manifest; }
std::shared_ptr<const Manifest> Dataset::manifest_ptr() const { return impl_->manifest; }
ManifestNaming Dataset::manifest_naming() const { return impl_->naming; }

std::shared_ptr<const format::ExternalBlobBases> Dataset::external_blob_bases() const {
  return ExternalBlobBasesOf(impl_->manifest->proto());
}
const format::LanceSchema& Dataset::lance_schema() const { return impl_->manifest->schema(); }
array::SchemaPtr Dataset::schema() const { return impl_->schema; }

Result<int64_t> Dataset::CountRows() const {
  const auto& proto = impl_->manifest->proto();
  int64_t rows = 0;
  for (const auto& frag : proto.fragments()) {
    rows += static_cast<int64_t>(frag.physical_rows());
    if (!frag.has_deletion_file()) continue;
    uint64_t deleted = frag.deletion_file().num_deleted_rows();
    if (deleted == 0) {
      LANCEDB_ASSIGN_OR_RETURN(auto offsets, ReadDeletions(*impl_->fs, impl_->path, proto, frag));
      deleted = offsets.size();
    }
    rows -= static_cast<int64_t>(deleted);
  }
  return rows;
}

Result<std::vector<VersionInfo>> Dataset::ListVersions() const {
  LANCEDB_ASSIGN_OR_RETURN(auto listing, ListExisting(*impl_->fs, impl_->path));
  std::vector<VersionInfo> out;
  for (uint64_t v : listing.versions) {
    LANCEDB_ASSIGN_OR_RETURN(auto m, ReadManifest(*impl_->fs, impl_->path, v, listing.NamingOf(v)));
    VersionInfo info;
    info.version = v;
    info.timestamp_micros = m->timestamp_micros();
    if (!m->proto().tag().empty()) info.metadata.emplace_back("tag", m->proto().tag());
    out.push_back(std::move(info));
  }
  return out;
}

Result<uint64_t> Dataset::LatestVersion() const {
  LANCEDB_ASSIGN_OR_RETURN(auto latest, FindLatestVersion(*impl_->fs, impl_->path));
  return latest.first;
}

}  // namespace lancedb::table
