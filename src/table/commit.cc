// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The commit loop (lance-format.md §1.4): transaction file, put-if-absent manifest, rebase and
// retry with randomized backoff.

#include "table/commit.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <mutex>
#include <random>
#include <thread>

#include "common/random.h"
#include "table/conflicts.h"
#include "table/dataset_impl.h"

namespace lancedb::table {

namespace {

void DeleteQuietly(io::FileSystem& fs, const std::vector<std::string>& paths) {
  for (const auto& p : paths) (void)fs.DeleteFile(p);
}

/// Writers of one process commit to a table one at a time, so that they queue instead of
/// losing put-if-absent races to each other. Striped by the table's root: two tables sharing
/// a stripe only commit one after the other.
std::mutex& CommitMutex(const std::string& root) {
  static std::array<std::mutex, 64> stripes;
  return stripes[std::hash<std::string>{}(root) % stripes.size()];
}

/// Sleep a random number of slots, 0 .. 2^(attempt + 2) - 1 (at most 1023), of `unit`, never
/// past `deadline`: writers that lost a race spread out, more the more often they lost.
void Backoff(int attempt, std::chrono::microseconds unit,
             std::chrono::steady_clock::time_point deadline) {
  const int64_t slots = int64_t{1} << std::min(attempt + 2, 10);
  std::uniform_int_distribution<int64_t> dist(0, slots - 1);
  auto wake = std::chrono::steady_clock::now() + unit * dist(ThreadRng());
  std::this_thread::sleep_until(std::min(wake, deadline));
}

/// Prepare the common parts of an attempt on `base`.
void InitAttempt(io::FileSystem* fs, const std::string& root, const Manifest* read,
                 const Manifest* base, CommitAttempt* a) {
  a->fs = fs;
  a->root = root;
  a->read = read;
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

/// Check `ours` against the transaction of every version after `checked` that exists; versions
/// up to `until` must. Only transactions are decoded on the way; returns the newest manifest
/// (nullptr when there is no newer version).
Result<ManifestPtr> CheckNewer(io::FileSystem& fs, const std::string& root, ManifestNaming naming,
                               const pb::Transaction& ours, std::string_view name, uint64_t checked,
                               uint64_t until) {
  uint64_t last = checked;
  for (uint64_t v = checked + 1;; ++v) {
    auto theirs = ReadVersionTransaction(fs, root, v, naming);
    if (!theirs.ok()) {
      if (theirs.status().IsNotFound() && v > until) break;
      return theirs.status();
    }
    if (!theirs->has_value()) {
      return Status::RetryableCommitConflict(
          std::string(name) + " cannot be rebased over version " + std::to_string(v) +
          ": it records no transaction; retry on the new version");
    }
    LANCEDB_RETURN_NOT_OK(CheckRebase(ours, **theirs, v));
    last = v;
  }
  if (last == checked) return ManifestPtr();
  return ReadManifest(fs, root, last, naming);
}

}  // namespace

Result<DatasetPtr> CommitOperation(const io::FileSystemPtr& fs, const std::string& root,
                                   ManifestPtr read, ManifestNaming naming, Operation* op,
                                   const CommitOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + options.timeout;
  auto fail = [&](Status st) -> Status {
    DeleteQuietly(*fs, op->data_files);
    return st;
  };
  ManifestPtr base = read;
  // Every transaction committed after `checked` still has to be checked against ours.
  uint64_t checked = read ? read->version() : 0;
  const uint64_t known = op->supports_stable_row_ids() ? kFlagStableRowIds : 0;
  std::chrono::microseconds unit{1000};
  std::unique_lock lock(CommitMutex(root));
  for (int attempt_no = 0;; ++attempt_no) {
    // Build on the newest version: catch up with what other writers committed since `checked`
    // (while this one waited for the lock, or since it read the table), checking each.
    CommitAttempt attempt;
    while (true) {
      if (base) {
        Status flags = base->CheckWriterFlags(known);
        if (!flags.ok()) return fail(flags);
      }
      attempt = CommitAttempt();
      InitAttempt(fs.get(), root, read.get(), base.get(), &attempt);
      Status st = op->Build(&attempt);
      Result<ManifestPtr> newest = ManifestPtr();
      if (st.ok() && base) {
        newest = CheckNewer(*fs, root, naming, attempt.transaction, op->name(), checked,
                            base->version());
        st = newest.status();
      }
      if (!st.ok()) {
        DeleteQuietly(*fs, attempt.written_files);
        return fail(st);
      }
      if (*newest == nullptr || (*newest)->version() == base->version()) break;
      checked = (*newest)->version();
      base = *newest;
      DeleteQuietly(*fs, attempt.written_files);
    }
    LANCEDB_DCHECK(!base || base->version() >= (read ? read->version() : 0));
    if (base) checked = std::max(checked, base->version());
    const uint64_t version = attempt.manifest.version();
    auto committed = TryCommit(*fs, root, naming, &attempt);
    if (committed.ok()) {
      lock.unlock();
      WriteVersionHint(*fs, root, version);
      return MakeDataset(fs, root, *committed, naming);
    }
    if (!committed.status().IsAlreadyExists()) return fail(committed.status());
    if (!base) return fail(Status::AlreadyExists("Dataset '" + root + "' already exists"));
    // Another process (or engine) committed `version` first: the next round checks it.
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      return fail(Status::RetryableCommitConflict(
          std::string(op->name()) + " failed to commit to '" + root + "': too much write " +
          "contention (" + std::to_string(attempt_no + 1) + " attempts in " +
          std::to_string(
              std::chrono::duration_cast<std::chrono::milliseconds>(now - start).count()) +
          " ms); retry later"));
    }
    // A slot is about as long as an attempt takes (Lance's slot backoff).
    if (attempt_no == 0) {
      unit = std::max(unit,
                      std::chrono::duration_cast<std::chrono::microseconds>(now - start) * 11 / 10);
    }
    lock.unlock();
    Backoff(attempt_no, unit, deadline);
    lock.lock();
  }
}

Result<DatasetPtr> CommitOperation(const DatasetPtr& read, Operation* op,
                                   const CommitOptions& options) {
  return CommitOperation(read->fs(), read->path(), read->manifest_ptr(), read->manifest_naming(),
                         op, options);
}

}  // namespace lancedb::table
