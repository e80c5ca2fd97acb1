// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tags on a LocalTable (stored by the table layer, table/tags.h). Tags live at the table's root
// and name a version of a branch: the handle's branch when created from it.

#include "db/table_impl.h"
#include "table/branches.h"
#include "table/tags.h"

namespace lancedb {

Result<std::map<std::string, TagInfo>> Table::ListTags() const {
  return Status::NotSupported("Tags are not supported by this table");
}
Result<uint64_t> Table::GetTagVersion(const std::string&) const {
  return Status::NotSupported("Tags are not supported by this table");
}
Status Table::CreateTag(const std::string&, uint64_t) {
  return Status::NotSupported("Tags are not supported by this table");
}
Status Table::UpdateTag(const std::string&, uint64_t) {
  return Status::NotSupported("Tags are not supported by this table");
}
Status Table::DeleteTag(const std::string&) {
  return Status::NotSupported("Tags are not supported by this table");
}
Status Table::CheckoutTag(const std::string&) {
  return Status::NotSupported("Tags are not supported by this table");
}

namespace db {

Result<std::map<std::string, TagInfo>> LocalTable::ListTags() const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto tags, table::ListTags(*ds->fs(), table::TableRootOf(*ds)));
  std::map<std::string, TagInfo> out;
  for (const auto& [name, tag] : tags) {
    out[name] = TagInfo{tag.branch, tag.version, tag.manifest_size};
  }
  return out;
}

Result<uint64_t> LocalTable::GetTagVersion(const std::string& tag) const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto contents, table::GetTag(*ds->fs(), table::TableRootOf(*ds), tag));
  return contents.version;
}

Status LocalTable::CreateTag(const std::string& tag, uint64_t version) {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return table::CreateTag(*ds->fs(), table::TableRootOf(*ds), tag, version, table::BranchOf(*ds));
}

Status LocalTable::UpdateTag(const std::string& tag, uint64_t version) {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return table::UpdateTag(*ds->fs(), table::TableRootOf(*ds), tag, version, table::BranchOf(*ds));
}

Status LocalTable::DeleteTag(const std::string& tag) {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return table::DeleteTag(*ds->fs(), table::TableRootOf(*ds), tag);
}

Status LocalTable::CheckoutTag(const std::string& tag) {
  table::DatasetPtr current = Current();
  const std::string root = table::TableRootOf(*current);
  LANCEDB_ASSIGN_OR_RETURN(auto contents, table::GetTag(*current->fs(), root, tag));
  LANCEDB_ASSIGN_OR_RETURN(
      auto ds, table::Dataset::Open(current->fs(), table::BranchDatasetPath(root, contents.branch),
                                    contents.version));
  MutexLock lock(&mu_);
  dataset_ = std::move(ds);
  pinned_version_ = contents.version;
  return Status::OK();
}

}  // namespace db
}  // namespace lancedb
