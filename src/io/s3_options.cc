// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "io/s3_options.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

namespace lancedb::io {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// Every accepted key and the option it sets (several spellings, as LanceDB accepts them).
enum class Key : uint8_t {
  kAccessKeyId,
  kSecretAccessKey,
  kSessionToken,
  kRegion,
  kEndpoint,
  kAllowHttp,
  kVirtualHostedStyle,
  kSkipSignature,
  kTimeout,
  kConnectTimeout,
  kMaxRetries,
  kRetryTimeout,
  kPartSize,
  kAllowUnsafeCommit,
};

const std::vector<std::pair<std::string_view, Key>>& KeyTable() {
  static const auto* table = new std::vector<std::pair<std::string_view, Key>>{
      {"aws_access_key_id", Key::kAccessKeyId},
      {"access_key_id", Key::kAccessKeyId},
      {"aws_secret_access_key", Key::kSecretAccessKey},
      {"secret_access_key", Key::kSecretAccessKey},
      {"aws_session_token", Key::kSessionToken},
      {"session_token", Key::kSessionToken},
      {"aws_token", Key::kSessionToken},
      {"token", Key::kSessionToken},
      {"aws_region", Key::kRegion},
      {"region", Key::kRegion},
      {"aws_endpoint", Key::kEndpoint},
      {"aws_endpoint_url", Key::kEndpoint},
      {"endpoint", Key::kEndpoint},
      {"endpoint_url", Key::kEndpoint},
      {"allow_http", Key::kAllowHttp},
      {"aws_virtual_hosted_style_request", Key::kVirtualHostedStyle},
      {"virtual_hosted_style_request", Key::kVirtualHostedStyle},
      {"aws_skip_signature", Key::kSkipSignature},
      {"skip_signature", Key::kSkipSignature},
      {"timeout", Key::kTimeout},
      {"connect_timeout", Key::kConnectTimeout},
      {"client_max_retries", Key::kMaxRetries},
      {"client_retry_timeout", Key::kRetryTimeout},
      {"multipart_part_size", Key::kPartSize},
      {"allow_unsafe_commit", Key::kAllowUnsafeCommit},
  };
  return *table;
}

std::optional<Key> FindKey(const std::string& lower) {
  for (const auto& [name, key] : KeyTable()) {
    if (name == lower) return key;
  }
  return std::nullopt;
}

std::string KnownKeys() {
  std::string out;
  for (const auto& [name, key] : KeyTable()) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

Result<bool> ParseBool(const std::string& key, const std::string& value) {
  const std::string v = Lower(Trim(value));
  if (v == "true" || v == "1" || v == "yes") return true;
  if (v == "false" || v == "0" || v == "no") return false;
  return Status::InvalidArgument("Storage option '" + key + "' must be 'true' or 'false', got '" +
                                 value + "'");
}

Result<int64_t> ParseCount(const std::string& key, const std::string& value) {
  const std::string v = Trim(value);
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0 || n < 0) {
    return Status::InvalidArgument("Storage option '" + key +
                                   "' must be a non-negative integer, got '" + value + "'");
  }
  return static_cast<int64_t>(n);
}

Status ApplyEndpoint(const std::string& endpoint, S3Options* out) {
  std::string e = Trim(endpoint);
  while (!e.empty() && e.back() == '/') e.pop_back();
  if (!e.starts_with("http://") && !e.starts_with("https://")) {
    return Status::InvalidArgument("S3 endpoint '" + endpoint +
                                   "' must start with http:// or https://");
  }
  out->endpoint = std::move(e);
  return Status::OK();
}

Status ApplyOption(const std::string& key, Key which, const std::string& value, S3Options* out) {
  switch (which) {
    case Key::kAccessKeyId:
      out->credentials.access_key_id = value;
      break;
    case Key::kSecretAccessKey:
      out->credentials.secret_access_key = value;
      break;
    case Key::kSessionToken:
      out->credentials.session_token = value;
      break;
    case Key::kRegion:
      out->region = Trim(value);
      break;
    case Key::kEndpoint:
      return ApplyEndpoint(value, out);
    case Key::kAllowHttp: {
      LANCEDB_ASSIGN_OR_RETURN(out->allow_http, ParseBool(key, value));
      break;
    }
    case Key::kVirtualHostedStyle: {
      LANCEDB_ASSIGN_OR_RETURN(out->virtual_hosted_style, ParseBool(key, value));
      break;
    }
    case Key::kSkipSignature: {
      LANCEDB_ASSIGN_OR_RETURN(out->skip_signature, ParseBool(key, value));
      break;
    }
    case Key::kTimeout: {
      LANCEDB_ASSIGN_OR_RETURN(out->timeout, ParseDuration(key, value));
      break;
    }
    case Key::kConnectTimeout: {
      LANCEDB_ASSIGN_OR_RETURN(out->connect_timeout, ParseDuration(key, value));
      break;
    }
    case Key::kMaxRetries: {
      LANCEDB_ASSIGN_OR_RETURN(int64_t n, ParseCount(key, value));
      out->retry.max_retries = static_cast<int>(std::min<int64_t>(n, 1000));
      break;
    }
    case Key::kRetryTimeout: {
      LANCEDB_ASSIGN_OR_RETURN(out->retry.retry_timeout, ParseDuration(key, value));
      break;
    }
    case Key::kPartSize: {
      LANCEDB_ASSIGN_OR_RETURN(int64_t n, ParseCount(key, value));
      if (n < (5 << 20) || n > (int64_t{5} << 30)) {
        return Status::InvalidArgument("Storage option '" + key +
                                       "' must be between 5 MiB and 5 GiB (S3's part sizes), got " +
                                       value);
      }
      out->multipart_part_size = n;
      break;
    }
    case Key::kAllowUnsafeCommit: {
      LANCEDB_ASSIGN_OR_RETURN(out->allow_unsafe_commit, ParseBool(key, value));
      break;
    }
  }
  return Status::OK();
}

std::optional<std::string> NonEmpty(const EnvLookup& env, const std::string& name) {
  auto v = env(name);
  if (v && v->empty()) return std::nullopt;
  return v;
}

// Credentials when the storage options gave none: the environment, then the shared file.
Status ResolveCredentials(const EnvLookup& env, S3Options* out) {
  S3Credentials& c = out->credentials;
  if (!c.access_key_id.empty() || !c.secret_access_key.empty()) {
    if (c.access_key_id.empty() || c.secret_access_key.empty()) {
      return Status::InvalidArgument(
          "Storage options give only one of aws_access_key_id and aws_secret_access_key; "
          "both are needed");
    }
    c.source = "storage options";
    return Status::OK();
  }
  auto id = NonEmpty(env, "AWS_ACCESS_KEY_ID");
  auto secret = NonEmpty(env, "AWS_SECRET_ACCESS_KEY");
  if (id && secret) {
    c.access_key_id = *id;
    c.secret_access_key = *secret;
    if (c.session_token.empty()) c.session_token = NonEmpty(env, "AWS_SESSION_TOKEN").value_or("");
    c.source = "environment (AWS_ACCESS_KEY_ID)";
    return Status::OK();
  }
  std::string file;
  if (auto f = NonEmpty(env, "AWS_SHARED_CREDENTIALS_FILE")) {
    file = *f;
  } else if (auto home = NonEmpty(env, "HOME")) {
    file = *home + "/.aws/credentials";
  }
  const std::string profile = NonEmpty(env, "AWS_PROFILE").value_or("default");
  if (!file.empty()) {
    std::ifstream in(file);
    if (in) {
      std::stringstream text;
      text << in.rdbuf();
      auto parsed = ParseSharedCredentials(text.str(), profile);
      if (parsed.ok()) {
        std::string token = c.session_token;
        c = *parsed;
        if (c.session_token.empty()) c.session_token = token;
        c.source = file + " [" + profile + "]";
        return Status::OK();
      }
    }
  }
  if (out->skip_signature) return Status::OK();
  return Status::InvalidArgument(
      "No AWS credentials found for s3://: set storage options aws_access_key_id and "
      "aws_secret_access_key, or the environment variables AWS_ACCESS_KEY_ID and "
      "AWS_SECRET_ACCESS_KEY, or profile '" +
      profile + "' in " + (file.empty() ? std::string("~/.aws/credentials") : file) +
      " (or aws_skip_signature=true for a public bucket)");
}

}  // namespace

EnvLookup ProcessEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

std::string S3Options::EffectiveEndpoint() const {
  if (!endpoint.empty()) return endpoint;
  return "https://s3." + region + ".amazonaws.com";
}

bool IsS3OptionKey(const std::string& key) { return FindKey(key).has_value(); }

Result<std::chrono::milliseconds> ParseDuration(const std::string& key, const std::string& value) {
  const std::string v = Lower(Trim(value));
  size_t i = 0;
  while (i < v.size() && (std::isdigit(static_cast<unsigned char>(v[i])) || v[i] == '.')) ++i;
  const std::string number = v.substr(0, i);
  const std::string unit = Trim(std::string_view(v).substr(i));
  char* end = nullptr;
  const double n = number.empty() ? -1 : std::strtod(number.c_str(), &end);
  double scale = -1;
  if (unit.empty() || unit == "s" || unit == "sec" || unit == "secs" || unit == "second" ||
      unit == "seconds") {
    scale = 1000;
  } else if (unit == "ms" || unit == "msec" || unit == "millis" || unit == "milliseconds") {
    scale = 1;
  } else if (unit == "m" || unit == "min" || unit == "mins" || unit == "minute" ||
             unit == "minutes") {
    scale = 60000;
  } else if (unit == "h" || unit == "hour" || unit == "hours") {
    scale = 3600000;
  }
  if (number.empty() || end == nullptr || *end != '\0' || !std::isfinite(n) || n < 0 || scale < 0) {
    return Status::InvalidArgument("Storage option '" + key +
                                   "' must be a duration such as '30s' or '500ms', got '" + value +
                                   "'");
  }
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(n * scale)));
}

Result<S3Credentials> ParseSharedCredentials(const std::string& text, const std::string& profile) {
  std::istringstream in(text);
  std::string line;
  bool in_profile = false;
  bool found = false;
  S3Credentials c;
  while (std::getline(in, line)) {
    std::string t = Trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[' && t.back() == ']') {
      std::string name = Trim(std::string_view(t).substr(1, t.size() - 2));
      if (name.starts_with("profile ")) name = Trim(std::string_view(name).substr(8));
      in_profile = name == profile;
      found = found || in_profile;
      continue;
    }
    if (!in_profile) continue;
    const size_t eq = t.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = Lower(Trim(std::string_view(t).substr(0, eq)));
    const std::string v = Trim(std::string_view(t).substr(eq + 1));
    if (k == "aws_access_key_id") c.access_key_id = v;
    if (k == "aws_secret_access_key") c.secret_access_key = v;
    if (k == "aws_session_token") c.session_token = v;
  }
  if (!found) return Status::NotFound("No profile '" + profile + "' in the credentials file");
  if (c.access_key_id.empty() || c.secret_access_key.empty()) {
    return Status::NotFound("Profile '" + profile +
                            "' has no aws_access_key_id and aws_secret_access_key");
  }
  return c;
}

Result<S3Options> ParseS3Options(const std::map<std::string, std::string>& storage_options,
                                 const EnvLookup& env) {
  S3Options out;
  if (auto r = NonEmpty(env, "AWS_REGION")) {
    out.region = *r;
  } else if (auto d = NonEmpty(env, "AWS_DEFAULT_REGION")) {
    out.region = *d;
  }
  for (const char* name : {"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT"}) {
    if (auto e = NonEmpty(env, name)) {
      Status st = ApplyEndpoint(*e, &out);
      if (!st.ok()) return st.WithContext(std::string("Environment variable ") + name);
      break;
    }
  }
  if (auto h = NonEmpty(env, "AWS_ALLOW_HTTP")) {
    LANCEDB_ASSIGN_OR_RETURN(out.allow_http, ParseBool("AWS_ALLOW_HTTP", *h));
  }
  for (const auto& [raw_key, value] : storage_options) {
    const std::string key = Lower(raw_key);
    if (key.starts_with("new_table_")) continue;
    auto which = FindKey(key);
    if (!which) {
      return Status::InvalidArgument("Unknown storage option '" + raw_key +
                                     "' for s3:// storage; the known options are: " + KnownKeys() +
                                     " (and the new_table_* options)");
    }
    LANCEDB_RETURN_NOT_OK(ApplyOption(raw_key, *which, value, &out));
  }
  if (out.region.empty()) return Status::InvalidArgument("Storage option 'region' is empty");
  if (out.endpoint.starts_with("http://") && !out.allow_http) {
    return Status::InvalidArgument("S3 endpoint '" + out.endpoint +
                                   "' uses plain HTTP: set storage option allow_http=true to "
                                   "allow it");
  }
  if (out.timeout.count() == 0 || out.connect_timeout.count() == 0) {
    return Status::InvalidArgument("Storage options timeout and connect_timeout must be positive");
  }
  LANCEDB_RETURN_NOT_OK(ResolveCredentials(env, &out));
  return out;
}

}  // namespace lancedb::io
