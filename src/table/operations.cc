// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Building manifests for each operation (see operations.h).

#include "table/operations.h"

#include <algorithm>
#include <iterator>

#include "table/deletion.h"
#include "table/proto/rowids.pb.h"

namespace lancedb::table {

namespace {

bool UsesStableRowIds(const pb::Manifest& m) {
  return (m.reader_feature_flags() & kFlagStableRowIds) != 0;
}

}  // namespace

void AssignStableRowIds(pb::DataFragment* frag, uint64_t version, pb::Manifest* m) {
  const uint64_t rows = frag->physical_rows();
  pb::RowIdSequence ids;
  auto* range = ids.add_segments()->mutable_range();
  range->set_start(m->next_row_id());
  range->set_end(m->next_row_id() + rows);
  frag->set_inline_row_ids(ids.SerializeAsString());
  pb::RowDatasetVersionSequence versions;
  auto* run = versions.add_runs();
  run->mutable_span()->mutable_range()->set_start(0);
  run->mutable_span()->mutable_range()->set_end(rows);
  run->set_version(version);
  std::string bytes = versions.SerializeAsString();
  frag->set_inline_created_at_versions(bytes);
  frag->set_inline_last_updated_at_versions(bytes);
  m->set_next_row_id(m->next_row_id() + rows);
}

Status AppendOperation::Build(CommitAttempt* a) {
  auto* append = a->transaction.mutable_append();
  uint64_t next = NextFragmentId(a->manifest);
  const bool stable = UsesStableRowIds(a->manifest);
  for (const auto& frag : fragments_) {
    pb::DataFragment copy = frag;
    copy.set_id(next++);
    if (stable) AssignStableRowIds(&copy, a->manifest.version(), &a->manifest);
    *a->manifest.add_fragments() = copy;
    *append->add_fragments() = std::move(copy);
  }
  UpdateMaxFragmentId(&a->manifest);
  return Status::OK();
}

Status OverwriteOperation::Build(CommitAttempt* a) {
  if (fail_if_rebased_ && a->read != nullptr && a->base != a->read) {
    return Status::RetryableCommitConflict(
        "Overwrite read version " + std::to_string(a->read->version()) +
        ", but another writer committed after it; read the table again and retry");
  }
  pb::Manifest& m = a->manifest;
  // A table with stable row ids keeps them (and its id counter) across an overwrite.
  const bool stable = UsesStableRowIds(m) || (a->base == nullptr && enable_stable_row_ids_);
  m.clear_fragments();
  m.set_reader_feature_flags(stable ? kFlagStableRowIds : 0);
  m.set_writer_feature_flags(stable ? kFlagStableRowIds : 0);
  auto* overwrite = a->transaction.mutable_overwrite();
  uint64_t next = 0;
  for (const auto& frag : fragments_) {
    pb::DataFragment copy = frag;
    copy.set_id(next++);
    if (stable) AssignStableRowIds(&copy, m.version(), &m);
    *m.add_fragments() = copy;
    *overwrite->add_fragments() = std::move(copy);
  }
  UpdateMaxFragmentId(&m, /*reset=*/true);
  SetManifestSchema(schema_, &m);
  for (const auto& f : m.fields()) *overwrite->add_schema() = f;
  *overwrite->mutable_schema_metadata() = m.schema_metadata();
  auto* format = m.mutable_data_format();
  format->set_file_format("lance");
  format->set_version(data_format_version_);
  a->indices.Clear();
  return Status::OK();
}

namespace {

const pb::DataFragment* FindFragment(const pb::Manifest& m, uint64_t id) {
  for (const auto& f : m.fragments()) {
    if (f.id() == id) return &f;
  }
  return nullptr;
}

Status Preempted(std::string_view ours, uint64_t fragment, uint64_t version,
                 std::string_view what) {
  return Status::RetryableCommitConflict(
      std::string(ours) + " conflicts with a concurrent write committed by version " +
      std::to_string(version) + ": " + std::string(what) + " fragment " + std::to_string(fragment) +
      "; retry on the new version");
}

}  // namespace

Status DeleteOperation::Build(CommitAttempt* a) {
  num_deleted_ = 0;
  auto* del = a->transaction.mutable_delete_();
  const pb::Manifest& base = a->base->proto();
  const bool rebased = a->read != nullptr && a->read != a->base;
  size_t found = 0;
  google::protobuf::RepeatedPtrField<pb::DataFragment> kept;
  for (const auto& frag : a->manifest.fragments()) {
    auto it = deletions_.find(frag.id());
    if (it == deletions_.end()) {
      *kept.Add() = frag;
      continue;
    }
    ++found;
    LANCEDB_DCHECK(std::is_sorted(it->second.begin(), it->second.end()));
    LANCEDB_ASSIGN_OR_RETURN(auto existing, ReadDeletions(*a->fs, a->root, base, frag));
    const pb::DataFragment* before = rebased ? FindFragment(a->read->proto(), frag.id()) : nullptr;
    if (rebased && before != nullptr && !SameDataFiles(*before, frag)) {
      return Preempted(label_, frag.id(), a->base->version(), "it replaced the data files of");
    }
    if (rebased && before != nullptr && !SameDeletionFile(*before, frag)) {
      // Rows deleted by the writers we rebase over must not be rows we delete.
      LANCEDB_ASSIGN_OR_RETURN(auto at_read,
                               ReadDeletions(*a->fs, a->root, a->read->proto(), *before));
      std::vector<uint32_t> newly;
      std::set_difference(existing.begin(), existing.end(), at_read.begin(), at_read.end(),
                          std::back_inserter(newly));
      std::vector<uint32_t> both;
      std::set_intersection(newly.begin(), newly.end(), it->second.begin(), it->second.end(),
                            std::back_inserter(both));
      if (!both.empty()) {
        return Preempted(label_, frag.id(), a->base->version(),
                         "it deleted " + std::to_string(both.size()) + " of the same rows of");
      }
    }
    std::vector<uint32_t> merged = UnionOffsets(existing, it->second);
    num_deleted_ += static_cast<int64_t>(merged.size() - existing.size());
    if (merged.size() >= frag.physical_rows()) {
      del->add_deleted_fragment_ids(frag.id());
      continue;
    }
    pb::DataFragment updated = frag;
    if (merged.size() > existing.size()) {
      LANCEDB_ASSIGN_OR_RETURN(auto file,
                               WriteDeletions(*a->fs, a->root, frag.id(), a->read_version, merged));
      a->written_files.push_back(
          io::JoinPath(io::JoinPath(a->root, "_deletions"), DeletionFileName(frag.id(), file)));
      *updated.mutable_deletion_file() = file;
      *del->add_updated_fragments() = updated;
    }
    *kept.Add() = std::move(updated);
  }
  if (found != deletions_.size()) {
    for (const auto& [id, offsets] : deletions_) {
      if (FindFragment(a->manifest, id) == nullptr) {
        return Preempted(label_, id, a->base->version(), "it removed");
      }
    }
  }
  *a->manifest.mutable_fragments() = std::move(kept);
  return Status::OK();
}

Status RestoreOperation::Build(CommitAttempt* a) {
  pb::Manifest m = target_->proto();
  m.set_version(a->manifest.version());
  if (a->manifest.has_max_fragment_id()) {
    m.set_max_fragment_id(m.has_max_fragment_id()
                              ? std::max(m.max_fragment_id(), a->manifest.max_fragment_id())
                              : a->manifest.max_fragment_id());
  }
  m.clear_transaction_file();
  m.clear_transaction_section();
  m.clear_index_section();
  m.clear_tag();
  a->manifest = std::move(m);
  a->indices = target_->index_section();
  a->transaction.mutable_restore()->set_version(target_->version());
  return Status::OK();
}

namespace {

std::string DescribeBase(const pb::BasePath& base) {
  return "name='" + (base.has_name() ? base.name() : std::string()) + "', path='" + base.path() +
         "'";
}

}  // namespace

Status UpdateBasesOperation::Build(CommitAttempt* a) {
  pb::Manifest& m = a->manifest;
  auto* update = a->transaction.mutable_update_bases();
  for (const auto& wanted : bases_) {
    for (const auto& existing : m.base_paths()) {
      // As Lance 12: two unnamed bases have the same (absent) name.
      const bool same_name = wanted.has_name() == existing.has_name() &&
                             (!wanted.has_name() || wanted.name() == existing.name());
      if (same_name || wanted.path() == existing.path()) {
        return Status::InvalidArgument("Conflict detected: Base path with name '" + wanted.name() +
                                       "' or path '" + wanted.path() +
                                       "' already exists. Existing: " + DescribeBase(existing));
      }
      if (wanted.id() != 0 && wanted.id() == existing.id()) {
        return Status::InvalidArgument("Duplicate base path ID " + std::to_string(wanted.id()) +
                                       " detected. Base path IDs must be unique.");
      }
    }
    pb::BasePath base = wanted;
    if (base.id() == 0) {
      uint32_t next = 1;
      for (const auto& existing : m.base_paths()) next = std::max(next, existing.id() + 1);
      base.set_id(next);
    }
    *m.add_base_paths() = base;
    *update->add_new_bases() = std::move(base);
  }
  return Status::OK();
}

}  // namespace lancedb::table
