// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/tags.h"

#include <gtest/gtest.h>

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

TEST(Tags, JsonRoundTripInLancesLayout) {
  TagContents tag;
  tag.version = 12;
  tag.manifest_size = 719;
  tag.created_at = "2026-11-30T01:41:52.487698559Z";
  tag.updated_at = "2026-11-30T01:41:53.000000000Z";
  const std::string json = TagToJson(tag);
  EXPECT_EQ(json,
            "{\n  \"branch\": null,\n  \"version\": 12,\n  \"createdAt\": "
            "\"2026-11-30T01:41:52.487698559Z\",\n  \"updatedAt\": "
            "\"2026-11-30T01:41:53.000000000Z\",\n  \"manifestSize\": 719,\n  \"metadata\": {}\n}");
  auto back = TagFromJson(json, "t");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->version, 12u);
  EXPECT_EQ(back->manifest_size, 719u);
  EXPECT_EQ(back->created_at, tag.created_at);
  EXPECT_EQ(back->updated_at, tag.updated_at);
}

TEST(Tags, ReadsWhatLanceWritesWithBranchesAndMetadata) {
  auto tag = TagFromJson(
      R"({"branch": "dev", "version": 3, "createdAt": "x", "updatedAt": "y",
          "manifestSize": 5, "metadata": {"owner": "a \"quoted\" name", "n": [1, {"k": 2}]}})",
      "t");
  ASSERT_TRUE(tag.ok()) << tag.status().ToString();
  EXPECT_EQ(tag->version, 3u);
  EXPECT_EQ(tag->manifest_size, 5u);
}

TEST(Tags, BadFilesAreCorruptionNamingTheTag) {
  for (const char* bad : {"", "{", "[1]", R"({"version": "3"})", R"({"version": -1})",
                          R"({"manifestSize": 1})", R"({"version": 1, "manifestSize": "x"})"}) {
    auto tag = TagFromJson(bad, "nightly");
    ASSERT_FALSE(tag.ok()) << bad;
    EXPECT_TRUE(tag.status().IsCorruption()) << tag.status().ToString();
    EXPECT_NE(tag.status().message().find("'nightly'"), std::string::npos) << bad;
  }
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
