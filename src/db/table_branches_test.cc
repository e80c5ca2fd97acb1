// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of branches (Table::CreateBranch ... CherryPick) and clones (Connection::CloneTable):
// the Lance layout, isolation of writes, bad names and sources refused with nothing written,
// cleanup that keeps what branches and clones reference, and cherry-picks that apply or report
// their conflict without committing.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "lancedb/lancedb.h"
#include "table/branches.h"
#include "table/dataset.h"
#include "table/manifest.h"
#include "table/table_test_util.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;
namespace fs = std::filesystem;
using table::testing::TempDir;

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64()), la::field("s", la::utf8())});
}

la::RecordBatchPtr Rows(int64_t first, int64_t count) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> ss;
  for (int64_t i = first; i < first + count; ++i) {
    ids.push_back(i);
    ss.push_back("v" + std::to_string(i));
  }
  return *la::RecordBatch::Make(Schema(),
                                {la::MakePrimitive(la::int64(), ids), la::MakeString(ss)});
}

void Add(const std::shared_ptr<Table>& t, int64_t first, int64_t count) {
  ArrowArrayStream s;
  ASSERT_TRUE(
      la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Rows(first, count)}), &s).ok());
  auto added = t->Add(&s);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
}

/// Sorted ids of every row.
std::vector<int64_t> Ids(const std::shared_ptr<Table>& t) {
  ArrowArrayStream s;
  ScanRequest request;
  request.columns = {"id"};
  EXPECT_TRUE(t->Scan(request, &s).ok());
  auto reader = la::ImportArrayStream(&s).MoveValueUnsafe();
  std::vector<int64_t> ids;
  while (true) {
    auto batch = *reader->Next();
    if (batch == nullptr) break;
    const int64_t* v = batch->column(0)->GetValues<int64_t>(1);
    ids.insert(ids.end(), v, v + batch->num_rows());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<int64_t> Range(int64_t first, int64_t last) {
  std::vector<int64_t> out;
  for (int64_t i = first; i < last; ++i) out.push_back(i);
  return out;
}

class BranchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = *Connect(dir_.path());
    ArrowArrayStream s;
    ASSERT_TRUE(
        la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Rows(0, 10)}), &s).ok());
    main_ = *db_->CreateTable("t", &s);
    Add(main_, 10, 10);  // version 2: fragments 0 and 1
  }
  std::string Root() const { return dir_.path() + "/t.lance"; }

  TempDir dir_;
  std::shared_ptr<Connection> db_;
  std::shared_ptr<Table> main_;
};

TEST_F(BranchTest, CreateBranchIsALanceShallowCloneUnderTree) {
  auto branch = main_->CreateBranch("exp");
  ASSERT_TRUE(branch.ok()) << branch.status().ToString();
  EXPECT_EQ(*(*branch)->version(), 2u);
  EXPECT_EQ((*branch)->current_branch(), "exp");
  EXPECT_EQ(main_->current_branch(), std::nullopt);
  EXPECT_TRUE(fs::exists(Root() + "/_refs/branches/exp.json"));
  auto ds = *table::Dataset::Open(io::LocalFileSystem(), Root() + "/tree/exp");
  const auto& m = ds->manifest().proto();
  EXPECT_EQ(m.branch(), "exp");
  ASSERT_EQ(m.base_paths_size(), 1);
  EXPECT_TRUE(m.base_paths(0).is_dataset_root());
  EXPECT_EQ(m.base_paths(0).path(), fs::absolute(Root()).lexically_normal().string());
  for (const auto& f : m.fragments()) {
    ASSERT_EQ(f.files_size(), 1);
    EXPECT_EQ(f.files(0).base_id(), m.base_paths(0).id());
  }
  EXPECT_EQ(m.reader_feature_flags() & 16, 16u);
  EXPECT_TRUE(ds->manifest().transaction()->has_clone());
  auto list = *main_->ListBranches();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list["exp"].parent_version, 2u);
  EXPECT_EQ(list["exp"].parent_branch, std::nullopt);
  EXPECT_GT(list["exp"].manifest_size, 0u);
  EXPECT_GT(list["exp"].create_at, 0u);
}

TEST_F(BranchTest, WritesOnEachSideStayOnThatSide) {
  auto branch = *main_->CreateBranch("exp");
  Add(branch, 100, 5);
  ASSERT_TRUE(branch->Delete("id < 3").ok());  // a deletion file over an inherited fragment
  Add(main_, 200, 2);
  ASSERT_TRUE(main_->Update("id = 15", {{"s", "'main'"}}).ok());
  std::vector<int64_t> want_branch = Range(3, 20);
  for (int64_t i = 100; i < 105; ++i) want_branch.push_back(i);
  EXPECT_EQ(Ids(branch), want_branch);
  std::vector<int64_t> want_main = Range(0, 20);
  want_main.push_back(200);
  want_main.push_back(201);
  EXPECT_EQ(Ids(main_), want_main);
  // Reopened from storage, through the connection.
  auto reopened = db_->OpenBranch("t", "exp");
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ(Ids(*reopened), want_branch);
  EXPECT_EQ(*(*reopened)->version(), 4u);
  auto old = db_->OpenBranch("t", "exp", 2);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(Ids(*old), Range(0, 20));
  EXPECT_EQ(Ids(*db_->OpenBranch("t", "main")), want_main);
  // The branch's versions continue its parent's numbering; main's are its own.
  auto versions = *branch->ListVersions();
  ASSERT_EQ(versions.size(), 3u);
  EXPECT_EQ(versions.front().version, 2u);
  EXPECT_EQ(*main_->version(), 4u);
}

TEST_F(BranchTest, IndexAndCompactionOnABranchLeaveMainAlone) {
  auto branch = *main_->CreateBranch("exp");
  ASSERT_TRUE(branch->CreateScalarIndex("id", ScalarIndexType::kBTree).ok());
  ASSERT_TRUE(branch->Delete("id = 4").ok());
  CompactionOptions o;
  o.target_rows_per_fragment = 1000;
  auto stats = branch->Compact(o);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->fragments_removed, 2u);
  EXPECT_EQ(*branch->CountRows("id >= 10"), 10);
  EXPECT_EQ(*branch->CountRows(), 19);
  EXPECT_EQ(main_->ListIndices()->size(), 0u);
  EXPECT_EQ(*main_->version(), 2u);
  EXPECT_EQ(Ids(main_), Range(0, 20));
  // Main's index is inherited by a branch created later, and read from main's directory.
  ASSERT_TRUE(main_->CreateScalarIndex("id", ScalarIndexType::kBTree).ok());
  auto later = *main_->CreateBranch("later");
  ASSERT_EQ(later->ListIndices()->size(), 1u);
  EXPECT_EQ(*later->CountRows("id = 7"), 1);
}

TEST_F(BranchTest, BranchesFromVersionsTagsAndOtherBranches) {
  ASSERT_TRUE(main_->CreateTag("v1", 1).ok());
  auto from_version = main_->CreateBranch("old", std::nullopt, 1);
  ASSERT_TRUE(from_version.ok()) << from_version.status().ToString();
  EXPECT_EQ(Ids(*from_version), Range(0, 10));
  auto from_tag = main_->CreateBranch("tagged", "v1");
  ASSERT_TRUE(from_tag.ok()) << from_tag.status().ToString();
  EXPECT_EQ(*(*from_tag)->version(), 1u);

  auto exp = *main_->CreateBranch("exp");
  Add(exp, 100, 1);
  auto nested = exp->CreateBranch("exp/child", "exp");
  ASSERT_TRUE(nested.ok()) << nested.status().ToString();
  Add(*nested, 300, 1);
  EXPECT_TRUE(fs::exists(Root() + "/_refs/branches/exp%2Fchild.json"));
  EXPECT_TRUE(fs::exists(Root() + "/tree/exp/child/_versions"));
  auto list = *main_->ListBranches();
  EXPECT_EQ(list["exp/child"].parent_branch, "exp");
  EXPECT_EQ(list["exp/child"].parent_version, 3u);
  std::vector<int64_t> want = Range(0, 20);
  want.push_back(100);
  want.push_back(300);
  EXPECT_EQ(Ids(*nested), want);
  // Inherited files reach main's directory and exp's through two base paths.
  auto ds = *table::Dataset::Open(io::LocalFileSystem(), Root() + "/tree/exp/child");
  EXPECT_EQ(ds->manifest().proto().base_paths_size(), 2);

  // A tag can point into a branch; checking it out moves the handle there.
  ASSERT_TRUE(exp->CreateTag("on_exp", 3).ok());
  auto tags = *main_->ListTags();
  EXPECT_EQ(tags["on_exp"].branch, "exp");
  EXPECT_EQ(tags["v1"].branch, std::nullopt);
  ASSERT_TRUE(main_->CheckoutTag("on_exp").ok());
  EXPECT_EQ(main_->current_branch(), "exp");
  EXPECT_EQ(*main_->CountRows(), 21);
  EXPECT_TRUE(main_->CheckoutLatest().ok());
  EXPECT_EQ(main_->current_branch(), "exp");
}

TEST_F(BranchTest, BadNamesAndSourcesAreRefusedWithNothingWritten) {
  for (const char* bad : {"", "main", "/x", "x/", "a..b", "a b", "x.lock", "a//b", "a\\b"}) {
    auto st = main_->CreateBranch(bad).status();
    EXPECT_TRUE(st.IsInvalidArgument()) << bad << ": " << st.ToString();
  }
  EXPECT_TRUE(main_->CreateBranch("x", "nope").status().IsNotFound());
  EXPECT_TRUE(main_->CreateBranch("x", std::nullopt, 99).status().IsNotFound());
  EXPECT_FALSE(fs::exists(Root() + "/_refs"));
  EXPECT_FALSE(fs::exists(Root() + "/tree"));
  EXPECT_TRUE(main_->CheckoutBranch("nope").status().IsNotFound());
  EXPECT_TRUE(main_->DeleteBranch("nope").IsNotFound());
  EXPECT_TRUE(db_->OpenBranch("t", "nope").status().IsNotFound());
  EXPECT_TRUE(db_->OpenBranch("nope", "exp").status().IsNotFound());
  ASSERT_TRUE(main_->CreateBranch("exp").ok());
  EXPECT_TRUE(main_->CreateBranch("exp").status().IsAlreadyExists());
  EXPECT_TRUE(main_->CheckoutBranch("exp", 99).status().IsNotFound());
  auto pinned = *main_->CheckoutBranch("exp", 2);
  ArrowArrayStream s;
  ASSERT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Rows(0, 1)}), &s).ok());
  EXPECT_TRUE(pinned->Add(&s).status().IsNotSupported());
}

TEST_F(BranchTest, DeleteRefusesWhileReferencedThenRemovesEverything) {
  auto exp = *main_->CreateBranch("exp");
  Add(exp, 100, 1);
  auto child = *exp->CreateBranch("child", "exp");
  ASSERT_TRUE(exp->CreateTag("t_exp", 3).ok());
  EXPECT_TRUE(main_->DeleteBranch("exp").IsInvalidArgument());
  EXPECT_TRUE(main_->DeleteTag("t_exp").ok());
  EXPECT_TRUE(main_->DeleteBranch("exp").IsInvalidArgument());    // "child" came from it
  EXPECT_TRUE(child->DeleteBranch("child").IsInvalidArgument());  // the handle is on it
  ASSERT_TRUE(main_->DeleteBranch("child").ok());
  ASSERT_TRUE(main_->DeleteBranch("exp").ok());
  EXPECT_FALSE(fs::exists(Root() + "/tree/exp"));
  EXPECT_FALSE(fs::exists(Root() + "/_refs/branches/exp.json"));
  EXPECT_TRUE(main_->ListBranches()->empty());
  EXPECT_EQ(Ids(main_), Range(0, 20));
}

TEST_F(BranchTest, CleanupOfMainKeepsWhatBranchesReference) {
  auto exp = *main_->CreateBranch("exp");
  // Main rewrites both fragments, then forgets every old version.
  ASSERT_TRUE(main_->Delete("id = 0").ok());
  CompactionOptions o;
  o.target_rows_per_fragment = 1000;
  ASSERT_TRUE(main_->Compact(o).ok());
  PruneOptions prune;
  prune.older_than = std::chrono::seconds(0);
  prune.delete_unverified = true;
  auto removed = main_->Prune(prune);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_GT(removed->old_versions_removed, 0u);
  EXPECT_EQ(Ids(*main_->CheckoutBranch("exp")), Range(0, 20));
  // The version the branch was created from is kept, as Lance keeps it.
  EXPECT_TRUE(main_->Checkout(2).ok());
  EXPECT_TRUE(main_->CheckoutLatest().ok());
  // Cleaning the branch itself never touches main's files.
  ASSERT_TRUE(exp->Prune(prune).ok());
  EXPECT_EQ(Ids(main_), Range(1, 20));
}

TEST_F(BranchTest, CherryPickReplaysTheBranchOntoMain) {
  auto exp = *main_->CreateBranch("exp");
  Add(exp, 100, 3);
  ASSERT_TRUE(exp->Delete("id = 5 OR id = 101").ok());
  ASSERT_TRUE(exp->Update("id = 6", {{"s", "'changed'"}}).ok());
  Add(main_, 200, 1);  // main moved on; appends do not conflict
  auto dry = main_->CherryPick("exp", /*dry_run=*/true);
  ASSERT_TRUE(dry.ok()) << dry.status().ToString();
  EXPECT_EQ(dry->status, CherryPickStatus::kReady);
  EXPECT_TRUE(dry->diff.errors.empty());
  EXPECT_EQ(dry->diff.parent_version, 2u);
  EXPECT_EQ(dry->diff.main_version, 3u);
  EXPECT_EQ(dry->diff.branch_version, 5u);
  EXPECT_TRUE(dry->diff.base_moved);
  EXPECT_EQ(dry->diff.row_summary.new_on_base, 1u);
  EXPECT_EQ(*main_->version(), 3u);  // a dry run commits nothing
  auto done = main_->CherryPick("exp");
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->status, CherryPickStatus::kCherryPicked) << CherryPickResultToJson(*done);
  EXPECT_EQ(done->main_version_after, 6u);
  EXPECT_EQ(*main_->version(), 6u);
  std::vector<int64_t> want = Range(0, 20);
  want.erase(std::find(want.begin(), want.end(), 5));
  want.push_back(100);
  want.push_back(102);
  want.push_back(200);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(Ids(main_), want);
  EXPECT_EQ(*main_->CountRows("s = 'changed'"), 1);
  // Main no longer depends on the branch: deleting it leaves main readable.
  ASSERT_TRUE(main_->DeleteBranch("exp").ok());
  EXPECT_EQ(Ids(*db_->OpenTable("t")), want);
}

TEST_F(BranchTest, ConflictingCherryPickFailsAndCommitsNothing) {
  auto exp = *main_->CreateBranch("exp");
  ASSERT_TRUE(exp->Update("id = 3", {{"s", "'branch'"}}).ok());
  ASSERT_TRUE(main_->Update("id = 3", {{"s", "'main'"}}).ok());
  const uint64_t before = *main_->version();
  const auto files_before = std::distance(fs::directory_iterator(Root() + "/data"), {});
  auto result = main_->CherryPick("exp");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->status, CherryPickStatus::kFailed);
  ASSERT_EQ(result->diff.errors.size(), 1u);
  EXPECT_EQ(result->diff.errors[0].code, "rowsChanged");
  EXPECT_FALSE(result->main_version_after);
  EXPECT_EQ(*main_->version(), before);
  EXPECT_EQ(std::distance(fs::directory_iterator(Root() + "/data"), {}), files_before);
  EXPECT_EQ(*main_->CountRows("s = 'main'"), 1);
  // A branch of a branch is not cherry-picked onto main; a branch onto itself is bad input.
  auto child = *exp->CreateBranch("child", "exp");
  Add(child, 50, 1);
  auto other = main_->CherryPick("child");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->status, CherryPickStatus::kFailed);
  EXPECT_EQ(other->diff.errors[0].code, "parentNotMain");
  EXPECT_TRUE(exp->CherryPick("exp").status().IsInvalidArgument());
  EXPECT_TRUE(main_->CherryPick("nope").status().IsNotFound());
  // Nothing to apply.
  auto idle = *main_->CreateBranch("idle");
  auto nothing = *main_->CherryPick("idle", true);
  EXPECT_EQ(nothing.status, CherryPickStatus::kFailed);
  EXPECT_EQ(nothing.diff.errors[0].code, "nothingToApply");
  // The child onto its parent applies.
  auto onto_exp = exp->CherryPick("child");
  ASSERT_TRUE(onto_exp.ok());
  EXPECT_EQ(onto_exp->status, CherryPickStatus::kCherryPicked) << CherryPickResultToJson(*onto_exp);
  EXPECT_EQ(*exp->CountRows("id = 50"), 1);
  EXPECT_EQ(*main_->CountRows("id = 50"), 0);
}

TEST_F(BranchTest, CherryPickCarriesNewColumnsAndIndexes) {
  auto exp = *main_->CreateBranch("exp");
  Add(exp, 100, 5);  // fragment 2, which keeps its id on main: the index stays right
  ASSERT_TRUE(exp->CreateScalarIndex("id", ScalarIndexType::kBTree).ok());
  AddColumnsRequest add;
  add.transform = ColumnTransform::SqlExpressions({{"double_id", "id * 2"}});
  auto added = exp->ExecuteAddColumns(add);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  ASSERT_TRUE(main_->Delete("id = 1").ok());  // does not conflict with adding a column
  auto diff = main_->DiffBranch("exp");
  ASSERT_TRUE(diff.ok()) << diff.status().ToString();
  ASSERT_EQ(diff->added_columns.size(), 1u);
  EXPECT_EQ(diff->added_columns[0].name, "double_id");
  ASSERT_EQ(diff->added_indexes.size(), 1u);
  EXPECT_EQ(diff->added_indexes[0].index_name, "id_idx");
  auto done = main_->CherryPick("exp");
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  ASSERT_EQ(done->status, CherryPickStatus::kCherryPicked) << CherryPickResultToJson(*done);
  EXPECT_EQ(done->promoted_columns, std::vector<std::string>{"double_id"});
  EXPECT_EQ(*main_->CountRows("double_id = 14"), 1);
  EXPECT_EQ(*main_->CountRows(), 24);
  ASSERT_EQ(main_->ListIndices()->size(), 1u);
  EXPECT_EQ(*main_->CountRows("id = 102"), 1);
  EXPECT_EQ(*main_->CountRows("id = 1"), 0);
  EXPECT_EQ(*main_->CountRows("id > 8 AND id < 101"), 12);
}

TEST_F(BranchTest, IndexOverRenumberedFragmentsIsNotReplayed) {
  auto exp = *main_->CreateBranch("exp");
  Add(exp, 100, 5);  // fragment 2 on the branch
  ASSERT_TRUE(exp->CreateScalarIndex("id", ScalarIndexType::kBTree).ok());
  Add(main_, 200, 5);  // main's own fragment 2: the branch's becomes 3 on main
  auto result = main_->CherryPick("exp");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->status, CherryPickStatus::kNotImplemented);
  ASSERT_EQ(result->diff.errors.size(), 1u);
  EXPECT_EQ(result->diff.errors[0].code, "notImplemented");
  EXPECT_EQ(*main_->version(), 3u);
  EXPECT_TRUE(main_->ListIndices()->empty());
  // Without the index the rows replay, renumbered.
  ASSERT_TRUE(exp->DropIndex("id_idx").ok());
  auto done = main_->CherryPick("exp");
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->status, CherryPickStatus::kCherryPicked) << CherryPickResultToJson(*done);
  EXPECT_EQ(*main_->CountRows(), 30);
  EXPECT_TRUE(main_->ListIndices()->empty());
}

TEST_F(BranchTest, NewColumnsOnTheBranchConflictWithAnAppendOnMain) {
  auto exp = *main_->CreateBranch("exp");
  AddColumnsRequest add;
  add.transform = ColumnTransform::SqlExpressions({{"triple_id", "id * 3"}});
  ASSERT_TRUE(exp->ExecuteAddColumns(add).ok());
  EXPECT_EQ(main_->CherryPick("exp", true)->status, CherryPickStatus::kReady);
  Add(main_, 300, 1);  // these rows would have no triple_id
  auto result = main_->CherryPick("exp");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, CherryPickStatus::kFailed);
  EXPECT_EQ(result->diff.errors[0].code, "columnChanged");
  EXPECT_TRUE(main_->CountRows("triple_id = 3").status().IsInvalidArgument());
  EXPECT_EQ(*main_->version(), 3u);
}

class CloneTest : public BranchTest {};

TEST_F(CloneTest, ShallowCloneReadsTheSourceVersionAndSurvivesItsCleanup) {
  ASSERT_TRUE(main_->CreateTag("first", 1).ok());
  auto clone = db_->CloneTable("c", Root());
  ASSERT_TRUE(clone.ok()) << clone.status().ToString();
  EXPECT_EQ(*(*clone)->version(), 2u);
  EXPECT_EQ(Ids(*clone), Range(0, 20));
  auto ds = *table::Dataset::Open(io::LocalFileSystem(), dir_.path() + "/c.lance");
  EXPECT_TRUE(ds->manifest().transaction()->clone().is_shallow());
  EXPECT_FALSE(fs::exists(dir_.path() + "/c.lance/data"));
  CloneTableOptions by_tag;
  by_tag.source_tag = "first";
  auto tagged = db_->CloneTable("c_tag", Root(), by_tag);
  ASSERT_TRUE(tagged.ok()) << tagged.status().ToString();
  EXPECT_EQ(Ids(*tagged), Range(0, 10));

  // Writes on either side stay there.
  Add(*clone, 500, 1);
  ASSERT_TRUE((*clone)->Delete("id = 2").ok());
  ASSERT_TRUE(main_->Delete("id = 9").ok());
  EXPECT_EQ(*main_->CountRows(), 19);
  EXPECT_EQ(*(*clone)->CountRows(), 20);
  // Cleaning the source removes its old versions but not the files the clone reads.
  CompactionOptions o;
  o.target_rows_per_fragment = 1000;
  ASSERT_TRUE(main_->Compact(o).ok());
  ASSERT_TRUE(main_->DeleteTag("first").ok());
  PruneOptions prune;
  prune.older_than = std::chrono::seconds(0);
  prune.delete_unverified = true;
  ASSERT_TRUE(main_->Prune(prune).ok());
  auto reopened = *db_->OpenTable("c");
  std::vector<int64_t> want = Range(0, 20);
  want.erase(std::find(want.begin(), want.end(), 2));
  want.push_back(500);
  EXPECT_EQ(Ids(reopened), want);
  EXPECT_EQ(Ids(*db_->OpenTable("c_tag")), Range(0, 10));
}

TEST_F(CloneTest, DeepCloneCopiesEverything) {
  ASSERT_TRUE(main_->Delete("id = 3").ok());
  ASSERT_TRUE(main_->CreateScalarIndex("id", ScalarIndexType::kBTree).ok());
  CloneTableOptions deep;
  deep.is_shallow = false;
  deep.source_version = 3;
  auto clone = db_->CloneTable("deep", Root(), deep);
  ASSERT_TRUE(clone.ok()) << clone.status().ToString();
  EXPECT_EQ(*(*clone)->version(), 3u);
  EXPECT_TRUE((*clone)->ListIndices()->empty());
  EXPECT_EQ(*(*clone)->CountRows(), 19);
  auto ds = *table::Dataset::Open(io::LocalFileSystem(), dir_.path() + "/deep.lance");
  EXPECT_EQ(ds->manifest().proto().base_paths_size(), 0);
  ASSERT_TRUE(db_->DropTable("t").ok());
  EXPECT_EQ(*(*db_->OpenTable("deep"))->CountRows(), 19);
}

TEST_F(CloneTest, BadClonesAreRefused) {
  CloneTableOptions both;
  both.source_version = 1;
  both.source_tag = "x";
  EXPECT_TRUE(db_->CloneTable("c", Root(), both).status().IsInvalidArgument());
  EXPECT_TRUE(db_->CloneTable("c", dir_.path() + "/nope.lance").status().IsNotFound());
  CloneTableOptions missing_version;
  missing_version.source_version = 99;
  EXPECT_TRUE(db_->CloneTable("c", Root(), missing_version).status().IsNotFound());
  CloneTableOptions missing_tag;
  missing_tag.source_tag = "nope";
  EXPECT_TRUE(db_->CloneTable("c", Root(), missing_tag).status().IsNotFound());
  EXPECT_TRUE(db_->CloneTable("t", Root()).status().IsAlreadyExists());
  EXPECT_TRUE(db_->CloneTable("../x", Root()).status().IsInvalidArgument());
  EXPECT_FALSE(fs::exists(dir_.path() + "/c.lance"));
  auto names = *db_->TableNames();
  EXPECT_EQ(names, std::vector<std::string>{"t"});
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
