// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// ReplayOperation::Build for commits that change indices, the schema or the whole content
// (cherry_pick_replay.h).

#include <algorithm>

#include "table/cherry_pick_replay.h"
#include "table/create_index_op.h"

namespace lancedb::table {
namespace {

using replay_detail::BitmapIds;
using replay_detail::EncodeIds;
using replay_detail::Frag;
using replay_detail::HasFragment;
using replay_detail::kUnmapped;
using replay_detail::RemoveFragment;

template <typename Map>
void ApplyUpdateMap(const pb::Transaction::UpdateMap& update, Map* m) {
  if (update.replace()) m->clear();
  for (const auto& e : update.update_entries()) {
    if (e.has_value()) {
      (*m)[e.key()] = e.value();
    } else {
      m->erase(e.key());
    }
  }
}

}  // namespace

std::string ReplayOperation::RemapBitmap(const std::string& bitmap,
                                         const pb::Manifest& target) const {
  if (bitmap.empty()) return bitmap;
  std::vector<uint32_t> ids;
  for (uint32_t id : BitmapIds(bitmap)) {
    const uint64_t t = MapId(id);
    if (t != kUnmapped && HasFragment(target, t)) ids.push_back(static_cast<uint32_t>(t));
  }
  return EncodeIds(std::move(ids));
}

Result<pb::IndexMetadata> ReplayOperation::RelocateIndex(CommitAttempt* a,
                                                         const pb::IndexMetadata& index) {
  for (uint32_t id : BitmapIds(index.fragment_bitmap())) {
    const uint64_t t = MapId(id);
    if (id >= ctx_->boundary && t != kUnmapped && t != id) {
      return Status::NotSupported(
          "Replaying index '" + index.name() + "' is not supported: it covers " + Frag(id) +
          ", which gets id " + std::to_string(t) +
          " on the target (the target added fragments since the fork), and index files name "
          "rows by fragment id; drop the index on the branch and build it after the "
          "cherry-pick");
    }
  }
  pb::IndexMetadata copy = index;
  const std::string uuid = IndexUuidString(index);
  LANCEDB_ASSIGN_OR_RETURN(
      auto base,
      Relocate(a, index.has_base_id() ? std::optional<uint32_t>(index.base_id()) : std::nullopt,
               "_indices", uuid, uuid, true));
  if (base) {
    copy.set_base_id(*base);
  } else {
    copy.clear_base_id();
  }
  copy.set_fragment_bitmap(RemapBitmap(index.fragment_bitmap(), a->manifest));
  return copy;
}

Status ReplayOperation::BuildCreateIndex(CommitAttempt* a) {
  const auto& ci = txn_->create_index();
  auto* out = a->transaction.mutable_create_index();
  auto* indices = a->indices.mutable_indices();
  for (const auto& gone : ci.removed_indices()) {
    for (int i = 0; i < indices->size(); ++i) {
      if (indices->Get(i).uuid().uuid() == gone.uuid().uuid()) {
        *out->add_removed_indices() = indices->Get(i);
        indices->DeleteSubrange(i, 1);
        break;
      }
    }
  }
  std::set<std::string> known;  // segments the branch knew before this commit
  for (const auto& m : prev_->index_section().indices()) known.insert(m.uuid().uuid());
  for (const auto& added : ci.new_indices()) {
    if (ctx_->transient_indices.count(added.uuid().uuid())) continue;
    for (const auto& existing : a->indices.indices()) {
      if (existing.name() == added.name() && !known.count(existing.uuid().uuid())) {
        return Conflict("indexChanged",
                        "Both sides created an index named '" + added.name() + "' since the fork");
      }
    }
    for (int32_t field : added.fields()) {
      const auto& fields = a->manifest.fields();
      if (std::none_of(fields.begin(), fields.end(),
                       [&](const auto& f) { return f.id() == field; })) {
        return Conflict("columnChanged", "The branch's index '" + added.name() +
                                             "' is on a column the target no longer has");
      }
    }
    LANCEDB_ASSIGN_OR_RETURN(auto moved, RelocateIndex(a, added));
    *indices->Add() = moved;
    *out->add_new_indices() = std::move(moved);
  }
  return Status::OK();
}

Status ReplayOperation::BuildMerge(CommitAttempt* a) {
  const auto& mg = txn_->merge();
  auto* out = a->transaction.mutable_merge();
  std::set<uint64_t> visited;
  for (const auto& f : mg.fragments()) {
    const pb::DataFragment* prev = FindPrev(f.id());
    if (prev == nullptr) {
      return Status::NotSupported("Replaying a Merge commit that adds fragments is not supported");
    }
    const uint64_t t = MapId(f.id());
    pb::DataFragment* target = t == kUnmapped ? nullptr : FindTarget(a, t);
    if (target == nullptr) continue;  // the target deleted all its rows
    if (!SameFragmentFiles(*target, *prev, false)) {
      return Conflict("columnChanged", "The branch added columns to " + Frag(t) +
                                           ", whose data files the target rewrote since the fork");
    }
    pb::DataFragment copy = f;
    copy.set_id(t);
    copy.clear_deletion_file();
    LANCEDB_RETURN_NOT_OK(RelocateFragment(a, f.id(), &copy));
    pb::DataFragment updated = *target;
    *updated.mutable_files() = copy.files();
    *target = updated;
    visited.insert(t);
    *out->add_fragments() = std::move(updated);
  }
  for (const auto& frag : a->manifest.fragments()) {
    if (!visited.count(frag.id())) {
      return Conflict("columnChanged", Frag(frag.id()) +
                                           " was added on the target since the fork and has no "
                                           "values for the columns the branch added");
    }
  }
  *a->manifest.mutable_fields() = mg.schema();
  *a->manifest.mutable_schema_metadata() = mg.schema_metadata();
  *out->mutable_schema() = mg.schema();
  *out->mutable_schema_metadata() = mg.schema_metadata();
  return Status::OK();
}

Status ReplayOperation::BuildRewrite(CommitAttempt* a) {
  const auto& rw = txn_->rewrite();
  auto* out = a->transaction.mutable_rewrite();
  google::protobuf::RepeatedPtrField<pb::Transaction::Rewrite::RewriteGroup> groups = rw.groups();
  if (groups.empty() && rw.old_fragments_size() > 0) {
    auto* g = groups.Add();
    *g->mutable_old_fragments() = rw.old_fragments();
    *g->mutable_new_fragments() = rw.new_fragments();
  }
  for (const auto& g : groups) {
    auto* og = out->add_groups();
    for (const auto& f : g.old_fragments()) {
      const uint64_t t = MapId(f.id());
      pb::DataFragment* target = t == kUnmapped ? nullptr : FindTarget(a, t);
      if (target == nullptr || !SameFragmentFiles(*target, f, true)) {
        return Conflict("rowsChanged", "The branch compacted " + Frag(t) +
                                           ", which the target changed since the fork");
      }
      *og->add_old_fragments() = *target;
      RemoveFragment(&a->manifest, t);
    }
    LANCEDB_RETURN_NOT_OK(BuildAppend(a, g.new_fragments(), og->mutable_new_fragments()));
  }
  auto* indices = a->indices.mutable_indices();
  for (const auto& ri : rw.rewritten_indices()) {
    // A segment the branch created (and so did not replay) or drops later is not on the target.
    const bool old_replayed = !ctx_->transient_indices.count(ri.old_id().uuid());
    const bool new_replayed = !ctx_->transient_indices.count(ri.new_id().uuid());
    auto old_it = std::find_if(indices->begin(), indices->end(), [&](const pb::IndexMetadata& m) {
      return m.uuid().uuid() == ri.old_id().uuid();
    });
    const auto& src = cur_->index_section().indices();
    auto new_it = std::find_if(src.begin(), src.end(), [&](const pb::IndexMetadata& m) {
      return m.uuid().uuid() == ri.new_id().uuid();
    });
    if ((old_replayed && old_it == indices->end()) || (new_replayed && new_it == src.end())) {
      return Conflict("indexChanged",
                      "An index the branch's compaction rewrote was changed on the target");
    }
    if (old_replayed) indices->erase(old_it);
    if (new_replayed) {
      LANCEDB_ASSIGN_OR_RETURN(*indices->Add(), RelocateIndex(a, *new_it));
    }
    *out->add_rewritten_indices() = ri;
  }
  // Other segments stop covering the fragments that are gone.
  for (auto& index : *indices) {
    if (index.fragment_bitmap().empty()) continue;
    std::vector<uint32_t> ids;
    for (uint32_t id : BitmapIds(index.fragment_bitmap())) {
      if (HasFragment(a->manifest, id)) ids.push_back(id);
    }
    index.set_fragment_bitmap(EncodeIds(std::move(ids)));
  }
  return Status::OK();
}

Status ReplayOperation::BuildReplaceContent(CommitAttempt* a) {
  pb::Manifest& m = a->manifest;
  const pb::Manifest& src = cur_->proto();
  m.clear_fragments();
  state_.id_map.clear();
  state_.simulated_deletions.clear();
  for (const auto& f : src.fragments()) {
    pb::DataFragment copy = f;
    if (f.id() >= ctx_->boundary) state_.id_map[f.id()] = f.id();
    LANCEDB_RETURN_NOT_OK(RelocateFragment(a, f.id(), &copy));
    *m.add_fragments() = std::move(copy);
  }
  UpdateMaxFragmentId(&m);
  *m.mutable_fields() = src.fields();
  *m.mutable_schema_metadata() = src.schema_metadata();
  *m.mutable_data_format() = src.data_format();
  a->indices.Clear();
  for (const auto& index : cur_->index_section().indices()) {
    LANCEDB_ASSIGN_OR_RETURN(*a->indices.add_indices(), RelocateIndex(a, index));
  }
  // A Restore names a version of the branch; on the target it is a new content: an Overwrite.
  auto* out = a->transaction.mutable_overwrite();
  *out->mutable_fragments() = m.fragments();
  *out->mutable_schema() = m.fields();
  *out->mutable_schema_metadata() = m.schema_metadata();
  return Status::OK();
}

Status ReplayOperation::BuildUpdateConfig(CommitAttempt* a) {
  const auto& uc = txn_->update_config();
  pb::Manifest& m = a->manifest;
  for (const auto& [k, v] : uc.upsert_values()) (*m.mutable_config())[k] = v;
  for (const auto& k : uc.delete_keys()) m.mutable_config()->erase(k);
  if (!uc.schema_metadata().empty()) *m.mutable_schema_metadata() = uc.schema_metadata();
  if (uc.has_config_updates()) ApplyUpdateMap(uc.config_updates(), m.mutable_config());
  if (uc.has_table_metadata_updates()) {
    ApplyUpdateMap(uc.table_metadata_updates(), m.mutable_table_metadata());
  }
  if (uc.has_schema_metadata_updates()) {
    ApplyUpdateMap(uc.schema_metadata_updates(), m.mutable_schema_metadata());
  }
  for (const auto& [field_id, update] : uc.field_metadata_updates()) {
    bool found = false;
    for (auto& f : *m.mutable_fields()) {
      if (f.id() != field_id) continue;
      ApplyUpdateMap(update, f.mutable_metadata());
      found = true;
    }
    if (!found) {
      return Conflict("columnChanged", "The branch changed the metadata of field " +
                                           std::to_string(field_id) +
                                           ", which the target no longer has");
    }
  }
  *a->transaction.mutable_update_config() = uc;
  return Status::OK();
}

}  // namespace lancedb::table
