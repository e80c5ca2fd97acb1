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

namespace lancedb::table {

Status UpdateOperation::Build(CommitAttempt* a) {
  LANCEDB_RETURN_NOT_OK(delete_.Build(a));
  pb::Transaction::Delete del = std::move(*a->transaction.mutable_delete_());
  a->transaction.clear_delete_();
  auto* update = a->transaction.mutable_update();
  update->mutable_removed_fragment_ids()->CopyFrom(del.deleted_fragment_ids());
  update->mutable_updated_fragments()->CopyFrom(del.updated_fragments());
  update->set_update_mode(pb::Transaction::REWRITE_ROWS);
  uint64_t next = NextFragmentId(a->manifest);
  for (const auto& frag : new_fragments_) {
    pb::DataFragment copy = frag;
    copy.set_id(next++);
    *a->manifest.add_fragments() = copy;
    *update->add_new_fragments() = std::move(copy);
  }
  UpdateMaxFragmentId(&a->manifest);
  return Status::OK();
}

Status UpdateOperation::CheckConflict(const pb::Transaction& theirs, uint64_t version) const {
  if (theirs.has_delete_()) {
    // A concurrent delete of some of the rows we rewrote would resurrect them: refuse when both
    // touched the same fragment.
    const auto& d = theirs.delete_();
    std::vector<uint64_t> touched(d.deleted_fragment_ids().begin(), d.deleted_fragment_ids().end());
    for (const auto& f : d.updated_fragments()) touched.push_back(f.id());
    Status conflict = delete_.CheckConflict(theirs, version);
    if (!conflict.ok()) return conflict;
    pb::Transaction as_update;
    for (uint64_t id : touched) as_update.mutable_update()->add_removed_fragment_ids(id);
    Status st = delete_.CheckConflict(as_update, version);
    if (!st.ok()) {
      return Status::CommitConflict(
          "Update conflicts with the concurrent Delete committed as "
          "version " +
          std::to_string(version) + "; reload the table and retry");
    }
    return Status::OK();
  }
  Status st = delete_.CheckConflict(theirs, version);
  if (!st.ok()) {
    std::string msg = st.message();
    if (msg.rfind("Delete", 0) == 0) msg = "Update" + msg.substr(6);
    return Status(st.code(), msg);
  }
  return Status::OK();
}

Result<DatasetPtr> Dataset::UpdateRows(const std::vector<uint64_t>& row_addresses,
                                       array::RecordBatchReader* new_rows,
                                       int64_t* num_updated) const {
  if (num_updated) *num_updated = 0;
  const Manifest& manifest = *impl_->manifest;
  LANCEDB_RETURN_NOT_OK(manifest.CheckWriterFlags(kFlagStableRowIds));
  if ((manifest.proto().reader_feature_flags() & kFlagStableRowIds) != 0) {
    return Status::NotSupported("Update on tables with stable row ids is not supported yet");
  }
  if (manifest.data_format_version() != "2.2") {
    return Status::NotSupported("Updating a dataset with data file version " +
                                manifest.data_format_version() + " is not supported yet");
  }
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
  std::vector<std::string> written;
  auto fragments =
      WriteFragments(impl_->fs, impl_->path, manifest.schema(), new_rows, WriteParams{}, &written);
  if (!fragments.ok()) {
    for (const auto& p : written) (void)impl_->fs->DeleteFile(p);
    return fragments.status();
  }
  UpdateOperation op(std::move(deletions), fragments.MoveValueUnsafe());
  op.data_files = std::move(written);
  LANCEDB_ASSIGN_OR_RETURN(
      auto result, CommitOperation(impl_->fs, impl_->path, impl_->manifest, impl_->naming, &op,
                                   WriteParams{}.max_retries));
  if (num_updated) *num_updated = op.num_deleted();
  return result;
}

}  // namespace lancedb::table
