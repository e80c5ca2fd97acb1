// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Deletion file reading and writing (lance-format.md §3).

#include "table/deletion.h"

#include <roaring/roaring.h>

#include <algorithm>
#include <memory>
#include <random>

#include "array/builder.h"
#include "array/ipc.h"
#include "common/random.h"

namespace lancedb::table {

namespace {

struct RoaringFree {
  void operator()(roaring_bitmap_t* r) const { roaring_bitmap_free(r); }
};
using RoaringPtr = std::unique_ptr<roaring_bitmap_t, RoaringFree>;

void SortUnique(std::vector<uint32_t>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

}  // namespace

Result<std::string> ResolveBaseRoot(const pb::Manifest& manifest, const std::string& root,
                                    std::optional<uint32_t> base_id, bool* is_dataset_root) {
  *is_dataset_root = true;
  if (!base_id) return root;
  for (const auto& base : manifest.base_paths()) {
    if (base.id() == *base_id) {
      *is_dataset_root = base.is_dataset_root();
      std::string path = base.path();
      if (path.starts_with("file://")) path = path.substr(7);
      return path;
    }
  }
  return Status::NotFound("Base path id " + std::to_string(*base_id) +
                          " is not declared in the manifest");
}

std::string DeletionFileName(uint64_t fragment_id, const pb::DeletionFile& file) {
  return std::to_string(fragment_id) + "-" + std::to_string(file.read_version()) + "-" +
         std::to_string(file.id()) +
         (file.file_type() == pb::DeletionFile::BITMAP ? ".bin" : ".arrow");
}

Result<std::vector<uint32_t>> DecodeArrowDeletions(const BufferPtr& bytes) {
  auto read = array::ipc::ReadFile(bytes);
  if (!read.ok()) return Status::Corruption("Deletion file: " + read.status().message());
  const auto& schema = read->schema;
  if (schema == nullptr || schema->num_fields() != 1) {
    return Status::Corruption("Deletion file must have exactly one column");
  }
  auto type = schema->field(0)->type()->id();
  if (type != array::TypeId::kUInt32 && type != array::TypeId::kInt32) {
    return Status::Corruption("Deletion file column must be uint32, found " +
                              schema->field(0)->type()->ToString());
  }
  std::vector<uint32_t> offsets;
  for (const auto& batch : read->batches) {
    const auto& col = batch->column(0);
    const uint32_t* values = col->GetValues<uint32_t>(1);
    if (values == nullptr && col->length > 0) {
      return Status::Corruption("Deletion file column has no values buffer");
    }
    offsets.insert(offsets.end(), values, values + col->length);
  }
  SortUnique(&offsets);
  return offsets;
}

Result<std::vector<uint32_t>> DecodeBitmapDeletions(const Buffer& bytes) {
  RoaringPtr bitmap(roaring_bitmap_portable_deserialize_safe(
      reinterpret_cast<const char*>(bytes.data()), static_cast<size_t>(bytes.size())));
  if (bitmap == nullptr) return Status::Corruption("Deletion bitmap cannot be decoded");
  std::vector<uint32_t> offsets(roaring_bitmap_get_cardinality(bitmap.get()));
  roaring_bitmap_to_uint32_array(bitmap.get(), offsets.data());
  return offsets;
}

Result<BufferPtr> EncodeArrowDeletions(const std::vector<uint32_t>& offsets) {
  auto schema = array::schema({array::field("row_id", array::uint32(), /*nullable=*/false)});
  auto column = array::MakePrimitive<uint32_t>(array::uint32(), offsets);
  LANCEDB_ASSIGN_OR_RETURN(auto batch, array::RecordBatch::Make(schema, {column}));
  return array::ipc::WriteFile(schema, {batch});
}

std::string EncodeBitmapDeletions(const std::vector<uint32_t>& offsets) {
  RoaringPtr bitmap(roaring_bitmap_of_ptr(offsets.size(), offsets.data()));
  roaring_bitmap_run_optimize(bitmap.get());
  std::string out(roaring_bitmap_portable_size_in_bytes(bitmap.get()), '\0');
  roaring_bitmap_portable_serialize(bitmap.get(), out.data());
  return out;
}

Result<std::vector<uint32_t>> ReadDeletions(io::FileSystem& fs, const std::string& root,
                                            const pb::Manifest& manifest,
                                            const pb::DataFragment& fragment) {
  if (!fragment.has_deletion_file()) return std::vector<uint32_t>{};
  const auto& file = fragment.deletion_file();
  bool dataset_root = true;
  LANCEDB_ASSIGN_OR_RETURN(
      std::string base,
      ResolveBaseRoot(manifest, root,
                      file.has_base_id() ? std::optional<uint32_t>(file.base_id()) : std::nullopt,
                      &dataset_root));
  std::string path =
      io::JoinPath(io::JoinPath(base, "_deletions"), DeletionFileName(fragment.id(), file));
  LANCEDB_ASSIGN_OR_RETURN(auto bytes, fs.ReadFile(path));
  auto offsets = file.file_type() == pb::DeletionFile::BITMAP ? DecodeBitmapDeletions(*bytes)
                                                              : DecodeArrowDeletions(bytes);
  if (!offsets.ok()) return offsets.status().WithContext(path);
  return offsets;
}

Result<pb::DeletionFile> WriteDeletions(io::FileSystem& fs, const std::string& root,
                                        uint64_t fragment_id, uint64_t read_version,
                                        const std::vector<uint32_t>& offsets) {
  pb::DeletionFile file;
  file.set_read_version(read_version);
  file.set_id(RandomU64());
  file.set_num_deleted_rows(offsets.size());
  std::string path;
  if (offsets.size() <= kMaxArrowDeletionRows) {
    file.set_file_type(pb::DeletionFile::ARROW_ARRAY);
    LANCEDB_ASSIGN_OR_RETURN(auto bytes, EncodeArrowDeletions(offsets));
    path = io::JoinPath(io::JoinPath(root, "_deletions"), DeletionFileName(fragment_id, file));
    LANCEDB_RETURN_NOT_OK(fs.WriteFile(path, bytes->span()));
  } else {
    file.set_file_type(pb::DeletionFile::BITMAP);
    path = io::JoinPath(io::JoinPath(root, "_deletions"), DeletionFileName(fragment_id, file));
    LANCEDB_RETURN_NOT_OK(fs.WriteFile(path, std::string_view(EncodeBitmapDeletions(offsets))));
  }
  return file;
}

std::vector<uint32_t> UnionOffsets(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<uint32_t> out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace lancedb::table
