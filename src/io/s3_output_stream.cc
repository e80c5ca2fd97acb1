// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// S3OutputStream: a single PUT for small files; for large ones S3's multipart upload
// (CreateMultipartUpload, UploadPart per part, CompleteMultipartUpload), which publishes the
// object atomically on completion. Any failure aborts the upload, so that neither a partial
// object nor orphaned parts are left. Externally synchronized, as every OutputStream.

#include <algorithm>

#include "io/s3_file_system_internal.h"

namespace lancedb::io {
namespace {

class S3OutputStream : public OutputStream {
 public:
  S3OutputStream(S3Objects* objects, std::string key) : objects_(objects), key_(std::move(key)) {}
  ~S3OutputStream() override {
    if (!closed_) Abort();
  }

  Status Write(const void* data, int64_t size) override {
    if (closed_) return Status::IOError("Write to a closed stream for '" + Uri() + "'");
    const auto* bytes = static_cast<const uint8_t*>(data);
    const int64_t part = objects_->client().options().multipart_part_size;
    while (size > 0) {
      const int64_t take = std::min<int64_t>(size, part - static_cast<int64_t>(pending_.size()));
      pending_.insert(pending_.end(), bytes, bytes + take);
      bytes += take;
      size -= take;
      written_ += take;
      if (static_cast<int64_t>(pending_.size()) == part) {
        Status st = FlushPart();
        if (!st.ok()) return Fail(st);
      }
    }
    return Status::OK();
  }

  int64_t Tell() const override { return written_; }

  Status Close() override {
    if (closed_) return Status::IOError("Close of a closed stream for '" + Uri() + "'");
    if (upload_id_.empty()) {
      closed_ = true;
      return objects_->PutObject(key_, pending_);
    }
    if (!pending_.empty()) {
      Status st = FlushPart();
      if (!st.ok()) return Fail(st);
    }
    Status st = Complete();
    if (!st.ok()) return Fail(st);
    closed_ = true;
    return Status::OK();
  }

  void Abort() override {
    closed_ = true;
    pending_.clear();
    if (upload_id_.empty()) return;
    S3Request req;
    req.method = "DELETE";
    req.key = key_;
    req.query = {{"uploadId", upload_id_}};
    (void)objects_->client().Send(req);  // best effort: a lifecycle rule collects leftovers
    upload_id_.clear();
  }

 private:
  std::string Uri() const { return objects_->client().UriOf(key_); }

  Status Fail(const Status& st) {
    Abort();
    return st;
  }

  Status Start() {
    S3Request req;
    req.method = "POST";
    req.key = key_;
    req.query = {{"uploads", ""}};
    LANCEDB_ASSIGN_OR_RETURN(S3Response r, objects_->client().Send(req));
    if (!r.ok()) return objects_->client().ErrorOf("POST (start a multipart upload)", key_, r);
    LANCEDB_ASSIGN_OR_RETURN(upload_id_, ParseInitiateMultipartUpload(r.body));
    return Status::OK();
  }

  Status FlushPart() {
    if (upload_id_.empty()) LANCEDB_RETURN_NOT_OK(Start());
    S3Request req;
    req.method = "PUT";
    req.key = key_;
    req.query = {{"partNumber", std::to_string(etags_.size() + 1)}, {"uploadId", upload_id_}};
    req.body = pending_;
    LANCEDB_ASSIGN_OR_RETURN(S3Response r, objects_->client().Send(req));
    if (!r.ok()) return objects_->client().ErrorOf("PUT (upload a part)", key_, r);
    auto etag = r.headers.find("etag");
    if (etag == r.headers.end()) return Status::IOError("UploadPart of '" + Uri() + "': no ETag");
    etags_.push_back(etag->second);
    pending_.clear();
    return Status::OK();
  }

  Status Complete() {
    const std::string body = CompleteMultipartUploadXml(etags_);
    S3Request req;
    req.method = "POST";
    req.key = key_;
    req.query = {{"uploadId", upload_id_}};
    req.headers.push_back("Content-Type: application/xml");
    req.body = {reinterpret_cast<const uint8_t*>(body.data()), body.size()};
    LANCEDB_ASSIGN_OR_RETURN(S3Response r, objects_->client().Send(req));
    // A 200 may still carry an <Error> (the store failed while streaming the reply).
    if (r.ok()) r.error = ParseS3Error(r.body);
    if (r.ok() && r.error.code.empty()) {
      upload_id_.clear();
      return Status::OK();
    }
    if (r.error.code == "NoSuchUpload") {
      // An earlier send (a retry of ours, or libcurl's resend on a new connection) completed
      // it: then the object is there with every byte.
      LANCEDB_ASSIGN_OR_RETURN(S3Response head, objects_->Head(key_));
      auto len = head.headers.find("content-length");
      if (head.ok() && len != head.headers.end() && std::stoll(len->second) == written_) {
        upload_id_.clear();
        return Status::OK();
      }
    }
    if (r.ok()) r.status = 500;  // report the embedded error
    return objects_->client().ErrorOf("POST (complete a multipart upload)", key_, r);
  }

  S3Objects* const objects_;
  const std::string key_;
  std::vector<uint8_t> pending_;
  int64_t written_ = 0;
  std::string upload_id_;
  std::vector<std::string> etags_;
  bool closed_ = false;
};

}  // namespace

std::unique_ptr<OutputStream> NewS3OutputStream(S3Objects* objects, std::string key) {
  return std::make_unique<S3OutputStream>(objects, std::move(key));
}

}  // namespace lancedb::io
