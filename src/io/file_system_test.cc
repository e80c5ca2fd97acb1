// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "io/file_system.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>

namespace lancedb::io {
namespace LANCEDB_TEST_FILE_NS {

std::string MakeTempDir() {
  char tmpl[] = "/tmp/lancedb-io-test-XXXXXX";
  return ::mkdtemp(tmpl);
}

struct FsCase {
  std::string name;
  FileSystemPtr fs;
  std::string root;
};

// The S3 case runs only when python/tests/test_s3_file_system.py starts an S3-compatible
// server and names it: LANCEDB_TEST_S3_ENDPOINT (http://host:port) and LANCEDB_TEST_S3_BUCKET.
std::optional<std::string> Env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? std::optional<std::string>(v) : std::nullopt;
}

constexpr int kS3 = 2;

class FileSystemTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (GetParam() == 0) {
      fs_ = LocalFileSystem();
      root_ = MakeTempDir();
    } else if (GetParam() == kS3) {
      const std::string uri = "s3://" + *Env("LANCEDB_TEST_S3_BUCKET") + "/test-" +
                              std::to_string(::getpid()) + "-" +
                              ::testing::UnitTest::GetInstance()->current_test_info()->name();
      ASSERT_TRUE(ResolveUri(uri,
                             {{"aws_endpoint", *Env("LANCEDB_TEST_S3_ENDPOINT")},
                              {"allow_http", "true"},
                              {"aws_access_key_id", "testing-key"},
                              {"aws_secret_access_key", "testing-secret"},
                              {"multipart_part_size", std::to_string(5 << 20)}},
                             &fs_, &root_)
                      .ok());
    } else {
      fs_ = MemoryFileSystem();
      root_ = "/memory/test-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name();
    }
  }
  void TearDown() override { ASSERT_TRUE(fs_->DeleteDirRecursive(root_).ok()); }
  std::string Path(const std::string& name) { return JoinPath(root_, name); }

  FileSystemPtr fs_;
  std::string root_;
};

TEST_P(FileSystemTest, WriteThenReadWholeAndRange) {
  ASSERT_TRUE(fs_->WriteFile(Path("a/b.bin"), std::string_view("hello world")).ok());
  auto whole = fs_->ReadFile(Path("a/b.bin"));
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ((*whole)->view(), "hello world");
  auto range = fs_->ReadRange(Path("a/b.bin"), 6, 5);
  ASSERT_TRUE(range.ok());
  EXPECT_EQ((*range)->view(), "world");
  EXPECT_EQ(*fs_->GetSize(Path("a/b.bin")), 11);
}

TEST_P(FileSystemTest, OpenForReadReadsRangesOfTheOpenedFile) {
  ASSERT_TRUE(fs_->WriteFile(Path("f"), std::string_view("hello world")).ok());
  auto file = fs_->OpenForRead(Path("f"));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  auto first = (*file)->ReadRange(0, 5);
  auto second = (*file)->ReadRange(6, 5);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ((*first)->view(), "hello");
  EXPECT_EQ((*second)->view(), "world");
  auto past = (*file)->ReadRange(8, 5);
  ASSERT_FALSE(past.ok());
  EXPECT_TRUE(past.status().IsIOError()) << past.status().ToString();
  EXPECT_FALSE((*file)->ReadRange(-1, 2).ok());
  // A missing file: NotFound on opening (local disk) or on the first read (other stores).
  auto missing = fs_->OpenForRead(Path("missing"));
  if (missing.ok()) {
    EXPECT_TRUE((*missing)->ReadRange(0, 1).status().IsNotFound());
  } else {
    EXPECT_TRUE(missing.status().IsNotFound());
  }
}

TEST_P(FileSystemTest, RangePastEndIsAnError) {
  ASSERT_TRUE(fs_->WriteFile(Path("f"), std::string_view("abc")).ok());
  auto r = fs_->ReadRange(Path("f"), 2, 5);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsIOError());
  EXPECT_NE(r.status().message().find("past the end"), std::string::npos);
}

TEST_P(FileSystemTest, MissingFileIsNotFound) {
  auto r = fs_->ReadFile(Path("missing"));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
  EXPECT_FALSE(*fs_->Exists(Path("missing")));
}

TEST_P(FileSystemTest, PutIfAbsentRefusesExistingFile) {
  ASSERT_TRUE(fs_->PutIfAbsent(Path("v/1.manifest"), std::string_view("one")).ok());
  Status st = fs_->PutIfAbsent(Path("v/1.manifest"), std::string_view("two"));
  EXPECT_TRUE(st.IsAlreadyExists()) << st.ToString();
  EXPECT_EQ((*fs_->ReadFile(Path("v/1.manifest")))->view(), "one");
}

TEST_P(FileSystemTest, PutIfAbsentHasExactlyOneWinnerAcrossThreads) {
  std::atomic<int> winners{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      std::string body = "writer" + std::to_string(i);
      if (fs_->PutIfAbsent(Path("race"), std::string_view(body)).ok()) winners++;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(winners.load(), 1);
}

TEST_P(FileSystemTest, ListDirIsSortedAndShowsDirectories) {
  ASSERT_TRUE(fs_->WriteFile(Path("d/b"), std::string_view("2")).ok());
  ASSERT_TRUE(fs_->WriteFile(Path("d/a"), std::string_view("1")).ok());
  ASSERT_TRUE(fs_->WriteFile(Path("d/sub/c"), std::string_view("3")).ok());
  auto list = fs_->ListDir(Path("d"));
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[0].name, "a");
  EXPECT_EQ((*list)[0].size, 1);
  EXPECT_EQ((*list)[1].name, "b");
  EXPECT_EQ((*list)[2].name, "sub");
  EXPECT_TRUE((*list)[2].is_dir);
  EXPECT_TRUE(fs_->ListDir(Path("nothing"))->empty());
}

TEST_P(FileSystemTest, OutputStreamPublishesOnCloseOnly) {
  auto out = fs_->OpenOutputStream(Path("s/file"));
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE((*out)->Write("abc", 3).ok());
  ASSERT_TRUE((*out)->Write("def", 3).ok());
  EXPECT_EQ((*out)->Tell(), 6);
  EXPECT_FALSE(*fs_->Exists(Path("s/file")));
  ASSERT_TRUE((*out)->Close().ok());
  EXPECT_EQ((*fs_->ReadFile(Path("s/file")))->view(), "abcdef");

  auto aborted = fs_->OpenOutputStream(Path("s/aborted"));
  ASSERT_TRUE(aborted.ok());
  ASSERT_TRUE((*aborted)->Write("x", 1).ok());
  (*aborted)->Abort();
  EXPECT_FALSE(*fs_->Exists(Path("s/aborted")));
  auto list = fs_->ListDir(Path("s"));
  ASSERT_EQ(list->size(), 1u);  // no temp file left behind
}

TEST_P(FileSystemTest, DeleteFileAndDirectory) {
  ASSERT_TRUE(fs_->WriteFile(Path("x/y/z"), std::string_view("1")).ok());
  EXPECT_TRUE(fs_->DeleteFile(Path("missing")).IsNotFound());
  ASSERT_TRUE(fs_->DeleteDirRecursive(Path("x")).ok());
  EXPECT_FALSE(*fs_->Exists(Path("x/y/z")));
}

TEST_P(FileSystemTest, LargeStreamsAndFilesArriveWhole) {
  // Over S3's 5 MiB part size: a multipart upload there; a failed or aborted one leaves nothing.
  std::string big(11 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 131) >> 7);
  ASSERT_TRUE(fs_->WriteFile(Path("big/whole"), std::string_view(big)).ok());
  auto out = fs_->OpenOutputStream(Path("big/streamed"));
  ASSERT_TRUE(out.ok());
  for (size_t at = 0; at < big.size(); at += 1 << 20) {
    ASSERT_TRUE((*out)->Write(big.data() + at, std::min<size_t>(1 << 20, big.size() - at)).ok());
  }
  ASSERT_TRUE((*out)->Close().ok());
  for (const char* name : {"big/whole", "big/streamed"}) {
    auto read = fs_->ReadFile(Path(name));
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_TRUE((*read)->view() == big) << name;
    EXPECT_EQ((*fs_->ReadRange(Path(name), (7 << 20) + 3, 10))->view(),
              std::string_view(big).substr((7 << 20) + 3, 10));
  }
  auto aborted = fs_->OpenOutputStream(Path("big/aborted"));
  ASSERT_TRUE((*aborted)->Write(big.data(), static_cast<int64_t>(big.size())).ok());
  (*aborted)->Abort();
  EXPECT_FALSE(*fs_->Exists(Path("big/aborted")));
  EXPECT_EQ(fs_->ListDir(Path("big"))->size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(LocalAndMemory, FileSystemTest, ::testing::Values(0, 1),
                         [](const auto& info) { return info.param == 0 ? "Local" : "Memory"; });

std::vector<int> S3Cases() {
  if (!Env("LANCEDB_TEST_S3_ENDPOINT") || !Env("LANCEDB_TEST_S3_BUCKET")) return {};
  return {kS3};
}
INSTANTIATE_TEST_SUITE_P(S3, FileSystemTest, ::testing::ValuesIn(S3Cases()),
                         [](const auto&) { return std::string("S3"); });

TEST(ResolveUri, MapsSchemes) {
  FileSystemPtr fs;
  std::string path;
  ASSERT_TRUE(ResolveUri("memory://db", &fs, &path).ok());
  EXPECT_EQ(fs, MemoryFileSystem());
  ASSERT_TRUE(ResolveUri("/tmp/db/", &fs, &path).ok());
  EXPECT_EQ(fs, LocalFileSystem());
  EXPECT_EQ(path, "/tmp/db");
  ASSERT_TRUE(ResolveUri("file:///tmp/x", &fs, &path).ok());
  EXPECT_EQ(path, "/tmp/x");
  ASSERT_TRUE(ResolveUri("s3://bucket/db/",
                         {{"aws_access_key_id", "k"}, {"aws_secret_access_key", "s"}}, &fs, &path)
                  .ok());
  EXPECT_EQ(path, "s3://bucket/db");
  EXPECT_TRUE(
      ResolveUri("s3://bucket/db", {{"no_such_option", "1"}}, &fs, &path).IsInvalidArgument());
  EXPECT_TRUE(ResolveUri("gs://bucket/db", &fs, &path).IsNotSupported());
  EXPECT_TRUE(ResolveUri("", &fs, &path).IsInvalidArgument());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::io
