// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The pure parts of the S3 file system: storage options, XML documents, URLs, retry policy.
// The requests themselves are tested against a real S3-compatible server from Python
// (python/tests/test_s3*.py start one).

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "io/retry_policy.h"
#include "io/s3_client.h"
#include "io/s3_file_system.h"
#include "io/s3_options.h"
#include "io/s3_read_cache.h"
#include "io/s3_xml.h"

namespace lancedb::io {
namespace LANCEDB_TEST_FILE_NS {

using Env = std::map<std::string, std::string>;

EnvLookup FakeEnv(Env env) {
  return [env = std::move(env)](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
}

const std::map<std::string, std::string> kKeys = {{"aws_access_key_id", "AKID"},
                                                  {"aws_secret_access_key", "SECRET"}};

TEST(S3Options, ParsesLanceDbKeys) {
  auto o = ParseS3Options({{"aws_access_key_id", "AKID"},
                           {"aws_secret_access_key", "SECRET"},
                           {"aws_session_token", "TOKEN"},
                           {"aws_region", "eu-west-3"},
                           {"aws_endpoint", "http://127.0.0.1:9000/"},
                           {"allow_http", "true"},
                           {"aws_virtual_hosted_style_request", "false"},
                           {"timeout", "45s"},
                           {"connect_timeout", "500ms"},
                           {"client_max_retries", "3"},
                           {"client_retry_timeout", "2m"},
                           {"multipart_part_size", "10485760"},
                           {"allow_unsafe_commit", "true"},
                           {"new_table_enable_stable_row_ids", "true"}},
                          FakeEnv({}));
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->credentials.access_key_id, "AKID");
  EXPECT_EQ(o->credentials.secret_access_key, "SECRET");
  EXPECT_EQ(o->credentials.session_token, "TOKEN");
  EXPECT_EQ(o->credentials.source, "storage options");
  EXPECT_EQ(o->region, "eu-west-3");
  EXPECT_EQ(o->endpoint, "http://127.0.0.1:9000");
  EXPECT_TRUE(o->allow_http);
  EXPECT_FALSE(o->virtual_hosted_style);
  EXPECT_EQ(o->timeout.count(), 45000);
  EXPECT_EQ(o->connect_timeout.count(), 500);
  EXPECT_EQ(o->retry.max_retries, 3);
  EXPECT_EQ(o->retry.retry_timeout.count(), 120000);
  EXPECT_EQ(o->multipart_part_size, 10 << 20);
  EXPECT_TRUE(o->allow_unsafe_commit);
}

TEST(S3Options, KeysAreCaseInsensitiveAndHaveAliases) {
  auto o = ParseS3Options({{"AWS_ACCESS_KEY_ID", "A"},
                           {"secret_access_key", "S"},
                           {"region", "ap-south-1"},
                           {"endpoint", "https://minio.example"}},
                          FakeEnv({}));
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->credentials.access_key_id, "A");
  EXPECT_EQ(o->region, "ap-south-1");
  EXPECT_EQ(o->EffectiveEndpoint(), "https://minio.example");
}

TEST(S3Options, UnknownKeyIsAnErrorNamingIt) {
  auto o = ParseS3Options({{"aws_acces_key_id", "typo"}}, FakeEnv({}));
  ASSERT_TRUE(o.status().IsInvalidArgument());
  EXPECT_NE(o.status().message().find("'aws_acces_key_id'"), std::string::npos);
  EXPECT_NE(o.status().message().find("aws_access_key_id"), std::string::npos);
}

TEST(S3Options, MalformedValuesAreErrors) {
  auto with = [](std::string key, std::string value) {
    auto options = kKeys;
    options[key] = value;
    return ParseS3Options(options, FakeEnv({})).status();
  };
  EXPECT_TRUE(with("allow_http", "maybe").IsInvalidArgument());
  EXPECT_TRUE(with("timeout", "soon").IsInvalidArgument());
  EXPECT_TRUE(with("timeout", "0").IsInvalidArgument());
  EXPECT_TRUE(with("client_max_retries", "-1").IsInvalidArgument());
  EXPECT_TRUE(with("multipart_part_size", "1024").IsInvalidArgument());
  EXPECT_TRUE(with("aws_endpoint", "127.0.0.1:9000").IsInvalidArgument());
  EXPECT_TRUE(with("aws_region", "").IsInvalidArgument());
}

TEST(S3Options, PlainHttpNeedsAllowHttp) {
  auto options = kKeys;
  options["aws_endpoint"] = "http://localhost:9000";
  auto o = ParseS3Options(options, FakeEnv({}));
  ASSERT_TRUE(o.status().IsInvalidArgument());
  EXPECT_NE(o.status().message().find("allow_http"), std::string::npos);
  EXPECT_TRUE(ParseS3Options(options, FakeEnv({{"AWS_ALLOW_HTTP", "true"}})).ok());
}

TEST(S3Options, EnvironmentIsTheFallback) {
  auto o = ParseS3Options({}, FakeEnv({{"AWS_ACCESS_KEY_ID", "EA"},
                                       {"AWS_SECRET_ACCESS_KEY", "ES"},
                                       {"AWS_SESSION_TOKEN", "ET"},
                                       {"AWS_DEFAULT_REGION", "us-west-2"},
                                       {"AWS_ENDPOINT_URL", "https://s3.local"}}));
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->credentials.access_key_id, "EA");
  EXPECT_EQ(o->credentials.session_token, "ET");
  EXPECT_EQ(o->region, "us-west-2");
  EXPECT_EQ(o->endpoint, "https://s3.local");
  // AWS_REGION wins over AWS_DEFAULT_REGION; the storage options win over both.
  o = ParseS3Options({{"region", "eu-north-1"}}, FakeEnv({{"AWS_ACCESS_KEY_ID", "EA"},
                                                          {"AWS_SECRET_ACCESS_KEY", "ES"},
                                                          {"AWS_REGION", "ca-central-1"},
                                                          {"AWS_DEFAULT_REGION", "us-west-2"}}));
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->region, "eu-north-1");
}

TEST(S3Options, SharedCredentialsFile) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("lancedb-s3-creds-" + std::to_string(getpid())))
          .string();
  {
    std::ofstream out(path);
    out << "[default]\naws_access_key_id = DA\naws_secret_access_key = DS\n\n"
        << "# another\n[work]\naws_access_key_id=WA\naws_secret_access_key=WS\n"
        << "aws_session_token=WT\n";
  }
  auto o = ParseS3Options({}, FakeEnv({{"AWS_SHARED_CREDENTIALS_FILE", path}}));
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->credentials.access_key_id, "DA");
  o = ParseS3Options({}, FakeEnv({{"AWS_SHARED_CREDENTIALS_FILE", path}, {"AWS_PROFILE", "work"}}));
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->credentials.access_key_id, "WA");
  EXPECT_EQ(o->credentials.session_token, "WT");
  o = ParseS3Options({}, FakeEnv({{"AWS_SHARED_CREDENTIALS_FILE", path}, {"AWS_PROFILE", "nope"}}));
  ASSERT_TRUE(o.status().IsInvalidArgument());
  EXPECT_NE(o.status().message().find("'nope'"), std::string::npos);
  std::remove(path.c_str());
}

TEST(S3Options, MissingCredentialsAreAClearError) {
  auto o = ParseS3Options({}, FakeEnv({{"HOME", "/nonexistent"}}));
  ASSERT_TRUE(o.status().IsInvalidArgument());
  EXPECT_NE(o.status().message().find("No AWS credentials"), std::string::npos);
  EXPECT_NE(o.status().message().find("AWS_ACCESS_KEY_ID"), std::string::npos);
  EXPECT_TRUE(
      ParseS3Options({{"aws_access_key_id", "only"}}, FakeEnv({})).status().IsInvalidArgument());
  EXPECT_TRUE(ParseS3Options({{"aws_skip_signature", "true"}}, FakeEnv({})).ok());
}

TEST(S3Options, ParsesDurations) {
  EXPECT_EQ(ParseDuration("t", "30")->count(), 30000);
  EXPECT_EQ(ParseDuration("t", "1.5 seconds")->count(), 1500);
  EXPECT_EQ(ParseDuration("t", "250ms")->count(), 250);
  EXPECT_EQ(ParseDuration("t", "2m")->count(), 120000);
  EXPECT_EQ(ParseDuration("t", "1h")->count(), 3600000);
  EXPECT_TRUE(ParseDuration("t", "").status().IsInvalidArgument());
  EXPECT_TRUE(ParseDuration("t", "5 fortnights").status().IsInvalidArgument());
  EXPECT_TRUE(ParseDuration("t", "1.2.3s").status().IsInvalidArgument());
}

TEST(S3Uri, SplitsBucketAndKey) {
  std::string bucket, key;
  ASSERT_TRUE(ParseS3Uri("s3://my-bucket/a/b/", &bucket, &key).ok());
  EXPECT_EQ(bucket, "my-bucket");
  EXPECT_EQ(key, "a/b");
  ASSERT_TRUE(ParseS3Uri("s3://b", &bucket, &key).ok());
  EXPECT_EQ(key, "");
  EXPECT_TRUE(ParseS3Uri("s3:///x", &bucket, &key).IsInvalidArgument());
  EXPECT_TRUE(ParseS3Uri("s3://bad bucket/x", &bucket, &key).IsInvalidArgument());
}

TEST(S3Client, BuildsPathAndVirtualHostedUrls) {
  S3Options o;
  o.endpoint = "http://127.0.0.1:9000";
  EXPECT_EQ(S3Client::BuildUrl(o, "b", "db/t.lance/x y+z", {}),
            "http://127.0.0.1:9000/b/db/t.lance/x%20y%2Bz");
  EXPECT_EQ(S3Client::BuildUrl(o, "b", "", {{"prefix", "db/"}, {"list-type", "2"}}),
            "http://127.0.0.1:9000/b/?list-type=2&prefix=db%2F");
  o.virtual_hosted_style = true;
  EXPECT_EQ(S3Client::BuildUrl(o, "b", "k", {{"uploads", ""}}),
            "http://b.127.0.0.1:9000/k?uploads=");
  S3Options aws;
  aws.region = "eu-west-1";
  EXPECT_EQ(S3Client::BuildUrl(aws, "b", "k", {}), "https://s3.eu-west-1.amazonaws.com/b/k");
}

TEST(S3Xml, ParsesListObjectsV2) {
  auto page = ParseListObjectsV2(R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>b</Name><Prefix>db/</Prefix><KeyCount>3</KeyCount><MaxKeys>2</MaxKeys>
  <IsTruncated>true</IsTruncated><NextContinuationToken>tok+1</NextContinuationToken>
  <Contents><Key>db/a&amp;b.txt</Key><LastModified>2026-12-07T23:26:08.500Z</LastModified>
    <ETag>"x"</ETag><Size>42</Size></Contents>
  <CommonPrefixes><Prefix>db/t.lance/</Prefix></CommonPrefixes>
</ListBucketResult>)");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->objects.size(), 1u);
  EXPECT_EQ(page->objects[0].key, "db/a&b.txt");
  EXPECT_EQ(page->objects[0].size, 42);
  EXPECT_EQ(page->objects[0].modified_micros, 1796685968500000);
  ASSERT_EQ(page->common_prefixes.size(), 1u);
  EXPECT_EQ(page->common_prefixes[0], "db/t.lance/");
  EXPECT_TRUE(page->is_truncated);
  EXPECT_EQ(page->next_continuation_token, "tok+1");
}

TEST(S3Xml, RejectsMalformedDocuments) {
  EXPECT_TRUE(ParseListObjectsV2("<ListBucketResult><Contents>").status().IsCorruption());
  EXPECT_TRUE(ParseListObjectsV2("<Error/>").status().IsCorruption());
  EXPECT_TRUE(ParseListObjectsV2("").status().IsCorruption());
  EXPECT_TRUE(
      ParseListObjectsV2("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>")
          .status()
          .IsCorruption());
  EXPECT_TRUE(
      ParseInitiateMultipartUpload("<InitiateMultipartUploadResult/>").status().IsCorruption());
}

TEST(S3Xml, ParsesErrorsAndMultipartReplies) {
  S3Error e = ParseS3Error(
      "<?xml version=\"1.0\"?><Error><Code>NoSuchBucket</Code><Message>The specified bucket "
      "does not exist</Message></Error>");
  EXPECT_EQ(e.code, "NoSuchBucket");
  EXPECT_EQ(e.message, "The specified bucket does not exist");
  EXPECT_EQ(ParseS3Error("").code, "");
  EXPECT_EQ(ParseS3Error("<html>bad gateway</html>").code, "");
  auto id = ParseInitiateMultipartUpload(
      "<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>abc-123</UploadId>"
      "</InitiateMultipartUploadResult>");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, "abc-123");
  EXPECT_EQ(CompleteMultipartUploadXml({"\"e1\"", "\"e2\""}),
            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&quot;e1&quot;</ETag>"
            "</Part><Part><PartNumber>2</PartNumber><ETag>&quot;e2&quot;</ETag></Part>"
            "</CompleteMultipartUpload>");
  EXPECT_EQ(ParseS3Timestamp("1970-01-01T00:00:01Z"), 1000000);
  EXPECT_EQ(ParseS3Timestamp("yesterday"), -1);
}

TEST(RetryPolicy, RetriesThrottlingAndServerErrorsOnly) {
  for (int s : {408, 429, 500, 502, 503, 504}) EXPECT_TRUE(IsRetryableHttpStatus(s)) << s;
  for (int s : {200, 204, 301, 400, 403, 404, 409, 412, 416}) {
    EXPECT_FALSE(IsRetryableHttpStatus(s)) << s;
  }
}

TEST(RetryPolicy, BackoffGrowsIsJitteredAndCapped) {
  RetryPolicy p;
  p.initial_backoff = std::chrono::milliseconds(100);
  p.max_backoff = std::chrono::milliseconds(1000);
  EXPECT_EQ(BackoffDelay(p, 0, 0.0).count(), 50);
  EXPECT_EQ(BackoffDelay(p, 0, 0.999).count(), 99);
  EXPECT_EQ(BackoffDelay(p, 2, 1.0).count(), 400);
  EXPECT_EQ(BackoffDelay(p, 2, 0.0).count(), 200);
  EXPECT_EQ(BackoffDelay(p, 10, 1.0).count(), 1000);
  EXPECT_EQ(BackoffDelay(p, 1000, 0.0).count(), 500);
}

TEST(RetryPolicy, BoundedInCountAndTime) {
  RetryPolicy p;
  p.max_retries = 2;
  p.retry_timeout = std::chrono::milliseconds(1000);
  EXPECT_TRUE(MayRetry(p, 0, std::chrono::milliseconds(0)));
  EXPECT_TRUE(MayRetry(p, 1, std::chrono::milliseconds(999)));
  EXPECT_FALSE(MayRetry(p, 2, std::chrono::milliseconds(0)));
  EXPECT_FALSE(MayRetry(p, 0, std::chrono::milliseconds(1000)));
}

TEST(RetryPolicy, TransportErrors) {
  EXPECT_TRUE(IsRetryableTransportError(7));    // CURLE_COULDNT_CONNECT
  EXPECT_TRUE(IsRetryableTransportError(28));   // CURLE_OPERATION_TIMEDOUT
  EXPECT_TRUE(IsRetryableTransportError(52));   // CURLE_GOT_NOTHING
  EXPECT_FALSE(IsRetryableTransportError(6));   // CURLE_COULDNT_RESOLVE_HOST
  EXPECT_FALSE(IsRetryableTransportError(60));  // CURLE_PEER_FAILED_VERIFICATION
}

TEST(S3ReadCache, OnlyImmutableTableFiles) {
  EXPECT_TRUE(IsImmutableTableFile("db/t.lance/data/0a1b-uuid.lance"));
  EXPECT_TRUE(IsImmutableTableFile("t.lance/_deletions/0-3-123.arrow"));
  EXPECT_TRUE(IsImmutableTableFile("db/t.lance/_indices/uuid/index.idx"));
  EXPECT_TRUE(IsImmutableTableFile("db/t.lance/tree/b/data/x.lance"));
  EXPECT_FALSE(IsImmutableTableFile("db/t.lance/_versions/1.manifest"));
  EXPECT_FALSE(IsImmutableTableFile("db/t.lance/_versions/latest_version_hint.json"));
  EXPECT_FALSE(IsImmutableTableFile("db/t.lance/_refs/tags/v1.json"));
  EXPECT_FALSE(IsImmutableTableFile("data/db/t.lance/_versions/1.manifest"));
  EXPECT_FALSE(IsImmutableTableFile("data/x.lance"));
  EXPECT_FALSE(IsImmutableTableFile("db/t.lance/data/"));
}

TEST(S3ReadCache, ServesSlicesOfCachedRanges) {
  S3ReadCache cache(1 << 20);
  cache.Put("k", 100, Buffer::Copy(std::string_view("0123456789")));
  EXPECT_EQ(cache.Get("k", 100, 10)->view(), "0123456789");
  EXPECT_EQ(cache.Get("k", 103, 4)->view(), "3456");
  EXPECT_EQ(cache.Get("k", 99, 2), nullptr);
  EXPECT_EQ(cache.Get("k", 105, 6), nullptr);
  EXPECT_EQ(cache.Get("other", 100, 1), nullptr);
  cache.PutSize("k", 4096);
  EXPECT_EQ(cache.GetSize("k"), 4096);
  cache.Invalidate("k", false);
  EXPECT_EQ(cache.Get("k", 100, 1), nullptr);
  EXPECT_FALSE(cache.GetSize("k"));
  EXPECT_EQ(cache.cached_bytes(), 0);
}

TEST(S3ReadCache, EvictsLeastRecentlyUsedAndInvalidatesPrefixes) {
  S3ReadCache cache(8 * 1024);  // ranges up to 1 KiB are kept
  const std::string kb(1024, 'x');
  for (int i = 0; i < 8; ++i) cache.Put("d/" + std::to_string(i), 0, Buffer::Copy(kb));
  EXPECT_EQ(cache.cached_bytes(), 8 * 1024);
  ASSERT_NE(cache.Get("d/0", 0, 1), nullptr);  // now the most recent
  cache.Put("d/8", 0, Buffer::Copy(kb));
  EXPECT_EQ(cache.cached_bytes(), 8 * 1024);
  EXPECT_NE(cache.Get("d/0", 0, 1), nullptr);
  EXPECT_EQ(cache.Get("d/1", 0, 1), nullptr);  // the least recently used went
  cache.Put("big", 0, Buffer::Copy(std::string(2048, 'y')));
  EXPECT_EQ(cache.Get("big", 0, 1), nullptr);  // over an eighth of the capacity
  cache.Invalidate("d/", true);
  EXPECT_EQ(cache.cached_bytes(), 0);
}

TEST(S3ReadCache, ReadAheadGrowsWhileReadsGoForward) {
  S3ReadCache cache(64 << 20);
  const int64_t kb = 1024;
  EXPECT_EQ(cache.ReadAhead("f", 1000, 64 * kb, 1024 * kb), 64 * kb);  // nothing fetched yet
  cache.Fetched("f", 1000 + 64 * kb);
  EXPECT_EQ(cache.ReadAhead("f", 1000 + 100 * kb, 64 * kb, 1024 * kb), 128 * kb);
  cache.Fetched("f", 1000 + 228 * kb);
  EXPECT_EQ(cache.ReadAhead("f", 1000 + 300 * kb, 64 * kb, 1024 * kb), 256 * kb);
  cache.Fetched("f", 1000 + 556 * kb);
  for (int i = 0; i < 4; ++i) {
    cache.ReadAhead("f", 1000 + 600 * kb, 64 * kb, 1024 * kb);
    cache.Fetched("f", 1000 + 600 * kb);
  }
  EXPECT_EQ(cache.ReadAhead("f", 1000 + 600 * kb, 64 * kb, 1024 * kb), 1024 * kb);  // capped
  // A read behind the last fetch, or far ahead of it, starts again.
  EXPECT_EQ(cache.ReadAhead("f", 0, 64 * kb, 1024 * kb), 64 * kb);
  cache.Fetched("f", 64 * kb);
  EXPECT_EQ(cache.ReadAhead("f", 10000 * kb, 64 * kb, 1024 * kb), 64 * kb);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::io
