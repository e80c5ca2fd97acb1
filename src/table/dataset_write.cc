// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Dataset writes: create, overwrite, append, delete, restore. Data and deletion files are
// written first; nothing is visible until CommitOperation publishes the next manifest.

#include <algorithm>
#include <map>

#include "table/dataset_impl.h"
#include "table/operations.h"

namespace lancedb::table {

namespace {

Status CheckWritable(const Manifest& manifest) {
  return manifest.CheckWriterFlags(kFlagStableRowIds);
}

Result<DatasetPtr> CreateOrOverwrite(const io::FileSystemPtr& fs, const std::string& path,
                                     ManifestPtr base, ManifestNaming naming,
                                     array::RecordBatchReader* data, const WriteParams& params) {
  if (base) LANCEDB_RETURN_NOT_OK(base->CheckWriterFlags(kFlagStableRowIds));
  auto input_schema = data->schema();
  if (input_schema == nullptr) return Status::InvalidArgument("The data has no schema");
  LANCEDB_ASSIGN_OR_RETURN(auto schema, format::LanceSchema::FromArrow(*input_schema));
  // The new table's file version: as asked, else the one the overwritten table has (when
  // lancedb-cpp writes it), else 2.2.
  std::string version_name = params.data_storage_version;
  if (version_name.empty() && base != nullptr) {
    if (WritableFileVersion(*base, "").ok()) version_name = base->data_format_version();
  }
  LANCEDB_ASSIGN_OR_RETURN(auto version,
                           ParseDataStorageVersion(version_name.empty() ? "2.2" : version_name));
  std::vector<std::string> written;
  WriteParams with_bases = params;
  if (!with_bases.external_blob_bases && base) {
    with_bases.external_blob_bases = ExternalBlobBasesOf(base->proto());
  }
  auto fragments = WriteFragments(fs, path, schema, data, with_bases, version, &written);
  if (!fragments.ok()) {
    for (const auto& p : written) (void)fs->DeleteFile(p);
    return fragments.status();
  }
  OverwriteOperation op(fragments.MoveValueUnsafe(), std::move(schema), base == nullptr);
  op.set_enable_stable_row_ids(base == nullptr && params.enable_stable_row_ids);
  op.set_fail_if_rebased(params.fail_if_rebased);
  op.set_data_format_version(std::to_string(version.major) + "." + std::to_string(version.minor));
  op.data_files = std::move(written);
  return CommitOperation(fs, path, std::move(base), naming, &op,
                         CommitOptions{params.commit_timeout});
}

}  // namespace

Result<DatasetPtr> Dataset::Write(io::FileSystemPtr fs, std::string path,
                                  array::RecordBatchReader* data, const WriteParams& params) {
  LANCEDB_ASSIGN_OR_RETURN(auto listing, ListVersionFiles(*fs, path));
  if (listing.versions.empty()) {
    return CreateOrOverwrite(
        fs, path, nullptr,
        params.enable_v2_manifest_paths ? ManifestNaming::kV2 : ManifestNaming::kV1, data, params);
  }
  if (params.mode == WriteMode::kCreate) {
    return Status::AlreadyExists("Dataset '" + path + "' already exists");
  }
  LANCEDB_ASSIGN_OR_RETURN(auto latest, Open(fs, path));
  if (params.mode == WriteMode::kAppend) return latest->Append(data, params);
  return latest->Overwrite(data, params);
}

Result<DatasetPtr> Dataset::Append(array::RecordBatchReader* data,
                                   const WriteParams& params) const {
  const Manifest& manifest = *impl_->manifest;
  LANCEDB_RETURN_NOT_OK(CheckWritable(manifest));
  LANCEDB_ASSIGN_OR_RETURN(auto version, WritableFileVersion(manifest, "Appending to"));
  if (data->schema() == nullptr) return Status::InvalidArgument("The data has no schema");
  LANCEDB_RETURN_NOT_OK(CheckAppendSchema(*impl_->schema, *data->schema()));
  std::vector<std::string> written;
  WriteParams with_bases = params;
  if (!with_bases.external_blob_bases) with_bases.external_blob_bases = external_blob_bases();
  auto fragments = WriteFragments(impl_->fs, impl_->path, manifest.schema(), data, with_bases,
                                  version, &written);
  if (!fragments.ok()) {
    for (const auto& p : written) (void)impl_->fs->DeleteFile(p);
    return fragments.status();
  }
  AppendOperation op(fragments.MoveValueUnsafe());
  op.data_files = std::move(written);
  return CommitOperation(impl_->fs, impl_->path, impl_->manifest, impl_->naming, &op,
                         CommitOptions{params.commit_timeout});
}

Result<DatasetPtr> Dataset::Overwrite(array::RecordBatchReader* data,
                                      const WriteParams& params) const {
  return CreateOrOverwrite(impl_->fs, impl_->path, impl_->manifest, impl_->naming, data, params);
}

Result<DatasetPtr> Dataset::DeleteRows(const std::vector<uint64_t>& row_addresses,
                                       int64_t* num_deleted) const {
  if (num_deleted) *num_deleted = 0;
  LANCEDB_RETURN_NOT_OK(CheckWritable(*impl_->manifest));
  std::map<uint64_t, uint64_t> physical_rows;
  for (const auto& frag : impl_->manifest->proto().fragments()) {
    physical_rows[frag.id()] = frag.physical_rows();
  }
  std::map<uint64_t, std::vector<uint32_t>> deletions;
  for (uint64_t addr : row_addresses) {
    uint64_t frag = addr >> 32;
    uint32_t offset = static_cast<uint32_t>(addr & 0xFFFFFFFFu);
    auto it = physical_rows.find(frag);
    if (it == physical_rows.end() || offset >= it->second) {
      return Status::InvalidArgument("Row address " + std::to_string(addr) + " (fragment " +
                                     std::to_string(frag) + ", offset " + std::to_string(offset) +
                                     ") does not exist in version " + std::to_string(version()));
    }
    deletions[frag].push_back(offset);
  }
  if (deletions.empty()) {
    return MakeDataset(impl_->fs, impl_->path, impl_->manifest, impl_->naming);
  }
  for (auto& [frag, offsets] : deletions) {
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  }
  DeleteOperation op(std::move(deletions));
  LANCEDB_ASSIGN_OR_RETURN(
      auto result, CommitOperation(impl_->fs, impl_->path, impl_->manifest, impl_->naming, &op));
  if (num_deleted) *num_deleted = op.num_deleted();
  return result;
}

Result<DatasetPtr> Dataset::Restore() const {
  LANCEDB_ASSIGN_OR_RETURN(auto latest, Open(impl_->fs, impl_->path));
  LANCEDB_RETURN_NOT_OK(latest->manifest().CheckWriterFlags(kFlagStableRowIds));
  RestoreOperation op(impl_->manifest);
  return CommitOperation(impl_->fs, impl_->path, latest->impl_->manifest, latest->impl_->naming,
                         &op);
}

}  // namespace lancedb::table
