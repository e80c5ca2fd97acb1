// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Blob descriptors and payloads; the layouts are described in blob.h and docs/format/blobs.md.

#include "format/blob.h"

#include <cstring>
#include <map>
#include <optional>

#include "array/builder.h"

namespace lancedb::format {

namespace pb = lance::encodings21;

namespace {

constexpr size_t kV2FixedBytes = 1 + 8 + 8 + 4;  // kind, position, size, blob_id

bool HasTrue(const array::KeyValueMetadata& metadata, std::string_view key) {
  auto value = array::GetMetadata(metadata, key);
  return value && *value == "true";
}

uint64_t LoadU64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

uint32_t LoadU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

void StoreLE(std::string* out, uint64_t value, int width) {
  for (int i = 0; i < width; ++i) out->push_back(static_cast<char>(value >> (8 * i)));
}

bool IsFlat(const pb::CompressiveEncoding& e, uint64_t bits) {
  return e.has_flat() && !e.flat().has_data() && e.flat().bits_per_value() == bits;
}

/// The packed struct of v2 descriptors, as Lance writes it: fixed members of 8, 64, 64 and 32
/// bits and a string with a 32-bit length.
Status CheckV2PackedStruct(const pb::VariablePackedStruct& packed) {
  static constexpr uint64_t kBits[] = {8, 64, 64, 32};
  bool ok = packed.fields_size() == 5;
  for (int i = 0; ok && i < 4; ++i) {
    const auto& f = packed.fields(i);
    ok = f.bits_per_value() == kBits[i] && IsFlat(f.value(), kBits[i]);
  }
  if (ok) {
    const auto& uri = packed.fields(4);
    ok = uri.bits_per_length() == 32 && uri.value().has_variable();
  }
  return ok ? Status::OK()
            : Status::NotSupported("Blob v2 descriptor page with an unknown packed layout");
}

/// Reads ranges of one file, opened on first use.
class RangeReader {
 public:
  RangeReader(io::FileSystemPtr fs, std::string path)
      : fs_(std::move(fs)), path_(std::move(path)) {}
  Result<BufferPtr> Read(uint64_t position, uint64_t size) {
    if (file_ == nullptr) {
      LANCEDB_ASSIGN_OR_RETURN(file_, fs_->OpenForRead(path_));
      LANCEDB_ASSIGN_OR_RETURN(file_size_, fs_->GetSize(path_));
    }
    if (position > static_cast<uint64_t>(file_size_) ||
        size > static_cast<uint64_t>(file_size_) - position) {
      return Status::Corruption("Blob at [" + std::to_string(position) + ", " +
                                std::to_string(position + size) + ") is outside '" + path_ + "' (" +
                                std::to_string(file_size_) + " bytes)");
    }
    return file_->ReadRange(static_cast<int64_t>(position), static_cast<int64_t>(size));
  }

 private:
  io::FileSystemPtr fs_;
  std::string path_;
  std::unique_ptr<io::RandomAccessFile> file_;
  int64_t file_size_ = 0;
};

Result<array::ArrayPtr> MaterializeLegacy(const io::FileSystemPtr& fs, const std::string& data_file,
                                          const array::ArrayData& d) {
  const auto& positions = *d.children[0];
  const auto& sizes = *d.children[1];
  RangeReader reader(fs, data_file);
  std::vector<std::optional<std::string>> values;
  for (int64_t i = 0; i < d.length; ++i) {
    if (d.IsNull(i)) {
      values.emplace_back();
      continue;
    }
    const uint64_t size = sizes.GetValues<uint64_t>(1)[i];
    if (size == 0) {
      values.emplace_back(std::string());
      continue;
    }
    LANCEDB_ASSIGN_OR_RETURN(auto bytes, reader.Read(positions.GetValues<uint64_t>(1)[i], size));
    values.emplace_back(std::string(bytes->view()));
  }
  return array::MakeBinaryLike(array::large_binary(), values);
}

Result<array::ArrayPtr> MaterializeV2(const io::FileSystemPtr& fs, const std::string& data_file,
                                      const array::ArrayData& d, const ExternalBlobBases* bases) {
  static const ExternalBlobBases kNoBases;
  if (bases == nullptr) bases = &kNoBases;
  const uint8_t* kinds = d.children[0]->GetValues<uint8_t>(1);
  const uint64_t* positions = d.children[1]->GetValues<uint64_t>(1);
  const uint64_t* sizes = d.children[2]->GetValues<uint64_t>(1);
  const uint32_t* ids = d.children[3]->GetValues<uint32_t>(1);
  const auto& uris = *d.children[4];
  RangeReader local(fs, data_file);
  std::map<uint32_t, std::unique_ptr<RangeReader>> sidecars;
  std::vector<std::optional<std::string>> data, uri;
  std::vector<uint64_t> ext_position, ext_size;
  std::vector<bool> valid, ext_valid;
  for (int64_t i = 0; i < d.length; ++i) {
    valid.push_back(!d.IsNull(i));
    data.emplace_back();
    uri.emplace_back();
    ext_position.push_back(0);
    ext_size.push_back(0);
    ext_valid.push_back(false);
    if (d.IsNull(i)) continue;
    const auto kind = static_cast<BlobKind>(kinds[i]);
    if (kind == BlobKind::kExternal) {
      LANCEDB_ASSIGN_OR_RETURN(uri.back(), bases->Resolve(ids[i], uris.GetView(i)));
      if (sizes[i] > 0) {
        ext_position.back() = positions[i];
        ext_size.back() = sizes[i];
        ext_valid.back() = true;
      }
      continue;
    }
    if (sizes[i] == 0) {
      data.back() = std::string();
      continue;
    }
    RangeReader* reader = &local;
    if (kind == BlobKind::kPacked || kind == BlobKind::kDedicated) {
      auto& slot = sidecars[ids[i]];
      if (slot == nullptr) {
        slot = std::make_unique<RangeReader>(fs, BlobSidecarPath(data_file, ids[i]));
      }
      reader = slot.get();
    } else if (kind != BlobKind::kInline) {
      return Status::NotSupported("Blob kind " + std::to_string(kinds[i]) + " in '" + data_file +
                                  "'");
    }
    LANCEDB_ASSIGN_OR_RETURN(auto bytes, reader->Read(positions[i], sizes[i]));
    data.back() = std::string(bytes->view());
  }
  std::vector<array::ArrayPtr> children = {
      array::MakeBinaryLike(array::large_binary(), data), array::MakeBinaryLike(array::utf8(), uri),
      array::MakePrimitive(array::uint64(), ext_position, ext_valid),
      array::MakePrimitive(array::uint64(), ext_size, ext_valid)};
  return array::MakeStruct(BlobV2StorageType(), std::move(children), valid);
}

}  // namespace

BlobEncoding BlobEncodingOf(const LanceField& field) {
  const auto extension = array::GetMetadata(field.metadata, array::kExtensionNameKey);
  if (extension && *extension == kBlobV2ExtensionName) return BlobEncoding::kV2;
  if (!HasTrue(field.metadata, kBlobMetadataKey)) return BlobEncoding::kNone;
  return field.logical_type == "struct" ? BlobEncoding::kV2 : BlobEncoding::kLegacy;
}

array::DataTypePtr BlobV1DescriptorType() {
  return array::struct_(
      {array::field("position", array::uint64()), array::field("size", array::uint64())});
}

array::DataTypePtr BlobV2DescriptorType() {
  return array::struct_({array::field("kind", array::uint8(), false),
                         array::field("position", array::uint64(), false),
                         array::field("size", array::uint64(), false),
                         array::field("blob_id", array::uint32(), false),
                         array::field("blob_uri", array::utf8(), false)});
}

array::DataTypePtr BlobV2StorageType() {
  return array::struct_(
      {array::field("data", array::large_binary()), array::field("uri", array::utf8()),
       array::field("position", array::uint64()), array::field("size", array::uint64())});
}

Result<array::DataTypePtr> BlobReadType(const LanceField& field, bool materialize) {
  switch (BlobEncodingOf(field)) {
    case BlobEncoding::kLegacy:
      return materialize ? array::large_binary() : BlobV1DescriptorType();
    case BlobEncoding::kV2:
      return materialize ? BlobV2StorageType() : BlobV2DescriptorType();
    case BlobEncoding::kNone:
      break;
  }
  return field.ToArrowType();
}

Result<array::SchemaPtr> BlobReadSchema(const LanceSchema& schema, bool materialize) {
  std::vector<array::FieldPtr> out;
  for (const auto& f : schema.fields()) {
    LANCEDB_ASSIGN_OR_RETURN(auto type, BlobReadType(f, materialize));
    // Descriptors are plain structs: the blob markers describe the payload type.
    const bool descriptors = !materialize && BlobEncodingOf(f) != BlobEncoding::kNone;
    out.push_back(array::field(f.name, type, f.nullable,
                               descriptors ? array::KeyValueMetadata{} : f.metadata));
  }
  return array::schema(std::move(out), schema.metadata());
}

Result<LeafPath> BlobLeafPath(const LanceField& field, BlobEncoding encoding) {
  LeafPath path;
  path.field_id = field.id;
  path.steps = {StepKind::kLeaf};
  path.blob_encoding = static_cast<uint8_t>(encoding);
  if (encoding == BlobEncoding::kLegacy) {
    path.nullable = {false};  // nulls travel inside the descriptors
    path.leaf_type = array::fixed_size_binary(16);
  } else if (encoding == BlobEncoding::kV2) {
    path.nullable = {field.nullable};
    path.leaf_type = array::binary();
  } else {
    return Status::Internal("Field '" + field.name + "' is not a blob field");
  }
  return path;
}

Status UnwrapBlobPageLayout(BlobEncoding encoding, pb::PageLayout* layout) {
  if (encoding == BlobEncoding::kLegacy) {
    if (!layout->has_blob_layout() ||
        !layout->blob_layout().inner_layout().has_mini_block_layout()) {
      return Status::NotSupported(
          "Legacy blob column page that is not a blob layout over "
          "a mini-block layout");
    }
    pb::PageLayout inner = layout->blob_layout().inner_layout();
    auto* values = inner.mutable_mini_block_layout()->mutable_value_compression();
    if (values->has_packed_struct()) {
      const auto& packed = values->packed_struct();
      if (packed.bits_per_value_size() != 2 || packed.bits_per_value(0) != 64 ||
          packed.bits_per_value(1) != 64 || !IsFlat(packed.values(), 128)) {
        return Status::NotSupported("Legacy blob descriptors with an unknown packed layout");
      }
      pb::CompressiveEncoding flat = packed.values();
      *values = std::move(flat);
    }
    *layout = std::move(inner);
    return Status::OK();
  }
  if (layout->has_constant_layout()) return Status::OK();  // an all-null page
  if (!layout->has_full_zip_layout() ||
      !layout->full_zip_layout().value_compression().has_variable_packed_struct()) {
    return Status::NotSupported("Blob v2 column page that is not a full-zip packed struct");
  }
  auto* fz = layout->mutable_full_zip_layout();
  LANCEDB_RETURN_NOT_OK(CheckV2PackedStruct(fz->value_compression().variable_packed_struct()));
  pb::CompressiveEncoding plain;
  plain.mutable_variable()->mutable_offsets()->mutable_flat()->set_bits_per_value(
      fz->bits_per_offset());
  *fz->mutable_value_compression() = std::move(plain);
  return Status::OK();
}

Result<array::ArrayPtr> BlobDescriptorsFromItems(BlobEncoding encoding, const LeafItems& items) {
  const LeafValues& v = items.values;
  const int64_t n = items.num_items();
  std::vector<bool> valid(static_cast<size_t>(n), true);
  if (encoding == BlobEncoding::kLegacy) {
    if (v.kind != ValueKind::kFixed || v.bits_per_value != 128 || v.num_values != n) {
      return Status::Corruption("Legacy blob descriptors do not have one 16-byte value per row");
    }
    std::vector<uint64_t> positions(n), sizes(n);
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t* p = v.value_bytes() + i * 16;
      positions[i] = LoadU64(p);
      sizes[i] = LoadU64(p + 8);
      // A null is smuggled into the position (its definition level << 16), with size 0.
      if (sizes[i] == 0 && positions[i] != 0) {
        valid[i] = false;
        positions[i] = 0;
      }
    }
    return array::MakeStruct(BlobV1DescriptorType(),
                             {array::MakePrimitive(array::uint64(), positions),
                              array::MakePrimitive(array::uint64(), sizes)},
                             valid);
  }
  std::vector<uint8_t> kinds(n, 0);
  std::vector<uint64_t> positions(n, 0), sizes(n, 0);
  std::vector<uint32_t> ids(n, 0);
  std::vector<std::optional<std::string>> uris(n, std::string());
  if (v.kind != ValueKind::kVariable || v.num_values != n) {
    return Status::Corruption("Blob v2 page does not have one descriptor slot per row");
  }
  for (int64_t i = 0; i < n; ++i) {
    if (items.codes[i] != 0) {  // a null row keeps an empty slot
      valid[i] = false;
      continue;
    }
    const int64_t begin = v.offsets[i];
    const int64_t end = v.offsets[i + 1];
    const uint8_t* p = v.data.data() + begin;
    const auto len = static_cast<size_t>(end - begin);
    if (len < kV2FixedBytes + 4 || len != kV2FixedBytes + 4 + LoadU32(p + kV2FixedBytes)) {
      return Status::Corruption("Blob v2 descriptor of " + std::to_string(len) +
                                " bytes does not match its layout");
    }
    kinds[i] = p[0];
    positions[i] = LoadU64(p + 1);
    sizes[i] = LoadU64(p + 9);
    ids[i] = LoadU32(p + 17);
    uris[i] =
        std::string(reinterpret_cast<const char*>(p) + kV2FixedBytes + 4, len - kV2FixedBytes - 4);
  }
  return array::MakeStruct(
      BlobV2DescriptorType(),
      {array::MakePrimitive(array::uint8(), kinds),
       array::MakePrimitive(array::uint64(), positions),
       array::MakePrimitive(array::uint64(), sizes), array::MakePrimitive(array::uint32(), ids),
       array::MakeBinaryLike(array::utf8(), uris)},
      valid);
}

Result<array::ArrayPtr> MaterializeBlobs(const io::FileSystemPtr& fs, const std::string& data_file,
                                         BlobEncoding encoding, const array::ArrayData& descriptors,
                                         const ExternalBlobBases* bases) {
  if (encoding == BlobEncoding::kLegacy) return MaterializeLegacy(fs, data_file, descriptors);
  return MaterializeV2(fs, data_file, descriptors, bases);
}

std::string BlobSidecarPath(const std::string& data_file, uint32_t blob_id) {
  std::string stem = data_file;
  if (stem.size() > 6 && stem.compare(stem.size() - 6, 6, ".lance") == 0) {
    stem.resize(stem.size() - 6);
  }
  // Lance names sidecars by the id's bits, least significant first.
  std::string name;
  for (int bit = 0; bit < 32; ++bit) name.push_back(((blob_id >> bit) & 1) ? '1' : '0');
  return stem + "/" + name + ".blob";
}

std::string PackBlobV2Descriptor(BlobKind kind, uint64_t position, uint64_t size, uint32_t blob_id,
                                 std::string_view uri) {
  std::string out;
  out.reserve(kV2FixedBytes + 4 + uri.size());
  StoreLE(&out, static_cast<uint8_t>(kind), 1);
  StoreLE(&out, position, 8);
  StoreLE(&out, size, 8);
  StoreLE(&out, blob_id, 4);
  StoreLE(&out, uri.size(), 4);
  out.append(uri);
  return out;
}

pb::CompressiveEncoding BlobV2DescriptorEncoding() {
  pb::CompressiveEncoding e;
  auto* packed = e.mutable_variable_packed_struct();
  for (uint64_t bits : {8, 64, 64, 32}) {
    auto* f = packed->add_fields();
    f->mutable_value()->mutable_flat()->set_bits_per_value(bits);
    f->set_bits_per_value(bits);
  }
  auto* uri = packed->add_fields();
  uri->mutable_value()->mutable_variable()->mutable_offsets()->mutable_flat()->set_bits_per_value(
      32);
  uri->set_bits_per_length(32);
  return e;
}

std::vector<LanceField> BlobV2FileFields(const LanceField& field) {
  LanceField top;
  top.id = field.id;
  top.parent_id = -1;
  top.name = field.name;
  top.logical_type = "struct";
  top.nullable = field.nullable;
  top.metadata = {{std::string(kBlobMetadataKey), "true"},
                  {std::string(kPackedMetadataKey), "true"}};
  std::vector<LanceField> out = {top};
  static const std::pair<const char*, const char*> kMembers[] = {{"kind", "uint8"},
                                                                 {"position", "uint64"},
                                                                 {"size", "uint64"},
                                                                 {"blob_id", "uint32"},
                                                                 {"blob_uri", "string"}};
  for (const auto& [name, type] : kMembers) {
    LanceField member;
    member.id = -1;
    member.parent_id = -1;
    member.name = name;
    member.logical_type = type;
    member.nullable = false;
    out.push_back(std::move(member));
  }
  return out;
}

}  // namespace lancedb::format
