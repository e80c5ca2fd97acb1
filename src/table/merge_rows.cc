// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/merge_rows.h"

#include <algorithm>
#include <map>
#include <memory>

#include "table/dataset_impl.h"
#include "table/operations.h"
#include "table/row_ids.h"
#include "table/stable_row_ids.h"

namespace lancedb::table {
namespace {

/// An Update whose new rows are, in order, the rewritten rows (which keep their stable ids) and
/// the inserted rows (fresh ids from next_row_id, taken when each attempt is built).
class MergeRowsOperation : public Operation {
 public:
  MergeRowsOperation(std::map<uint64_t, std::vector<uint32_t>> deletions,
                     std::vector<pb::DataFragment> fragments, std::vector<uint64_t> kept_ids,
                     std::vector<uint64_t> kept_created, uint64_t num_new_rows)
      : update_(std::move(deletions), std::move(fragments)),
        kept_ids_(std::move(kept_ids)),
        kept_created_(std::move(kept_created)),
        num_new_rows_(num_new_rows) {}
  std::string_view name() const override { return "Update"; }
  bool supports_stable_row_ids() const override { return true; }

  Status Build(CommitAttempt* a) override {
    const uint64_t next = a->manifest.next_row_id();
    const uint64_t fresh = num_new_rows_ - kept_ids_.size();
    std::vector<uint64_t> ids = kept_ids_;
    ids.reserve(num_new_rows_);
    for (uint64_t i = 0; i < fresh; ++i) ids.push_back(next + i);
    std::vector<uint64_t> created;
    if (kept_created_.size() == kept_ids_.size()) {
      created = kept_created_;
      created.resize(num_new_rows_, a->manifest.version());
    }
    update_.set_stable_row_ids(std::move(ids), std::move(created));
    LANCEDB_RETURN_NOT_OK(update_.Build(a));
    a->manifest.set_next_row_id(next + fresh);
    return Status::OK();
  }
  int64_t num_deleted() const { return update_.num_deleted(); }

 private:
  UpdateOperation update_;
  std::vector<uint64_t> kept_ids_;
  std::vector<uint64_t> kept_created_;
  uint64_t num_new_rows_;
};

/// Wraps an operation: sets the schema metadata and, when asked, refuses to rebase.
class GuardedOperation : public Operation {
 public:
  GuardedOperation(Operation* inner, const MergeRowsOptions& options)
      : inner_(inner), options_(options) {}
  std::string_view name() const override { return inner_->name(); }
  bool supports_stable_row_ids() const override { return inner_->supports_stable_row_ids(); }

  Status Build(CommitAttempt* a) override {
    if (options_.fail_if_moved && a->read && a->base && a->base->version() != a->read->version()) {
      return Status::CommitConflict(std::string(inner_->name()) + " of version " +
                                    std::to_string(a->read->version()) +
                                    " conflicts with a concurrent write that committed version " +
                                    std::to_string(a->base->version()));
    }
    LANCEDB_RETURN_NOT_OK(inner_->Build(a));
    if (options_.schema_metadata) {
      MetadataToProto(*options_.schema_metadata, a->manifest.mutable_schema_metadata());
    }
    return Status::OK();
  }

 private:
  Operation* inner_;
  const MergeRowsOptions& options_;
};

/// The stable ids and created-at versions of the rows at `addresses` (versions empty when a
/// fragment records none).
Status LookUpStableIds(const Dataset& ds, const std::vector<uint64_t>& addresses,
                       std::vector<uint64_t>* ids, std::vector<uint64_t>* created) {
  std::map<uint64_t, const pb::DataFragment*> frags;
  for (const auto& frag : ds.manifest().proto().fragments()) frags[frag.id()] = &frag;
  std::map<uint64_t, std::pair<std::vector<uint64_t>, std::vector<uint64_t>>> cache;
  bool versions = true;
  for (uint64_t addr : addresses) {
    const uint64_t fid = addr >> 32;
    const size_t offset = static_cast<size_t>(addr & 0xFFFFFFFFu);
    auto it = cache.find(fid);
    if (it == cache.end()) {
      const pb::DataFragment& frag = *frags.at(fid);
      LANCEDB_ASSIGN_OR_RETURN(auto frag_ids, FragmentRowIds(*ds.fs(), ds.path(), frag));
      LANCEDB_ASSIGN_OR_RETURN(auto frag_created,
                               FragmentRowVersions(*ds.fs(), ds.path(), frag, true));
      it = cache.emplace(fid, std::make_pair(std::move(frag_ids), std::move(frag_created))).first;
    }
    if (offset >= it->second.first.size()) {
      return Status::Corruption("Fragment " + std::to_string(fid) + " has no row id at offset " +
                                std::to_string(offset));
    }
    ids->push_back(it->second.first[offset]);
    versions = versions && offset < it->second.second.size();
    if (versions) created->push_back(it->second.second[offset]);
  }
  if (!versions) created->clear();
  return Status::OK();
}

}  // namespace

Result<DatasetPtr> MergeRows(const DatasetPtr& dataset, const MergeChanges& changes,
                             array::RecordBatchReader* new_rows, int64_t* num_removed,
                             const MergeRowsOptions& options) {
  if (num_removed) *num_removed = 0;
  const bool stable = UsesStableRowIds(*dataset);
  if (!stable && !options.schema_metadata && !options.fail_if_moved) {
    std::vector<uint64_t> all = changes.replaced;
    all.insert(all.end(), changes.removed.begin(), changes.removed.end());
    int64_t replaced = 0;
    LANCEDB_ASSIGN_OR_RETURN(auto result, dataset->UpdateRows(all, new_rows, &replaced));
    if (num_removed) *num_removed = replaced;
    return result;
  }
  const Manifest& manifest = dataset->manifest();
  LANCEDB_RETURN_NOT_OK(manifest.CheckWriterFlags(kFlagStableRowIds));
  LANCEDB_ASSIGN_OR_RETURN(auto file_version, WritableFileVersion(manifest, "Updating"));
  if (new_rows->schema() == nullptr) return Status::InvalidArgument("The data has no schema");
  LANCEDB_RETURN_NOT_OK(CheckAppendSchema(*dataset->schema(), *new_rows->schema()));
  std::map<uint64_t, uint64_t> physical_rows;
  for (const auto& frag : manifest.proto().fragments()) {
    physical_rows[frag.id()] = frag.physical_rows();
  }
  std::map<uint64_t, std::vector<uint32_t>> deletions;
  size_t num_addresses = 0;
  for (const auto* list : {&changes.replaced, &changes.removed}) {
    for (uint64_t addr : *list) {
      const uint64_t frag = addr >> 32;
      const auto offset = static_cast<uint32_t>(addr & 0xFFFFFFFFu);
      auto it = physical_rows.find(frag);
      if (it == physical_rows.end() || offset >= it->second) {
        return Status::InvalidArgument("Row address " + std::to_string(addr) +
                                       " does not exist in version " +
                                       std::to_string(dataset->version()));
      }
      deletions[frag].push_back(offset);
      ++num_addresses;
    }
  }
  size_t unique = 0;
  for (auto& [frag, offsets] : deletions) {
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    unique += offsets.size();
  }
  if (unique != num_addresses) {
    return Status::InvalidArgument("A merge cannot replace or remove a row twice");
  }
  std::vector<uint64_t> kept_ids, kept_created;
  if (stable) {
    LANCEDB_RETURN_NOT_OK(LookUpStableIds(*dataset, changes.replaced, &kept_ids, &kept_created));
  }
  std::vector<std::string> written;
  WriteParams params;
  params.external_blob_bases = dataset->external_blob_bases();
  params.allow_external_blob_outside_bases = options.allow_external_blob_outside_bases;
  auto fragments = WriteFragments(dataset->fs(), dataset->path(), manifest.schema(), new_rows,
                                  params, file_version, &written);
  auto discard = [&written, &dataset] {
    for (const auto& p : written) (void)dataset->fs()->DeleteFile(p);
  };
  if (!fragments.ok()) {
    discard();
    return fragments.status();
  }
  uint64_t num_new_rows = 0;
  for (const auto& f : *fragments) num_new_rows += f.physical_rows();
  if (num_new_rows < kept_ids.size()) {
    discard();
    return Status::InvalidArgument("A merge replacing " + std::to_string(kept_ids.size()) +
                                   " rows needs at least as many new rows, got " +
                                   std::to_string(num_new_rows));
  }
  std::unique_ptr<MergeRowsOperation> merge;
  std::unique_ptr<UpdateOperation> update;
  Operation* inner = nullptr;
  if (stable) {
    merge = std::make_unique<MergeRowsOperation>(std::move(deletions), fragments.MoveValueUnsafe(),
                                                 std::move(kept_ids), std::move(kept_created),
                                                 num_new_rows);
    inner = merge.get();
  } else {
    update = std::make_unique<UpdateOperation>(std::move(deletions), fragments.MoveValueUnsafe());
    inner = update.get();
  }
  GuardedOperation op(inner, options);
  op.data_files = std::move(written);
  LANCEDB_ASSIGN_OR_RETURN(auto result, CommitOperation(dataset, &op));
  if (num_removed) *num_removed = merge ? merge->num_deleted() : update->num_deleted();
  return result;
}

}  // namespace lancedb::table
