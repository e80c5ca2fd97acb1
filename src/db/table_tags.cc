// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tags on a LocalTable (stored by the table layer, table/tags.h).

#include "db/table_impl.h"
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
  LANCEDB_ASSIGN_OR_RETURN(auto tags, table::ListTags(*ds->fs(), ds->path()));
  std::map<std::string, TagInfo> out;
  for (const auto& [name, tag] : tags) out[name] = TagInfo{tag.version, tag.manifest_size};
  return out;
}

Result<uint64_t> LocalTable::GetTagVersion(const std::string& tag) const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto contents, table::GetTag(*ds->fs(), ds->path(), tag));
  return contents.version;
}

Status LocalTable::CreateTag(const std::string& tag, uint64_t version) {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return table::CreateTag(*ds->fs(), ds->path(), tag, version);
}

Status LocalTable::UpdateTag(const std::string& tag, uint64_t version) {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return table::UpdateTag(*ds->fs(), ds->path(), tag, version);
}

Status LocalTable::DeleteTag(const std::string& tag) {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return table::DeleteTag(*ds->fs(), ds->path(), tag);
}

Status LocalTable::CheckoutTag(const std::string& tag) {
  LANCEDB_ASSIGN_OR_RETURN(uint64_t version, GetTagVersion(tag));
  return Checkout(version);
}

}  // namespace db
}  // namespace lancedb
