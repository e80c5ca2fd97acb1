// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "io/s3_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <random>
#include <thread>

namespace lancedb::io {
namespace {

void GlobalInit() {
  static const bool done = [] {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    return true;
  }();
  (void)done;
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string_view line(data, size * n);
  if (line.starts_with("HTTP/")) {
    headers->clear();  // a new response (after 100 Continue or a redirect)
    return size * n;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return size * n;
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
    value.remove_suffix(1);
  }
  (*headers)[name] = std::string(value);
  return size * n;
}

struct UploadSource {
  std::span<const uint8_t> data;
  size_t offset = 0;
};

size_t OnRead(char* buffer, size_t size, size_t n, void* user) {
  auto* src = static_cast<UploadSource*>(user);
  const size_t count = std::min(size * n, src->data.size() - src->offset);
  std::copy_n(src->data.data() + src->offset, count, buffer);
  src->offset += count;
  return count;
}

// libcurl rewinds the body to resend it on a new connection (a kept-alive one the server had
// closed, a redirect).
int OnSeek(void* user, curl_off_t offset, int origin) {
  auto* src = static_cast<UploadSource*>(user);
  if (origin != SEEK_SET || offset < 0 || static_cast<size_t>(offset) > src->data.size()) {
    return CURL_SEEKFUNC_CANTSEEK;
  }
  src->offset = static_cast<size_t>(offset);
  return CURL_SEEKFUNC_OK;
}

double Uniform01() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

/// A curl_slist freed on scope exit.
struct HeaderList {
  curl_slist* list = nullptr;
  ~HeaderList() { curl_slist_free_all(list); }
  void Add(const std::string& h) { list = curl_slist_append(list, h.c_str()); }
};

}  // namespace

bool IsRetryableTransportError(int curl_code) {
  switch (curl_code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

S3Client::S3Client(std::string bucket, S3Options options)
    : bucket_(std::move(bucket)), options_(std::move(options)) {}

S3Client::~S3Client() {
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

Result<std::unique_ptr<S3Client>> S3Client::Make(std::string bucket, S3Options options) {
  GlobalInit();
  if (bucket.empty()) return Status::InvalidArgument("An s3:// URI needs a bucket name");
  return std::unique_ptr<S3Client>(new S3Client(std::move(bucket), std::move(options)));
}

std::string S3Client::UriOf(const std::string& key) const { return "s3://" + bucket_ + "/" + key; }

std::string S3Client::UriEncode(std::string_view s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string S3Client::BuildUrl(const S3Options& options, const std::string& bucket,
                               const std::string& key,
                               std::vector<std::pair<std::string, std::string>> query) {
  std::string endpoint = options.EffectiveEndpoint();
  std::string url;
  if (options.virtual_hosted_style) {
    const size_t host = endpoint.find("://") + 3;
    url = endpoint.substr(0, host) + bucket + "." + endpoint.substr(host) + "/";
  } else {
    url = endpoint + "/" + bucket + "/";
  }
  url += UriEncode(key, /*keep_slash=*/true);
  std::sort(query.begin(), query.end());
  for (size_t i = 0; i < query.size(); ++i) {
    url += i == 0 ? "?" : "&";
    url += UriEncode(query[i].first, false) + "=" + UriEncode(query[i].second, false);
  }
  return url;
}

void* S3Client::TakeHandle() {
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      curl_easy_reset(static_cast<CURL*>(h));
      return h;
    }
  }
  return curl_easy_init();
}

void S3Client::ReturnHandle(void* handle) {
  std::lock_guard lock(mu_);
  if (idle_.size() < 16) {
    idle_.push_back(handle);
  } else {
    curl_easy_cleanup(static_cast<CURL*>(handle));
  }
}

Result<S3Response> S3Client::SendOnce(const S3Request& request, int* transport_code) {
  *transport_code = CURLE_OK;
  CURL* curl = static_cast<CURL*>(TakeHandle());
  if (curl == nullptr) return Status::Internal("curl_easy_init failed");
  const std::string url = BuildUrl(options_, bucket_, request.key, request.query);
  S3Response response;
  HeaderList headers;
  // S3 needs the payload hash header; libcurl signs with the value given here.
  headers.Add("x-amz-content-sha256: UNSIGNED-PAYLOAD");
  if (!options_.skip_signature && !options_.credentials.session_token.empty()) {
    headers.Add("x-amz-security-token: " + options_.credentials.session_token);
  }
  for (const auto& h : request.headers) headers.Add(h);
  const std::string sigv4 = "aws:amz:" + options_.region + ":s3";
  UploadSource upload{request.body, 0};

  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  // No wait for "100 Continue" before a large body. (Not by removing the header with
  // "Expect:": libcurl would sign that empty header without sending it, and S3 would refuse
  // the signature.)
  curl_easy_setopt(curl, CURLOPT_EXPECT_100_TIMEOUT_MS, 0L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout.count()));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options_.connect_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response.headers);
  if (!options_.skip_signature) {
    curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, sigv4.c_str());
    curl_easy_setopt(curl, CURLOPT_USERNAME, options_.credentials.access_key_id.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, options_.credentials.secret_access_key.c_str());
  }
  if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method == "PUT") {
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, OnRead);
    curl_easy_setopt(curl, CURLOPT_READDATA, &upload);
    curl_easy_setopt(curl, CURLOPT_SEEKFUNCTION, OnSeek);
    curl_easy_setopt(curl, CURLOPT_SEEKDATA, &upload);
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  } else if (request.method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
  } else if (request.method != "GET") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.list);

  const CURLcode code = curl_easy_perform(curl);
  long status = 0;
  if (code == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  ReturnHandle(curl);
  if (code != CURLE_OK) {
    *transport_code = code;
    return Status::IOError("S3 " + request.method + " " + UriOf(request.key) + " at endpoint '" +
                           options_.EffectiveEndpoint() + "' failed: " + curl_easy_strerror(code));
  }
  response.status = status;
  if (!response.ok()) response.error = ParseS3Error(response.body);
  return response;
}

Result<S3Response> S3Client::Send(const S3Request& request) {
  int attempts = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int retry = 0;; ++retry) {
    int transport = CURLE_OK;
    ++attempts;
    auto response = SendOnce(request, &transport);
    bool again;
    if (!response.ok()) {
      again = IsRetryableTransportError(transport);
    } else {
      again = IsRetryableHttpStatus(response->status);
    }
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    if (!again || !MayRetry(options_.retry, retry, elapsed)) {
      if (!response.ok() && attempts > 1) {
        return Status::IOError(response.status().message() + " (after " + std::to_string(attempts) +
                               " attempts in " + std::to_string(elapsed.count()) +
                               " ms; storage options client_max_retries, client_retry_timeout, "
                               "timeout and connect_timeout bound them)");
      }
      return response;
    }
    auto delay = BackoffDelay(options_.retry, retry, Uniform01());
    delay = std::min(delay, options_.retry.retry_timeout - elapsed);
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
  }
}

Status S3Client::ErrorOf(const std::string& method, const std::string& key,
                         const S3Response& response) const {
  const std::string what = "S3 " + method + " " + UriOf(key);
  const std::string& code = response.error.code;
  std::string detail = "HTTP " + std::to_string(response.status);
  if (!code.empty()) detail += " " + code;
  if (!response.error.message.empty()) detail += ": " + response.error.message;
  if (code == "NoSuchBucket") {
    return Status::IOError("Bucket '" + bucket_ + "' does not exist at endpoint '" +
                           options_.EffectiveEndpoint() + "' (" + what + ": " + detail + ")");
  }
  if (response.status == 404 && (code.empty() || code == "NoSuchKey")) {
    return Status::NotFound("Object '" + UriOf(key) + "' not found");
  }
  auto region = response.headers.find("x-amz-bucket-region");
  if (region != response.headers.end() && region->second != options_.region) {
    return Status::IOError(what + " failed (" + detail + "): bucket '" + bucket_ +
                           "' is in region '" + region->second + "', not '" + options_.region +
                           "'; set storage option aws_region");
  }
  if (response.status == 401 || response.status == 403) {
    return Status::IOError(
        what + " was refused (" + detail + "); check the credentials (from " +
        (options_.credentials.source.empty() ? std::string("none") : options_.credentials.source) +
        ") and the bucket's permissions");
  }
  return Status::IOError(what + " failed: " + detail);
}

}  // namespace lancedb::io
