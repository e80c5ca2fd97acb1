// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// ReplayOperation::Build for each kind of commit (cherry_pick_replay.h).

#include "table/cherry_pick_replay.h"

#include <roaring/roaring.h>

#include <algorithm>
#include <iterator>

#include "table/clone.h"
#include "table/conflicts.h"
#include "table/create_index_op.h"
#include "table/deletion.h"
#include "table/operations.h"

namespace lancedb::table {
namespace replay_detail {

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

std::string Frag(uint64_t id) { return "fragment " + std::to_string(id); }

}  // namespace replay_detail

namespace {

using replay_detail::Frag;
using replay_detail::kUnmapped;
using replay_detail::RemoveFragment;

bool UsesStableRowIds(const pb::Manifest& m) {
  return (m.reader_feature_flags() & kFlagStableRowIds) != 0;
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

std::optional<uint32_t> BaseOf(const pb::DataFile& f) {
  return f.has_base_id() ? std::optional<uint32_t>(f.base_id()) : std::nullopt;
}
std::optional<uint32_t> BaseOf(const pb::DeletionFile& f) {
  return f.has_base_id() ? std::optional<uint32_t>(f.base_id()) : std::nullopt;
}

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

Status ReplayOperation::CheckShared(CommitAttempt* a, uint64_t source_id, pb::DataFragment** target,
                                    const pb::DataFragment** prev) {
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
}

Status ReplayOperation::ApplyDeletions(
    CommitAttempt* a, const pb::DataFragment& updated,
    google::protobuf::RepeatedPtrField<pb::DataFragment>* updated_out,
    google::protobuf::RepeatedField<uint64_t>* removed_out) {
  pb::DataFragment* target = nullptr;
  const pb::DataFragment* prev = nullptr;
  LANCEDB_RETURN_NOT_OK(CheckShared(a, updated.id(), &target, &prev));
  io::FileSystem& fs = *ctx_->fs;
  LANCEDB_ASSIGN_OR_RETURN(auto before,
                           ReadDeletions(fs, ctx_->source_root, prev_->proto(), *prev));
  LANCEDB_ASSIGN_OR_RETURN(auto after,
                           ReadDeletions(fs, ctx_->source_root, cur_->proto(), updated));
  const std::vector<uint32_t> newly = Minus(after, before);
  LANCEDB_ASSIGN_OR_RETURN(auto existing, TargetDeletions(a, *target));
  const auto both = Both(newly, existing);
  const uint64_t t = target->id();
  if (!both.empty()) {
    return Conflict("rowsChanged", "Both sides deleted or updated " + std::to_string(both.size()) +
                                       " of the same rows of " + Frag(t) + " since the fork");
  }
  std::vector<uint32_t> merged = UnionOffsets(existing, newly);
  if (merged.size() >= target->physical_rows()) {
    removed_out->Add(t);
    RemoveFragment(&a->manifest, t);
    return Status::OK();
  }
  if (existing == before) {
    // The target has not deleted anything here since the fork: the branch's file is right.
    pb::DeletionFile del = updated.deletion_file();
    LANCEDB_ASSIGN_OR_RETURN(
        auto base, Relocate(a, BaseOf(del), "_deletions", DeletionFileName(updated.id(), del),
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
  return Status::OK();
}

Status ReplayOperation::ApplyRemoval(CommitAttempt* a, uint64_t source_id,
                                     google::protobuf::RepeatedField<uint64_t>* removed_out) {
  pb::DataFragment* target = nullptr;
  const pb::DataFragment* prev = nullptr;
  LANCEDB_RETURN_NOT_OK(CheckShared(a, source_id, &target, &prev));
  LANCEDB_ASSIGN_OR_RETURN(auto before,
                           ReadDeletions(*ctx_->fs, ctx_->source_root, prev_->proto(), *prev));
  LANCEDB_ASSIGN_OR_RETURN(auto existing, TargetDeletions(a, *target));
  const uint64_t t = target->id();
  if (existing != before) {
    return Conflict("rowsChanged",
                    "Both sides deleted or updated rows of " + Frag(t) + " since the fork");
  }
  removed_out->Add(t);
  RemoveFragment(&a->manifest, t);
  return Status::OK();
}

Status ReplayOperation::BuildDeletions(
    CommitAttempt* a, const google::protobuf::RepeatedPtrField<pb::DataFragment>& updated,
    const google::protobuf::RepeatedField<uint64_t>& removed,
    google::protobuf::RepeatedPtrField<pb::DataFragment>* updated_out,
    google::protobuf::RepeatedField<uint64_t>* removed_out) {
  for (const auto& u : updated) {
    LANCEDB_RETURN_NOT_OK(ApplyDeletions(a, u, updated_out, removed_out));
  }
  for (uint64_t s : removed) {
    LANCEDB_RETURN_NOT_OK(ApplyRemoval(a, s, removed_out));
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
