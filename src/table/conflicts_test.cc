// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/conflicts.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_dirs.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

pb::Transaction Append() {
  pb::Transaction t;
  t.mutable_append()->add_fragments();
  return t;
}

pb::Transaction Delete(std::vector<uint64_t> updated, std::vector<uint64_t> removed = {}) {
  pb::Transaction t;
  auto* d = t.mutable_delete_();
  for (uint64_t id : updated) d->add_updated_fragments()->set_id(id);
  for (uint64_t id : removed) d->add_deleted_fragment_ids(id);
  return t;
}

pb::Transaction Update(std::vector<uint64_t> updated, std::vector<uint64_t> removed = {},
                       pb::Transaction::UpdateMode mode = pb::Transaction::REWRITE_ROWS) {
  pb::Transaction t;
  auto* u = t.mutable_update();
  for (uint64_t id : updated) u->add_updated_fragments()->set_id(id);
  for (uint64_t id : removed) u->add_removed_fragment_ids(id);
  u->add_new_fragments();
  u->set_update_mode(mode);
  return t;
}

pb::Transaction Rewrite(std::vector<uint64_t> old_ids) {
  pb::Transaction t;
  auto* g = t.mutable_rewrite()->add_groups();
  for (uint64_t id : old_ids) g->add_old_fragments()->set_id(id);
  g->add_new_fragments()->set_id(100);
  return t;
}

pb::Transaction CreateIndex(int32_t field) {
  pb::Transaction t;
  t.mutable_create_index()->add_new_indices()->add_fields(field);
  return t;
}

pb::Transaction Replace(uint64_t fragment, int32_t field) {
  pb::Transaction t;
  auto* r = t.mutable_data_replacement()->add_replacements();
  r->set_fragment_id(fragment);
  r->mutable_new_file()->add_fields(field);
  return t;
}

pb::Transaction Config(std::string key) {
  pb::Transaction t;
  (*t.mutable_update_config()->mutable_upsert_values())[key] = "v";
  return t;
}

pb::Transaction Kind(OpKind kind) {
  pb::Transaction t;
  switch (kind) {
    case OpKind::kOverwrite:
      t.mutable_overwrite();
      break;
    case OpKind::kRestore:
      t.mutable_restore()->set_version(1);
      break;
    case OpKind::kMerge:
      t.mutable_merge();
      break;
    case OpKind::kProject:
      t.mutable_project();
      break;
    case OpKind::kReserveFragments:
      t.mutable_reserve_fragments()->set_num_fragments(2);
      break;
    default:
      break;
  }
  return t;
}

void ExpectOk(const pb::Transaction& ours, const pb::Transaction& theirs) {
  Status st = CheckRebase(ours, theirs, 7);
  EXPECT_TRUE(st.ok()) << OpKindName(KindOf(ours)) << " over " << OpKindName(KindOf(theirs)) << ": "
                       << st.ToString();
}

void ExpectRetry(const pb::Transaction& ours, const pb::Transaction& theirs) {
  Status st = CheckRebase(ours, theirs, 7);
  EXPECT_TRUE(st.IsCommitConflict() && st.IsRetryable())
      << OpKindName(KindOf(ours)) << " over " << OpKindName(KindOf(theirs)) << ": "
      << st.ToString();
  EXPECT_NE(st.message().find("version 7"), std::string::npos) << st.message();
}

void ExpectIncompatible(const pb::Transaction& ours, const pb::Transaction& theirs) {
  Status st = CheckRebase(ours, theirs, 7);
  EXPECT_TRUE(st.IsCommitConflict() && !st.IsRetryable())
      << OpKindName(KindOf(ours)) << " over " << OpKindName(KindOf(theirs)) << ": "
      << st.ToString();
}

TEST(Conflicts, EveryTransactionKindHasANameAndARow) {
  for (int a = 0; a < kNumOpKinds; ++a) {
    EXPECT_FALSE(OpKindName(static_cast<OpKind>(a)).empty());
    for (int b = 0; b < kNumOpKinds; ++b) {
      EXPECT_NE(ConflictRuleName(RuleFor(static_cast<OpKind>(a), static_cast<OpKind>(b))), "?");
    }
  }
  EXPECT_EQ(KindOf(pb::Transaction()), OpKind::kUnknown);
  EXPECT_EQ(KindOf(Rewrite({1})), OpKind::kRewrite);
}

TEST(Conflicts, AppendRebasesOverAnythingButReplacementsOfTheTable) {
  ExpectOk(Append(), Append());
  ExpectOk(Append(), Delete({1}));
  ExpectOk(Append(), Update({1}));
  ExpectOk(Append(), Rewrite({1, 2}));
  ExpectOk(Append(), CreateIndex(0));
  ExpectOk(Append(), Kind(OpKind::kReserveFragments));
  ExpectOk(Append(), Kind(OpKind::kProject));
  ExpectRetry(Append(), Kind(OpKind::kMerge));  // the appended rows lack the new columns
  ExpectIncompatible(Append(), Kind(OpKind::kOverwrite));
  ExpectIncompatible(Append(), Kind(OpKind::kRestore));
  ExpectIncompatible(Append(), pb::Transaction());  // unknown
}

TEST(Conflicts, DeleteAgainstACompactionOfItsFragmentsMustRetry) {
  // The bug this table fixes: a delete committed against fragments a compaction replaced.
  ExpectRetry(Delete({3}), Rewrite({2, 3}));
  ExpectRetry(Delete({}, {3}), Rewrite({3}));
  ExpectRetry(Update({3}), Rewrite({3, 4}));
  ExpectOk(Delete({5}), Rewrite({2, 3}));
  ExpectOk(Update({5}), Rewrite({2, 3}));
  // And the other way round: a compaction of fragments someone deleted from or updated.
  ExpectRetry(Rewrite({2, 3}), Delete({3}));
  ExpectRetry(Rewrite({2, 3}), Update({}, {2}));
  ExpectRetry(Rewrite({2, 3}), Rewrite({3, 4}));
  ExpectOk(Rewrite({2, 3}), Delete({4}));
  ExpectOk(Rewrite({2, 3}), Rewrite({4, 5}));
  ExpectOk(Rewrite({2, 3}), Append());
  ExpectOk(Rewrite({2, 3}), CreateIndex(0));
}

TEST(Conflicts, DeletesOfTheSameFragmentMergeUnlessItWasRemovedOrRewritten) {
  ExpectOk(Delete({1}), Delete({1}));  // row-level overlap is checked when rebuilding
  ExpectOk(Delete({1}), Update({1}));
  ExpectOk(Update({1}), Delete({1}));
  ExpectOk(Update({1}), Update({1}));
  ExpectRetry(Delete({1}), Delete({}, {1}));  // they deleted the whole fragment
  ExpectRetry(Update({1}), Update({}, {1}));
  ExpectRetry(Delete({1}), Update({1}, {}, pb::Transaction::REWRITE_COLUMNS));
  ExpectOk(Delete({1}), Delete({}, {2}));
  ExpectRetry(Delete({1}), Kind(OpKind::kMerge));
  ExpectIncompatible(Delete({1}), Kind(OpKind::kOverwrite));
  ExpectIncompatible(Update({1}), Kind(OpKind::kRestore));
}

TEST(Conflicts, IndexFieldAndConfigKeyRules) {
  ExpectOk(CreateIndex(1), CreateIndex(1));
  ExpectOk(CreateIndex(1), Rewrite({1}));
  ExpectRetry(CreateIndex(1), Replace(4, 1));
  ExpectOk(CreateIndex(1), Replace(4, 2));
  ExpectRetry(Replace(4, 1), Replace(4, 1));
  ExpectOk(Replace(4, 1), Replace(5, 1));
  ExpectOk(Replace(4, 1), Replace(4, 2));
  ExpectRetry(Delete({4}), Replace(4, 1));
  ExpectIncompatible(Config("a"), Config("a"));
  ExpectOk(Config("a"), Config("b"));
  ExpectOk(Kind(OpKind::kOverwrite), Kind(OpKind::kOverwrite));
  ExpectOk(Kind(OpKind::kRestore), Delete({1}));
  ExpectRetry(Kind(OpKind::kProject), Kind(OpKind::kProject));
  ExpectOk(Kind(OpKind::kMerge), Delete({1}));  // deletions leave the rows a data file covers
  ExpectRetry(Kind(OpKind::kMerge), Append());
  ExpectIncompatible(Kind(OpKind::kReserveFragments), Kind(OpKind::kOverwrite));
}

TEST(Conflicts, MessagesNameBothOperationsAndTheFragment) {
  Status st = CheckRebase(Delete({3}), Rewrite({3}), 12);
  EXPECT_EQ(st.message(),
            "Delete conflicts with the concurrent Rewrite committed as version 12: both modified "
            "fragment 3; retry on the new version");
}

/// The table in docs/concurrency.md is the table in the code.
TEST(Conflicts, DocumentedTableIsTheTableInTheCode) {
  std::ifstream doc(testdirs::SourceDir() / "docs" / "concurrency.md");
  ASSERT_TRUE(doc.good());
  const std::map<std::string, ConflictRule> words = {{"ok", ConflictRule::kRebase},
                                                     {"disjoint", ConflictRule::kRebaseIfDisjoint},
                                                     {"merge", ConflictRule::kMergeDeletions},
                                                     {"fields", ConflictRule::kRebaseIfOtherFields},
                                                     {"keys", ConflictRule::kRebaseIfOtherKeys},
                                                     {"retry", ConflictRule::kRetry},
                                                     {"no", ConflictRule::kIncompatible}};
  std::string line;
  int rows = 0;
  bool in_table = false;
  while (std::getline(doc, line)) {
    if (line.rfind("| ours \\ theirs", 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table || line.rfind("|---", 0) == 0) continue;
    if (line.empty() || line[0] != '|') break;
    std::vector<std::string> cells;
    std::stringstream cells_in(line.substr(1));
    for (std::string cell; std::getline(cells_in, cell, '|');) {
      cell.erase(0, cell.find_first_not_of(' '));
      cell.erase(cell.find_last_not_of(' ') + 1);
      cells.push_back(cell);
    }
    // The row's name, then one cell per kind (the last: unknown operations).
    ASSERT_EQ(cells.size(), static_cast<size_t>(kNumOpKinds) + 1) << line;
    const OpKind ours = static_cast<OpKind>(rows);
    EXPECT_EQ(cells[0].substr(0, 5), std::string(OpKindName(ours)).substr(0, 5)) << line;
    for (int theirs = 0; theirs < kNumOpKinds; ++theirs) {
      auto it = words.find(cells[static_cast<size_t>(theirs) + 1]);
      ASSERT_NE(it, words.end()) << line;
      EXPECT_EQ(it->second, RuleFor(ours, static_cast<OpKind>(theirs)))
          << OpKindName(ours) << " over " << OpKindName(static_cast<OpKind>(theirs));
    }
    ++rows;
  }
  EXPECT_EQ(rows, kNumOpKinds - 1);  // every kind lancedb-cpp knows
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
