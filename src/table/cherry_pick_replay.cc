// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// ReplayOperation::Build for each kind of commit (cherry_pick_replay.h).

#include "table/cherry_pick_replay.h"

#include <roaring/roaring.h>

#include <algorithm>
#include <iterator>
#include <limits>

#include "table/clone.h"
#include "table/conflicts.h"
#include "table/create_index_op.h"
#include "table/deletion.h"
#include "table/operations.h"

namespace lancedb::table {
namespace {

constexpr uint64_t kUnmapped = std::numeric_limits<uint64_t>::max();

bool UsesStableRowIds(const pb::Manifest& m) {
  return (m.reader_feature_flags() & kFlagStableRowIds) != 0;
}

std::vector<uint32_t> BitmapIds(const std::string& bytes) {
  std::vector<uint32_t> ids;
  roaring_bitmap_t* r = roaring_bitmap_portable_deserialize_safe(bytes.data(), bytes.size());
  if (r == nullptr) return ids;
  ids.resize(roaring_bitmap_get_cardinality(r));
  roaring_bitmap_to_uint32_array(r, ids.data());
  roaring_bitmap_free(r);
  return ids;
}

std::string EncodeIds(std::vector<uint32_t> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  roaring_bitmap_t* r = roaring_bitmap_of_ptr(ids.size(), ids.data());
  roaring_bitmap_run_optimize(r);
  std::string out(roaring_bitmap_portable_size_in_bytes(r), '\0');
  roaring_bitmap_portable_serialize(r, out.data());
  roaring_bitmap_free(r);
  return out;
}

std::vector<uint32_t> Minus(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<uint32_t> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::vector<uint32_t> Both(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<uint32_t> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

bool HasFragment(const pb::Manifest& m, uint64_t id) {
  return std::any_of(m.fragments().begin(), m.fragments().end(),
                     [&](const pb::DataFragment& f) { return f.id() == id; });
}

void RemoveFragment(pb::Manifest* m, uint64_t id) {
  auto* frags = m->mutable_fragments();
  for (int i = 0; i < frags->size(); ++i) {
    if (frags->Get(i).id() == id) {
      frags->DeleteSubrange(i, 1);
      return;
    }
  }
}

std::optional<uint32_t> BaseOf(const pb::DataFile& f) {
  return f.has_base_id() ? std::optional<uint32_t>(f.base_id()) : std::nullopt;
}
std::optional<uint32_t> BaseOf(const pb::DeletionFile& f) {
  return f.has_base_id() ? std::optional<uint32_t>(f.base_id()) : std::nullopt;
}

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

std::string Frag(uint64_t id) { return "fragment " + std::to_string(id); }

}  // namespace

bool SameFragmentFiles(const pb::DataFragment& a, const pb::DataFragment& b, bool with_deletions) {
  if (a.files_size() != b.files_size()) return false;
  for (int i = 0; i < a.files_size(); ++i) {
    const auto& x = a.files(i);
    const auto& y = b.files(i);
    if (x.path() != y.path() || x.fields_size() != y.fields_size() ||
        !std::equal(x.fields().begin(), x.fields().end(), y.fields().begin())) {
      return false;
    }
  }
  if (!with_deletions) return true;
  if (a.has_deletion_file() != b.has_deletion_file()) return false;
  if (!a.has_deletion_file()) return true;
  const auto& x = a.deletion_file();
  const auto& y = b.deletion_file();
  return x.id() == y.id() && x.read_version() == y.read_version() && x.file_type() == y.file_type();
}

Status ReplayOperation::Conflict(std::string code, std::string message) {
  conflict_ = ReplayConflict{std::move(code), message};
  return Status::CommitConflict(std::move(message));
}

uint64_t ReplayOperation::MapId(uint64_t source_id) const {
  if (source_id < ctx_->boundary) return source_id;
  auto it = state_.id_map.find(source_id);
  return it == state_.id_map.end() ? kUnmapped : it->second;
}

pb::DataFragment* ReplayOperation::FindTarget(CommitAttempt* a, uint64_t id) {
  for (auto& f : *a->manifest.mutable_fragments()) {
    if (f.id() == id) return &f;
  }
  return nullptr;
}

const pb::DataFragment* ReplayOperation::FindPrev(uint64_t id) const {
  for (const auto& f : prev_->proto().fragments()) {
    if (f.id() == id) return &f;
  }
  return nullptr;
}

Result<std::optional<uint32_t>> ReplayOperation::Relocate(
    CommitAttempt* a, std::optional<uint32_t> base_id, const std::string& dir,
    const std::string& src_name, const std::string& dst_name, bool is_dir) {
  bool dataset_root = true;
  LANCEDB_ASSIGN_OR_RETURN(
      std::string root, ResolveBaseRoot(cur_->proto(), ctx_->source_root, base_id, &dataset_root));
  if (!dataset_root) {
    return Status::NotSupported("Replaying a file stored under a base path that is not a dataset");
  }
  if (src_name == dst_name) {
    if (SameRoot(root, ctx_->target_root)) return std::optional<uint32_t>();
    for (const auto& base : a->manifest.base_paths()) {
      if (base.is_dataset_root() && SameRoot(base.path(), root)) {
        return std::optional<uint32_t>(base.id());
      }
    }
  }
  const std::string src = io::JoinPath(io::JoinPath(root, dir), src_name);
  const std::string dst = io::JoinPath(io::JoinPath(ctx_->target_root, dir), dst_name);
  if (!ctx_->simulate && !ctx_->copied.count(dst)) {
    io::FileSystem& fs = *ctx_->fs;
    if (is_dir) {
      std::vector<std::string> written;
      Status st = CopyDir(fs, src, fs, dst, &written);
      data_files.insert(data_files.end(), written.begin(), written.end());
      LANCEDB_RETURN_NOT_OK(st);
    } else {
      LANCEDB_RETURN_NOT_OK(CopyFile(fs, src, fs, dst));
      data_files.push_back(dst);
    }
    ctx_->copied.insert(dst);
  }
  return std::optional<uint32_t>();
}

Status ReplayOperation::RelocateFragment(CommitAttempt* a, uint64_t source_id,
                                         pb::DataFragment* frag) {
  for (auto& file : *frag->mutable_files()) {
    LANCEDB_ASSIGN_OR_RETURN(auto base,
                             Relocate(a, BaseOf(file), "data", file.path(), file.path(), false));
    if (base) {
      file.set_base_id(*base);
    } else {
      file.clear_base_id();
    }
  }
  if (frag->has_deletion_file()) {
    auto* del = frag->mutable_deletion_file();
    LANCEDB_ASSIGN_OR_RETURN(
        auto base, Relocate(a, BaseOf(*del), "_deletions", DeletionFileName(source_id, *del),
                            DeletionFileName(frag->id(), *del), false));
    if (base) {
      del->set_base_id(*base);
    } else {
      del->clear_base_id();
    }
  }
  return Status::OK();
}

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

Result<std::vector<uint32_t>> ReplayOperation::TargetDeletions(CommitAttempt* a,
                                                               const pb::DataFragment& frag) {
  auto it = state_.simulated_deletions.find(frag.id());
  if (it != state_.simulated_deletions.end()) return it->second;
  return ReadDeletions(*ctx_->fs, ctx_->target_root, a->manifest, frag);
}

Status ReplayOperation::SetDeletions(CommitAttempt* a, pb::DataFragment* frag,
                                     std::vector<uint32_t> offsets) {
  if (ctx_->simulate) {
    auto* del = frag->mutable_deletion_file();
    del->Clear();
    del->set_read_version(a->read_version);
    del->set_num_deleted_rows(offsets.size());
    state_.simulated_deletions[frag->id()] = std::move(offsets);
    return Status::OK();
  }
  LANCEDB_ASSIGN_OR_RETURN(auto file, WriteDeletions(*ctx_->fs, ctx_->target_root, frag->id(),
                                                     a->read_version, offsets));
  a->written_files.push_back(io::JoinPath(io::JoinPath(ctx_->target_root, "_deletions"),
                                          DeletionFileName(frag->id(), file)));
  *frag->mutable_deletion_file() = file;
  return Status::OK();
}

Status ReplayOperation::BuildAppend(
    CommitAttempt* a, const google::protobuf::RepeatedPtrField<pb::DataFragment>& fragments,
    google::protobuf::RepeatedPtrField<pb::DataFragment>* out) {
  const bool stable = UsesStableRowIds(a->manifest);
  for (const auto& frag : fragments) {
    pb::DataFragment copy = frag;
    // The branch's id when the target has not used it: index files that cover the fragment
    // (by row address) stay right.
    const uint64_t next = NextFragmentId(a->manifest);
    const uint64_t id = frag.id() >= next ? frag.id() : next;
    copy.set_id(id);
    state_.id_map[frag.id()] = id;
    LANCEDB_RETURN_NOT_OK(RelocateFragment(a, frag.id(), &copy));
    if (stable) AssignStableRowIds(&copy, a->manifest.version(), &a->manifest);
    *a->manifest.add_fragments() = copy;
    UpdateMaxFragmentId(&a->manifest);
    *out->Add() = std::move(copy);
  }
  return Status::OK();
}

Status ReplayOperation::BuildDeletions(
    CommitAttempt* a, const google::protobuf::RepeatedPtrField<pb::DataFragment>& updated,
    const google::protobuf::RepeatedField<uint64_t>& removed,
    google::protobuf::RepeatedPtrField<pb::DataFragment>* updated_out,
    google::protobuf::RepeatedField<uint64_t>* removed_out) {
  io::FileSystem& fs = *ctx_->fs;
  auto check = [&](uint64_t source_id, pb::DataFragment** target,
                   const pb::DataFragment** prev) -> Status {
    const uint64_t t = MapId(source_id);
    *prev = FindPrev(source_id);
    *target = t == kUnmapped ? nullptr : FindTarget(a, t);
    if (*prev == nullptr) {
      return Status::Internal("Branch version " + std::to_string(version_) + " changed " +
                              Frag(source_id) + ", which its previous version does not have");
    }
    if (*target == nullptr || !SameFragmentFiles(**target, **prev, false)) {
      return Conflict("rowsChanged", "The branch deleted or updated rows of " + Frag(t) +
                                         ", which the target removed or rewrote since the fork");
    }
    return Status::OK();
  };
  for (const auto& u : updated) {
    pb::DataFragment* target = nullptr;
    const pb::DataFragment* prev = nullptr;
    LANCEDB_RETURN_NOT_OK(check(u.id(), &target, &prev));
    LANCEDB_ASSIGN_OR_RETURN(auto before,
                             ReadDeletions(fs, ctx_->source_root, prev_->proto(), *prev));
    LANCEDB_ASSIGN_OR_RETURN(auto after, ReadDeletions(fs, ctx_->source_root, cur_->proto(), u));
    const std::vector<uint32_t> newly = Minus(after, before);
    LANCEDB_ASSIGN_OR_RETURN(auto existing, TargetDeletions(a, *target));
    const auto both = Both(newly, existing);
    if (!both.empty()) {
      return Conflict("rowsChanged", "Both sides deleted or updated " +
                                         std::to_string(both.size()) + " of the same rows of " +
                                         Frag(target->id()) + " since the fork");
    }
    std::vector<uint32_t> merged = UnionOffsets(existing, newly);
    const uint64_t t = target->id();
    if (merged.size() >= target->physical_rows()) {
      removed_out->Add(t);
      RemoveFragment(&a->manifest, t);
      continue;
    }
    if (existing == before) {
      // The target has not deleted anything here since the fork: the branch's file is right.
      pb::DeletionFile del = u.deletion_file();
      LANCEDB_ASSIGN_OR_RETURN(auto base,
                               Relocate(a, BaseOf(del), "_deletions", DeletionFileName(u.id(), del),
                                        DeletionFileName(t, del), false));
      if (base) {
        del.set_base_id(*base);
      } else {
        del.clear_base_id();
      }
      *target->mutable_deletion_file() = del;
      if (ctx_->simulate) state_.simulated_deletions[t] = std::move(merged);
    } else {
      LANCEDB_RETURN_NOT_OK(SetDeletions(a, target, std::move(merged)));
    }
    *updated_out->Add() = *target;
  }
  for (uint64_t s : removed) {
    pb::DataFragment* target = nullptr;
    const pb::DataFragment* prev = nullptr;
    LANCEDB_RETURN_NOT_OK(check(s, &target, &prev));
    LANCEDB_ASSIGN_OR_RETURN(auto before,
                             ReadDeletions(fs, ctx_->source_root, prev_->proto(), *prev));
    LANCEDB_ASSIGN_OR_RETURN(auto existing, TargetDeletions(a, *target));
    if (existing != before) {
      return Conflict("rowsChanged", "Both sides deleted or updated rows of " + Frag(target->id()) +
                                         " since the fork");
    }
    const uint64_t t = target->id();
    removed_out->Add(t);
    RemoveFragment(&a->manifest, t);
  }
  return Status::OK();
}

Status ReplayOperation::BuildUpdate(CommitAttempt* a) {
  const auto& u = txn_->update();
  auto* out = a->transaction.mutable_update();
  out->set_update_mode(u.update_mode());
  *out->mutable_fields_modified() = u.fields_modified();
  *out->mutable_fields_for_preserving_frag_bitmap() = u.fields_for_preserving_frag_bitmap();
  if (u.update_mode() == pb::Transaction::REWRITE_COLUMNS) {
    for (const auto& f : u.updated_fragments()) {
      const uint64_t t = MapId(f.id());
      pb::DataFragment* target = t == kUnmapped ? nullptr : FindTarget(a, t);
      const pb::DataFragment* prev = FindPrev(f.id());
      if (target == nullptr || prev == nullptr || !SameFragmentFiles(*target, *prev, true)) {
        return Conflict("rowsChanged", "The branch rewrote columns of " + Frag(t) +
                                           ", which the target changed since the fork");
      }
      pb::DataFragment copy = *target;
      *copy.mutable_files() = f.files();
      copy.clear_deletion_file();
      LANCEDB_RETURN_NOT_OK(RelocateFragment(a, f.id(), &copy));
      if (target->has_deletion_file()) *copy.mutable_deletion_file() = target->deletion_file();
      *target = copy;
      *out->add_updated_fragments() = std::move(copy);
    }
    google::protobuf::RepeatedPtrField<pb::DataFragment> none;
    LANCEDB_RETURN_NOT_OK(BuildDeletions(a, none, u.removed_fragment_ids(), nullptr,
                                         out->mutable_removed_fragment_ids()));
  } else {
    LANCEDB_RETURN_NOT_OK(BuildDeletions(a, u.updated_fragments(), u.removed_fragment_ids(),
                                         out->mutable_updated_fragments(),
                                         out->mutable_removed_fragment_ids()));
  }
  return BuildAppend(a, u.new_fragments(), out->mutable_new_fragments());
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

Status ReplayOperation::Build(CommitAttempt* a) {
  state_ = start_;
  conflict_.reset();
  (*a->transaction.mutable_transaction_properties())["lancedb-cpp.cherry-pick"] =
      ctx_->label + "@" + std::to_string(version_);
  const bool stable = UsesStableRowIds(a->manifest);
  auto unsupported = [&](std::string_view why) {
    return Status::NotSupported("Replaying the " + std::string(OpKindName(KindOf(*txn_))) +
                                " of branch version " + std::to_string(version_) +
                                " is not supported" + std::string(why));
  };
  constexpr std::string_view kStable = " on a table with stable row ids";
  switch (txn_->operation_case()) {
    case pb::Transaction::kAppend:
      return BuildAppend(a, txn_->append().fragments(),
                         a->transaction.mutable_append()->mutable_fragments());
    case pb::Transaction::kDelete: {
      auto* del = a->transaction.mutable_delete_();
      del->set_predicate(txn_->delete_().predicate());
      return BuildDeletions(a, txn_->delete_().updated_fragments(),
                            txn_->delete_().deleted_fragment_ids(),
                            del->mutable_updated_fragments(), del->mutable_deleted_fragment_ids());
    }
    case pb::Transaction::kUpdate:
      return stable ? unsupported(kStable) : BuildUpdate(a);
    case pb::Transaction::kCreateIndex:
      return stable ? unsupported(kStable) : BuildCreateIndex(a);
    case pb::Transaction::kMerge:
      return BuildMerge(a);
    case pb::Transaction::kProject:
      *a->manifest.mutable_fields() = txn_->project().schema();
      *a->transaction.mutable_project() = txn_->project();
      return Status::OK();
    case pb::Transaction::kUpdateConfig:
      return BuildUpdateConfig(a);
    case pb::Transaction::kRewrite:
      return stable ? unsupported(kStable) : BuildRewrite(a);
    case pb::Transaction::kOverwrite:
    case pb::Transaction::kRestore:
      return stable ? unsupported(kStable) : BuildReplaceContent(a);
    case pb::Transaction::kReserveFragments: {
      const uint32_t n = txn_->reserve_fragments().num_fragments();
      if (n > 0) {
        a->manifest.set_max_fragment_id(static_cast<uint32_t>(NextFragmentId(a->manifest) + n - 1));
      }
      *a->transaction.mutable_reserve_fragments() = txn_->reserve_fragments();
      return Status::OK();
    }
    default:
      return unsupported("");
  }
}

}  // namespace lancedb::table
