// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// ReplayOperation: one source commit rebuilt as an Operation on the target (cherry_pick.h).
// Fragment ids below `boundary` (the fork's next fragment id) name the same fragment on both
// sides; the source's later ids are mapped to ids the replay allocates on the target. Files are
// compared by name (names are unique: copies keep them), located through each side's base paths,
// and copied into the target when it cannot reach them. In simulation nothing is written: copies
// are skipped and merged deletion vectors are kept in memory.
// Thread-safety: externally synchronized.

#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "table/commit.h"

namespace lancedb::table {

/// State carried from one replayed commit to the next.
struct ReplayState {
  /// Source fragment id (>= boundary) -> target fragment id.
  std::map<uint64_t, uint64_t> id_map;
  /// Simulation only: the deletion vectors merged so far, by target fragment id.
  std::map<uint64_t, std::vector<uint32_t>> simulated_deletions;
};

struct ReplayContext {
  io::FileSystemPtr fs;
  std::string target_root;
  std::string source_root;
  uint64_t boundary = 0;
  bool simulate = true;
  std::string label;
  /// Files already copied into the target (destination paths).
  std::set<std::string> copied;
  /// Index segments (uuid bytes) the branch created and dropped again: not replayed.
  std::set<std::string> transient_indices;
};

/// A conflict found while rebuilding: `code` is LanceDB's CherryPickErrorCode.
struct ReplayConflict {
  std::string code;
  std::string message;
};

class ReplayOperation : public Operation {
 public:
  /// Replay `txn`, which made the source's version `version` (manifest `cur`) from `prev`.
  ReplayOperation(ReplayContext* ctx, ReplayState state, const pb::Transaction* txn,
                  ManifestPtr prev, ManifestPtr cur, uint64_t version)
      : ctx_(ctx),
        start_(std::move(state)),
        txn_(txn),
        prev_(std::move(prev)),
        cur_(std::move(cur)),
        version_(version) {}

  std::string_view name() const override { return "Cherry-pick"; }
  bool supports_stable_row_ids() const override { return true; }
  Status Build(CommitAttempt* attempt) override;

  /// The state after the last Build.
  const ReplayState& state() const { return state_; }
  /// Set when the last Build failed on a conflict (Build then returns CommitConflict).
  const std::optional<ReplayConflict>& conflict() const { return conflict_; }

 private:
  Status Conflict(std::string code, std::string message);
  uint64_t MapId(uint64_t source_id) const;
  pb::DataFragment* FindTarget(CommitAttempt* a, uint64_t id);
  const pb::DataFragment* FindPrev(uint64_t id) const;
  /// Where the target reaches a file of the source: the base id to record (none: the target's
  /// own directory), copying it there as `dst_name` when it cannot reach it.
  Result<std::optional<uint32_t>> Relocate(CommitAttempt* a, std::optional<uint32_t> base_id,
                                           const std::string& dir, const std::string& src_name,
                                           const std::string& dst_name, bool is_dir);
  Status RelocateFragment(CommitAttempt* a, uint64_t source_id, pb::DataFragment* frag);
  Result<pb::IndexMetadata> RelocateIndex(CommitAttempt* a, const pb::IndexMetadata& index);
  Result<std::vector<uint32_t>> TargetDeletions(CommitAttempt* a, const pb::DataFragment& frag);
  Status SetDeletions(CommitAttempt* a, pb::DataFragment* frag, std::vector<uint32_t> offsets);
  std::string RemapBitmap(const std::string& bitmap, const pb::Manifest& target) const;

  Status BuildAppend(CommitAttempt* a,
                     const google::protobuf::RepeatedPtrField<pb::DataFragment>& fragments,
                     google::protobuf::RepeatedPtrField<pb::DataFragment>* out);
  /// Check that the fragment the source changed is on the target unchanged since the fork.
  Status CheckShared(CommitAttempt* a, uint64_t source_id, pb::DataFragment** target,
                     const pb::DataFragment** prev);
  /// Replay the deletion vector the source gave fragment `updated` (merged with the target's).
  Status ApplyDeletions(CommitAttempt* a, const pb::DataFragment& updated,
                        google::protobuf::RepeatedPtrField<pb::DataFragment>* updated_out,
                        google::protobuf::RepeatedField<uint64_t>* removed_out);
  /// Replay the removal of fragment `source_id` (all its rows deleted).
  Status ApplyRemoval(CommitAttempt* a, uint64_t source_id,
                      google::protobuf::RepeatedField<uint64_t>* removed_out);
  Status BuildDeletions(CommitAttempt* a,
                        const google::protobuf::RepeatedPtrField<pb::DataFragment>& updated,
                        const google::protobuf::RepeatedField<uint64_t>& removed,
                        google::protobuf::RepeatedPtrField<pb::DataFragment>* updated_out,
                        google::protobuf::RepeatedField<uint64_t>* removed_out);
  Status BuildUpdate(CommitAttempt* a);
  Status BuildCreateIndex(CommitAttempt* a);
  Status BuildMerge(CommitAttempt* a);
  Status BuildRewrite(CommitAttempt* a);
  Status BuildReplaceContent(CommitAttempt* a);
  Status BuildUpdateConfig(CommitAttempt* a);

  ReplayContext* ctx_;
  const ReplayState start_;
  ReplayState state_;
  const pb::Transaction* txn_;
  ManifestPtr prev_;
  ManifestPtr cur_;
  uint64_t version_;
  std::optional<ReplayConflict> conflict_;
};

namespace replay_detail {
/// MapId's answer for a source fragment the replay has not placed on the target.
inline constexpr uint64_t kUnmapped = ~uint64_t{0};
/// Decode / encode a portable 32-bit Roaring bitmap of fragment ids.
std::vector<uint32_t> BitmapIds(const std::string& bytes);
std::string EncodeIds(std::vector<uint32_t> ids);
bool HasFragment(const pb::Manifest& m, uint64_t id);
void RemoveFragment(pb::Manifest* m, uint64_t id);
/// "fragment N", for messages.
std::string Frag(uint64_t id);
}  // namespace replay_detail

/// Whether two copies of a fragment hold the same data files (same names and fields, wherever
/// they are reached from) and the same deletion file.
bool SameFragmentFiles(const pb::DataFragment& a, const pb::DataFragment& b, bool with_deletions);

}  // namespace lancedb::table
