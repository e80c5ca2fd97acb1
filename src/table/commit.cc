// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The commit loop (lance-format.md §1.4): transaction file, put-if-absent manifest, rebase and
// retry with randomized backoff.

#include "table/commit.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "table/dataset_impl.h"

namespace lancedb::table {

namespace {

void DeleteQuietly(io::FileSystem& fs, const std::vector<std::string>& paths) {
  for (const auto& p : paths) (void)fs.DeleteFile(p);
}

void Backoff(int attempt) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  int64_t cap_ms = std::min<int64_t>(int64_t{1} << std::min(attempt, 7), 100);
  std::uniform_int_distribution<int64_t> dist(1, std::max<int64_t>(cap_ms, 1) * 1000);
  std::this_thread::sleep_for(std::chrono::microseconds(dist(rng)));
}

/// Prepare the common parts of an attempt on `base`.
void InitAttempt(io::FileSystem* fs, const std::string& root, const Manifest* base,
                 CommitAttempt* a) {
  a->fs = fs;
  a->root = root;
  a->base = base;
  a->read_version = base ? base->version() : 0;
  if (base) {
    a->manifest = base->proto();
    a->indices = base->index_section();
  } else {
    auto* format = a->manifest.mutable_data_format();
    format->set_file_format("lance");
    format->set_version("2.2");
  }
  a->manifest.set_version(a->read_version + 1);
  a->manifest.clear_transaction_file();
  a->manifest.clear_transaction_section();
  a->manifest.clear_index_section();
  a->manifest.clear_tag();
}

}  // namespace

std::string_view OperationName(const pb::Transaction& txn) {
  switch (txn.operation_case()) {
    case pb::Transaction::kAppend:
      return "Append";
    case pb::Transaction::kDelete:
      return "Delete";
    case pb::Transaction::kOverwrite:
      return "Overwrite";
    case pb::Transaction::kCreateIndex:
      return "CreateIndex";
    case pb::Transaction::kRewrite:
      return "Rewrite";
    case pb::Transaction::kMerge:
      return "Merge";
    case pb::Transaction::kRestore:
      return "Restore";
    case pb::Transaction::kReserveFragments:
      return "ReserveFragments";
    case pb::Transaction::kUpdate:
      return "Update";
    case pb::Transaction::kProject:
      return "Project";
    case pb::Transaction::kUpdateConfig:
      return "UpdateConfig";
    case pb::Transaction::kDataReplacement:
      return "DataReplacement";
    case pb::Transaction::kClone:
      return "Clone";
    case pb::Transaction::kUpdateBases:
      return "UpdateBases";
    default:
      return "Unknown";
  }
}

uint64_t NextFragmentId(const pb::Manifest& manifest) {
  uint64_t next = manifest.has_max_fragment_id() ? uint64_t{manifest.max_fragment_id()} + 1 : 0;
  for (const auto& f : manifest.fragments()) next = std::max(next, f.id() + 1);
  return next;
}

void UpdateMaxFragmentId(pb::Manifest* manifest, bool reset) {
  bool has = !reset && manifest->has_max_fragment_id();
  uint64_t max_id = has ? manifest->max_fragment_id() : 0;
  for (const auto& f : manifest->fragments()) {
    max_id = has ? std::max(max_id, f.id()) : f.id();
    has = true;
  }
  if (has) {
    manifest->set_max_fragment_id(static_cast<uint32_t>(max_id));
  } else {
    manifest->clear_max_fragment_id();
  }
}

namespace {

/// Write the attempt's transaction file and put-if-absent its manifest. On any failure the
/// attempt's files are deleted; AlreadyExists means another writer took the version.
Result<ManifestPtr> TryCommit(io::FileSystem& fs, const std::string& root, ManifestNaming naming,
                              CommitAttempt* attempt) {
  auto cleanup = [&](Status st) -> Status {
    DeleteQuietly(fs, attempt->written_files);
    return st;
  };
  pb::Manifest& m = attempt->manifest;
  StampWriter(&m);
  ApplyFeatureFlags(&m);
  attempt->transaction.set_read_version(attempt->read_version);
  attempt->transaction.set_uuid(NewUuid());
  std::string txn_name =
      std::to_string(attempt->read_version) + "-" + attempt->transaction.uuid() + ".txn";
  std::string txn_path = io::JoinPath(io::JoinPath(root, "_transactions"), txn_name);
  Status st = fs.WriteFile(txn_path, std::string_view(attempt->transaction.SerializeAsString()));
  if (!st.ok()) return cleanup(st);
  attempt->written_files.push_back(txn_path);
  m.set_transaction_file(txn_name);
  const uint64_t version = m.version();
  auto made = Manifest::Make(std::move(m), std::move(attempt->indices));
  if (!made.ok()) return cleanup(made.status());
  std::string bytes = (*made)->Serialize(&attempt->transaction);
  st = fs.PutIfAbsent(
      io::JoinPath(io::JoinPath(root, "_versions"), ManifestFileName(version, naming)),
      std::string_view(bytes));
  if (!st.ok()) return cleanup(st);
  return *made;
}

/// After losing the race for `lost_version`, check `op` against every transaction committed
/// since `read_version` and return the newest manifest to rebuild on.
Result<ManifestPtr> Rebase(io::FileSystem& fs, const std::string& root, ManifestNaming naming,
                           const Operation& op, uint64_t read_version, uint64_t lost_version) {
  LANCEDB_ASSIGN_OR_RETURN(auto listing, ListVersionFiles(fs, root));
  // The conflicting version exists even if a listing does not show it yet.
  uint64_t latest = std::max(lost_version, listing.versions.empty() ? 0 : listing.versions.back());
  ManifestPtr newest;
  for (uint64_t v = read_version + 1; v <= latest; ++v) {
    LANCEDB_ASSIGN_OR_RETURN(auto theirs_manifest, ReadManifest(fs, root, v, naming));
    auto theirs = ReadTransaction(fs, root, *theirs_manifest);
    if (!theirs.ok()) {
      return Status::CommitConflict(std::string(op.name()) + " cannot be rebased over version " +
                                    std::to_string(v) + ": its transaction cannot be read (" +
                                    theirs.status().ToString() + ")");
    }
    LANCEDB_RETURN_NOT_OK(op.CheckConflict(*theirs, v));
    newest = std::move(theirs_manifest);
  }
  return newest;
}

}  // namespace

Result<DatasetPtr> CommitOperation(const io::FileSystemPtr& fs, const std::string& root,
                                   ManifestPtr read, ManifestNaming naming, Operation* op,
                                   int max_retries) {
  ManifestPtr base = std::move(read);
  auto fail = [&](Status st) -> Status {
    DeleteQuietly(*fs, op->data_files);
    return st;
  };
  const uint64_t known = op->supports_stable_row_ids() ? kFlagStableRowIds : 0;
  for (int attempt_no = 0; attempt_no <= std::max(max_retries, 0); ++attempt_no) {
    if (base) {
      Status flags = base->CheckWriterFlags(known);
      if (!flags.ok()) return fail(flags);
    }
    CommitAttempt attempt;
    InitAttempt(fs.get(), root, base.get(), &attempt);
    Status st = op->Build(&attempt);
    if (!st.ok()) {
      DeleteQuietly(*fs, attempt.written_files);
      return fail(st);
    }
    const uint64_t version = attempt.manifest.version();
    auto committed = TryCommit(*fs, root, naming, &attempt);
    if (committed.ok()) {
      WriteVersionHint(*fs, root, version);
      return MakeDataset(fs, root, *committed, naming);
    }
    if (!committed.status().IsAlreadyExists()) return fail(committed.status());
    if (!base) return fail(Status::AlreadyExists("Dataset '" + root + "' already exists"));
    auto newest = Rebase(*fs, root, naming, *op, attempt.read_version, version);
    if (!newest.ok()) return fail(newest.status());
    base = *newest;
    Backoff(attempt_no);
  }
  return fail(Status::CommitConflict(std::string(op->name()) + " failed to commit to '" + root +
                                     "' after " + std::to_string(max_retries) +
                                     " retries: too many concurrent writers"));
}

}  // namespace lancedb::table
