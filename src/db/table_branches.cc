// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Branches of a LocalTable (table/branches.h) and cherry-picks between them
// (table/cherry_pick.h), shaped as LanceDB's BranchDiff / CherryPickResult.

#include <algorithm>
#include <set>

#include "db/table_impl.h"
#include "table/branches.h"
#include "table/cherry_pick.h"
#include "table/tags.h"

namespace lancedb {

namespace {
Status NoBranches() { return Status::NotSupported("Branches are not supported by this table"); }
}  // namespace

std::optional<std::string> Table::current_branch() const { return std::nullopt; }
Result<std::map<std::string, BranchInfo>> Table::ListBranches() const { return NoBranches(); }
Result<std::shared_ptr<Table>> Table::CreateBranch(const std::string&,
                                                   const std::optional<std::string>&,
                                                   std::optional<uint64_t>) {
  return NoBranches();
}
Result<std::shared_ptr<Table>> Table::CheckoutBranch(const std::string&,
                                                     std::optional<uint64_t>) const {
  return NoBranches();
}
Status Table::DeleteBranch(const std::string&) { return NoBranches(); }
Result<BranchDiff> Table::DiffBranch(const std::string&) const { return NoBranches(); }
Result<CherryPickResult> Table::CherryPick(const std::string&, bool) { return NoBranches(); }

namespace db {
namespace {

std::string BranchLabel(const std::optional<std::string>& branch) {
  return branch ? "'" + *branch + "'" : "'main'";
}

/// The dataset a branch is created from: `from_ref` names a branch or, when no branch has that
/// name, a tag; unset, "main" or "" is main. `from_version` picks a version of that branch.
Result<table::DatasetPtr> ResolveSource(const table::Dataset& current, const std::string& root,
                                        const std::optional<std::string>& from_ref,
                                        std::optional<uint64_t> from_version) {
  io::FileSystem& fs = *current.fs();
  std::optional<std::string> branch;
  std::optional<uint64_t> version = from_version;
  if (from_ref && !from_ref->empty() && *from_ref != "main") {
    auto found = table::GetBranch(fs, root, *from_ref);
    if (found.ok()) {
      branch = *from_ref;
    } else if (!found.status().IsNotFound() && !found.status().IsInvalidArgument()) {
      return found.status();
    } else {
      auto tag = table::ValidateTagName(*from_ref).ok()
                     ? table::GetTag(fs, root, *from_ref)
                     : Result<table::TagContents>(Status::NotFound(""));
      if (!tag.ok()) {
        if (!tag.status().IsNotFound()) return tag.status();
        return Status::NotFound("No branch or tag named '" + *from_ref + "'");
      }
      if (from_version) {
        return Status::InvalidArgument("from_version cannot be given with the tag '" + *from_ref +
                                       "', which names a version itself");
      }
      branch = tag->branch;
      version = tag->version;
    }
  }
  auto ds = table::Dataset::Open(current.fs(), table::BranchDatasetPath(root, branch), version);
  if (!ds.ok() && ds.status().IsNotFound() && version) {
    return Status::NotFound("Version " + std::to_string(*version) + " of branch " +
                            BranchLabel(branch) + " not found");
  }
  return ds;
}

ColumnSummary Summarize(const array::Field& f) {
  return ColumnSummary{f.name(), f.type()->ToString(), f.nullable()};
}

void DiffColumns(const array::Schema& main, const array::Schema& branch, BranchDiff* diff) {
  for (const auto& f : branch.fields()) {
    int i = main.GetFieldIndex(f->name());
    if (i < 0) {
      diff->added_columns.push_back(Summarize(*f));
      continue;
    }
    const auto& m = main.field(i);
    if (!m->type()->Equals(*f->type()) || m->nullable() != f->nullable()) {
      diff->changed_columns.push_back(ColumnChange{f->name(), Summarize(*m), Summarize(*f)});
    }
  }
  for (const auto& f : main.fields()) {
    if (branch.GetFieldIndex(f->name()) < 0) diff->removed_columns.push_back(Summarize(*f));
  }
}

IndexSummary SummarizeIndex(const IndexInfo& info, const char* status) {
  IndexSummary s;
  s.index_name = info.name;
  s.columns = info.columns;
  if (!info.index_type.empty()) s.index_type = info.index_type;
  s.status = status;
  return s;
}

void DiffIndexes(const std::vector<IndexInfo>& main, const std::vector<IndexInfo>& branch,
                 BranchDiff* diff) {
  auto names = [](const std::vector<IndexInfo>& v) {
    std::set<std::string> out;
    for (const auto& i : v) out.insert(i.name);
    return out;
  };
  const auto in_main = names(main);
  const auto in_branch = names(branch);
  for (const auto& i : branch) {
    if (!in_main.count(i.name)) diff->added_indexes.push_back(SummarizeIndex(i, "added"));
  }
  for (const auto& i : main) {
    if (!in_branch.count(i.name)) diff->removed_indexes.push_back(SummarizeIndex(i, "removed"));
  }
}

/// Whether the branch described by `contents` was created from `parent` (nullopt: main) as it
/// is now, not from an earlier branch of the same name.
Result<bool> CreatedFrom(io::FileSystem& fs, const std::string& root,
                         const table::BranchContents& contents,
                         const std::optional<std::string>& parent) {
  if (contents.parent_branch != parent) return false;
  if (!parent) return true;
  LANCEDB_ASSIGN_OR_RETURN(auto mine, table::GetBranch(fs, root, *parent));
  const auto& a = mine.identifier;
  const auto& b = contents.identifier;
  return a.empty() || b.empty() ||
         (a.size() < b.size() && std::equal(a.begin(), a.end(), b.begin()));
}

CherryPickStatus ParseStatus(const std::string& s) {
  if (s == "ready") return CherryPickStatus::kReady;
  if (s == "cherryPicked") return CherryPickStatus::kCherryPicked;
  if (s == "notImplemented") return CherryPickStatus::kNotImplemented;
  return CherryPickStatus::kFailed;
}

}  // namespace

std::optional<std::string> LocalTable::current_branch() const {
  return table::BranchOf(*Current());
}

std::shared_ptr<Table> LocalTable::Sibling(table::DatasetPtr dataset,
                                           std::optional<uint64_t> pinned) const {
  return std::make_shared<LocalTable>(name_, std::move(dataset), read_consistency_interval_,
                                      pinned);
}

Result<std::map<std::string, BranchInfo>> LocalTable::ListBranches() const {
  table::DatasetPtr ds = Current();
  LANCEDB_ASSIGN_OR_RETURN(auto branches, table::ListBranches(*ds->fs(), table::TableRootOf(*ds)));
  std::map<std::string, BranchInfo> out;
  for (const auto& [name, b] : branches) {
    out[name] = BranchInfo{b.parent_branch, b.parent_version, b.create_at, b.manifest_size};
  }
  return out;
}

Result<std::shared_ptr<Table>> LocalTable::CreateBranch(const std::string& name,
                                                        const std::optional<std::string>& from_ref,
                                                        std::optional<uint64_t> from_version) {
  LANCEDB_RETURN_NOT_OK(table::ValidateBranchName(name));
  table::DatasetPtr current = Current();
  const std::string root = table::TableRootOf(*current);
  LANCEDB_ASSIGN_OR_RETURN(auto source, ResolveSource(*current, root, from_ref, from_version));
  LANCEDB_ASSIGN_OR_RETURN(auto branch, table::CreateBranch(source, root, name));
  return Sibling(std::move(branch), std::nullopt);
}

Result<std::shared_ptr<Table>> LocalTable::CheckoutBranch(const std::string& name,
                                                          std::optional<uint64_t> version) const {
  LANCEDB_ASSIGN_OR_RETURN(auto branch, table::NormalizeBranchName(name));
  table::DatasetPtr current = Current();
  const std::string root = table::TableRootOf(*current);
  if (branch) {
    LANCEDB_RETURN_NOT_OK(table::GetBranch(*current->fs(), root, *branch).status());
  }
  auto ds = table::Dataset::Open(current->fs(), table::BranchDatasetPath(root, branch), version);
  if (!ds.ok() && ds.status().IsNotFound() && version) {
    return Status::NotFound("Version " + std::to_string(*version) + " of branch " +
                            BranchLabel(branch) + " not found");
  }
  LANCEDB_RETURN_NOT_OK(ds.status());
  return Sibling(*ds, version);
}

Status LocalTable::DeleteBranch(const std::string& name) {
  LANCEDB_RETURN_NOT_OK(table::ValidateBranchName(name));
  table::DatasetPtr current = Current();
  if (table::BranchOf(*current) == name) {
    return Status::InvalidArgument("Cannot delete branch '" + name +
                                   "': this table handle is on it; use a handle on another "
                                   "branch");
  }
  return table::DeleteBranch(*current->fs(), table::TableRootOf(*current), name);
}

Result<CherryPickResult> LocalTable::RunCherryPick(const std::string& from_branch, bool dry_run,
                                                   table::DatasetPtr* committed) const {
  LANCEDB_ASSIGN_OR_RETURN(auto from, table::NormalizeBranchName(from_branch));
  table::DatasetPtr current = Current();
  const std::string root = table::TableRootOf(*current);
  const std::optional<std::string> self = table::BranchOf(*current);
  if (from == self) {
    return Status::InvalidArgument("Cannot cherry-pick branch " + BranchLabel(from) +
                                   " onto itself");
  }
  io::FileSystem& fs = *current->fs();
  table::BranchContents contents;
  if (from) {
    LANCEDB_ASSIGN_OR_RETURN(contents, table::GetBranch(fs, root, *from));
  }
  LANCEDB_ASSIGN_OR_RETURN(
      auto source, table::Dataset::Open(current->fs(), table::BranchDatasetPath(root, from)));
  LANCEDB_ASSIGN_OR_RETURN(auto target, LatestForWrite());
  CherryPickResult result;
  BranchDiff& diff = result.diff;
  diff.from_branch = from.value_or("main");
  diff.parent_version = contents.parent_version;
  LANCEDB_RETURN_NOT_OK(DescribeDiff(target, source, &result));

  bool related = false;
  if (from) {
    LANCEDB_ASSIGN_OR_RETURN(related, CreatedFrom(fs, root, contents, self));
  }
  if (!related) {
    result.status = CherryPickStatus::kFailed;
    diff.errors.push_back(
        {"parentNotMain", "Branch " + BranchLabel(from) + " was not created from " +
                              BranchLabel(self) +
                              "; a cherry-pick replays a branch onto the branch it was created "
                              "from"});
    return result;
  }
  if (!dry_run) {
    LANCEDB_RETURN_NOT_OK(CheckWritable());
  }
  LANCEDB_ASSIGN_OR_RETURN(
      auto outcome,
      table::CherryPickCommits(target, source, contents.parent_version, *from, dry_run));
  diff.row_summary.unchanged = outcome.rows_unchanged;
  diff.row_summary.new_on_base = outcome.rows_new_on_target;
  diff.row_summary.new_on_branch = outcome.rows_new_on_source;
  diff.row_summary.delta_available = outcome.history_available;
  for (auto& [code, message] : outcome.errors) {
    diff.errors.push_back(CherryPickError{std::move(code), std::move(message)});
  }
  result.status = ParseStatus(outcome.status);
  result.main_version_after = outcome.version_after;
  if (outcome.version_after && committed != nullptr) {
    LANCEDB_ASSIGN_OR_RETURN(*committed, LatestForWrite());
  }
  return result;
}

Status LocalTable::DescribeDiff(const table::DatasetPtr& target, const table::DatasetPtr& source,
                                CherryPickResult* result) const {
  BranchDiff& diff = result->diff;
  diff.main_version = target->version();
  diff.branch_version = source->version();
  diff.base_moved = diff.main_version != diff.parent_version;
  LANCEDB_ASSIGN_OR_RETURN(int64_t main_rows, target->CountRows());
  LANCEDB_ASSIGN_OR_RETURN(int64_t branch_rows, source->CountRows());
  diff.row_count_main = static_cast<uint64_t>(main_rows);
  diff.row_count_branch = static_cast<uint64_t>(branch_rows);
  DiffColumns(*target->schema(), *source->schema(), &diff);
  LANCEDB_ASSIGN_OR_RETURN(auto main_indexes, Sibling(target, target->version())->ListIndices());
  LANCEDB_ASSIGN_OR_RETURN(auto branch_indexes, Sibling(source, source->version())->ListIndices());
  DiffIndexes(main_indexes, branch_indexes, &diff);
  for (const auto& c : diff.added_columns) result->promoted_columns.push_back(c.name);
  return Status::OK();
}

Result<BranchDiff> LocalTable::DiffBranch(const std::string& from_branch) const {
  LANCEDB_ASSIGN_OR_RETURN(auto result, RunCherryPick(from_branch, /*dry_run=*/true, nullptr));
  return std::move(result.diff);
}

Result<CherryPickResult> LocalTable::CherryPick(const std::string& from_branch, bool dry_run) {
  table::DatasetPtr committed;
  LANCEDB_ASSIGN_OR_RETURN(auto result, RunCherryPick(from_branch, dry_run, &committed));
  if (committed) Publish(committed);
  return result;
}

}  // namespace db
}  // namespace lancedb
