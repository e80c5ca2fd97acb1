// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/create_index_op.h"

#include <algorithm>

#include "table/deletion.h"

namespace lancedb::table {
namespace {

bool SameUuid(const pb::IndexMetadata& a, const pb::IndexMetadata& b) {
  return a.uuid().uuid() == b.uuid().uuid();
}

/// Remove from `indices` every entry matching `pred`, appending it to `out`.
template <typename Pred>
int RemoveIf(pb::IndexSection* indices, Pred pred, pb::Transaction::CreateIndex* out) {
  auto* list = indices->mutable_indices();
  int removed = 0;
  for (int i = list->size() - 1; i >= 0; --i) {
    if (!pred(list->Get(i))) continue;
    *out->add_removed_indices() = list->Get(i);
    list->DeleteSubrange(i, 1);
    ++removed;
  }
  return removed;
}

}  // namespace

std::string IndexUuidString(const pb::IndexMetadata& index) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::string& b = index.uuid().uuid();
  std::string out;
  for (size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[static_cast<uint8_t>(b[i]) >> 4]);
    out.push_back(kHex[static_cast<uint8_t>(b[i]) & 15]);
  }
  return out;
}

Result<std::string> IndexDirPath(const pb::Manifest& manifest, const std::string& root,
                                 const pb::IndexMetadata& index) {
  bool dataset_root = true;
  LANCEDB_ASSIGN_OR_RETURN(
      std::string base,
      ResolveBaseRoot(manifest, root,
                      index.has_base_id() ? std::optional<uint32_t>(index.base_id()) : std::nullopt,
                      &dataset_root));
  const std::string uuid = IndexUuidString(index);
  return dataset_root ? io::JoinPath(io::JoinPath(base, "_indices"), uuid)
                      : io::JoinPath(base, uuid);
}

Status CreateIndexOperation::Build(CommitAttempt* a) {
  pb::Transaction::CreateIndex* txn = a->transaction.mutable_create_index();
  txn->Clear();
  for (const auto& gone : removed_) {
    int n = RemoveIf(
        &a->indices, [&](const pb::IndexMetadata& m) { return SameUuid(m, gone); }, txn);
    if (n == 0) {
      return Status::RetryableCommitConflict(
          "Index '" + gone.name() + "' (" + IndexUuidString(gone) +
          ") was changed or dropped by a concurrent write; retry on the new version");
    }
  }
  for (const auto& added : new_indices_) {
    auto same_name = [&](const pb::IndexMetadata& m) { return m.name() == added.name(); };
    const auto& list = a->indices.indices();
    if (!replace_ && std::any_of(list.begin(), list.end(), same_name)) {
      return Status::AlreadyExists("Index name '" + added.name() +
                                   "' already exists, please specify a different name or use "
                                   "replace=True");
    }
    RemoveIf(&a->indices, same_name, txn);
  }
  for (const auto& added : new_indices_) {
    for (int32_t field : added.fields()) {
      const auto& fields = a->manifest.fields();
      bool found =
          std::any_of(fields.begin(), fields.end(), [&](const auto& f) { return f.id() == field; });
      if (!found) {
        return Status::CommitConflict("Index '" + added.name() + "' refers to field id " +
                                      std::to_string(field) + " which no longer exists");
      }
    }
    *a->indices.add_indices() = added;
    *txn->add_new_indices() = added;
  }
  return Status::OK();
}

}  // namespace lancedb::table
