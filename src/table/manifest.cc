// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Manifest container parsing and serialization (lance-format.md §1.2) and feature flags (§1.3).

#include "table/manifest.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>

#include "common/int_util.h"

namespace lancedb::table {

namespace {

using int_util::LoadU32;
using int_util::LoadU64;

constexpr char kMagic[4] = {'L', 'A', 'N', 'C'};
constexpr int64_t kFooterSize = 16;

void AppendU32(std::string* out, uint32_t v) { out->append(reinterpret_cast<const char*>(&v), 4); }

void AppendU64(std::string* out, uint64_t v) { out->append(reinterpret_cast<const char*>(&v), 8); }

void AppendU16(std::string* out, uint16_t v) { out->append(reinterpret_cast<const char*>(&v), 2); }

/// Parse a [u32 len][message] section at `offset`, which must end before `limit`.
template <typename Message>
Status ParseSection(const Buffer& file, uint64_t offset, uint64_t limit, std::string_view what,
                    std::string_view name, Message* out) {
  if (offset > limit || limit - offset < 4) {
    return Status::Corruption("Manifest '" + std::string(name) + "': " + std::string(what) +
                              " offset " + std::to_string(offset) + " is out of bounds");
  }
  uint32_t len = LoadU32(file.data() + offset);
  if (len > limit - offset - 4) {
    return Status::Corruption("Manifest '" + std::string(name) + "': " + std::string(what) +
                              " length " + std::to_string(len) + " runs past the end");
  }
  if (!out->ParseFromArray(file.data() + offset + 4, static_cast<int>(len))) {
    return Status::Corruption("Manifest '" + std::string(name) + "': cannot decode the " +
                              std::string(what));
  }
  return Status::OK();
}

std::string FlagNames(uint64_t flags) {
  std::string s;
  for (int bit = 0; bit < 64; ++bit) {
    if (flags & (uint64_t{1} << bit)) {
      if (!s.empty()) s += ", ";
      s += std::to_string(uint64_t{1} << bit);
    }
  }
  return s;
}

}  // namespace

std::string ManifestFileName(uint64_t version, ManifestNaming naming) {
  if (naming == ManifestNaming::kV1) return std::to_string(version) + ".manifest";
  std::string digits = std::to_string(UINT64_MAX - version);
  return std::string(20 - digits.size(), '0') + digits + ".manifest";
}

std::optional<std::pair<uint64_t, ManifestNaming>> ParseManifestFileName(std::string_view name) {
  constexpr std::string_view kSuffix = ".manifest";
  if (name.size() <= kSuffix.size() || !name.ends_with(kSuffix)) return std::nullopt;
  std::string_view stem = name.substr(0, name.size() - kSuffix.size());
  if (stem.size() > 20) return std::nullopt;
  uint64_t value = 0;
  for (char c : stem) {
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (stem.size() == 20) return std::make_pair(UINT64_MAX - value, ManifestNaming::kV2);
  return std::make_pair(value, ManifestNaming::kV1);
}

ManifestNaming VersionListing::NamingOf(uint64_t version) const {
  return std::binary_search(v1_versions.begin(), v1_versions.end(), version) ? ManifestNaming::kV1
                                                                             : ManifestNaming::kV2;
}

Result<VersionListing> ListVersionFiles(io::FileSystem& fs, const std::string& root) {
  LANCEDB_ASSIGN_OR_RETURN(auto entries, fs.ListDir(io::JoinPath(root, "_versions")));
  VersionListing listing;
  std::vector<uint64_t> v2_versions;
  for (const auto& entry : entries) {
    if (entry.is_dir) continue;
    auto parsed = ParseManifestFileName(entry.name);
    if (!parsed) continue;
    listing.versions.push_back(parsed->first);
    (parsed->second == ManifestNaming::kV1 ? listing.v1_versions : v2_versions)
        .push_back(parsed->first);
  }
  auto sort_unique = [](std::vector<uint64_t>* v) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  };
  sort_unique(&listing.versions);
  sort_unique(&listing.v1_versions);
  sort_unique(&v2_versions);
  if (!v2_versions.empty()) {
    // A version under both names is mid-migration: its V2 copy is complete (it was published
    // atomically), so read that one.
    std::vector<uint64_t> only_v1;
    std::set_difference(listing.v1_versions.begin(), listing.v1_versions.end(), v2_versions.begin(),
                        v2_versions.end(), std::back_inserter(only_v1));
    listing.v1_versions = std::move(only_v1);
  }
  if (!listing.versions.empty()) listing.naming = listing.NamingOf(listing.versions.back());
  return listing;
}

Result<std::shared_ptr<const Manifest>> Manifest::Parse(const Buffer& file, std::string_view name) {
  const std::string who = "Manifest '" + std::string(name) + "'";
  const uint64_t size = static_cast<uint64_t>(file.size());
  if (size < kFooterSize + 4) {
    return Status::Corruption(who + " is truncated (" + std::to_string(size) + " bytes)");
  }
  const uint8_t* footer = file.data() + size - kFooterSize;
  if (std::memcmp(footer + 12, kMagic, 4) != 0) {
    return Status::Corruption(who + " does not end with the LANC magic");
  }
  const uint64_t limit = size - kFooterSize;
  const uint64_t pos = LoadU64(footer);
  if (pos > limit || limit - pos < 4) {
    return Status::Corruption(who + ": manifest position " + std::to_string(pos) +
                              " is out of bounds");
  }
  if (LoadU32(file.data() + pos) != limit - pos - 4) {
    return Status::Corruption(who + ": manifest length does not match the file size");
  }
  pb::Manifest proto;
  if (!proto.ParseFromArray(file.data() + pos + 4, static_cast<int>(limit - pos - 4))) {
    return Status::Corruption(who + ": cannot decode the manifest");
  }
  pb::IndexSection indices;
  if (proto.has_index_section()) {
    LANCEDB_RETURN_NOT_OK(
        ParseSection(file, proto.index_section(), pos, "index section", name, &indices));
  }
  std::optional<pb::Transaction> txn;
  if (proto.has_transaction_section()) {
    pb::Transaction t;
    LANCEDB_RETURN_NOT_OK(
        ParseSection(file, proto.transaction_section(), pos, "transaction", name, &t));
    txn = std::move(t);
  }
  uint64_t unknown = proto.reader_feature_flags() & ~kKnownReaderFlags;
  if (unknown != 0) {
    return Status::NotSupported(who + " (version " + std::to_string(proto.version()) +
                                ") requires reader features this library does not support: "
                                "flags " +
                                FlagNames(unknown));
  }
  std::vector<const lance::file::Field*> fields;
  for (const auto& f : proto.fields()) fields.push_back(&f);
  auto schema = format::LanceSchema::FromProto(fields, MetadataFromProto(proto.schema_metadata()));
  if (!schema.ok()) return schema.status().WithContext(who);
  return std::make_shared<const Manifest>(std::move(proto), std::move(indices), std::move(txn),
                                          schema.MoveValueUnsafe());
}

Result<std::shared_ptr<const Manifest>> Manifest::Make(pb::Manifest proto,
                                                       pb::IndexSection index_section) {
  std::vector<const lance::file::Field*> fields;
  for (const auto& f : proto.fields()) fields.push_back(&f);
  LANCEDB_ASSIGN_OR_RETURN(auto schema, format::LanceSchema::FromProto(
                                            fields, MetadataFromProto(proto.schema_metadata())));
  return std::make_shared<const Manifest>(std::move(proto), std::move(index_section), std::nullopt,
                                          std::move(schema));
}

std::string Manifest::Serialize(const pb::Transaction* transaction) const {
  std::string out;
  pb::Manifest proto = proto_;
  proto.clear_index_section();
  proto.clear_transaction_section();
  if (index_section_.indices_size() > 0) {
    proto.set_index_section(out.size());
    std::string bytes = index_section_.SerializeAsString();
    AppendU32(&out, static_cast<uint32_t>(bytes.size()));
    out += bytes;
  }
  if (transaction != nullptr) {
    proto.set_transaction_section(out.size());
    std::string bytes = transaction->SerializeAsString();
    AppendU32(&out, static_cast<uint32_t>(bytes.size()));
    out += bytes;
  }
  const uint64_t manifest_pos = out.size();
  std::string bytes = proto.SerializeAsString();
  AppendU32(&out, static_cast<uint32_t>(bytes.size()));
  out += bytes;
  AppendU64(&out, manifest_pos);
  AppendU16(&out, 0);
  AppendU16(&out, 2);
  out.append(kMagic, 4);
  return out;
}

int64_t Manifest::timestamp_micros() const {
  return proto_.timestamp().seconds() * 1000000 + proto_.timestamp().nanos() / 1000;
}

std::string Manifest::data_format_version() const {
  if (!proto_.data_format().version().empty()) return proto_.data_format().version();
  for (const auto& frag : proto_.fragments()) {
    for (const auto& file : frag.files()) {
      if (file.file_major_version() == 0) return "0.1";
      return std::to_string(file.file_major_version()) + "." +
             std::to_string(file.file_minor_version());
    }
  }
  return "2.2";
}

int64_t Manifest::num_rows_from_metadata() const {
  int64_t rows = 0;
  for (const auto& frag : proto_.fragments()) {
    rows += static_cast<int64_t>(frag.physical_rows());
    if (frag.has_deletion_file())
      rows -= static_cast<int64_t>(frag.deletion_file().num_deleted_rows());
  }
  return rows;
}

Status Manifest::CheckReaderFlags() const {
  uint64_t unknown = proto_.reader_feature_flags() & ~kKnownReaderFlags;
  if (unknown == 0) return Status::OK();
  return Status::NotSupported("Dataset version " + std::to_string(version()) +
                              " requires reader features this library does not support: flags " +
                              FlagNames(unknown));
}

Status Manifest::CheckWriterFlags(uint64_t also_known) const {
  uint64_t unknown = proto_.writer_feature_flags() & ~(kKnownWriterFlags | also_known);
  if (unknown == 0) return Status::OK();
  return Status::NotSupported("Dataset version " + std::to_string(version()) +
                              " requires writer features this library does not support: flags " +
                              FlagNames(unknown));
}

void ApplyFeatureFlags(pb::Manifest* manifest) {
  uint64_t reader = 0;
  uint64_t writer = 0;
  bool has_deletions = std::any_of(manifest->fragments().begin(), manifest->fragments().end(),
                                   [](const pb::DataFragment& f) { return f.has_deletion_file(); });
  if (has_deletions) {
    reader |= kFlagDeletionFiles;
    writer |= kFlagDeletionFiles;
  }
  if (manifest->reader_feature_flags() & kFlagStableRowIds) {
    reader |= kFlagStableRowIds;
    writer |= kFlagStableRowIds;
  }
  if (!manifest->config().empty()) writer |= kFlagTableConfig;
  if (manifest->base_paths_size() > 0) {
    reader |= kFlagBasePaths;
    writer |= kFlagBasePaths;
  }
  manifest->set_reader_feature_flags(reader);
  manifest->set_writer_feature_flags(writer);
}

void StampWriter(pb::Manifest* manifest) {
  auto* wv = manifest->mutable_writer_version();
  wv->Clear();
  wv->set_library(std::string(kWriterLibrary));
  wv->set_version(std::string(kWriterVersion));
  auto now = std::chrono::system_clock::now().time_since_epoch();
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
  manifest->mutable_timestamp()->set_seconds(nanos / 1000000000);
  manifest->mutable_timestamp()->set_nanos(static_cast<int32_t>(nanos % 1000000000));
}

Result<ManifestPtr> ReadManifest(io::FileSystem& fs, const std::string& root, uint64_t version,
                                 ManifestNaming naming) {
  std::string name = ManifestFileName(version, naming);
  auto bytes = fs.ReadFile(io::JoinPath(io::JoinPath(root, "_versions"), name));
  if (!bytes.ok()) {
    if (bytes.status().IsNotFound()) {
      return Status::NotFound("Version " + std::to_string(version) + " of dataset '" + root +
                              "' not found");
    }
    return bytes.status();
  }
  auto manifest = Manifest::Parse(**bytes, name);
  if (!manifest.ok()) return manifest.status();
  if ((*manifest)->version() != version) {
    return Status::Corruption("Manifest '" + name + "' holds version " +
                              std::to_string((*manifest)->version()) + ", expected " +
                              std::to_string(version));
  }
  return manifest;
}

Result<pb::Transaction> ReadTransaction(io::FileSystem& fs, const std::string& root,
                                        const Manifest& manifest) {
  if (manifest.transaction() != nullptr) return *manifest.transaction();
  const std::string& name = manifest.proto().transaction_file();
  if (name.empty()) {
    return Status::NotFound("Version " + std::to_string(manifest.version()) +
                            " has no recorded transaction");
  }
  LANCEDB_ASSIGN_OR_RETURN(auto bytes,
                           fs.ReadFile(io::JoinPath(io::JoinPath(root, "_transactions"), name)));
  pb::Transaction txn;
  if (!txn.ParseFromArray(bytes->data(), static_cast<int>(bytes->size()))) {
    return Status::Corruption("Transaction file '" + name + "' cannot be decoded");
  }
  return txn;
}

Result<std::pair<uint64_t, ManifestNaming>> FindLatestVersion(io::FileSystem& fs,
                                                              const std::string& root) {
  const std::string dir = io::JoinPath(root, "_versions");
  auto hint = fs.ReadFile(io::JoinPath(dir, "latest_version_hint.json"));
  if (hint.ok()) {
    auto j = nlohmann::json::parse((*hint)->view(), nullptr, /*allow_exceptions=*/false);
    const bool parsed = j.is_object() && j.contains("version") && j["version"].is_number_unsigned();
    const uint64_t version = parsed ? j["version"].get<uint64_t>() : 0;
    for (ManifestNaming naming : {ManifestNaming::kV2, ManifestNaming::kV1}) {
      if (!parsed || version == 0) break;
      auto exists = fs.Exists(io::JoinPath(dir, ManifestFileName(version, naming)));
      if (!exists.ok() || !*exists) continue;
      // The hint may lag (it is written after the commit, best effort): probe forward.
      for (uint64_t v = version;; ++v) {
        LANCEDB_ASSIGN_OR_RETURN(bool next,
                                 fs.Exists(io::JoinPath(dir, ManifestFileName(v + 1, naming))));
        if (!next) return std::make_pair(v, naming);
      }
    }
  }
  LANCEDB_ASSIGN_OR_RETURN(auto listing, ListVersionFiles(fs, root));
  if (listing.versions.empty()) {
    return Status::NotFound("Dataset '" + root + "' not found (no manifests under _versions/)");
  }
  return std::make_pair(listing.versions.back(), listing.naming);
}

Result<std::optional<pb::Transaction>> ReadVersionTransaction(io::FileSystem& fs,
                                                              const std::string& root,
                                                              uint64_t version,
                                                              ManifestNaming naming) {
  const std::string name = ManifestFileName(version, naming);
  auto read = fs.ReadFile(io::JoinPath(io::JoinPath(root, "_versions"), name));
  if (!read.ok()) {
    if (read.status().IsNotFound()) {
      return Status::NotFound("Version " + std::to_string(version) + " of dataset '" + root +
                              "' not found");
    }
    return read.status();
  }
  const Buffer& file = **read;
  const uint64_t size = static_cast<uint64_t>(file.size());
  if (size < kFooterSize + 4 || std::memcmp(file.data() + size - 4, kMagic, 4) != 0) {
    return Status::Corruption("Manifest '" + name + "' is truncated or lacks the LANC magic");
  }
  const uint64_t limit = size - kFooterSize;
  const uint64_t pos = LoadU64(file.data() + size - kFooterSize);
  if (pos > limit || limit - pos < 4) {
    return Status::Corruption("Manifest '" + name + "': manifest position is out of bounds");
  }
  // Walk the manifest's fields (lance-format.md §1.2), skipping all but the two we need.
  google::protobuf::io::CodedInputStream in(file.data() + pos + 4,
                                            static_cast<int>(limit - pos - 4));
  std::optional<uint64_t> section;
  std::string txn_file;
  uint64_t found_version = 0;
  for (uint32_t tag = in.ReadTag(); tag != 0; tag = in.ReadTag()) {
    using WFL = google::protobuf::internal::WireFormatLite;
    const int field = WFL::GetTagFieldNumber(tag);
    if (field == pb::Manifest::kTransactionSectionFieldNumber &&
        WFL::GetTagWireType(tag) == WFL::WIRETYPE_VARINT) {
      uint64_t v = 0;
      if (!in.ReadVarint64(&v)) break;
      section = v;
    } else if (field == pb::Manifest::kVersionFieldNumber &&
               WFL::GetTagWireType(tag) == WFL::WIRETYPE_VARINT) {
      if (!in.ReadVarint64(&found_version)) break;
    } else if (field == pb::Manifest::kTransactionFileFieldNumber &&
               WFL::GetTagWireType(tag) == WFL::WIRETYPE_LENGTH_DELIMITED) {
      if (!WFL::ReadString(&in, &txn_file)) break;
    } else if (!WFL::SkipField(&in, tag)) {
      return Status::Corruption("Manifest '" + name + "': cannot decode the manifest");
    }
  }
  if (found_version != version) {
    return Status::Corruption("Manifest '" + name + "' holds version " +
                              std::to_string(found_version) + ", expected " +
                              std::to_string(version));
  }
  pb::Transaction txn;
  if (section) {
    LANCEDB_RETURN_NOT_OK(ParseSection(file, *section, pos, "transaction", name, &txn));
    return std::optional<pb::Transaction>(std::move(txn));
  }
  if (txn_file.empty()) return std::optional<pb::Transaction>();
  LANCEDB_ASSIGN_OR_RETURN(
      auto bytes, fs.ReadFile(io::JoinPath(io::JoinPath(root, "_transactions"), txn_file)));
  if (!txn.ParseFromArray(bytes->data(), static_cast<int>(bytes->size()))) {
    return Status::Corruption("Transaction file '" + txn_file + "' cannot be decoded");
  }
  return std::optional<pb::Transaction>(std::move(txn));
}

void WriteVersionHint(io::FileSystem& fs, const std::string& root, uint64_t version) {
  std::string json = nlohmann::json{{"version", version}}.dump();
  (void)fs.WriteFile(io::JoinPath(io::JoinPath(root, "_versions"), "latest_version_hint.json"),
                     std::string_view(json));
}

bool SameDataFiles(const pb::DataFragment& a, const pb::DataFragment& b) {
  if (a.files_size() != b.files_size()) return false;
  for (int i = 0; i < a.files_size(); ++i) {
    const pb::DataFile& x = a.files(i);
    const pb::DataFile& y = b.files(i);
    if (x.path() != y.path() || x.has_base_id() != y.has_base_id() ||
        (x.has_base_id() && x.base_id() != y.base_id()) ||
        !std::equal(x.fields().begin(), x.fields().end(), y.fields().begin(), y.fields().end())) {
      return false;
    }
  }
  return true;
}

bool SameDeletionFile(const pb::DataFragment& a, const pb::DataFragment& b) {
  if (a.has_deletion_file() != b.has_deletion_file()) return false;
  if (!a.has_deletion_file()) return true;
  const pb::DeletionFile& x = a.deletion_file();
  const pb::DeletionFile& y = b.deletion_file();
  return x.file_type() == y.file_type() && x.read_version() == y.read_version() &&
         x.id() == y.id() && x.has_base_id() == y.has_base_id() && x.base_id() == y.base_id();
}

array::KeyValueMetadata MetadataFromProto(
    const google::protobuf::Map<std::string, std::string>& m) {
  array::KeyValueMetadata kv(m.begin(), m.end());
  std::sort(kv.begin(), kv.end());
  return kv;
}

void MetadataToProto(const array::KeyValueMetadata& kv,
                     google::protobuf::Map<std::string, std::string>* m) {
  m->clear();
  for (const auto& [k, v] : kv) (*m)[k] = v;
}

void SetManifestSchema(const format::LanceSchema& schema, pb::Manifest* manifest) {
  std::vector<lance::file::Field> fields;
  schema.ToProto(&fields);
  manifest->clear_fields();
  for (auto& f : fields) *manifest->add_fields() = std::move(f);
  MetadataToProto(schema.metadata(), manifest->mutable_schema_metadata());
}

}  // namespace lancedb::table
