// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of Table::AddBases / ListBases and of external blob URIs under registered base paths:
// written relative to their base, refused outside every base unless allowed, read back by
// FetchBlobs and kept as references by compaction.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "common/test_util.h"
#include "format/blob.h"
#include "lancedb/lancedb.h"
#include "table/table_test_util.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;
using table::testing::TempDir;

la::SchemaPtr Schema() {
  return la::schema(
      {la::field("id", la::int64(), false),
       la::field("img", format::BlobV2StorageType(), true,
                 {{std::string(la::kExtensionNameKey), std::string(format::kBlobV2ExtensionName)},
                  {"ARROW:extension:metadata", ""}})});
}

/// One row per URI (an external blob read whole).
ArrowArrayStream UriRows(int64_t first, const std::vector<std::string>& uris) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> data, uri;
  for (size_t i = 0; i < uris.size(); ++i) {
    ids.push_back(first + static_cast<int64_t>(i));
    data.emplace_back();
    uri.emplace_back(uris[i]);
  }
  const size_t n = uris.size();
  auto blobs = la::MakeStruct(
      format::BlobV2StorageType(),
      {la::MakeBinaryLike(la::large_binary(), data), la::MakeBinaryLike(la::utf8(), uri),
       la::MakePrimitive(la::uint64(), std::vector<uint64_t>(n), std::vector<bool>(n, false)),
       la::MakePrimitive(la::uint64(), std::vector<uint64_t>(n), std::vector<bool>(n, false))},
      std::vector<bool>(n, true));
  auto batch = *la::RecordBatch::Make(Schema(), {la::MakePrimitive(la::int64(), ids), blobs});
  ArrowArrayStream s;
  EXPECT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {batch}), &s).ok());
  return s;
}

Result<std::shared_ptr<Table>> CreateEmpty(Connection& db) {
  ArrowSchema schema;
  LANCEDB_RETURN_NOT_OK(la::ExportSchema(*Schema(), &schema));
  return db.CreateEmptyTable("t", &schema);
}

void WriteFile(const std::filesystem::path& path, const std::string& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

/// (blob_id, blob_uri) of each row's descriptor, in id order.
std::vector<std::pair<uint32_t, std::string>> Descriptors(const Table& t) {
  ArrowArrayStream out;
  ScanRequest request;
  request.columns = {"img"};
  EXPECT_TRUE(t.Scan(request, &out).ok());
  auto reader = la::ImportArrayStream(&out).MoveValueUnsafe();
  std::vector<std::pair<uint32_t, std::string>> result;
  while (true) {
    auto batch = *reader->Next();
    if (!batch) break;
    const auto& d = *batch->column(0);
    for (int64_t i = 0; i < d.length; ++i) {
      result.emplace_back(d.children[3]->GetValues<uint32_t>(1)[i],
                          std::string(d.children[4]->GetView(i)));
    }
  }
  return result;
}

/// The payloads of every row, in scan order.
std::vector<std::string> FetchAll(const Table& t) {
  ArrowArrayStream scan;
  ScanRequest request;
  request.columns = {"id"};
  request.with_row_id = true;
  EXPECT_TRUE(t.Scan(request, &scan).ok());
  auto rows = la::ImportArrayStream(&scan).MoveValueUnsafe();
  std::vector<uint64_t> row_ids;
  while (true) {
    auto batch = *rows->Next();
    if (!batch) break;
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      row_ids.push_back(batch->column(1)->GetValues<uint64_t>(1)[i]);
    }
  }
  ArrowArrayStream out;
  Status st = t.FetchBlobs("img", row_ids, &out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  if (!st.ok()) return {};
  auto reader = la::ImportArrayStream(&out).MoveValueUnsafe();
  std::vector<std::string> result;
  while (true) {
    auto batch = *reader->Next();
    if (!batch) break;
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      result.emplace_back(batch->column(0)->GetView(i));
    }
  }
  return result;
}

TEST(TableBlobBases, UrisUnderABaseAreStoredRelativeToIt) {
  TempDir dir;
  const std::filesystem::path media = std::filesystem::path(dir.path()) / "media";
  WriteFile(media / "sub" / "a.bin", "payload-a");
  WriteFile(media / "deep" / "d.bin", "deep");
  WriteFile(std::filesystem::path(dir.path()) / "outside.bin", "outside");
  ASSERT_OK_AND_ASSIGN(auto db, Connect(dir.path() + "/db"));
  ASSERT_OK_AND_ASSIGN(auto t, CreateEmpty(*db));
  ASSERT_OK(t->AddBases({{0, "media", false, "file://" + media.string()},
                         {0, "deep", false, (media / "deep").string()}}));
  ASSERT_OK_AND_ASSIGN(auto bases, t->ListBases());
  ASSERT_EQ(bases.size(), 2u);
  EXPECT_EQ(bases[0].id, 1u);
  EXPECT_EQ(bases[1].id, 2u);
  EXPECT_EQ(bases[1].name, "deep");

  auto rows = UriRows(
      0, {"file://" + (media / "sub" / "a.bin").string(), (media / "deep" / "d.bin").string()});
  ASSERT_OK(t->Add(&rows).status());
  const std::string outside = "file://" + dir.path() + "/outside.bin";
  auto refused = UriRows(2, {outside});
  auto status = t->Add(&refused).status();
  ASSERT_TRUE(status.IsInvalidArgument());
  EXPECT_NE(status.message().find("is outside registered external bases"), std::string::npos);
  EXPECT_EQ(*t->CountRows(), 2);
  auto allowed = UriRows(2, {outside});
  AddOptions options;
  options.allow_external_blob_outside_bases = true;
  ASSERT_OK(t->Add(&allowed, options).status());
  EXPECT_EQ(Descriptors(*t), (std::vector<std::pair<uint32_t, std::string>>{
                                 {1, "sub/a.bin"}, {2, "d.bin"}, {0, outside}}));
  EXPECT_EQ(FetchAll(*t), (std::vector<std::string>{"payload-a", "deep", "outside"}));

  // Compaction rewrites the rows; the references stay as they were.
  ASSERT_OK(t->Compact().status());
  EXPECT_EQ(Descriptors(*t), (std::vector<std::pair<uint32_t, std::string>>{
                                 {1, "sub/a.bin"}, {2, "d.bin"}, {0, outside}}));
  EXPECT_EQ(FetchAll(*t), (std::vector<std::string>{"payload-a", "deep", "outside"}));
}

TEST(TableBlobBases, BadBasesAreRefusedAndCommitNothing) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, Connect(dir.path()));
  ASSERT_OK_AND_ASSIGN(auto t, CreateEmpty(*db));
  ASSERT_OK(t->AddBases({{0, "media", false, dir.path() + "/media"}}));
  ASSERT_OK_AND_ASSIGN(auto before, t->ListVersions());
  for (const std::vector<TableBasePath>& bad : std::vector<std::vector<TableBasePath>>{
           {},
           {{0, "x", false, ""}},
           {{0, "x", false, "s3:bucket"}},
           {{0, "media", false, dir.path() + "/other"}},  // the name is taken
           {{0, "other", false, dir.path() + "/media"}},  // the path is taken
           {{1, "other", false, dir.path() + "/other"}},  // the id is taken
           {{0, "a", false, dir.path() + "/a"}, {0, "a", false, dir.path() + "/b"}}}) {
    EXPECT_TRUE(t->AddBases(bad).IsInvalidArgument());
  }
  ASSERT_OK_AND_ASSIGN(auto after, t->ListVersions());
  EXPECT_EQ(after.size(), before.size());
  ASSERT_OK_AND_ASSIGN(auto bases, t->ListBases());
  EXPECT_EQ(bases.size(), 1u);
}

TEST(TableBlobBases, DatasetRootBasesHoldNoExternalBlobs) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, Connect(dir.path()));
  ASSERT_OK_AND_ASSIGN(auto t, CreateEmpty(*db));
  ASSERT_OK(t->AddBases({{0, std::nullopt, true, dir.path() + "/clone"}}));
  auto rows = UriRows(0, {"file://" + dir.path() + "/clone/a.bin"});
  EXPECT_TRUE(t->Add(&rows).status().IsInvalidArgument());
  EXPECT_EQ(*t->CountRows(), 0);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
