// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Opening a Lance v2 file (lance-format.md §2.1): the footer, then one read of the metadata
// tail (column metadata, CMO and GBO tables), then global buffer 0 (the FileDescriptor).
// Every position read from the file is checked against the file size before use.

#include "format/file_reader.h"

#include <google/protobuf/any.pb.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "format/blob.h"
#include "format/container.h"
#include "format/page_decoder.h"
#include "format/page_rows.h"
#include "format/proto/file.pb.h"
#include "format/proto/file2.pb.h"
#include "format/shredder.h"
#include "format/unravel.h"
#include "format/v20_reader.h"

namespace lancedb::format {
namespace {

namespace v2 = lance::file::v2;

struct FieldColumns {
  int first_column = 0;
  std::vector<LeafPath> paths;
  BlobEncoding blob = BlobEncoding::kNone;  // a blob column: one descriptor leaf
  Status status;  // not OK when the field cannot be decoded (e.g. an unsupported type)
};

uint64_t ReadU64(std::string_view bytes, size_t pos) {
  uint64_t v;
  std::memcpy(&v, bytes.data() + pos, 8);
  return v;
}

/// Check the invariants AppendRows relies on: whole rows, one level per item, one value per
/// visible item.
Status ValidatePage(const LeafPath& path, const LeafItems& page, int64_t page_rows,
                    const std::string& where) {
  int64_t rows = page.num_items();
  if (path.max_rep > 0) {
    rows = 0;
    if (page.rep.size() != page.codes.size() ||
        (!page.rep.empty() && page.rep[0] != path.max_rep)) {
      return Status::Corruption("Repetition levels do not start a row in " + where);
    }
    for (uint16_t r : page.rep) rows += r == path.max_rep ? 1 : 0;
  }
  const int64_t visible = CountVisible(path, page.codes);
  if (rows != page_rows || page.num_rows != page_rows || visible != page.values.num_values) {
    return Status::Corruption("Decoded " + std::to_string(rows) + " rows and " +
                              std::to_string(page.values.num_values) + " values in " + where +
                              ", expected " + std::to_string(page_rows) + " rows and " +
                              std::to_string(visible) + " values");
  }
  return Status::OK();
}

/// The last page decoded for one leaf column, so that sequential batch reads decode each page
/// once. Internally synchronized; the page itself is immutable and shared with readers.
class PageCache {
 public:
  std::shared_ptr<const DecodedItems> Get(int page) const {
    std::lock_guard<std::mutex> lock(mu_);
    return page == page_ ? decoded_ : nullptr;
  }
  void Put(int page, std::shared_ptr<const DecodedItems> decoded) {
    std::lock_guard<std::mutex> lock(mu_);
    page_ = page;
    decoded_ = std::move(decoded);
  }

 private:
  mutable std::mutex mu_;
  int page_ = -1;
  std::shared_ptr<const DecodedItems> decoded_;
};

class FileReaderImpl final : public FileReader {
 public:
  FileReaderImpl(io::FileSystemPtr fs, std::string path, int64_t size, FileReadOptions options)
      : fs_(std::move(fs)), path_(std::move(path)), size_(size), options_(options) {}

  Status Init() {
    LANCEDB_ASSIGN_OR_RETURN(auto footer_buf,
                             fs_->ReadRange(path_, size_ - kFooterSize, kFooterSize));
    LANCEDB_ASSIGN_OR_RETURN(footer_, DecodeFooter(footer_buf->view(), size_, path_));
    if (footer_.major == 0 && footer_.minor == 3) {
      version_ = {2, 0};
    } else {
      version_ = {footer_.major, footer_.minor};
    }
    if (version_.major != 2 || version_.minor > 2) {
      return Status::NotSupported("Lance file version " + std::to_string(footer_.major) + "." +
                                  std::to_string(footer_.minor) + " of '" + path_ +
                                  "' is not supported");
    }
    const uint64_t tail_start =
        std::min({footer_.column_meta_start, footer_.cmo_table_pos, footer_.gbo_table_pos});
    const uint64_t tail_end = static_cast<uint64_t>(size_ - kFooterSize);
    LANCEDB_ASSIGN_OR_RETURN(auto tail,
                             fs_->ReadRange(path_, static_cast<int64_t>(tail_start),
                                            static_cast<int64_t>(tail_end - tail_start)));
    const std::string_view t = tail->view();
    if (footer_.num_global_buffers < 1) return Corrupt("has no global buffers");
    const uint64_t gb_pos = ReadU64(t, footer_.gbo_table_pos - tail_start);
    const uint64_t gb_size = ReadU64(t, footer_.gbo_table_pos - tail_start + 8);
    if (gb_pos > tail_end || gb_size > tail_end - gb_pos) {
      return Corrupt("has a schema buffer out of bounds");
    }
    LANCEDB_ASSIGN_OR_RETURN(auto gb, fs_->ReadRange(path_, static_cast<int64_t>(gb_pos),
                                                     static_cast<int64_t>(gb_size)));
    lance::file::FileDescriptor descriptor;
    if (!descriptor.ParseFromArray(gb->data(), static_cast<int>(gb->size()))) {
      return Corrupt("has an unreadable FileDescriptor");
    }
    num_rows_ = static_cast<int64_t>(descriptor.length());
    std::vector<const lance::file::Field*> fields;
    for (const auto& f : descriptor.schema().fields()) fields.push_back(&f);
    array::KeyValueMetadata metadata(descriptor.schema().metadata().begin(),
                                     descriptor.schema().metadata().end());
    std::sort(metadata.begin(), metadata.end());
    auto schema = LanceSchema::FromProto(fields, std::move(metadata));
    if (!schema.ok()) return schema.status().WithContext("File '" + path_ + "'");
    schema_ = schema.MoveValueUnsafe();

    for (uint32_t c = 0; c < footer_.num_columns; ++c) {
      const size_t entry = footer_.cmo_table_pos - tail_start + 16ull * c;
      const uint64_t pos = ReadU64(t, entry);
      const uint64_t len = ReadU64(t, entry + 8);
      if (pos < tail_start || pos > tail_end || len > tail_end - pos) {
        return Corrupt("has column metadata " + std::to_string(c) + " out of bounds");
      }
      v2::ColumnMetadata meta;
      if (!meta.ParseFromArray(t.data() + (pos - tail_start), static_cast<int>(len))) {
        return Corrupt("has unreadable metadata for column " + std::to_string(c));
      }
      if (version_.minor >= 1) {
        // Every 2.1+ column covers every row; this also bounds what a page may claim.
        uint64_t rows = 0;
        for (const auto& page : meta.pages()) {
          rows += page.length();
          if (rows > static_cast<uint64_t>(num_rows_)) break;
        }
        if (rows != static_cast<uint64_t>(num_rows_)) {
          return Corrupt("column " + std::to_string(c) + " has pages for " + std::to_string(rows) +
                         " rows, expected " + std::to_string(num_rows_));
        }
      }
      columns_.push_back(std::move(meta));
    }
    page_cache_ = std::make_unique<PageCache[]>(columns_.size());
    for (uint32_t g = 0; g < footer_.num_global_buffers; ++g) {
      const size_t entry = footer_.gbo_table_pos - tail_start + 16ull * g;
      if (entry + 16 > t.size()) return Corrupt("has a global buffer table out of bounds");
      global_buffers_.emplace_back(ReadU64(t, entry), ReadU64(t, entry + 8));
    }
    if (version_.minor == 0) {
      auto v20 = V20FieldReader::Make(fs_, path_, size_, &columns_, global_buffers_);
      if (!v20.ok()) return v20.status();
      v20_ = v20.MoveValueUnsafe();
    }
    return MapFields();
  }

  const LanceSchema& schema() const override { return schema_; }
  int64_t num_rows() const override { return num_rows_; }
  FileVersion version() const override { return version_; }
  uint32_t num_global_buffers() const override {
    return static_cast<uint32_t>(global_buffers_.size());
  }

  Result<BufferPtr> ReadGlobalBuffer(uint32_t index) const override {
    if (index >= global_buffers_.size()) {
      return Status::InvalidArgument("Global buffer " + std::to_string(index) + " of '" + path_ +
                                     "' does not exist; the file has " +
                                     std::to_string(global_buffers_.size()));
    }
    const auto [pos, len] = global_buffers_[index];
    if (pos > static_cast<uint64_t>(size_) || len > static_cast<uint64_t>(size_) - pos) {
      return Corrupt("has global buffer " + std::to_string(index) + " out of bounds");
    }
    return fs_->ReadRange(path_, static_cast<int64_t>(pos), static_cast<int64_t>(len));
  }

  Result<array::RecordBatchPtr> Read(const std::vector<int32_t>& field_ids, int64_t row_start,
                                     int64_t num_rows) const override {
    if (row_start < 0 || num_rows < 0 || row_start + num_rows > num_rows_) {
      return Status::InvalidArgument("Rows [" + std::to_string(row_start) + ", " +
                                     std::to_string(row_start + num_rows) + ") are out of range " +
                                     "for '" + path_ + "' with " + std::to_string(num_rows_) +
                                     " rows");
    }
    std::vector<array::FieldPtr> out_fields;
    std::vector<array::ArrayPtr> out_columns;
    for (int32_t id : field_ids) {
      LANCEDB_ASSIGN_OR_RETURN(size_t index, FindField(id));
      const LanceField& field = schema_.fields()[index];
      LANCEDB_ASSIGN_OR_RETURN(auto type, BlobReadType(field, options_.materialize_blobs));
      LANCEDB_ASSIGN_OR_RETURN(auto column, ReadField(index, type, row_start, num_rows));
      out_fields.push_back(array::field(field.name, type, field.nullable, field.metadata));
      out_columns.push_back(std::move(column));
    }
    return array::RecordBatch::Make(array::schema(out_fields, schema_.metadata()),
                                    std::move(out_columns), num_rows);
  }

  Result<array::RecordBatchPtr> Take(const std::vector<int32_t>& field_ids,
                                     const std::vector<int64_t>& rows) const override {
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i] < 0 || rows[i] >= num_rows_ || (i > 0 && rows[i] < rows[i - 1])) {
        return Status::InvalidArgument("Take rows must be sorted and within [0, " +
                                       std::to_string(num_rows_) + ") for '" + path_ + "'");
      }
    }
    if (rows.empty()) return Read(field_ids, 0, 0);
    if (version_.minor == 0) return TakeBySpans(field_ids, rows);
    // Fields are independent: take them on up to kMaxTakeThreads threads.
    const size_t n = field_ids.size();
    std::vector<array::FieldPtr> out_fields(n);
    std::vector<array::ArrayPtr> out_columns(n);
    std::vector<Status> statuses(n);
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i = next++; i < n; i = next++) {
        statuses[i] = TakeField(field_ids[i], rows, &out_fields[i], &out_columns[i]);
      }
    };
    // (hardware_concurrency reads /sys on every call: not asked for one field)
    const size_t threads =
        n <= 1 ? 1
               : std::min<size_t>(
                     {n, kMaxTakeThreads, std::max(1u, std::thread::hardware_concurrency())});
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    for (const Status& st : statuses) LANCEDB_RETURN_NOT_OK(st);
    return array::RecordBatch::Make(array::schema(out_fields, schema_.metadata()),
                                    std::move(out_columns), static_cast<int64_t>(rows.size()));
  }

 private:
  static constexpr size_t kMaxTakeThreads = 4;

  Status Corrupt(const std::string& what) const {
    return Status::Corruption("File '" + path_ + "' " + what);
  }

  Status TakeField(int32_t id, const std::vector<int64_t>& rows, array::FieldPtr* out_field,
                   array::ArrayPtr* out_column) const {
    LANCEDB_ASSIGN_OR_RETURN(size_t index, FindField(id));
    const LanceField& field = schema_.fields()[index];
    LANCEDB_ASSIGN_OR_RETURN(auto type, BlobReadType(field, options_.materialize_blobs));
    LANCEDB_ASSIGN_OR_RETURN(
        *out_column,
        AssembleLeaves(index, type, [&](int column, const LeafPath& path, LeafItems* items) {
          return TakeLeafRows(column, path, rows, items);
        }));
    *out_field = array::field(field.name, type, field.nullable, field.metadata);
    return Status::OK();
  }

  /// Take for 2.0 files: read the span of rows around each group and select from it.
  Result<array::RecordBatchPtr> TakeBySpans(const std::vector<int32_t>& field_ids,
                                            const std::vector<int64_t>& rows) const {
    constexpr int64_t kMaxSpan = 8192;
    std::vector<array::RecordBatchPtr> parts;
    size_t begin = 0;
    while (begin < rows.size()) {
      size_t end = begin + 1;
      while (end < rows.size() && rows[end] - rows[begin] < kMaxSpan) ++end;
      const int64_t first = rows[begin];
      LANCEDB_ASSIGN_OR_RETURN(auto range, Read(field_ids, first, rows[end - 1] - first + 1));
      std::vector<int64_t> indices;
      for (size_t i = begin; i < end; ++i) indices.push_back(rows[i] - first);
      std::vector<array::ArrayPtr> columns;
      for (const auto& column : range->columns()) {
        LANCEDB_ASSIGN_OR_RETURN(auto taken, array::Take(column, indices));
        columns.push_back(std::move(taken));
      }
      LANCEDB_ASSIGN_OR_RETURN(auto part,
                               array::RecordBatch::Make(range->schema(), std::move(columns),
                                                        static_cast<int64_t>(indices.size())));
      parts.push_back(std::move(part));
      begin = end;
    }
    if (parts.size() == 1) return parts[0];
    return array::ConcatenateBatches(parts[0]->schema(), parts);
  }

  std::string PageName(int column, const LeafPath& path, int page) const {
    return "file '" + path_ + "', column " + std::to_string(column) + " (field id " +
           std::to_string(path.field_id) + "), page " + std::to_string(page);
  }

  /// Append the items of `rows` (sorted file rows) of one leaf column to `out`. Each page
  /// decodes only the chunks or row ranges holding them when its layout allows (every chunk
  /// once), else the whole page.
  Status TakeLeafRows(int column, const LeafPath& path, const std::vector<int64_t>& rows,
                      LeafItems* out) const {
    const auto& meta = columns_[column];
    int64_t page_start = 0;
    size_t next = 0;
    std::vector<int64_t> local;
    for (int p = 0; p < meta.pages_size() && next < rows.size(); ++p) {
      const auto& page = meta.pages(p);
      const int64_t page_end = page_start + static_cast<int64_t>(page.length());
      size_t end = next;
      while (end < rows.size() && rows[end] < page_end) ++end;
      if (end > next) {
        local.clear();
        for (size_t i = next; i < end; ++i) local.push_back(rows[i] - page_start);
        const std::string where = PageName(column, path, p);
        if (auto cached = page_cache_[column].Get(p)) {
          AppendRowList(path, *cached, local, 0, out);
        } else {
          LANCEDB_ASSIGN_OR_RETURN(PreparedPage prepared,
                                   PreparePage(page, path, where, /*for_rows=*/true));
          LANCEDB_ASSIGN_OR_RETURN(
              bool taken, prepared.decoder->DecodeRows(prepared.layout, prepared.ctx, local, out));
          if (!taken) {
            LANCEDB_RETURN_NOT_OK(LoadBuffers(page, {}, &prepared.ctx));
            DecodedItems decoded;
            LANCEDB_RETURN_NOT_OK(
                prepared.decoder->Decode(prepared.layout, prepared.ctx, &decoded.items));
            LANCEDB_RETURN_NOT_OK(ValidatePage(path, decoded.items, prepared.ctx.num_rows, where));
            decoded.IndexRows(path);
            AppendRowList(path, decoded, local, 0, out);
          }
        }
      }
      next = end;
      page_start = page_end;
    }
    return ValidatePage(path, *out, static_cast<int64_t>(rows.size()),
                        "take of file '" + path_ + "', column " + std::to_string(column));
  }

  Status MapFields() {
    int column = 0;
    for (const auto& field : schema_.fields()) {
      FieldColumns fc;
      fc.first_column = column;
      if (field.id < 0) {
        // The descriptor members Lance lists after a blob v2 field: no column of their own.
        fields_.push_back(std::move(fc));
        continue;
      }
      fc.blob = version_.minor == 0 ? BlobEncoding::kNone : BlobEncodingOf(field);
      if (fc.blob != BlobEncoding::kNone) {
        auto path = BlobLeafPath(field, fc.blob);
        if (path.ok()) fc.paths = {path.MoveValueUnsafe()};
        fc.status = path.status();
        ++column;
        fields_.push_back(std::move(fc));
        continue;
      }
      LanceSchema one({field}, {});
      column +=
          version_.minor == 0 ? V20ColumnCount(field) : static_cast<int>(one.LeafFieldIds().size());
      auto paths = BuildLeafPaths(one);
      if (paths.ok()) {
        fc.paths = paths.MoveValueUnsafe();
      } else {
        fc.status = paths.status();
      }
      fields_.push_back(std::move(fc));
    }
    if (column != static_cast<int>(columns_.size())) {
      return Corrupt("has " + std::to_string(columns_.size()) + " columns but its schema has " +
                     std::to_string(column) + (version_.minor == 0 ? " fields" : " leaf fields"));
    }
    return Status::OK();
  }

  Result<size_t> FindField(int32_t id) const {
    for (size_t i = 0; i < schema_.fields().size(); ++i) {
      if (schema_.fields()[i].id == id) return i;
    }
    return Status::NotFound("Field id " + std::to_string(id) + " is not a top-level field of '" +
                            path_ + "'");
  }

  Result<array::ArrayPtr> ReadField(size_t index, const array::DataTypePtr& type, int64_t row_start,
                                    int64_t num_rows) const {
    if (version_.minor == 0) {
      auto column = v20_->Read(schema_.fields()[index], type, fields_[index].first_column,
                               row_start, num_rows);
      if (!column.ok()) {
        return column.status().WithContext("Field '" + schema_.fields()[index].name + "'");
      }
      return column;
    }
    return AssembleLeaves(index, type, [&](int column, const LeafPath& path, LeafItems* items) {
      return ReadLeafRange(column, path, row_start, num_rows, items);
    });
  }

  /// Build field `index` (2.1+) from the items `read_leaf` gives for each of its leaf columns.
  Result<array::ArrayPtr> AssembleLeaves(
      size_t index, const array::DataTypePtr& type,
      const std::function<Status(int, const LeafPath&, LeafItems*)>& read_leaf) const {
    const FieldColumns& fc = fields_[index];
    const std::string& name = schema_.fields()[index].name;
    if (!fc.status.ok()) return fc.status.WithContext("Field '" + name + "' of '" + path_ + "'");
    if (fc.blob != BlobEncoding::kNone) return AssembleBlob(fc, read_leaf);
    std::vector<UnraveledLeaf> leaves;
    for (size_t i = 0; i < fc.paths.size(); ++i) {
      const int column = fc.first_column + static_cast<int>(i);
      LeafItems items;
      LANCEDB_RETURN_NOT_OK(InitLeafValues(*fc.paths[i].leaf_type, &items.values));
      LANCEDB_RETURN_NOT_OK(read_leaf(column, fc.paths[i], &items));
      items.values.Share();
      auto leaf = Unravel(fc.paths[i], std::move(items));
      if (!leaf.ok()) {
        return leaf.status().WithContext("File '" + path_ + "', column " + std::to_string(column));
      }
      leaves.push_back(leaf.MoveValueUnsafe());
    }
    std::vector<const UnraveledLeaf*> ptrs;
    for (const auto& l : leaves) ptrs.push_back(&l);
    return AssembleField(type, ptrs);
  }

  /// Build a blob field from its descriptor leaf: descriptors, or the payloads they point at.
  Result<array::ArrayPtr> AssembleBlob(
      const FieldColumns& fc,
      const std::function<Status(int, const LeafPath&, LeafItems*)>& read_leaf) const {
    LeafItems items;
    LANCEDB_RETURN_NOT_OK(InitLeafValues(*fc.paths[0].leaf_type, &items.values));
    LANCEDB_RETURN_NOT_OK(read_leaf(fc.first_column, fc.paths[0], &items));
    LANCEDB_ASSIGN_OR_RETURN(auto descriptors, BlobDescriptorsFromItems(fc.blob, items));
    if (!options_.materialize_blobs) return descriptors;
    return MaterializeBlobs(fs_, path_, fc.blob, *descriptors, options_.external_blob_bases.get());
  }

  Status ReadLeafRange(int column, const LeafPath& path, int64_t row_start, int64_t num_rows,
                       LeafItems* out) const {
    const auto& meta = columns_[column];
    int64_t page_start = 0;
    const int64_t row_end = row_start + num_rows;
    ReserveValues(meta, path, row_start, row_end, &out->values);
    for (int p = 0; p < meta.pages_size() && page_start < row_end; ++p) {
      const auto& page = meta.pages(p);
      const int64_t page_rows = static_cast<int64_t>(page.length());
      const int64_t page_end = page_start + page_rows;
      if (page_end > row_start && page_rows > 0) {
        const std::string where = PageName(column, path, p);
        std::shared_ptr<const DecodedItems> decoded = page_cache_[column].Get(p);
        if (decoded == nullptr) {
          auto fresh = std::make_shared<DecodedItems>();
          LANCEDB_RETURN_NOT_OK(DecodePage(page, path, where, &fresh->items));
          LANCEDB_RETURN_NOT_OK(ValidatePage(path, fresh->items, page_rows, where));
          fresh->IndexRows(path);
          fresh->items.values.Share();
          decoded = fresh;
          // Keep the page only when later reads will want more of it.
          if (row_end < page_end) page_cache_[column].Put(p, decoded);
        }
        AppendRows(path, *decoded, std::max(row_start, page_start) - page_start,
                   std::min(row_end, page_end) - page_start, out);
        if (row_end >= page_end) page_cache_[column].Put(-1, nullptr);
      }
      page_start = page_end;
    }
    if (out->num_rows != num_rows) {
      return Status::Corruption("Column " + std::to_string(column) + " of '" + path_ + "' has " +
                                "fewer rows than the file");
    }
    return Status::OK();
  }

  /// When a read of fixed-width values spans several pages, size its output once (a read
  /// within one page slices the page instead).
  static void ReserveValues(const v2::ColumnMetadata& meta, const LeafPath& path, int64_t row_start,
                            int64_t row_end, LeafValues* values) {
    if (path.max_rep > 0 || values->kind != ValueKind::kFixed || values->bits_per_value % 8 != 0) {
      return;
    }
    int pages = 0;
    int64_t page_start = 0;
    for (int p = 0; p < meta.pages_size() && page_start < row_end; ++p) {
      const int64_t page_end = page_start + static_cast<int64_t>(meta.pages(p).length());
      if (page_end > row_start && page_end > page_start) ++pages;
      page_start = page_end;
    }
    if (pages > 1) {
      values->data.reserve(
          static_cast<size_t>((row_end - row_start) * (values->bits_per_value / 8)));
    }
  }

  /// A page ready to decode: its layout, buffers and layout decoder.
  struct PreparedPage {
    lance::encodings21::PageLayout layout;
    PageContext ctx;
    const PageDecoder* decoder = nullptr;
  };

  /// Parse a page's layout and read its buffers; with `for_rows`, the buffers the layout reads
  /// by range when decoding some rows are left unread (see LoadBuffers).
  Result<PreparedPage> PreparePage(const v2::ColumnMetadata::Page& page, const LeafPath& path,
                                   const std::string& where, bool for_rows = false) const {
    if (!page.encoding().has_direct()) {
      return Status::NotSupported("Page encoding that is not direct in " + where);
    }
    google::protobuf::Any any;
    if (!any.ParseFromString(page.encoding().direct().encoding())) {
      return Status::Corruption("Unreadable page encoding in " + where);
    }
    const std::string& url = any.type_url();
    if (url.size() < 28 || url.substr(url.size() - 28) != "lance.encodings21.PageLayout") {
      return Status::NotSupported("Page encoding '" + url + "' in " + where);
    }
    PreparedPage prepared;
    if (!prepared.layout.ParseFromString(any.value())) {
      return Status::Corruption("Unreadable page layout in " + where);
    }
    if (path.blob_encoding != 0) {
      Status st =
          UnwrapBlobPageLayout(static_cast<BlobEncoding>(path.blob_encoding), &prepared.layout);
      if (!st.ok()) return st.WithContext(where);
    }
    prepared.decoder = PageDecoderRegistry::Default().Find(prepared.layout.layout_case());
    if (prepared.decoder == nullptr) {
      return Status::NotSupported("Page layout " + std::to_string(prepared.layout.layout_case()) +
                                  " is not supported in " + where);
    }
    PageContext& ctx = prepared.ctx;
    ctx.path = &path;
    ctx.num_rows = static_cast<int64_t>(page.length());
    ctx.where = where;
    LANCEDB_RETURN_NOT_OK(InitLeafValues(*path.leaf_type, &ctx.value_layout));
    if (page.buffer_offsets_size() != page.buffer_sizes_size()) {
      return Status::Corruption("Page buffer tables differ in length in " + where);
    }
    for (int b = 0; b < page.buffer_offsets_size(); ++b) {
      const uint64_t pos = page.buffer_offsets(b);
      const uint64_t len = page.buffer_sizes(b);
      if (pos > static_cast<uint64_t>(size_) || len > static_cast<uint64_t>(size_) - pos) {
        return Status::Corruption("Page buffer " + std::to_string(b) + " out of bounds in " +
                                  where);
      }
      ctx.buffer_sizes.push_back(static_cast<int64_t>(len));
    }
    ctx.buffers.resize(ctx.buffer_sizes.size());
    std::vector<size_t> unread;
    if (for_rows) {
      unread = prepared.decoder->RangeBuffers(prepared.layout);
      std::vector<int64_t> positions(page.buffer_offsets().begin(), page.buffer_offsets().end());
      ctx.read_range = [this, positions = std::move(positions)](
                           size_t index, int64_t offset, int64_t length) -> Result<BufferPtr> {
        LANCEDB_ASSIGN_OR_RETURN(io::RandomAccessFile * file, TakeFile());
        return file->ReadRange(positions[index] + offset, length);
      };
    }
    LANCEDB_RETURN_NOT_OK(LoadBuffers(page, unread, &ctx));
    return prepared;
  }

  /// The file kept open for the small reads of takes (opened on the first one): reopening it
  /// for each row would cost more than the read.
  Result<io::RandomAccessFile*> TakeFile() const {
    std::lock_guard<std::mutex> lock(take_file_mu_);
    if (take_file_ == nullptr) {
      LANCEDB_ASSIGN_OR_RETURN(take_file_, fs_->OpenForRead(path_));
    }
    return take_file_.get();
  }

  /// Read the page buffers not read yet, except those listed in `skip`.
  Status LoadBuffers(const v2::ColumnMetadata::Page& page, const std::vector<size_t>& skip,
                     PageContext* ctx) const {
    for (size_t b = 0; b < ctx->buffers.size(); ++b) {
      if (ctx->buffers[b] || std::find(skip.begin(), skip.end(), b) != skip.end()) continue;
      LANCEDB_ASSIGN_OR_RETURN(
          ctx->buffers[b],
          fs_->ReadRange(path_, static_cast<int64_t>(page.buffer_offsets(static_cast<int>(b))),
                         ctx->buffer_sizes[b]));
    }
    return Status::OK();
  }

  Status DecodePage(const v2::ColumnMetadata::Page& page, const LeafPath& path,
                    const std::string& where, LeafItems* out) const {
    LANCEDB_ASSIGN_OR_RETURN(PreparedPage prepared, PreparePage(page, path, where));
    return prepared.decoder->Decode(prepared.layout, prepared.ctx, out);
  }

  io::FileSystemPtr fs_;
  std::string path_;
  int64_t size_;
  FileReadOptions options_;
  Footer footer_;
  FileVersion version_;
  LanceSchema schema_;
  int64_t num_rows_ = 0;
  std::vector<v2::ColumnMetadata> columns_;
  std::vector<std::pair<uint64_t, uint64_t>> global_buffers_;  // (position, size)
  std::vector<FieldColumns> fields_;
  std::unique_ptr<V20FieldReader> v20_;      // 2.0 files only
  std::unique_ptr<PageCache[]> page_cache_;  // one per column (2.1+)
  mutable std::mutex take_file_mu_;
  mutable std::unique_ptr<io::RandomAccessFile> take_file_;  // see TakeFile()
};

}  // namespace

Result<std::unique_ptr<FileReader>> FileReader::Open(io::FileSystemPtr fs, std::string path,
                                                     int64_t file_size, FileReadOptions options) {
  if (file_size < 0) {
    LANCEDB_ASSIGN_OR_RETURN(file_size, fs->GetSize(path));
  }
  if (file_size < kFooterSize) {
    return Status::Corruption("File '" + path + "' is too small (" + std::to_string(file_size) +
                              " bytes) to be a Lance file");
  }
  auto reader =
      std::make_unique<FileReaderImpl>(std::move(fs), std::move(path), file_size, options);
  LANCEDB_RETURN_NOT_OK(reader->Init());
  return std::unique_ptr<FileReader>(std::move(reader));
}

}  // namespace lancedb::format
