// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/manifest.h"

#include <gtest/gtest.h>

#include <random>

#include "table/table_test_util.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

using testing::FixturesDir;

pb::Manifest SampleManifest() {
  pb::Manifest m;
  auto* f = m.add_fields();
  f->set_name("id");
  f->set_id(0);
  f->set_parent_id(-1);
  f->set_logical_type("int64");
  f->set_nullable(true);
  m.set_version(3);
  auto* frag = m.add_fragments();
  frag->set_id(0);
  frag->set_physical_rows(10);
  auto* file = frag->add_files();
  file->set_path("abc.lance");
  file->add_fields(0);
  file->add_column_indices(0);
  file->set_file_major_version(2);
  file->set_file_minor_version(2);
  m.set_max_fragment_id(0);
  m.mutable_data_format()->set_file_format("lance");
  m.mutable_data_format()->set_version("2.2");
  StampWriter(&m);
  return m;
}

TEST(ManifestNaming, V1AndV2Names) {
  EXPECT_EQ(ManifestFileName(1, ManifestNaming::kV2), "18446744073709551614.manifest");
  EXPECT_EQ(ManifestFileName(1, ManifestNaming::kV1), "1.manifest");
  auto v2 = ParseManifestFileName("18446744073709551604.manifest");
  ASSERT_TRUE(v2.has_value());
  EXPECT_EQ(v2->first, 11u);
  EXPECT_EQ(v2->second, ManifestNaming::kV2);
  auto v1 = ParseManifestFileName("12.manifest");
  ASSERT_TRUE(v1.has_value());
  EXPECT_EQ(v1->first, 12u);
  EXPECT_EQ(v1->second, ManifestNaming::kV1);
  EXPECT_FALSE(ParseManifestFileName("d12.manifest").has_value());
  EXPECT_FALSE(ParseManifestFileName("latest_version_hint.json").has_value());
  EXPECT_FALSE(ParseManifestFileName(".tmp-12.manifest-abc").has_value());
  EXPECT_FALSE(ParseManifestFileName(".manifest").has_value());
}

// A directory mixing both schemes is what an interrupted migration to V2 leaves
// (manifest_migration.cc): each version is listed under the name it has, the V2 copy when a
// version has both.
TEST(ManifestNaming, ListsMixedSchemesOfAnInterruptedMigration) {
  auto fs = io::MemoryFileSystem();
  std::string root = testing::MemPath("mixed");
  for (uint64_t v : {1, 2}) {
    ASSERT_OK(fs->WriteFile(root + "/_versions/" + ManifestFileName(v, ManifestNaming::kV2),
                            std::string_view("x")));
  }
  for (uint64_t v : {2, 3}) {
    ASSERT_OK(fs->WriteFile(root + "/_versions/" + ManifestFileName(v, ManifestNaming::kV1),
                            std::string_view("x")));
  }
  ASSERT_OK_AND_ASSIGN(auto listing, ListVersionFiles(*fs, root));
  EXPECT_EQ(listing.versions, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(listing.v1_versions, (std::vector<uint64_t>{3}));
  EXPECT_EQ(listing.naming, ManifestNaming::kV1);  // the newest version's
  EXPECT_EQ(listing.NamingOf(1), ManifestNaming::kV2);
  EXPECT_EQ(listing.NamingOf(2), ManifestNaming::kV2);
  EXPECT_EQ(listing.NamingOf(3), ManifestNaming::kV1);
}

TEST(Manifest, ContainerRoundTripWithTransactionAndIndices) {
  pb::IndexSection indices;
  auto* index = indices.add_indices();
  index->set_name("mystery");
  index->mutable_index_details()->set_type_url("/acme.MysteryIndexDetails");
  index->mutable_index_details()->set_value("\x01\x02\x03");
  ASSERT_OK_AND_ASSIGN(auto manifest, Manifest::Make(SampleManifest(), indices));
  pb::Transaction txn;
  txn.set_read_version(2);
  txn.set_uuid("u");
  txn.mutable_append();
  std::string bytes = manifest->Serialize(&txn);
  // Footer: manifest_pos, 0, 2, "LANC".
  ASSERT_GE(bytes.size(), 16u);
  EXPECT_EQ(bytes.substr(bytes.size() - 4), "LANC");
  EXPECT_EQ(bytes[bytes.size() - 8], 0);
  EXPECT_EQ(bytes[bytes.size() - 6], 2);
  ASSERT_OK_AND_ASSIGN(auto parsed, Manifest::Parse(*Buffer::Copy(bytes), "m"));
  EXPECT_EQ(parsed->version(), 3u);
  EXPECT_EQ(parsed->proto().index_section(), 0u);  // the index section comes first
  ASSERT_NE(parsed->transaction(), nullptr);
  EXPECT_TRUE(parsed->transaction()->has_append());
  EXPECT_EQ(parsed->transaction()->read_version(), 2u);
  ASSERT_EQ(parsed->index_section().indices_size(), 1);
  EXPECT_EQ(parsed->index_section().indices(0).SerializeAsString(), index->SerializeAsString());
  EXPECT_EQ(parsed->schema().fields().size(), 1u);
  EXPECT_EQ(parsed->proto().writer_version().library(), "lancedb-cpp");
}

TEST(Manifest, TransactionIsReadWithoutDecodingTheFragments) {
  auto fs = io::MemoryFileSystem();
  const std::string root = "memory://txn-only";
  pb::Transaction txn;
  txn.set_read_version(2);
  txn.set_uuid("inline");
  txn.mutable_delete_()->add_deleted_fragment_ids(7);
  // Version 3: inline transaction; version 4: only a _transactions/ file; version 5: none.
  pb::Manifest m = SampleManifest();
  for (int i = 0; i < 1000; ++i) *m.add_fragments() = m.fragments(0);  // a long fragment list
  ASSERT_OK_AND_ASSIGN(auto v3, Manifest::Make(m, {}));
  ASSERT_OK(fs->WriteFile(root + "/_versions/" + ManifestFileName(3, ManifestNaming::kV2),
                          std::string_view(v3->Serialize(&txn))));
  m.set_version(4);
  m.set_transaction_file("3-file.txn");
  pb::Transaction file_txn = txn;
  file_txn.set_uuid("file");
  ASSERT_OK(fs->WriteFile(root + "/_transactions/3-file.txn",
                          std::string_view(file_txn.SerializeAsString())));
  ASSERT_OK_AND_ASSIGN(auto v4, Manifest::Make(m, {}));
  ASSERT_OK(fs->WriteFile(root + "/_versions/" + ManifestFileName(4, ManifestNaming::kV2),
                          std::string_view(v4->Serialize(nullptr))));
  m.set_version(5);
  m.clear_transaction_file();
  ASSERT_OK_AND_ASSIGN(auto v5, Manifest::Make(m, {}));
  ASSERT_OK(fs->WriteFile(root + "/_versions/" + ManifestFileName(5, ManifestNaming::kV2),
                          std::string_view(v5->Serialize(nullptr))));

  ASSERT_OK_AND_ASSIGN(auto t3, ReadVersionTransaction(*fs, root, 3, ManifestNaming::kV2));
  ASSERT_TRUE(t3.has_value());
  EXPECT_EQ(t3->SerializeAsString(), txn.SerializeAsString());
  ASSERT_OK_AND_ASSIGN(auto t4, ReadVersionTransaction(*fs, root, 4, ManifestNaming::kV2));
  ASSERT_TRUE(t4.has_value());
  EXPECT_EQ(t4->uuid(), "file");
  ASSERT_OK_AND_ASSIGN(auto t5, ReadVersionTransaction(*fs, root, 5, ManifestNaming::kV2));
  EXPECT_FALSE(t5.has_value());
  EXPECT_TRUE(ReadVersionTransaction(*fs, root, 6, ManifestNaming::kV2).status().IsNotFound());
  // A manifest stored under another version's name is Corruption.
  ASSERT_OK(fs->WriteFile(root + "/_versions/" + ManifestFileName(6, ManifestNaming::kV2),
                          std::string_view(v5->Serialize(nullptr))));
  EXPECT_TRUE(ReadVersionTransaction(*fs, root, 6, ManifestNaming::kV2).status().IsCorruption());
}

TEST(Manifest, TruncatedOrCorruptedIsCorruption) {
  ASSERT_OK_AND_ASSIGN(auto manifest, Manifest::Make(SampleManifest(), {}));
  std::string bytes = manifest->Serialize(nullptr);
  for (size_t cut : {size_t{0}, size_t{3}, size_t{15}, bytes.size() / 2, bytes.size() - 1}) {
    auto r = Manifest::Parse(*Buffer::Copy(bytes.substr(0, cut)), "m");
    ASSERT_FALSE(r.ok()) << cut;
    EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  }
  std::string bad_magic = bytes;
  bad_magic[bad_magic.size() - 1] = 'X';
  EXPECT_TRUE(Manifest::Parse(*Buffer::Copy(bad_magic), "m").status().IsCorruption());
  std::string bad_pos = bytes;
  bad_pos[bad_pos.size() - 16] ^= 0x5a;
  EXPECT_TRUE(Manifest::Parse(*Buffer::Copy(bad_pos), "m").status().IsCorruption());
  std::string garbage = bytes;
  for (size_t i = 4; i + 16 < garbage.size(); ++i) garbage[i] = static_cast<char>(0xff);
  EXPECT_TRUE(Manifest::Parse(*Buffer::Copy(garbage), "m").status().IsCorruption());
}

TEST(Manifest, RandomMutationsNeverCrash) {
  pb::IndexSection indices;
  indices.add_indices()->set_name("idx");
  ASSERT_OK_AND_ASSIGN(auto manifest, Manifest::Make(SampleManifest(), indices));
  pb::Transaction txn;
  txn.mutable_append()->add_fragments()->set_id(1);
  const std::string bytes = manifest->Serialize(&txn);
  std::mt19937 rng(42);
  for (int round = 0; round < 2000; ++round) {
    std::string mutated = bytes;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < flips; ++i) mutated[rng() % mutated.size()] = static_cast<char>(rng());
    auto r = Manifest::Parse(*Buffer::Copy(mutated), "m");
    if (!r.ok()) {
      EXPECT_TRUE(r.status().IsCorruption() || r.status().IsNotSupported() ||
                  r.status().IsInvalidArgument())
          << r.status().ToString();
    }
  }
}

TEST(Manifest, UnknownReaderFlagIsNotSupported) {
  pb::Manifest m = SampleManifest();
  m.set_reader_feature_flags(1 | 1024);
  ASSERT_OK_AND_ASSIGN(auto manifest, Manifest::Make(m, {}));
  auto r = Manifest::Parse(*Buffer::Copy(manifest->Serialize(nullptr)), "m");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotSupported()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("1024"), std::string::npos);
}

TEST(Manifest, FeatureFlagsFollowContent) {
  pb::Manifest m = SampleManifest();
  ApplyFeatureFlags(&m);
  EXPECT_EQ(m.reader_feature_flags(), 0u);
  EXPECT_EQ(m.writer_feature_flags(), 0u);
  m.mutable_fragments(0)->mutable_deletion_file()->set_num_deleted_rows(1);
  (*m.mutable_config())["k"] = "v";
  ApplyFeatureFlags(&m);
  EXPECT_EQ(m.reader_feature_flags(), 1u);
  EXPECT_EQ(m.writer_feature_flags(), 1u | 8u);
}

TEST(Manifest, ParsesEveryFixtureManifest) {
  LANCEDB_REQUIRE_FIXTURES();
  auto fs = io::LocalFileSystem();
  for (const char* table :
       {"dense_del", "fulldel", "ops", "stable", "types_20", "types_21", "types_22"}) {
    std::string root = FixturesDir() + "/" + table + ".lance";
    ASSERT_OK_AND_ASSIGN(auto listing, ListVersionFiles(*fs, root));
    ASSERT_FALSE(listing.versions.empty()) << root;
    EXPECT_EQ(listing.naming, ManifestNaming::kV2);
    for (uint64_t v : listing.versions) {
      ASSERT_OK_AND_ASSIGN(auto m, ReadManifest(*fs, root, v, listing.naming));
      EXPECT_EQ(m->version(), v);
      EXPECT_EQ(m->proto().writer_version().library(), "lance");
      auto txn = ReadTransaction(*fs, root, *m);
      EXPECT_TRUE(txn.ok()) << table << " v" << v << ": " << txn.status().ToString();
    }
  }
}

TEST(Manifest, FixtureOpsHasIndices) {
  LANCEDB_REQUIRE_FIXTURES();
  auto fs = io::LocalFileSystem();
  std::string root = FixturesDir() + "/ops.lance";
  ASSERT_OK_AND_ASSIGN(auto m, ReadManifest(*fs, root, 11, ManifestNaming::kV2));
  EXPECT_GE(m->index_section().indices_size(), 5);
  EXPECT_EQ(m->proto().fragments_size(), 4);
  EXPECT_EQ(m->proto().reader_feature_flags() & kFlagDeletionFiles, kFlagDeletionFiles);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
