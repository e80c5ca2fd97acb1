// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Dataset::UpdateRows and the Update operation (lance-format.md §1.3: Transaction.Update with
// update_mode REWRITE_ROWS): the new versions of the rows go to new fragments, the old rows get
// deletion-file entries, all in one commit.

#include <algorithm>
#include <map>

#include "table/dataset_impl.h"
#include "table/operations.h"
#include "table/proto/rowids.pb.h"
#include "table/row_ids.h"
#include "table/stable_row_ids.h"

namespace lancedb::table {

Status UpdateOperation::Build(CommitAttempt* a) {
  size_t expected = 0;
  for (const auto& entry : delete_.deletions()) expected += entry.second.size();
  LANCEDB_RETURN_NOT_OK(delete_.Build(a));
  // Every row we rewrite must have been live (the delete's rebase rules make sure no writer we
  // rebased over deleted or rewrote it), or the old row would be duplicated.
  if (static_cast<size_t>(delete_.num_deleted()) != expected) {
    return Status::RetryableCommitConflict(
        "Update conflicts with a concurrent write that deleted or rewrote " +
        std::to_string(expected - static_cast<size_t>(delete_.num_deleted())) +
        " of its rows; retry on the new version");
  }
  pb::Transaction::Delete del = std::move(*a->transaction.mutable_delete_());
  a->transaction.clear_delete_();
  auto* update = a->transaction.mutable_update();
  update->mutable_removed_fragment_ids()->CopyFrom(del.deleted_fragment_ids());
  update->mutable_updated_fragments()->CopyFrom(del.updated_fragments());
  update->set_update_mode(pb::Transaction::REWRITE_ROWS);
  uint64_t next = NextFragmentId(a->manifest);
  const bool stable = (a->manifest.reader_feature_flags() & kFlagStableRowIds) != 0;
  size_t offset = 0;
  for (const auto& frag : new_fragments_) {
    pb::DataFragment copy = frag;
    copy.set_id(next++);
    if (stable) {
      // The rewritten rows keep their ids; they were last updated by this version.
      const size_t n = copy.physical_rows();
      if (offset + n > stable_ids_.size()) {
        return Status::Internal("Update on a table with stable row ids is missing row ids");
      }
      pb::RowIdSequence seq;
      EncodeRowIdSegment(stable_ids_.data() + offset, n, seq.add_segments());
      copy.set_inline_row_ids(seq.SerializeAsString());
      if (created_.size() == stable_ids_.size()) {
        copy.set_inline_created_at_versions(EncodeVersionRuns(created_.data() + offset, n));
      }
      std::vector<uint64_t> updated(n, a->manifest.version());
      copy.set_inline_last_updated_at_versions(EncodeVersionRuns(updated.data(), n));
      offset += n;
    }
    *a->manifest.add_fragments() = copy;
    *update->add_new_fragments() = std::move(copy);
  }
  UpdateMaxFragmentId(&a->manifest);
  return Status::OK();
}

Result<DatasetPtr> Dataset::UpdateRows(const std::vector<uint64_t>& row_addresses,
                                       array::RecordBatchReader* new_rows,
                                       int64_t* num_updated) const {
  if (num_updated) *num_updated = 0;
  const Manifest& manifest = *impl_->manifest;
  LANCEDB_RETURN_NOT_OK(manifest.CheckWriterFlags(kFlagStableRowIds));
  const bool stable = (manifest.proto().reader_feature_flags() & kFlagStableRowIds) != 0;
  LANCEDB_ASSIGN_OR_RETURN(auto file_version, WritableFileVersion(manifest, "Updating"));
  if (new_rows->schema() == nullptr) return Status::InvalidArgument("The data has no schema");
  LANCEDB_RETURN_NOT_OK(CheckAppendSchema(*impl_->schema, *new_rows->schema()));
  std::map<uint64_t, uint64_t> physical_rows;
  for (const auto& frag : manifest.proto().fragments()) {
    physical_rows[frag.id()] = frag.physical_rows();
  }
  std::map<uint64_t, std::vector<uint32_t>> deletions;
  for (uint64_t addr : row_addresses) {
    const uint64_t frag = addr >> 32;
    const uint32_t offset = static_cast<uint32_t>(addr & 0xFFFFFFFFu);
    auto it = physical_rows.find(frag);
    if (it == physical_rows.end() || offset >= it->second) {
      return Status::InvalidArgument("Row address " + std::to_string(addr) +
                                     " does not exist in version " + std::to_string(version()));
    }
    deletions[frag].push_back(offset);
  }
  for (auto& [frag, offsets] : deletions) {
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  }
  // With stable row ids each new row keeps the id and created-at version of the row it replaces
  // (one new row per address, in the same order).
  std::vector<uint64_t> stable_ids, created;
  if (stable) {
    std::map<uint64_t, const pb::DataFragment*> frags;
    for (const auto& frag : manifest.proto().fragments()) frags[frag.id()] = &frag;
    std::map<uint64_t, std::pair<std::vector<uint64_t>, std::vector<uint64_t>>> cache;
    bool versions = true;
    for (uint64_t addr : row_addresses) {
      const uint64_t fid = addr >> 32;
      const size_t off = static_cast<size_t>(addr & 0xFFFFFFFFu);
      auto it = cache.find(fid);
      if (it == cache.end()) {
        LANCEDB_ASSIGN_OR_RETURN(auto ids, FragmentRowIds(*impl_->fs, impl_->path, *frags.at(fid)));
        auto c = FragmentRowVersions(*impl_->fs, impl_->path, *frags.at(fid), true);
        it = cache
                 .emplace(fid, std::make_pair(std::move(ids), c.ok() ? c.MoveValueUnsafe()
                                                                     : std::vector<uint64_t>{}))
                 .first;
      }
      if (off >= it->second.first.size()) {
        return Status::Corruption("Fragment " + std::to_string(fid) + " has no row id at offset " +
                                  std::to_string(off));
      }
      stable_ids.push_back(it->second.first[off]);
      if (off < it->second.second.size()) {
        created.push_back(it->second.second[off]);
      } else {
        versions = false;
      }
    }
    if (!versions) created.clear();
  }
  std::vector<std::string> written;
  WriteParams params;
  params.external_blob_bases = external_blob_bases();
  auto fragments = WriteFragments(impl_->fs, impl_->path, manifest.schema(), new_rows, params,
                                  file_version, &written);
  if (!fragments.ok()) {
    for (const auto& p : written) (void)impl_->fs->DeleteFile(p);
    return fragments.status();
  }
  std::vector<uint64_t> fragments_written;
  for (const auto& f : *fragments) fragments_written.push_back(f.physical_rows());
  UpdateOperation op(std::move(deletions), fragments.MoveValueUnsafe());
  op.data_files = std::move(written);
  if (stable) {
    uint64_t rows = 0;
    for (const auto& f : fragments_written) rows += f;
    if (rows != row_addresses.size()) {
      for (const auto& p : op.data_files) (void)impl_->fs->DeleteFile(p);
      return Status::InvalidArgument(
          "Update on a table with stable row ids needs exactly one new row per replaced row");
    }
    op.set_stable_row_ids(std::move(stable_ids), std::move(created));
  }
  LANCEDB_ASSIGN_OR_RETURN(
      auto result, CommitOperation(impl_->fs, impl_->path, impl_->manifest, impl_->naming, &op));
  if (num_updated) *num_updated = op.num_deleted();
  return result;
}

}  // namespace lancedb::table
