// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The Lance v2 container (lance-format.md §2.1), written front to back:
//   page buffers (each 64-byte aligned) | global buffer 0 = FileDescriptor (aligned) |
//   [global buffer 1 = zone statistics (aligned), docs/format/statistics.md] |
//   column metadata 0..C-1 | CMO table C x (u64 pos, u64 size) | GBO table G x (u64, u64) |
//   footer: u64 column_meta_start, u64 cmo_pos, u64 gbo_pos, u32 G, u32 C, u16 major,
//           u16 minor, "LANC".

#include "format/file_writer.h"

#include <google/protobuf/any.pb.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "format/blob.h"
#include "format/container.h"
#include "format/page_encoder.h"
#include "format/page_rows.h"
#include "format/proto/encodings_v2_0.pb.h"
#include "format/proto/file.pb.h"
#include "format/proto/file2.pb.h"
#include "format/shredder.h"
#include "format/statistics.h"

namespace lancedb::format {
namespace {

namespace pb21 = lance::encodings21;

/// Bound on null/empty lists per page, so that any mini-block chunk (at most 4096 values) keeps
/// its rep/def levels within the chunk header's u16 sizes (2.2), or, in 2.1, the whole chunk
/// within the 32 KiB its u16 chunk word can describe (4 bytes of raw levels per item).
constexpr int64_t kMaxInvisibleItemsPerPage = 28 * 1024;
constexpr int64_t kMaxInvisibleItemsPerPage21 = 4 * 1024;

constexpr uint8_t kLegacyBlob = static_cast<uint8_t>(BlobEncoding::kLegacy);
constexpr uint8_t kBlobV2 = static_cast<uint8_t>(BlobEncoding::kV2);

/// "Lance file version 2.1", naming 2.0 by its own name (its footer says 0.3).
std::string VersionName(const FileVersion& v) {
  if (v.major == 0 && v.minor == 3) return "Lance file version 2.0 (the legacy encodings)";
  return "Lance file version " + std::to_string(v.major) + "." + std::to_string(v.minor);
}

/// The bytes of `message` with map entries in key order (a protobuf map has none), so that the
/// same schema metadata always gives the same file.
std::string DeterministicBytes(const google::protobuf::Message& message) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return out;
}

std::string PackAny(const google::protobuf::Message& message, std::string_view type_name) {
  google::protobuf::Any any;
  any.set_type_url("/" + std::string(type_name));
  any.set_value(message.SerializeAsString());
  return any.SerializeAsString();
}

class FileWriterImpl final : public FileWriter {
 public:
  FileWriterImpl(std::unique_ptr<io::OutputStream> out, std::string path, LanceSchema schema,
                 FileWriterOptions options, std::vector<LeafPath> paths, std::vector<int> top_index)
      : out_(std::move(out)),
        path_(std::move(path)),
        schema_(std::move(schema)),
        options_(options),
        paths_(std::move(paths)),
        top_index_(std::move(top_index)),
        items_(paths_.size()),
        columns_(paths_.size()),
        page_row_start_(paths_.size(), 0) {
    if (options_.statistics_zone_rows > 0) {
      statistics_ = std::make_unique<StatisticsCollector>(schema_, options_.statistics_zone_rows);
    }
  }

  ~FileWriterImpl() override {
    if (!finished_) out_->Abort();
  }

  Status Init() {
    for (size_t i = 0; i < paths_.size(); ++i) {
      LANCEDB_RETURN_NOT_OK(InitLeafValues(*paths_[i].leaf_type, &items_[i].values));
    }
    return Status::OK();
  }

  Status Write(const array::RecordBatch& batch) override {
    if (finished_) return Status::InvalidArgument("File '" + path_ + "' is already finished");
    LANCEDB_RETURN_NOT_OK(CheckBatch(batch));
    if (statistics_) statistics_->Append(batch);
    for (size_t leaf = 0; leaf < paths_.size(); ++leaf) {
      const auto& column = batch.column(top_index_[leaf]);
      LeafItems& items = items_[leaf];
      if (paths_[leaf].blob_encoding == kBlobV2) {
        LANCEDB_RETURN_NOT_OK(AppendBlobs(leaf, *column));
        continue;
      }
      if (paths_[leaf].blob_encoding == kLegacyBlob) {
        LANCEDB_RETURN_NOT_OK(AppendLegacyBlobs(leaf, *column));
        continue;
      }
      LANCEDB_ASSIGN_OR_RETURN(Shredder shredder, Shredder::Make(paths_[leaf], *column));
      const bool flat = paths_[leaf].depth() == 1;
      for (int64_t row = 0; row < batch.num_rows();) {
        // Flat columns go in blocks sized to end near the page limit; nested ones row by row.
        int64_t block = 1;
        if (flat) {
          const int64_t per_row = items.num_rows > 0 ? PendingBytes(items) / items.num_rows + 1
                                                     : (items.values.bits_per_value + 7) / 8 + 4;
          block = std::clamp<int64_t>((options_.max_page_bytes - PendingBytes(items)) / per_row, 1,
                                      4096);
          block = std::min(block, batch.num_rows() - row);
          if (options_.max_page_rows > 0) {
            block = std::clamp<int64_t>(options_.max_page_rows - items.num_rows, 1, block);
          }
        }
        shredder.AppendRows(row, row + block, &items);
        row += block;
        // Invisible items all land in one mini-block chunk, whose level count is a u16.
        if (PendingBytes(items) >= options_.max_page_bytes ||
            items.num_invisible >= max_invisible_per_page_ ||
            (options_.max_page_rows > 0 && items.num_rows >= options_.max_page_rows)) {
          LANCEDB_RETURN_NOT_OK(FlushPage(leaf));
        }
      }
    }
    num_rows_ += batch.num_rows();
    return Status::OK();
  }

  int64_t num_rows() const override { return num_rows_; }
  int64_t bytes_written() const override {
    int64_t pending = 0;
    for (const auto& items : items_) pending += PendingBytes(items);
    return out_->Tell() + pending;
  }

  Result<FileWriteResult> Finish() override {
    if (finished_) return Status::InvalidArgument("File '" + path_ + "' is already finished");
    for (size_t leaf = 0; leaf < paths_.size(); ++leaf) {
      if (items_[leaf].num_rows > 0) LANCEDB_RETURN_NOT_OK(FlushPage(leaf));
    }
    // Global buffer 0: the FileDescriptor.
    lance::file::FileDescriptor descriptor;
    std::vector<lance::file::Field> fields;
    for (const auto& field : schema_.fields()) {
      LanceSchema one(BlobEncodingOf(field) == BlobEncoding::kV2 ? BlobV2FileFields(field)
                                                                 : std::vector<LanceField>{field},
                      {});
      one.ToProto(&fields);
    }
    for (auto& f : fields) *descriptor.mutable_schema()->add_fields() = std::move(f);
    for (const auto& [k, v] : schema_.metadata()) {
      (*descriptor.mutable_schema()->mutable_metadata())[k] = v;
    }
    descriptor.set_length(static_cast<uint64_t>(num_rows_));
    std::vector<std::pair<uint64_t, uint64_t>> gbo;
    LANCEDB_ASSIGN_OR_RETURN(auto descriptor_loc, WriteAligned(DeterministicBytes(descriptor)));
    gbo.push_back(descriptor_loc);
    // Global buffer 1: zone statistics (docs/format/statistics.md), which Lance ignores.
    if (statistics_ && !statistics_->empty()) {
      LANCEDB_ASSIGN_OR_RETURN(auto loc, WriteAligned(SerializeStatistics(statistics_->Finish())));
      gbo.push_back(loc);
    }
    for (const auto& buffer : extra_buffers_) {
      LANCEDB_ASSIGN_OR_RETURN(auto loc, WriteAligned(buffer));
      gbo.push_back(loc);
    }

    // Column metadata.
    lance::encodings::ColumnEncoding column_encoding;
    column_encoding.mutable_values();
    const std::string column_any = PackAny(column_encoding, "lance.encodings.ColumnEncoding");
    const uint64_t column_meta_start = static_cast<uint64_t>(out_->Tell());
    std::vector<std::pair<uint64_t, uint64_t>> cmo;
    for (auto& column : columns_) {
      column.mutable_encoding()->mutable_direct()->set_encoding(column_any);
      std::string bytes = column.SerializeAsString();
      cmo.emplace_back(out_->Tell(), bytes.size());
      LANCEDB_RETURN_NOT_OK(out_->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
    }
    Footer footer;
    footer.column_meta_start = column_meta_start;
    footer.cmo_table_pos = static_cast<uint64_t>(out_->Tell());
    LANCEDB_RETURN_NOT_OK(WriteOffsetTable(cmo));
    footer.gbo_table_pos = static_cast<uint64_t>(out_->Tell());
    LANCEDB_RETURN_NOT_OK(WriteOffsetTable(gbo));
    footer.num_global_buffers = static_cast<uint32_t>(gbo.size());
    footer.num_columns = static_cast<uint32_t>(columns_.size());
    footer.major = static_cast<uint16_t>(options_.version.major);
    footer.minor = static_cast<uint16_t>(options_.version.minor);
    std::string footer_bytes = EncodeFooter(footer);
    LANCEDB_RETURN_NOT_OK(out_->Write(footer_bytes.data(), kFooterSize));
    FileWriteResult result;
    result.num_rows = num_rows_;
    result.file_size_bytes = out_->Tell();
    LANCEDB_RETURN_NOT_OK(out_->Close());
    finished_ = true;
    for (const auto& field : schema_.fields()) {
      if (BlobEncodingOf(field) == BlobEncoding::kV2) {
        result.fields.push_back(field.id);  // one descriptor column
        continue;
      }
      LanceSchema one({field}, {});
      for (int32_t id : one.LeafFieldIds()) result.fields.push_back(id);
    }
    for (size_t i = 0; i < result.fields.size(); ++i) {
      result.column_indices.push_back(static_cast<int32_t>(i));
    }
    result.version = options_.version;
    return result;
  }

  void Abort() override {
    if (!finished_) out_->Abort();
    finished_ = true;
  }

  void AddGlobalBuffer(std::string bytes) override { extra_buffers_.push_back(std::move(bytes)); }

 private:
  static int64_t PendingBytes(const LeafItems& items) {
    return items.values.ByteSize() + static_cast<int64_t>(items.codes.size() * 4);
  }

  Status CheckBatch(const array::RecordBatch& batch) const {
    const auto& fields = schema_.fields();
    if (batch.num_columns() != static_cast<int>(fields.size())) {
      return Status::InvalidArgument("Batch has " + std::to_string(batch.num_columns()) +
                                     " columns but file '" + path_ + "' has " +
                                     std::to_string(fields.size()));
    }
    for (size_t i = 0; i < fields.size(); ++i) {
      LANCEDB_ASSIGN_OR_RETURN(auto type, fields[i].ToArrowType());
      const auto& column = batch.column(static_cast<int>(i));
      if (!type->Equals(*column->type)) {
        return Status::InvalidArgument("Column '" + fields[i].name + "' has type " +
                                       column->type->ToString() + ", expected " + type->ToString());
      }
    }
    return Status::OK();
  }

  /// Pad to 64 bytes and write `bytes`; returns (position, size).
  Result<std::pair<uint64_t, uint64_t>> WriteAligned(std::string_view bytes) {
    static const char kZeros[kPageAlignment] = {};
    int64_t pad = (kPageAlignment - out_->Tell() % kPageAlignment) % kPageAlignment;
    if (pad > 0) LANCEDB_RETURN_NOT_OK(out_->Write(kZeros, pad));
    uint64_t pos = static_cast<uint64_t>(out_->Tell());
    LANCEDB_RETURN_NOT_OK(out_->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
    return std::make_pair(pos, static_cast<uint64_t>(bytes.size()));
  }

  Status WriteOffsetTable(const std::vector<std::pair<uint64_t, uint64_t>>& entries) {
    std::string table;
    for (const auto& [pos, size] : entries) {
      table.append(reinterpret_cast<const char*>(&pos), 8);
      table.append(reinterpret_cast<const char*>(&size), 8);
    }
    return out_->Write(table.data(), static_cast<int64_t>(table.size()));
  }

  /// The members of a blob v2 storage struct (position and size may be absent).
  struct BlobMembers {
    const array::ArrayData* data = nullptr;
    const array::ArrayData* uri = nullptr;
    const array::ArrayData* position = nullptr;
    const array::ArrayData* size = nullptr;
  };

  /// Append the rows of a blob v2 column (its storage struct): each payload is written now as a
  /// file buffer and the row keeps an inline descriptor of it; a URI keeps an external one.
  Status AppendBlobs(size_t leaf, const array::ArrayData& column) {
    const std::string& name = schema_.fields()[top_index_[leaf]].name;
    BlobMembers m;
    const auto& members = column.type->fields();
    for (size_t i = 0; i < members.size(); ++i) {
      const std::string& member = members[i]->name();
      const array::ArrayData* child = column.children[i].get();
      if (member == "data") m.data = child;
      if (member == "uri") m.uri = child;
      if (member == "position") m.position = child;
      if (member == "size") m.size = child;
    }
    if (m.data == nullptr || m.uri == nullptr) {
      return Status::InvalidArgument("Blob column '" + name + "' must have members data and uri");
    }
    LeafItems& items = items_[leaf];
    for (int64_t i = 0; i < column.length; ++i) {
      const std::string where = "Blob column '" + name + "' row " + std::to_string(i);
      if (column.IsNull(i)) {
        if (!paths_[leaf].nullable[0]) return Status::InvalidArgument(where + " is null");
        items.codes.push_back(NullCode(0));
        items.values.AppendNullSlot();
      } else {
        LANCEDB_ASSIGN_OR_RETURN(std::string packed, DescribeBlob(m, column.offset + i, where));
        items.codes.push_back(0);
        auto& v = items.values;
        v.data.insert(v.data.end(), packed.begin(), packed.end());
        v.offsets.push_back(static_cast<int64_t>(v.data.size()));
        v.max_value_bytes = std::max<int64_t>(v.max_value_bytes, packed.size());
        ++v.num_values;
      }
      ++items.num_rows;
      if (PendingBytes(items) >= options_.max_page_bytes ||
          (options_.max_page_rows > 0 && items.num_rows >= options_.max_page_rows)) {
        LANCEDB_RETURN_NOT_OK(FlushPage(leaf));
      }
    }
    return Status::OK();
  }

  /// Append the rows of a legacy blob column (large_binary, file version 2.1), as Lance does
  /// (docs/format/blobs.md): each non-empty payload is written now as a file buffer and the row
  /// keeps a (position, size) descriptor; a null row is (def << 16 | rep, 0) = (1 << 16, 0),
  /// an empty one (0, 0).
  Status AppendLegacyBlobs(size_t leaf, const array::ArrayData& column) {
    const LanceField& field = schema_.fields()[top_index_[leaf]];
    LeafItems& items = items_[leaf];
    for (int64_t i = 0; i < column.length; ++i) {
      std::array<uint64_t, 2> descriptor = {0, 0};  // position, size
      if (column.IsNull(i)) {
        if (!field.nullable) {
          return Status::InvalidArgument("Blob column '" + field.name + "' row " +
                                         std::to_string(i) +
                                         " is null but the field is not "
                                         "nullable");
        }
        descriptor[0] = uint64_t{1} << 16;
      } else if (const std::string_view bytes = column.GetView(i); !bytes.empty()) {
        LANCEDB_ASSIGN_OR_RETURN(auto loc, WriteAligned(bytes));
        descriptor = {loc.first, loc.second};
      }
      const auto* p = reinterpret_cast<const uint8_t*>(descriptor.data());
      items.values.data.insert(items.values.data.end(), p, p + sizeof(descriptor));
      ++items.values.num_values;
      items.codes.push_back(0);
      ++items.num_rows;
      if (PendingBytes(items) >= options_.max_page_bytes ||
          (options_.max_page_rows > 0 && items.num_rows >= options_.max_page_rows)) {
        LANCEDB_RETURN_NOT_OK(FlushPage(leaf));
      }
    }
    return Status::OK();
  }

  /// A page of legacy blob descriptors: a BlobLayout (layers: whether the page has null rows)
  /// around a mini-block page of packed struct<position: u64, size: u64> values, all valid.
  Result<EncodedPage> EncodeLegacyBlobPage(const LeafPath& path, const LeafItems& items) {
    pb21::CompressiveEncoding packed;
    auto* ps = packed.mutable_packed_struct();
    ps->add_bits_per_value(64);
    ps->add_bits_per_value(64);
    ps->mutable_values()->mutable_flat()->set_bits_per_value(128);
    LANCEDB_ASSIGN_OR_RETURN(EncodedPage page,
                             EncodeMiniBlock(path, items, ComputePageLevels(path, items), packed,
                                             false, static_cast<int>(options_.version.minor)));
    bool any_null = false;
    const uint8_t* d = items.values.value_bytes();
    for (int64_t i = 0; i < items.values.num_values && !any_null; ++i) {
      uint64_t position, size;
      std::memcpy(&position, d + 16 * i, 8);
      std::memcpy(&size, d + 16 * i + 8, 8);
      any_null = size == 0 && position != 0;
    }
    pb21::PageLayout blob;
    *blob.mutable_blob_layout()->mutable_inner_layout() = std::move(page.layout);
    blob.mutable_blob_layout()->add_layers(any_null ? pb21::REPDEF_NULLABLE_ITEM
                                                    : pb21::REPDEF_ALL_VALID_ITEM);
    page.layout = std::move(blob);
    return page;
  }

  /// The packed descriptor of storage row `c` (valid), writing its payload to the file.
  Result<std::string> DescribeBlob(const BlobMembers& m, int64_t c, const std::string& where) {
    const bool has_data = m.data->IsValid(c);
    if (has_data == m.uri->IsValid(c)) {
      return Status::InvalidArgument(where + (has_data ? " has both data and uri"
                                                       : " has neither data nor uri; use a null "
                                                         "for a null blob"));
    }
    if (has_data) {
      const std::string_view bytes = m.data->GetView(c);
      uint64_t offset = 0;
      if (!bytes.empty()) {
        LANCEDB_ASSIGN_OR_RETURN(auto loc, WriteAligned(bytes));
        offset = loc.first;
      }
      return PackBlobV2Descriptor(BlobKind::kInline, offset, bytes.size(), 0, {});
    }
    const std::string_view target = m.uri->GetView(c);
    if (target.empty()) return Status::InvalidArgument(where + " has an empty uri");
    const bool ranged =
        m.position != nullptr && m.size != nullptr && m.position->IsValid(c) && m.size->IsValid(c);
    static const ExternalBlobBases kNoBases;
    const ExternalBlobBases& bases =
        options_.external_blob_bases ? *options_.external_blob_bases : kNoBases;
    LANCEDB_ASSIGN_OR_RETURN(auto reference,
                             bases.Reference(target, options_.allow_external_blob_outside_bases));
    return PackBlobV2Descriptor(
        BlobKind::kExternal, ranged ? m.position->GetValues<uint64_t>(1)[c] : 0,
        ranged ? m.size->GetValues<uint64_t>(1)[c] : 0, reference.base_id, reference.uri);
  }

  Status FlushPage(size_t leaf) {
    Status st = WritePage(leaf, items_[leaf]);
    items_[leaf].Clear();
    return st;
  }

  /// Write `items` as one page, or, when they hold more distinct values than the indices of a
  /// dictionary column can address, as pages of half the rows each.
  Status WritePage(size_t leaf, const LeafItems& items) {
    const LeafPath& path = paths_[leaf];
    const int minor = static_cast<int>(options_.version.minor);
    auto encoded =
        path.blob_encoding == kBlobV2
            ? EncodeFullZip(path, items, ComputePageLevels(path, items), BlobV2DescriptorEncoding())
        : path.blob_encoding == kLegacyBlob ? EncodeLegacyBlobPage(path, items)
                                            : EncodePage(path, items, minor);
    if (!encoded.ok() && encoded.status().IsInvalidArgument() && path.leaf_type->is_dictionary() &&
        items.num_rows > 1) {
      DecodedItems all;
      all.items = items;
      all.IndexRows(path);
      const int64_t half = items.num_rows / 2;
      for (auto [begin, end] : {std::pair<int64_t, int64_t>{0, half}, {half, items.num_rows}}) {
        LeafItems part;
        LANCEDB_RETURN_NOT_OK(InitLeafValues(*path.leaf_type, &part.values));
        AppendRows(path, all, begin, end, &part);
        LANCEDB_RETURN_NOT_OK(WritePage(leaf, part));
      }
      return Status::OK();
    }
    if (!encoded.ok()) {
      return encoded.status().WithContext("Writing column " + std::to_string(leaf) + " (field id " +
                                          std::to_string(paths_[leaf].field_id) + ") of '" + path_ +
                                          "'");
    }
    auto* page = columns_[leaf].add_pages();
    for (const auto& buffer : encoded->buffers) {
      LANCEDB_ASSIGN_OR_RETURN(auto loc, WriteAligned(buffer->view()));
      page->add_buffer_offsets(loc.first);
      page->add_buffer_sizes(loc.second);
    }
    page->set_length(static_cast<uint64_t>(encoded->num_rows));
    page->set_priority(static_cast<uint64_t>(page_row_start_[leaf]));
    page->mutable_encoding()->mutable_direct()->set_encoding(
        PackAny(encoded->layout, "lance.encodings21.PageLayout"));
    page_row_start_[leaf] += encoded->num_rows;
    return Status::OK();
  }

  std::unique_ptr<io::OutputStream> out_;
  std::string path_;
  LanceSchema schema_;
  FileWriterOptions options_;
  std::vector<LeafPath> paths_;
  std::vector<int> top_index_;
  std::vector<LeafItems> items_;
  std::vector<lance::file::v2::ColumnMetadata> columns_;
  std::vector<int64_t> page_row_start_;
  std::unique_ptr<StatisticsCollector> statistics_;  // null when disabled
  std::vector<std::string> extra_buffers_;
  int64_t max_invisible_per_page_ =
      options_.version.minor == 1 ? kMaxInvisibleItemsPerPage21 : kMaxInvisibleItemsPerPage;
  int64_t num_rows_ = 0;
  bool finished_ = false;
};

}  // namespace

Status FileWriter::CheckSchema(const LanceSchema& schema, FileVersion version) {
  if (version.major != 2 || (version.minor != 1 && version.minor != 2)) {
    return Status::NotSupported(VersionName(version) +
                                " cannot be written; lancedb-cpp writes file versions 2.1 and 2.2");
  }
  const bool v21 = version.minor == 1;
  for (const LanceField& field : schema.fields()) {
    const BlobEncoding blob = BlobEncodingOf(field);
    if (blob == BlobEncoding::kLegacy && !v21) {
      return Status::InvalidArgument(
          "Legacy blob column '" + field.name +
          "' (field metadata lance-encoding:blob) is not supported in Lance file version 2.2; "
          "declare it as a blob v2 column (lancedb.blob(), extension lance.blob.v2)");
    }
    if (blob == BlobEncoding::kV2 && v21) {
      return Status::InvalidArgument(
          "Blob v2 column '" + field.name +
          "' (extension lance.blob.v2) needs Lance file version 2.2, not 2.1; in a 2.1 table "
          "declare it as a legacy blob column (large_binary with field metadata "
          "lance-encoding:blob=true)");
    }
  }
  return Status::OK();
}

Result<std::unique_ptr<FileWriter>> FileWriter::Open(io::FileSystemPtr fs, std::string path,
                                                     LanceSchema schema,
                                                     FileWriterOptions options) {
  LANCEDB_RETURN_NOT_OK(CheckSchema(schema, options.version));
  if (options.max_page_rows < 0) {
    return Status::InvalidArgument("max_page_rows must not be negative");
  }
  if (options.max_page_bytes <= 0) {
    return Status::InvalidArgument("max_page_bytes must be positive");
  }
  std::vector<LeafPath> paths;
  std::vector<int> top_index;
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    const LanceField& field = schema.fields()[i];
    const BlobEncoding blob = BlobEncodingOf(field);
    if (blob != BlobEncoding::kNone) {
      LANCEDB_ASSIGN_OR_RETURN(auto leaf, BlobLeafPath(field, blob));
      paths.push_back(std::move(leaf));
      top_index.push_back(static_cast<int>(i));
      continue;
    }
    LANCEDB_ASSIGN_OR_RETURN(auto leaves, BuildLeafPaths(LanceSchema({field}, {})));
    for (auto& leaf : leaves) {
      paths.push_back(std::move(leaf));
      top_index.push_back(static_cast<int>(i));
    }
  }
  LANCEDB_ASSIGN_OR_RETURN(auto out, fs->OpenOutputStream(path));
  auto writer = std::make_unique<FileWriterImpl>(std::move(out), std::move(path), std::move(schema),
                                                 options, std::move(paths), std::move(top_index));
  LANCEDB_RETURN_NOT_OK(writer->Init());
  return std::unique_ptr<FileWriter>(std::move(writer));
}

}  // namespace lancedb::format
