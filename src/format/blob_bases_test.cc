// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "format/blob_bases.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace lancedb::format {
namespace LANCEDB_TEST_FILE_NS {

ExternalBlobBases SampleBases() {
  return ExternalBlobBases({{1, "file:///data/media", false},
                            {2, "/data/other/", false},
                            {3, "file:///data/media/deep", false},
                            {4, "/data/root", true},
                            {5, "memory://bucket/pre", false}});
}

TEST(ParseBlobLocation, SplitsStoreAndDecodedSegments) {
  auto a = ParseBlobLocation("file:///a//b/./c/../d%20e");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->store, "file");
  EXPECT_EQ(a->segments, (std::vector<std::string>{"a", "b", "d e"}));
  for (const char* same :
       {"/a/b/d e", "file:/a/b/d e", "file://host/a/b/d%20e", "FILE:///a/b/d e"}) {
    auto b = ParseBlobLocation(same);
    ASSERT_TRUE(b.ok()) << same;
    EXPECT_EQ(b->store, "file") << same;
    EXPECT_EQ(b->segments, a->segments) << same;
  }
  auto s3 = ParseBlobLocation("s3://bucket/k/o");
  ASSERT_TRUE(s3.ok());
  EXPECT_EQ(s3->store, "s3://bucket");
  EXPECT_EQ(s3->segments, (std::vector<std::string>{"k", "o"}));
  auto relative = ParseBlobLocation("x/y.bin");
  ASSERT_TRUE(relative.ok());
  EXPECT_EQ(relative->segments.back(), "y.bin");
  EXPECT_GT(relative->segments.size(), 2u);  // under the working directory
}

TEST(ParseBlobLocation, RejectsMalformedUris) {
  EXPECT_TRUE(ParseBlobLocation("").status().IsInvalidArgument());
  EXPECT_TRUE(ParseBlobLocation("s3:bucket/k").status().IsInvalidArgument());
  EXPECT_TRUE(ParseBlobLocation("file:///a%2").status().IsInvalidArgument());
  EXPECT_TRUE(ParseBlobLocation("file:///a%zz").status().IsInvalidArgument());
}

TEST(ExternalBlobBases, ReferencesTheLongestMatchingBase) {
  const auto bases = SampleBases();
  struct Case {
    const char* uri;
    uint32_t id;
    const char* relative;
  };
  for (const Case& c :
       {Case{"file:///data/media/sub/a.bin", 1, "sub/a.bin"},
        Case{"/data/media/a b.bin", 1, "a b.bin"},
        Case{"file:///data/media/a%20b.bin", 1, "a b.bin"},
        Case{"file:///data/media/deep/x.bin", 3, "x.bin"},
        Case{"file:///data/other/d/y.bin", 2, "d/y.bin"}, Case{"memory://bucket/pre/k", 5, "k"}}) {
    auto ref = bases.Reference(c.uri, /*allow_outside=*/false);
    ASSERT_TRUE(ref.ok()) << c.uri << ": " << ref.status().ToString();
    EXPECT_EQ(ref->base_id, c.id) << c.uri;
    EXPECT_EQ(ref->uri, c.relative) << c.uri;
  }
}

TEST(ExternalBlobBases, RefusesUrisOutsideEveryBase) {
  const auto bases = SampleBases();
  // Outside, the base itself, a sibling with a common prefix, a dataset root, another store.
  for (const char* uri :
       {"file:///data/x.bin", "file:///data/media", "file:///data/media/", "file:///data/mediax/a",
        "file:///data/media/../x", "/data/root/a", "memory://other/pre/k", "s3://bucket/pre/k"}) {
    auto ref = bases.Reference(uri, /*allow_outside=*/false);
    ASSERT_TRUE(ref.status().IsInvalidArgument()) << uri;
    EXPECT_EQ(ref.status().message(),
              "Invalid input, External blob URI '" + std::string(uri) +
                  "' is outside registered external bases (dataset root is not allowed). Set "
                  "allow_external_blob_outside_bases=true to store it as absolute external URI.");
  }
}

TEST(ExternalBlobBases, StoresOutsideUrisAsNormalizedAbsoluteUris) {
  const auto bases = SampleBases();
  struct Case {
    const char* uri;
    const char* stored;
  };
  for (const Case& c :
       {Case{"file:///tmp/a.bin", "file:///tmp/a.bin"},
        Case{"FILE:///tmp/x/../a.bin", "file:///tmp/a.bin"},
        Case{"file:/tmp/a b.bin", "file:///tmp/a%20b.bin"}, Case{"memory://x/y", "memory://x/y"}}) {
    auto ref = bases.Reference(c.uri, /*allow_outside=*/true);
    ASSERT_TRUE(ref.ok()) << c.uri << ": " << ref.status().ToString();
    EXPECT_EQ(ref->base_id, 0u);
    EXPECT_EQ(ref->uri, c.stored);
  }
  // Under a base it is stored relative even when outside URIs are allowed.
  auto under = bases.Reference("/data/media/a.bin", true);
  ASSERT_TRUE(under.ok());
  EXPECT_EQ(under->base_id, 1u);
  for (const char* bad : {"/tmp/a.bin", "a.bin", ""}) {
    auto ref = bases.Reference(bad, true);
    ASSERT_TRUE(ref.status().IsInvalidArgument()) << bad;
    EXPECT_EQ(ref.status().message(), "Invalid input, External URI '" + std::string(bad) +
                                          "' is outside registered external bases and is not a "
                                          "valid absolute URI");
  }
}

TEST(ExternalBlobBases, ResolvesStoredReferences) {
  const auto bases = SampleBases();
  EXPECT_EQ(*bases.Resolve(0, "file:///tmp/a.bin"), "file:///tmp/a.bin");
  EXPECT_EQ(*bases.Resolve(1, "sub/a b.bin"), "file:///data/media/sub/a%20b.bin");
  EXPECT_EQ(*bases.Resolve(2, "d/y.bin"), "file:///data/other/d/y.bin");
  EXPECT_EQ(*bases.Resolve(5, "k"), "memory://bucket/pre/k");
  EXPECT_TRUE(bases.Resolve(9, "a").status().IsCorruption());
  EXPECT_TRUE(bases.Resolve(1, "../escape").status().IsCorruption());
  EXPECT_TRUE(bases.Resolve(1, "").status().IsCorruption());
  // A resolved URI references the same base again (what compaction relies on).
  auto again = bases.Reference(*bases.Resolve(1, "sub/a b.bin"), false);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->base_id, 1u);
  EXPECT_EQ(again->uri, "sub/a b.bin");
}

TEST(OpenBlobLocation, DecodesFileUris) {
  io::FileSystemPtr fs;
  std::string path;
  ASSERT_TRUE(OpenBlobLocation("file:///tmp/a%20b.bin", &fs, &path).ok());
  EXPECT_EQ(path, "/tmp/a b.bin");
  ASSERT_TRUE(OpenBlobLocation("memory://x/y", &fs, &path).ok());
  EXPECT_EQ(fs, io::MemoryFileSystem());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::format
