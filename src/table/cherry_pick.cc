// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The cherry-pick driver (cherry_pick.h): load both histories, check them against each other
// with the conflict table, simulate the replay, then run it.

#include "table/cherry_pick.h"

#include <set>

#include "table/cherry_pick_replay.h"
#include "table/commit.h"
#include "table/conflicts.h"
#include "table/deletion.h"

namespace lancedb::table {
namespace {

/// Fragment ids the source allocated after the fork are moved out of the target's id space
/// before the conflict table compares fragments: the same number names different fragments on
/// the two sides.
constexpr uint64_t kSourceOnlyIds = uint64_t{1} << 40;

void MaskSourceOnly(uint64_t boundary, pb::Transaction* txn) {
  auto mask_id = [&](uint64_t id) { return id >= boundary ? id + kSourceOnlyIds : id; };
  auto mask_frags = [&](google::protobuf::RepeatedPtrField<pb::DataFragment>* frags) {
    for (auto& f : *frags) f.set_id(mask_id(f.id()));
  };
  auto mask_ids = [&](google::protobuf::RepeatedField<uint64_t>* ids) {
    for (auto& id : *ids) id = mask_id(id);
  };
  if (txn->has_delete_()) {
    mask_frags(txn->mutable_delete_()->mutable_updated_fragments());
    mask_ids(txn->mutable_delete_()->mutable_deleted_fragment_ids());
  } else if (txn->has_update()) {
    mask_frags(txn->mutable_update()->mutable_updated_fragments());
    mask_ids(txn->mutable_update()->mutable_removed_fragment_ids());
  } else if (txn->has_rewrite()) {
    mask_frags(txn->mutable_rewrite()->mutable_old_fragments());
    for (auto& g : *txn->mutable_rewrite()->mutable_groups()) {
      mask_frags(g.mutable_old_fragments());
    }
  } else if (txn->has_data_replacement()) {
    for (auto& r : *txn->mutable_data_replacement()->mutable_replacements()) {
      r.set_fragment_id(mask_id(r.fragment_id()));
    }
  }
}

/// LanceDB's CherryPickErrorCode for a conflict between a branch commit and a target commit.
std::string ConflictCode(OpKind ours, OpKind theirs) {
  if (theirs == OpKind::kOverwrite || theirs == OpKind::kRestore) return "baseMoved";
  auto schema = [](OpKind k) {
    return k == OpKind::kMerge || k == OpKind::kProject || k == OpKind::kUpdateConfig;
  };
  if (schema(ours) || schema(theirs)) return "columnChanged";
  if (ours == OpKind::kCreateIndex || theirs == OpKind::kCreateIndex) return "indexChanged";
  return "rowsChanged";
}

Result<uint64_t> LiveRows(const Dataset& ds, const pb::DataFragment& f) {
  uint64_t deleted = 0;
  if (f.has_deletion_file()) {
    deleted = f.deletion_file().num_deleted_rows();
    if (deleted == 0) {
      LANCEDB_ASSIGN_OR_RETURN(auto offsets,
                               ReadDeletions(*ds.fs(), ds.path(), ds.manifest().proto(), f));
      deleted = offsets.size();
    }
  }
  return f.physical_rows() > deleted ? f.physical_rows() - deleted : 0;
}

Status CountRows(const Dataset& target, const Dataset& source, uint64_t boundary,
                 CherryPickOutcome* out) {
  const auto& src = source.manifest().proto().fragments();
  for (const auto& f : target.manifest().proto().fragments()) {
    LANCEDB_ASSIGN_OR_RETURN(uint64_t live, LiveRows(target, f));
    if (f.id() >= boundary) {
      out->rows_new_on_target += live;
      continue;
    }
    for (const auto& g : src) {
      if (g.id() == f.id() && SameFragmentFiles(f, g, true)) out->rows_unchanged += live;
    }
  }
  for (const auto& g : src) {
    if (g.id() < boundary) continue;
    LANCEDB_ASSIGN_OR_RETURN(uint64_t live, LiveRows(source, g));
    out->rows_new_on_source += live;
  }
  return Status::OK();
}

CommitAttempt SimulatedAttempt(io::FileSystem* fs, const std::string& root, const Manifest* base) {
  CommitAttempt a;
  a.fs = fs;
  a.root = root;
  a.read = base;
  a.base = base;
  a.read_version = base->version();
  a.manifest = base->proto();
  a.indices = base->index_section();
  a.manifest.set_version(base->version() + 1);
  a.manifest.clear_transaction_file();
  a.manifest.clear_transaction_section();
  a.manifest.clear_index_section();
  a.manifest.clear_tag();
  return a;
}

/// Record why `op` could not be built: a conflict, an unsupported commit, or a storage error.
Status RecordFailure(const ReplayOperation& op, const Status& st, CherryPickOutcome* out) {
  if (op.conflict()) {
    out->status = "failed";
    out->errors.emplace_back(op.conflict()->code, op.conflict()->message);
    return Status::OK();
  }
  if (st.IsNotSupported()) {
    out->status = "notImplemented";
    out->errors.emplace_back("notImplemented", st.message());
    return Status::OK();
  }
  if (st.IsCommitConflict()) {
    out->status = "failed";
    out->errors.emplace_back("rowsChanged", st.message());
    return Status::OK();
  }
  return st;
}

/// Index segments the branch created and later removed (by a drop, a replace, an optimize or a
/// compaction's remap): their files need not reach the target.
std::set<std::string> TransientIndices(const std::vector<pb::Transaction>& txns) {
  std::set<std::string> created, transient;
  for (const auto& txn : txns) {
    if (txn.has_create_index()) {
      for (const auto& m : txn.create_index().new_indices()) created.insert(m.uuid().uuid());
      for (const auto& m : txn.create_index().removed_indices()) {
        if (created.count(m.uuid().uuid())) transient.insert(m.uuid().uuid());
      }
    } else if (txn.has_rewrite()) {
      for (const auto& ri : txn.rewrite().rewritten_indices()) {
        if (created.count(ri.old_id().uuid())) transient.insert(ri.old_id().uuid());
        created.insert(ri.new_id().uuid());
      }
    }
  }
  return transient;
}

struct History {
  std::vector<pb::Transaction> source_txns;                       // versions fork+1 .. source
  std::vector<ManifestPtr> source_manifests;                      // versions fork .. source
  std::vector<std::pair<uint64_t, pb::Transaction>> target_txns;  // fork+1 .. target
};

/// Load both histories; nullopt (with the reason in `out`) when part of them is gone.
Result<std::optional<History>> LoadHistory(const Dataset& target, const Dataset& source,
                                           uint64_t fork, CherryPickOutcome* out) {
  io::FileSystem& fs = *source.fs();
  LANCEDB_ASSIGN_OR_RETURN(auto source_listing, ListVersionFiles(fs, source.path()));
  LANCEDB_ASSIGN_OR_RETURN(auto target_listing, ListVersionFiles(*target.fs(), target.path()));
  History h;
  auto missing = [&](const std::string& what) -> Result<std::optional<History>> {
    out->history_available = false;
    out->status = "failed";
    out->errors.emplace_back("historyUnavailable",
                             what + " is no longer on storage (cleaned up?); cannot replay");
    return std::optional<History>();
  };
  for (uint64_t v = fork; v <= source.version(); ++v) {
    auto m = ReadManifest(fs, source.path(), v, source_listing.NamingOf(v));
    if (!m.ok()) {
      if (m.status().IsNotFound())
        return missing("Version " + std::to_string(v) + " of the branch");
      return m.status();
    }
    h.source_manifests.push_back(*m);
    if (v == fork) continue;
    auto txn = ReadTransaction(fs, source.path(), **m);
    if (!txn.ok()) {
      if (txn.status().IsNotFound()) {
        return missing("The transaction of version " + std::to_string(v) + " of the branch");
      }
      return txn.status();
    }
    h.source_txns.push_back(std::move(*txn));
  }
  for (uint64_t v = fork + 1; v <= target.version(); ++v) {
    auto txn = ReadVersionTransaction(*target.fs(), target.path(), v, target_listing.NamingOf(v));
    if (!txn.ok() && !txn.status().IsNotFound()) return txn.status();
    if (!txn.ok() || !txn->has_value()) {
      return missing("The transaction of version " + std::to_string(v) + " of the target");
    }
    h.target_txns.emplace_back(v, std::move(**txn));
  }
  return std::optional<History>(std::move(h));
}

}  // namespace

Result<CherryPickOutcome> CherryPickCommits(const DatasetPtr& target, const DatasetPtr& source,
                                            uint64_t fork, const std::string& label, bool dry_run) {
  CherryPickOutcome out;
  out.fork_version = fork;
  out.target_version = target->version();
  out.source_version = source->version();
  for (uint64_t v = fork + 1; v <= source->version(); ++v) out.source_commits.push_back(v);
  LANCEDB_ASSIGN_OR_RETURN(auto history, LoadHistory(*target, *source, fork, &out));
  if (!history) return out;
  const uint64_t boundary = NextFragmentId(history->source_manifests.front()->proto());
  LANCEDB_RETURN_NOT_OK(CountRows(*target, *source, boundary, &out));
  if (out.source_commits.empty()) {
    out.status = "failed";
    out.errors.emplace_back("nothingToApply",
                            "The branch has no commit since it was created from "
                            "version " +
                                std::to_string(fork));
    return out;
  }
  // The conflict table, as if each branch commit were committed concurrently with each target
  // commit after the fork.
  for (size_t i = 0; i < history->source_txns.size(); ++i) {
    pb::Transaction ours = history->source_txns[i];
    MaskSourceOnly(boundary, &ours);
    for (const auto& [version, theirs] : history->target_txns) {
      Status st = CheckRebase(ours, theirs, version);
      if (st.ok()) continue;
      out.status = "failed";
      out.errors.emplace_back(
          ConflictCode(KindOf(ours), KindOf(theirs)),
          "Branch version " + std::to_string(out.source_commits[i]) + ": " + st.message());
      return out;
    }
  }
  ReplayContext ctx;
  ctx.transient_indices = TransientIndices(history->source_txns);
  ctx.fs = target->fs();
  ctx.target_root = target->path();
  ctx.source_root = source->path();
  ctx.boundary = boundary;
  ctx.label = label;
  // Simulate: every commit rebuilt in memory, nothing written.
  ctx.simulate = true;
  ReplayState state;
  ManifestPtr base = target->manifest_ptr();
  for (size_t i = 0; i < history->source_txns.size(); ++i) {
    ReplayOperation op(&ctx, state, &history->source_txns[i], history->source_manifests[i],
                       history->source_manifests[i + 1], out.source_commits[i]);
    CommitAttempt a = SimulatedAttempt(ctx.fs.get(), ctx.target_root, base.get());
    Status st = op.Build(&a);
    if (!st.ok())
      return RecordFailure(op, st, &out).ok() ? Result<CherryPickOutcome>(out)
                                              : Result<CherryPickOutcome>(st);
    state = op.state();
    LANCEDB_ASSIGN_OR_RETURN(base, Manifest::Make(std::move(a.manifest), std::move(a.indices)));
  }
  if (dry_run) {
    out.status = "ready";
    return out;
  }
  ctx.simulate = false;
  state = ReplayState();
  ManifestPtr read = target->manifest_ptr();
  for (size_t i = 0; i < history->source_txns.size(); ++i) {
    ReplayOperation op(&ctx, state, &history->source_txns[i], history->source_manifests[i],
                       history->source_manifests[i + 1], out.source_commits[i]);
    auto committed =
        CommitOperation(target->fs(), ctx.target_root, read, target->manifest_naming(), &op);
    if (!committed.ok()) {
      if (out.num_applied == 0 && !committed.status().IsCommitConflict() &&
          !committed.status().IsNotSupported()) {
        return committed.status();
      }
      if (!RecordFailure(op, committed.status(), &out).ok()) {
        out.status = "failed";
        out.errors.emplace_back("ioError", committed.status().message());
      }
      if (out.num_applied > 0) {
        out.errors.back().second += " (" + std::to_string(out.num_applied) + " of the " +
                                    std::to_string(history->source_txns.size()) +
                                    " branch commits were applied before a concurrent write "
                                    "stopped the replay)";
      }
      return out;
    }
    ++out.num_applied;
    state = op.state();
    read = (*committed)->manifest_ptr();
    out.version_after = read->version();
  }
  out.status = "cherryPicked";
  return out;
}

}  // namespace lancedb::table
