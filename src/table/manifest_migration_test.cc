// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of MigrateManifestNamingToV2: every version keeps its content under its V2 name, a
// second migration changes nothing, and a migration cut short by a failed storage call at any
// point leaves a table that opens at every version and that the next migration finishes.

#include <gtest/gtest.h>

#include "io/fault_injection.h"
#include "table/table_test_util.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

using testing::MemPath;
using testing::ScanIds;
using testing::TestReader;

/// A table of three versions (10, 15, 20 rows) with V1 manifest names.
std::string MakeV1Table(const io::FileSystemPtr& fs) {
  std::string root = MemPath("migrate");
  WriteParams params;
  params.enable_v2_manifest_paths = false;
  auto reader = TestReader(0, 10);
  EXPECT_TRUE(Dataset::Write(fs, root, reader.get(), params).ok());
  for (int64_t start : {10, 15}) {
    auto ds = Dataset::Open(fs, root);
    EXPECT_TRUE(ds.ok());
    auto more = TestReader(start, 5);
    EXPECT_TRUE((*ds)->Append(more.get()).ok());
  }
  return root;
}

std::vector<std::string> ManifestNames(io::FileSystem& fs, const std::string& root) {
  std::vector<std::string> names;
  auto entries = fs.ListDir(root + "/_versions");
  EXPECT_TRUE(entries.ok());
  for (const auto& e : *entries) {
    if (ParseManifestFileName(e.name)) names.push_back(e.name);
  }
  return names;
}

/// Every version opens (latest and by number) with its rows.
void ExpectAllVersionsReadable(const io::FileSystemPtr& fs, const std::string& root,
                               const std::string& context) {
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(fs, root));
  EXPECT_EQ(latest->version(), 3u) << context;
  ASSERT_OK_AND_ASSIGN(auto versions, latest->ListVersions());
  ASSERT_EQ(versions.size(), 3u) << context;
  for (uint64_t v = 1; v <= 3; ++v) {
    ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fs, root, v));
    EXPECT_EQ(ScanIds(*ds).size(), 5u + 5u * v) << context << ", version " << v;
  }
}

TEST(MigrateManifestNaming, RenamesEveryManifestAndKeepsVersions) {
  auto fs = io::MemoryFileSystem();
  std::string root = MakeV1Table(fs);
  EXPECT_EQ(ManifestNames(*fs, root),
            (std::vector<std::string>{"1.manifest", "2.manifest", "3.manifest"}));
  ASSERT_OK(MigrateManifestNamingToV2(*fs, root));
  EXPECT_EQ(ManifestNames(*fs, root),
            (std::vector<std::string>{ManifestFileName(3, ManifestNaming::kV2),
                                      ManifestFileName(2, ManifestNaming::kV2),
                                      ManifestFileName(1, ManifestNaming::kV2)}));
  ExpectAllVersionsReadable(fs, root, "migrated");
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(fs, root));
  EXPECT_EQ(latest->manifest_naming(), ManifestNaming::kV2);
  // Idempotent.
  ASSERT_OK(MigrateManifestNamingToV2(*fs, root));
  EXPECT_EQ(ManifestNames(*fs, root).size(), 3u);
  // New versions are named V2.
  auto more = TestReader(20, 5);
  ASSERT_OK_AND_ASSIGN(auto appended, latest->Append(more.get()));
  EXPECT_EQ(appended->version(), 4u);
  ASSERT_OK_AND_ASSIGN(bool exists,
                       fs->Exists(root + "/_versions/" + ManifestFileName(4, ManifestNaming::kV2)));
  EXPECT_TRUE(exists);
}

TEST(MigrateManifestNaming, DifferentManifestsUnderBothNamesAreCorruption) {
  auto fs = io::MemoryFileSystem();
  std::string root = MakeV1Table(fs);
  ASSERT_OK(fs->WriteFile(root + "/_versions/" + ManifestFileName(2, ManifestNaming::kV2),
                          std::string_view("not the same")));
  Status st = MigrateManifestNamingToV2(*fs, root);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("two different manifests"), std::string::npos) << st.message();
}

// A crash is modelled by a storage call that fails: the migration stops right there, as a
// process dying before its next call would.
TEST(MigrateManifestNaming, InterruptedMigrationLeavesAReadableTable) {
  using Fs = io::FaultInjectingFileSystem;
  // Without the version hint, finding the latest version lists the mixed directory.
  for (bool hint : {true, false}) {
    for (Fs::Target target : {Fs::Target::kWrite, Fs::Target::kDelete, Fs::Target::kRead}) {
      for (int n = 1;; ++n) {
        auto fs = std::make_shared<Fs>(io::MemoryFileSystem());
        std::string root = MakeV1Table(fs);
        if (!hint) ASSERT_OK(fs->DeleteFile(root + "/_versions/latest_version_hint.json"));
        fs->Arm(target, n);
        Status st = MigrateManifestNamingToV2(*fs, root);
        fs->Disarm();
        const std::string context = "fault at call " + std::to_string(n) + " of target " +
                                    std::to_string(static_cast<int>(target)) + ", hint " +
                                    std::to_string(hint) + ": " + st.ToString();
        if (!fs->fired()) {
          ASSERT_OK(st);  // every call of the migration has been failed once
          break;
        }
        EXPECT_FALSE(st.ok()) << context;
        ExpectAllVersionsReadable(fs, root, context);
        ASSERT_OK(MigrateManifestNamingToV2(*fs, root));
        EXPECT_EQ(ManifestNames(*fs, root).size(), 3u) << context;
        ASSERT_OK_AND_ASSIGN(auto listing, ListVersionFiles(*fs, root));
        EXPECT_TRUE(listing.v1_versions.empty()) << context;
        ExpectAllVersionsReadable(fs, root, context);
      }
    }
  }
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
