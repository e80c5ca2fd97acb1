// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The conflict table of the commit protocol (lance-format.md §1.4; docs/concurrency.md): for an
// operation being committed ("ours") and each operation another writer committed since ours read
// the table ("theirs"), one rule says whether ours can be rebuilt on top of theirs.
//
// The rules come from Lance's commit conflict resolver, with three deliberate differences that
// make lancedb-cpp accept more interleavings without losing anything (docs/concurrency.md):
// a Rewrite (compaction) rebases over a CreateIndex (the rewritten fragments simply leave the
// index), a CreateIndex rebases over a Rewrite (likewise), and an add-columns Merge rebases over
// a Delete (deletions do not change the rows a data file covers). An Append does not rebase over
// a Merge (Lance lets it, leaving the appended rows without the new columns' values).
//
// The rules that depend on rows rather than on fragments (two deletes of the same fragment) are
// finished when the operation is rebuilt on the newer version: see DeleteOperation::Build.
// Thread-safety: pure functions over immutable data.

#pragma once

#include <cstdint>
#include <string_view>

#include "lancedb/status.h"
#include "table/proto/transaction.pb.h"

namespace lancedb::table {

namespace pb = ::lance::table;

/// The kind of a transaction's operation (lance-format.md §1.3).
enum class OpKind : uint8_t {
  kAppend,
  kDelete,
  kUpdate,
  kOverwrite,
  kCreateIndex,
  kRewrite,
  kMerge,
  kRestore,
  kReserveFragments,
  kProject,
  kUpdateConfig,
  kDataReplacement,
  kClone,
  kUpdateBases,
  kUnknown,  // an operation this version of lancedb-cpp does not know
};
inline constexpr int kNumOpKinds = static_cast<int>(OpKind::kUnknown) + 1;

/// How ours relates to one of theirs.
enum class ConflictRule : uint8_t {
  /// Always compatible: rebuild ours on the newer version.
  kRebase,
  /// Compatible when the fragments both modify are disjoint; otherwise retryable.
  kRebaseIfDisjoint,
  /// Delete/Update against Delete/Update: compatible when ours modifies no fragment theirs
  /// removed or gave new data files; deletion vectors of shared fragments are merged when ours
  /// is rebuilt, and a row both deleted is a retryable conflict found then.
  kMergeDeletions,
  /// Compatible when theirs replaced no field ours indexes (or, for two data replacements, no
  /// field of the same fragment); otherwise retryable.
  kRebaseIfOtherFields,
  /// Compatible when the two change different configuration keys, bases or field metadata;
  /// otherwise not retryable.
  kRebaseIfOtherKeys,
  /// Always a retryable conflict: ours must be executed again on the newer version.
  kRetry,
  /// Never compatible: executing ours again would not help (theirs replaced the table).
  kIncompatible,
};

/// The kind of `txn`'s operation.
OpKind KindOf(const pb::Transaction& txn);
/// "Append", "Delete", ...
std::string_view OpKindName(OpKind kind);
/// The rule for `ours` against a concurrently committed `theirs`.
ConflictRule RuleFor(OpKind ours, OpKind theirs);
/// "rebase", "rebase if disjoint", ...
std::string_view ConflictRuleName(ConflictRule rule);

/// Decide whether `ours` (as last built) can be rebuilt over `theirs`, committed as version
/// `their_version`. OK when it can; RetryableCommitConflict or CommitConflict naming both
/// operations, the version and what they share otherwise.
Status CheckRebase(const pb::Transaction& ours, const pb::Transaction& theirs,
                   uint64_t their_version);

}  // namespace lancedb::table
