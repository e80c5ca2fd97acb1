// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The conflict table (conflicts.h) and the footprints of transactions it compares.

#include "table/conflicts.h"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>

namespace lancedb::table {

namespace {

using R = ConflictRule;
constexpr R kOk = R::kRebase;
constexpr R kDis = R::kRebaseIfDisjoint;
constexpr R kDel = R::kMergeDeletions;
constexpr R kFld = R::kRebaseIfOtherFields;
constexpr R kKey = R::kRebaseIfOtherKeys;
constexpr R kRty = R::kRetry;
constexpr R kNo = R::kIncompatible;

// clang-format off
/// kRules[ours][theirs], in OpKind order:
///   Append Delete Update Overwrite CreateIndex Rewrite Merge Restore ReserveFragments Project
///   UpdateConfig DataReplacement Clone UpdateBases Unknown
constexpr std::array<std::array<R, kNumOpKinds>, kNumOpKinds> kRules = {{
  /* Append           */ {kOk,  kOk,  kOk,  kNo, kOk,  kOk,  kRty, kNo, kOk, kOk,  kOk,  kOk,  kOk, kOk,  kNo},
  /* Delete           */ {kOk,  kDel, kDel, kNo, kOk,  kDis, kRty, kNo, kOk, kOk,  kOk,  kDis, kOk, kOk,  kNo},
  /* Update           */ {kOk,  kDel, kDel, kNo, kOk,  kDis, kRty, kNo, kOk, kOk,  kOk,  kDis, kOk, kOk,  kNo},
  /* Overwrite        */ {kOk,  kOk,  kOk,  kKey, kOk, kOk,  kOk,  kOk, kOk, kOk,  kKey, kOk,  kOk, kOk,  kOk},
  /* CreateIndex      */ {kOk,  kOk,  kOk,  kNo, kOk,  kOk,  kOk,  kNo, kOk, kOk,  kOk,  kFld, kOk, kOk,  kNo},
  /* Rewrite          */ {kOk,  kDis, kDis, kNo, kOk,  kDis, kRty, kNo, kOk, kOk,  kOk,  kDis, kOk, kOk,  kNo},
  /* Merge            */ {kRty, kOk,  kRty, kNo, kOk,  kRty, kRty, kNo, kOk, kNo,  kOk,  kRty, kOk, kOk,  kNo},
  /* Restore          */ {kOk,  kOk,  kOk,  kOk, kOk,  kOk,  kOk,  kOk, kOk, kOk,  kOk,  kOk,  kOk, kOk,  kOk},
  /* ReserveFragments */ {kOk,  kOk,  kOk,  kNo, kOk,  kOk,  kOk,  kNo, kOk, kOk,  kOk,  kOk,  kOk, kOk,  kNo},
  /* Project          */ {kOk,  kOk,  kOk,  kNo, kOk,  kOk,  kRty, kNo, kOk, kRty, kOk,  kOk,  kOk, kOk,  kNo},
  /* UpdateConfig     */ {kOk,  kOk,  kOk,  kKey, kOk, kOk,  kOk,  kOk, kOk, kOk,  kKey, kOk,  kOk, kOk,  kNo},
  /* DataReplacement  */ {kOk,  kOk,  kOk,  kNo, kFld, kDis, kOk,  kNo, kOk, kOk,  kOk,  kFld, kOk, kOk,  kNo},
  /* Clone            */ {kOk,  kOk,  kOk,  kOk, kOk,  kOk,  kOk,  kOk, kOk, kOk,  kOk,  kOk,  kOk, kOk,  kOk},
  /* UpdateBases      */ {kOk,  kOk,  kOk,  kOk, kOk,  kOk,  kOk,  kOk, kOk, kOk,  kOk,  kOk,  kOk, kKey, kNo},
  /* Unknown          */ {kNo,  kNo,  kNo,  kNo, kNo,  kNo,  kNo,  kNo, kNo, kNo,  kNo,  kNo,  kNo, kNo,  kNo},
}};
// clang-format on

/// Fragment ids whose rows or files a transaction changed or removed.
std::set<uint64_t> ModifiedFragments(const pb::Transaction& txn) {
  std::set<uint64_t> ids;
  switch (txn.operation_case()) {
    case pb::Transaction::kDelete:
      for (const auto& f : txn.delete_().updated_fragments()) ids.insert(f.id());
      ids.insert(txn.delete_().deleted_fragment_ids().begin(),
                 txn.delete_().deleted_fragment_ids().end());
      break;
    case pb::Transaction::kUpdate:
      for (const auto& f : txn.update().updated_fragments()) ids.insert(f.id());
      ids.insert(txn.update().removed_fragment_ids().begin(),
                 txn.update().removed_fragment_ids().end());
      break;
    case pb::Transaction::kRewrite:
      for (const auto& f : txn.rewrite().old_fragments()) ids.insert(f.id());
      for (const auto& g : txn.rewrite().groups()) {
        for (const auto& f : g.old_fragments()) ids.insert(f.id());
      }
      break;
    case pb::Transaction::kDataReplacement:
      for (const auto& r : txn.data_replacement().replacements()) ids.insert(r.fragment_id());
      break;
    default:
      break;
  }
  return ids;
}

/// Fragment ids a Delete or Update removed whole, or whose data files it replaced (an Update
/// that rewrote columns in place).
std::set<uint64_t> RemovedOrRewrittenFragments(const pb::Transaction& txn) {
  std::set<uint64_t> ids;
  if (txn.has_delete_()) {
    ids.insert(txn.delete_().deleted_fragment_ids().begin(),
               txn.delete_().deleted_fragment_ids().end());
  } else if (txn.has_update()) {
    const auto& u = txn.update();
    ids.insert(u.removed_fragment_ids().begin(), u.removed_fragment_ids().end());
    if (u.update_mode() == pb::Transaction::REWRITE_COLUMNS) {
      for (const auto& f : u.updated_fragments()) ids.insert(f.id());
    }
  }
  return ids;
}

/// (fragment id or -1 for any, field id) pairs: the fields a CreateIndex indexes or a
/// DataReplacement replaced.
std::set<std::pair<int64_t, int32_t>> TouchedFields(const pb::Transaction& txn) {
  std::set<std::pair<int64_t, int32_t>> out;
  if (txn.has_create_index()) {
    for (const auto& index : txn.create_index().new_indices()) {
      for (int32_t field : index.fields()) out.emplace(-1, field);
    }
  } else if (txn.has_data_replacement()) {
    for (const auto& r : txn.data_replacement().replacements()) {
      for (int32_t field : r.new_file().fields()) {
        out.emplace(static_cast<int64_t>(r.fragment_id()), field);
      }
    }
  }
  return out;
}

void AddUpdateMapKeys(const pb::Transaction::UpdateMap& m, const std::string& prefix,
                      std::set<std::string>* keys) {
  for (const auto& e : m.update_entries()) keys->insert(prefix + e.key());
}

/// The configuration keys, schema/field metadata and base paths a transaction sets or removes,
/// each prefixed by what it belongs to.
std::set<std::string> TouchedKeys(const pb::Transaction& txn) {
  std::set<std::string> keys;
  if (txn.has_overwrite()) {
    for (const auto& [k, v] : txn.overwrite().config_upsert_values()) keys.insert("config:" + k);
  } else if (txn.has_update_config()) {
    const auto& c = txn.update_config();
    for (const auto& [k, v] : c.upsert_values()) keys.insert("config:" + k);
    for (const auto& k : c.delete_keys()) keys.insert("config:" + k);
    AddUpdateMapKeys(c.config_updates(), "config:", &keys);
    if (!c.schema_metadata().empty() || c.has_schema_metadata_updates()) {
      keys.insert("schema metadata");
    }
    for (const auto& [field, m] : c.field_metadata_updates()) {
      keys.insert("metadata of field " + std::to_string(field));
    }
  } else if (txn.has_update_bases()) {
    for (const auto& b : txn.update_bases().new_bases()) {
      if (b.id() != 0) keys.insert("base id " + std::to_string(b.id()));
      if (b.has_name()) keys.insert("base name " + b.name());
      keys.insert("base path " + b.path());
    }
  }
  return keys;
}

template <typename T>
std::optional<T> FirstShared(const std::set<T>& a, const std::set<T>& b) {
  for (const auto& x : a) {
    if (b.count(x)) return x;
  }
  return std::nullopt;
}

std::string Describe(OpKind ours, OpKind theirs, uint64_t version, const std::string& why) {
  std::string msg = std::string(OpKindName(ours)) + " conflicts with the concurrent " +
                    std::string(OpKindName(theirs)) + " committed as version " +
                    std::to_string(version);
  if (!why.empty()) msg += ": " + why;
  return msg;
}

Status Retry(OpKind ours, OpKind theirs, uint64_t version, const std::string& why) {
  return Status::RetryableCommitConflict(Describe(ours, theirs, version, why) +
                                         "; retry on the new version");
}

Status Incompatible(OpKind ours, OpKind theirs, uint64_t version, const std::string& why) {
  return Status::CommitConflict(Describe(ours, theirs, version, why));
}

}  // namespace

OpKind KindOf(const pb::Transaction& txn) {
  switch (txn.operation_case()) {
    case pb::Transaction::kAppend:
      return OpKind::kAppend;
    case pb::Transaction::kDelete:
      return OpKind::kDelete;
    case pb::Transaction::kUpdate:
      return OpKind::kUpdate;
    case pb::Transaction::kOverwrite:
      return OpKind::kOverwrite;
    case pb::Transaction::kCreateIndex:
      return OpKind::kCreateIndex;
    case pb::Transaction::kRewrite:
      return OpKind::kRewrite;
    case pb::Transaction::kMerge:
      return OpKind::kMerge;
    case pb::Transaction::kRestore:
      return OpKind::kRestore;
    case pb::Transaction::kReserveFragments:
      return OpKind::kReserveFragments;
    case pb::Transaction::kProject:
      return OpKind::kProject;
    case pb::Transaction::kUpdateConfig:
      return OpKind::kUpdateConfig;
    case pb::Transaction::kDataReplacement:
      return OpKind::kDataReplacement;
    case pb::Transaction::kClone:
      return OpKind::kClone;
    case pb::Transaction::kUpdateBases:
      return OpKind::kUpdateBases;
    default:
      return OpKind::kUnknown;
  }
}

std::string_view OpKindName(OpKind kind) {
  static constexpr std::array<std::string_view, kNumOpKinds> kNames = {
      "Append",       "Delete",          "Update",  "Overwrite",        "CreateIndex",
      "Rewrite",      "Merge",           "Restore", "ReserveFragments", "Project",
      "UpdateConfig", "DataReplacement", "Clone",   "UpdateBases",      "Unknown"};
  return kNames[static_cast<size_t>(kind)];
}

ConflictRule RuleFor(OpKind ours, OpKind theirs) {
  return kRules[static_cast<size_t>(ours)][static_cast<size_t>(theirs)];
}

std::string_view ConflictRuleName(ConflictRule rule) {
  switch (rule) {
    case R::kRebase:
      return "rebase";
    case R::kRebaseIfDisjoint:
      return "rebase if disjoint fragments";
    case R::kMergeDeletions:
      return "merge deletions";
    case R::kRebaseIfOtherFields:
      return "rebase if other fields";
    case R::kRebaseIfOtherKeys:
      return "rebase if other keys";
    case R::kRetry:
      return "retry";
    case R::kIncompatible:
      return "incompatible";
  }
  return "?";
}

Status CheckRebase(const pb::Transaction& ours, const pb::Transaction& theirs,
                   uint64_t their_version) {
  const OpKind a = KindOf(ours);
  const OpKind b = KindOf(theirs);
  switch (RuleFor(a, b)) {
    case R::kRebase:
      return Status::OK();
    case R::kRebaseIfDisjoint: {
      auto shared = FirstShared(ModifiedFragments(ours), ModifiedFragments(theirs));
      if (!shared) return Status::OK();
      return Retry(a, b, their_version, "both modified fragment " + std::to_string(*shared));
    }
    case R::kMergeDeletions: {
      auto shared = FirstShared(ModifiedFragments(ours), RemovedOrRewrittenFragments(theirs));
      if (!shared) return Status::OK();
      return Retry(a, b, their_version,
                   "it removed or rewrote fragment " + std::to_string(*shared));
    }
    case R::kRebaseIfOtherFields: {
      auto mine = TouchedFields(ours);
      for (const auto& [frag, field] : TouchedFields(theirs)) {
        for (const auto& [my_frag, my_field] : mine) {
          if (field != my_field) continue;
          if (frag >= 0 && my_frag >= 0 && frag != my_frag) continue;
          return Retry(a, b, their_version, "both changed field " + std::to_string(field));
        }
      }
      return Status::OK();
    }
    case R::kRebaseIfOtherKeys: {
      auto their_keys = TouchedKeys(theirs);
      if (b == OpKind::kOverwrite && a == OpKind::kUpdateConfig) {
        // The overwrite replaced the schema: a metadata change made beside it would be lost.
        their_keys.insert("schema metadata");
        for (const auto& f : theirs.overwrite().schema()) {
          their_keys.insert("metadata of field " + std::to_string(f.id()));
        }
      }
      auto shared = FirstShared(TouchedKeys(ours), their_keys);
      if (!shared) return Status::OK();
      return Incompatible(a, b, their_version, "both changed " + *shared);
    }
    case R::kRetry:
      return Retry(a, b, their_version, "");
    case R::kIncompatible:
      return Incompatible(a, b, their_version,
                          b == OpKind::kUnknown ? "lancedb-cpp does not know that operation" : "");
  }
  return Status::Internal("unknown conflict rule");
}

}  // namespace lancedb::table
