// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "io/s3_file_system.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <optional>
#include <random>

#include "io/s3_client.h"
#include "io/s3_file_system_internal.h"
#include "io/s3_read_cache.h"

namespace lancedb::io {
namespace {

std::string RandomHex(int n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device rd;
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(kHex[rd() & 15]);
  return out;
}

std::span<const uint8_t> AsBytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

/// What the conditional-put probe found, by store. Internally synchronized.
class ProbeResults {
 public:
  std::optional<bool> Find(const std::string& store) {
    std::lock_guard lock(mu_);
    auto it = results_.find(store);
    if (it == results_.end()) return std::nullopt;
    return it->second;
  }
  void Add(const std::string& store, bool honoured) {
    std::lock_guard lock(mu_);
    results_[store] = honoured;
  }

 private:
  std::mutex mu_;
  std::map<std::string, bool> results_;  // guarded by mu_
};

ProbeResults& KnownStores() {
  static ProbeResults* results = new ProbeResults();  // never destroyed: used until exit
  return *results;
}

class S3Fs : public FileSystem, public S3Objects {
 public:
  S3Fs(std::unique_ptr<S3Client> client, std::string root_key)
      : S3Objects(std::move(client)), root_key_(std::move(root_key)) {}

  Result<BufferPtr> ReadFile(const std::string& path) override {
    LANCEDB_ASSIGN_OR_RETURN(std::string key, Key(path));
    const bool immutable = IsImmutableTableFile(key);
    if (immutable) {
      if (auto size = cache_.GetSize(key)) {
        if (BufferPtr hit = cache_.Get(key, 0, *size)) return hit;
      }
    }
    S3Request req;
    req.key = key;
    LANCEDB_ASSIGN_OR_RETURN(S3Response r, client().Send(req));
    if (!r.ok()) return client().ErrorOf("GET", key, r);
    BufferPtr data = Buffer::Copy(r.body);
    if (immutable) {
      cache_.PutSize(key, data->size());
      cache_.Put(key, 0, data);
    }
    return data;
  }

  Result<BufferPtr> ReadRange(const std::string& path, int64_t offset, int64_t length) override {
    LANCEDB_ASSIGN_OR_RETURN(std::string key, Key(path));
    if (offset < 0 || length < 0) {
      return Status::InvalidArgument("Negative range [" + std::to_string(offset) + ", +" +
                                     std::to_string(length) + ") of '" + client().UriOf(key) + "'");
    }
    auto past_end = [&] {
      return Status::IOError("Range [" + std::to_string(offset) + ", " +
                             std::to_string(offset + length) + ") is past the end of '" +
                             client().UriOf(key) + "'");
    };
    if (length == 0) {
      LANCEDB_ASSIGN_OR_RETURN(int64_t size, GetSize(path));
      if (offset > size) return past_end();
      return Buffer::Allocate(0);
    }
    const bool immutable = IsImmutableTableFile(key);
    if (immutable) {
      if (BufferPtr hit = cache_.Get(key, offset, length)) return hit;
    }
    // A small read of an immutable file fetches the window around it: a Lance file's footer,
    // metadata and neighbouring pages are read one after another, and a request costs about
    // the same for 40 bytes as for 128 KiB. Reads that keep going forward fetch further ahead.
    int64_t start = offset;
    int64_t end = offset + length;
    if (immutable && length < kReadWindow) {
      // Starting at a multiple of 64 keeps each slice aligned as its bytes are in the file
      // (as a slice of a memory-mapped file would be).
      start = std::max<int64_t>(0, end - kReadWindow) & ~int64_t{kBufferAlignment - 1};
      end = offset + cache_.ReadAhead(key, offset, kReadWindow, kMaxReadAhead);
    }
    S3Request req;
    req.key = key;
    req.headers.push_back("Range: bytes=" + std::to_string(start) + "-" + std::to_string(end - 1));
    LANCEDB_ASSIGN_OR_RETURN(S3Response r, client().Send(req));
    if (r.status == 416) return past_end();
    if (!r.ok()) return client().ErrorOf("GET", key, r);
    if (r.status == 200) start = 0;  // the store ignored the Range header: the whole object
    BufferPtr fetched = Buffer::Copy(r.body);
    if (immutable) {
      cache_.Put(key, start, fetched);
      cache_.Fetched(key, start + fetched->size());
    }
    if (start + fetched->size() < offset + length) return past_end();
    return Buffer::Slice(fetched, offset - start, length);
  }

  Result<int64_t> GetSize(const std::string& path) override {
    LANCEDB_ASSIGN_OR_RETURN(std::string key, Key(path));
    const bool immutable = IsImmutableTableFile(key);
    if (immutable) {
      if (auto size = cache_.GetSize(key)) return *size;
    }
    LANCEDB_ASSIGN_OR_RETURN(S3Response r, Head(key));
    if (!r.ok()) return client().ErrorOf("HEAD", key, r);
    auto it = r.headers.find("content-length");
    if (it == r.headers.end()) {
      return Status::IOError("HEAD " + client().UriOf(key) + " returned no Content-Length");
    }
    const auto size = static_cast<int64_t>(std::strtoll(it->second.c_str(), nullptr, 10));
    if (immutable) cache_.PutSize(key, size);
    return size;
  }

  Result<bool> Exists(const std::string& path) override {
    LANCEDB_ASSIGN_OR_RETURN(std::string key, Key(path));
    if (!key.empty()) {
      LANCEDB_ASSIGN_OR_RETURN(S3Response r, Head(key));
      if (r.ok()) return true;
      if (r.status != 404) return client().ErrorOf("HEAD", key, r);
    }
    // A directory: any object under "<key>/" (this also reports a missing bucket).
    LANCEDB_ASSIGN_OR_RETURN(S3ListPage page, ListOnePage(DirPrefix(key), "/", "", 1));
    return !page.objects.empty() || !page.common_prefixes.empty();
  }

  Status WriteFile(const std::string& path, std::span<const uint8_t> data) override {
    LANCEDB_ASSIGN_OR_RETURN(std::string key, Key(path));
    cache_.Invalidate(key, /*prefix=*/false);
    if (static_cast<int64_t>(data.size()) > client().options().multipart_part_size) {
      auto out = NewS3OutputStream(this, key);
      Status st = out->Write(data.data(), static_cast<int64_t>(data.size()));
      if (st.ok()) st = out->Close();
      if (!st.ok()) out->Abort();
      return st;
    }
    return PutObject(key, data);
  }

  Status PutIfAbsent(const std::string& path, std::span<const uint8_t> data) override {
    LANCEDB_ASSIGN_OR_RETURN(std::string key, Key(path));
    cache_.Invalidate(key, /*prefix=*/false);
    LANCEDB_ASSIGN_OR_RETURN(bool honoured, ConditionalPutHonoured());
    auto exists = [&] {
      return Status::AlreadyExists("File '" + client().UriOf(key) + "' exists");
    };
    if (!honoured) {  // allow_unsafe_commit: check, then put (racy, as the user accepted)
      LANCEDB_ASSIGN_OR_RETURN(S3Response head, Head(key));
      if (head.ok()) return exists();
      if (head.status != 404) return client().ErrorOf("HEAD", key, head);
      return PutObject(key, data);
    }
    LANCEDB_ASSIGN_OR_RETURN(S3Response r, ConditionalPut(key, data));
    if (r.ok()) return Status::OK();
    if (r.status != 412 && r.status != 409) return client().ErrorOf("PUT", key, r);
    // 412: the object exists. It may be ours: after an attempt whose reply was lost (a retry
    // of ours, or libcurl's own resend of a request on a kept-alive connection the server had
    // closed, which this code cannot see) the store may have applied the first send. The bytes
    // decide: a manifest names its writer's transaction file, so two writers' never match.
    auto current = ReadFile(path);
    if (current.ok() && (*current)->span().size() == data.size() &&
        std::equal(data.begin(), data.end(), (*current)->data())) {
      return Status::OK();
    }
    return exists();
  }

  Result<std::vector<FileInfo>> ListDir(const std::string& dir) override {
    LANCEDB_ASSIGN_OR_RETURN(std::string key, Key(dir));
    const std::string prefix = DirPrefix(key);
    std::vector<FileInfo> out;
    std::string token;
    do {
      LANCEDB_ASSIGN_OR_RETURN(S3ListPage page, ListOnePage(prefix, "/", token, 0));
      for (const auto& obj : page.objects) {
        if (obj.key.size() <= prefix.size()) continue;  // a "directory marker" object
        FileInfo info;
        info.name = obj.key.substr(prefix.size());
        info.size = obj.size;
        info.modified_micros = obj.modified_micros;
        out.push_back(std::move(info));
      }
      for (const auto& p : page.common_prefixes) {
        if (p.size() <= prefix.size() + 1) continue;
        FileInfo info;
        info.name = p.substr(prefix.size(), p.size() - prefix.size() - 1);
        info.is_dir = true;
        out.push_back(std::move(info));
      }
      token = page.next_continuation_token;
      if (!page.is_truncated) break;
    } while (true);
    std::sort(out.begin(), out.end(),
              [](const FileInfo& a, const FileInfo& b) { return a.name < b.name; });
    return out;
  }

  Status CreateDir(const std::string& dir) override {
    return Key(dir).status();  // directories are implied by the objects under them
  }

  Status DeleteFile(const std::string& path) override {
    LANCEDB_ASSIGN_OR_RETURN(std::string key, Key(path));
    cache_.Invalidate(key, /*prefix=*/false);
    LANCEDB_ASSIGN_OR_RETURN(S3Response head, Head(key));
    if (!head.ok()) return client().ErrorOf("HEAD", key, head);
    return DeleteObject(key);
  }

  Status DeleteDirRecursive(const std::string& dir) override {
    LANCEDB_ASSIGN_OR_RETURN(std::string key, Key(dir));
    const std::string prefix = DirPrefix(key);
    cache_.Invalidate(prefix, /*prefix=*/true);
    // List everything first: deleting while paginating could skip keys.
    std::vector<std::string> keys;
    std::string token;
    do {
      LANCEDB_ASSIGN_OR_RETURN(S3ListPage page, ListOnePage(prefix, "", token, 0));
      for (auto& obj : page.objects) keys.push_back(std::move(obj.key));
      token = page.next_continuation_token;
      if (!page.is_truncated) break;
    } while (true);
    for (const auto& k : keys) LANCEDB_RETURN_NOT_OK(DeleteObject(k));
    return Status::OK();
  }

  Result<std::unique_ptr<OutputStream>> OpenOutputStream(const std::string& path) override {
    LANCEDB_ASSIGN_OR_RETURN(std::string key, Key(path));
    cache_.Invalidate(key, /*prefix=*/false);
    return NewS3OutputStream(this, key);
  }

 private:
  /// The object key of `path`: "s3://<bucket>/<key>" or "/<key>".
  Result<std::string> Key(const std::string& path) const {
    std::string_view p = path;
    if (p.starts_with("s3://")) {
      p.remove_prefix(5);
      const size_t slash = p.find('/');
      std::string_view bucket = p.substr(0, slash);
      if (bucket != client().bucket()) {
        return Status::InvalidArgument("Path '" + path + "' is not in bucket '" +
                                       client().bucket() + "'");
      }
      p = slash == std::string_view::npos ? std::string_view() : p.substr(slash);
    }
    while (p.starts_with('/')) p.remove_prefix(1);
    while (p.ends_with('/')) p.remove_suffix(1);
    return std::string(p);
  }

  static std::string DirPrefix(const std::string& key) { return key.empty() ? key : key + "/"; }

  Result<S3Response> ConditionalPut(const std::string& key, std::span<const uint8_t> data) {
    S3Request req;
    req.method = "PUT";
    req.key = key;
    req.headers.push_back("If-None-Match: *");
    req.body = data;
    return client().Send(req);
  }

  /// Whether the store honours If-None-Match (probed once); NotSupported when it does not and
  /// allow_unsafe_commit is off.
  Result<bool> ConditionalPutHonoured() {
    std::lock_guard lock(probe_mu_);
    if (!honoured_) {
      // Once per bucket and endpoint in the process: every connection would find the same.
      const std::string store = client().options().EffectiveEndpoint() + " " + client().bucket();
      honoured_ = KnownStores().Find(store);
      if (!honoured_) {
        LANCEDB_ASSIGN_OR_RETURN(bool honoured, Probe());
        honoured_ = honoured;
        KnownStores().Add(store, honoured);
      }
    }
    if (!*honoured_ && !client().options().allow_unsafe_commit) {
      return Status::NotSupported(
          "The object store at '" + client().options().EffectiveEndpoint() +
          "' ignores conditional puts (If-None-Match: *), so two writers committing at once "
          "could overwrite each other's version of s3://" +
          client().bucket() + "/" + root_key_ +
          ". Writes are refused; set storage option allow_unsafe_commit=true to write anyway "
          "when only one writer at a time uses the table");
    }
    return *honoured_;
  }

  Result<bool> Probe() {
    const std::string key =
        (root_key_.empty() ? "" : root_key_ + "/") + ".lancedb-cpp-put-probe-" + RandomHex(16);
    const std::string_view bytes = "conditional put probe";
    LANCEDB_ASSIGN_OR_RETURN(S3Response first, ConditionalPut(key, AsBytes(bytes)));
    if (first.status == 501 || first.error.code == "NotImplemented") return false;
    if (first.status == 412) {  // a resend of ours found the object: the header is honoured
      (void)DeleteObject(key);
      return true;
    }
    if (!first.ok()) return client().ErrorOf("PUT", key, first);
    auto second = ConditionalPut(key, AsBytes(bytes));
    (void)DeleteObject(key);
    if (!second.ok()) return second.status();
    if (second->status == 412) return true;
    if (second->ok() || second->status == 501 || second->error.code == "NotImplemented") {
      return false;
    }
    return client().ErrorOf("PUT", key, *second);
  }

  static constexpr int64_t kReadWindow = 64 << 10;
  static constexpr int64_t kMaxReadAhead = 4 << 20;  // a fetch stays cacheable (kCacheBytes / 8)
  static constexpr int64_t kCacheBytes = 64 << 20;

  const std::string root_key_;
  S3ReadCache cache_{kCacheBytes};
  std::mutex probe_mu_;
  std::optional<bool> honoured_;  // guarded by probe_mu_
};

}  // namespace

Result<S3Response> S3Objects::Head(const std::string& key) {
  S3Request req;
  req.method = "HEAD";
  req.key = key;
  return client_->Send(req);
}

Status S3Objects::PutObject(const std::string& key, std::span<const uint8_t> data) {
  S3Request req;
  req.method = "PUT";
  req.key = key;
  req.body = data;
  LANCEDB_ASSIGN_OR_RETURN(S3Response r, client_->Send(req));
  if (!r.ok()) return client_->ErrorOf("PUT", key, r);
  return Status::OK();
}

Status S3Objects::DeleteObject(const std::string& key) {
  S3Request req;
  req.method = "DELETE";
  req.key = key;
  LANCEDB_ASSIGN_OR_RETURN(S3Response r, client_->Send(req));
  if (!r.ok() && r.status != 404) return client_->ErrorOf("DELETE", key, r);
  return Status::OK();
}

Result<S3ListPage> S3Objects::ListOnePage(const std::string& prefix, const std::string& delimiter,
                                          const std::string& token, int max_keys) {
  S3Request req;
  req.query = {{"list-type", "2"}, {"prefix", prefix}};
  if (!delimiter.empty()) req.query.emplace_back("delimiter", delimiter);
  if (!token.empty()) req.query.emplace_back("continuation-token", token);
  if (max_keys > 0) req.query.emplace_back("max-keys", std::to_string(max_keys));
  LANCEDB_ASSIGN_OR_RETURN(S3Response r, client_->Send(req));
  if (!r.ok()) return client_->ErrorOf("LIST", prefix, r);
  return ParseListObjectsV2(r.body);
}

Status ParseS3Uri(const std::string& uri, std::string* bucket, std::string* key) {
  if (!uri.starts_with("s3://"))
    return Status::InvalidArgument("'" + uri + "' is not an s3:// URI");
  std::string_view rest = std::string_view(uri).substr(5);
  const size_t slash = rest.find('/');
  std::string_view b = rest.substr(0, slash);
  if (b.empty()) return Status::InvalidArgument("URI '" + uri + "' has no bucket name");
  for (unsigned char c : b) {
    if (!std::isalnum(c) && c != '.' && c != '-' && c != '_') {
      return Status::InvalidArgument("Invalid bucket name '" + std::string(b) + "' in '" + uri +
                                     "'");
    }
  }
  *bucket = std::string(b);
  std::string_view k = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  while (k.starts_with('/')) k.remove_prefix(1);
  while (k.ends_with('/')) k.remove_suffix(1);
  *key = std::string(k);
  return Status::OK();
}

Result<FileSystemPtr> MakeS3FileSystem(const std::string& bucket, const std::string& root_key,
                                       S3Options options) {
  LANCEDB_ASSIGN_OR_RETURN(auto client, S3Client::Make(bucket, std::move(options)));
  return FileSystemPtr(std::make_shared<S3Fs>(std::move(client), root_key));
}

}  // namespace lancedb::io
