// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of the branch metadata file (Lance 12's camelCase JSON), branch names, tags pointing
// into branches, and shallow clones at the table layer.

#include "table/branches.h"

#include <gtest/gtest.h>

#include "table/clone.h"
#include "table/manifest.h"
#include "table/table_test_util.h"
#include "table/tags.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

using testing::MemPath;
using testing::ScanIds;
using testing::TestReader;

TEST(BranchContents, ReadsLanceJsonAndWritesItBack) {
  // As Lance 12 writes it (observed).
  const char* lance = R"({
  "parentBranch": "exp",
  "identifier": {
    "version_mapping": [
      [2, "20719b96f6624528a2c410b9445b80ce"],
      [3, "3d5161e230aa43dca57914d075bd19a9"]
    ]
  },
  "parentVersion": 3,
  "createAt": 1796170316,
  "manifestSize": 580,
  "metadata": {}
})";
  auto b = BranchFromJson(lance, "nested");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->parent_branch, "exp");
  ASSERT_EQ(b->identifier.size(), 2u);
  EXPECT_EQ(b->identifier[1].first, 3u);
  EXPECT_EQ(b->parent_version, 3u);
  EXPECT_EQ(b->create_at, 1796170316u);
  EXPECT_EQ(b->manifest_size, 580u);
  auto again = BranchFromJson(BranchToJson(*b), "nested");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->identifier, b->identifier);
  EXPECT_EQ(BranchToJson(*again), BranchToJson(*b));
  // Older files have no identifier or metadata; main is null.
  auto legacy = BranchFromJson(
      R"({"parentBranch":null,"parentVersion":42,"createAt":1,"manifestSize":1024})", "old");
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ(legacy->parent_branch, std::nullopt);
  EXPECT_TRUE(legacy->identifier.empty());
  EXPECT_TRUE(BranchFromJson("{}", "x").status().IsCorruption());
  EXPECT_TRUE(BranchFromJson("[", "x").status().IsCorruption());
}

TEST(BranchNames, FollowLanceRules) {
  for (const char* ok : {"exp", "feature/login", "release/v1.2.3", "a_b-c.d", "user/x/y"}) {
    EXPECT_TRUE(ValidateBranchName(ok).ok()) << ok;
  }
  for (const char* bad : {"", "main", "/x", "x/", "a//b", "a..b", "../x", "a b", "a\\b", "x.lock",
                          "a/./b", "bad@char"}) {
    EXPECT_TRUE(ValidateBranchName(bad).IsInvalidArgument()) << bad;
  }
  EXPECT_EQ(*NormalizeBranchName("main"), std::nullopt);
  EXPECT_EQ(*NormalizeBranchName(""), std::nullopt);
  EXPECT_EQ(*NormalizeBranchName("exp"), "exp");
  EXPECT_EQ(BranchDatasetPath("/r/t.lance", "a/b"), "/r/t.lance/tree/a/b");
  EXPECT_EQ(BranchDatasetPath("/r/t.lance", std::nullopt), "/r/t.lance");
}

TEST(TagContents, CarriesTheBranch) {
  TagContents tag;
  tag.branch = "exp";
  tag.version = 3;
  tag.manifest_size = 580;
  auto back = TagFromJson(TagToJson(tag), "t");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->branch, "exp");
  EXPECT_EQ(TagFromJson(R"({"branch":null,"version":1,"manifestSize":2})", "t")->branch,
            std::nullopt);
}

TEST(Branches, CreateOnMemoryFileSystemAndTagIntoIt) {
  auto fs = io::MemoryFileSystem();
  const std::string root = MemPath("branches");
  WriteParams params;
  auto reader = TestReader(0, 100);
  auto main = *Dataset::Write(fs, root, reader.get(), params);
  auto branch = CreateBranch(main, root, "exp");
  ASSERT_TRUE(branch.ok()) << branch.status().ToString();
  EXPECT_EQ(BranchOf(**branch), "exp");
  EXPECT_EQ(TableRootOf(**branch), root);
  auto more = TestReader(100, 10);
  auto appended = *(*branch)->Append(more.get());
  EXPECT_EQ(ScanIds(*appended).size(), 110u);
  EXPECT_EQ(ScanIds(*main).size(), 100u);
  ASSERT_TRUE(CreateTag(*fs, root, "on_exp", appended->version(), "exp").ok());
  EXPECT_EQ(GetTag(*fs, root, "on_exp")->branch, "exp");
  EXPECT_TRUE(CreateTag(*fs, root, "missing", 9, "exp").IsNotFound());
  EXPECT_TRUE(DeleteBranch(*fs, root, "exp").IsInvalidArgument());
  ASSERT_TRUE(DeleteTag(*fs, root, "on_exp").ok());
  ASSERT_TRUE(DeleteBranch(*fs, root, "exp").ok());
  EXPECT_TRUE(ListBranches(*fs, root)->empty());
  EXPECT_EQ(ScanIds(*main).size(), 100u);
}

TEST(Clone, SameRootNormalizesPaths) {
  EXPECT_TRUE(SameRoot("/a/b/t.lance", "file:///a/b/t.lance/"));
  EXPECT_TRUE(SameRoot("/a/b/../b/t.lance", "/a/b/t.lance"));
  EXPECT_FALSE(SameRoot("/a/b/t.lance", "/a/b/u.lance"));
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
