// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Scanning a snapshot (lance-format.md §1.3, §3): fragments in manifest order, each made of
// data files that hold disjoint subsets of the fields (a field held by no file reads as nulls;
// id -2 marks a tombstoned column), minus the rows listed in the fragment's deletion file.
// With a pruning predicate, row ranges whose zone statistics (format/statistics.h) prove that
// no row can match are not read at all; row addresses keep their physical offsets.

#include <algorithm>
#include <unordered_set>

#include "format/blob.h"
#include "format/file_reader.h"
#include "table/dataset_impl.h"
#include "table/deletion.h"
#include "table/row_ids.h"

namespace lancedb::table {

namespace {

void CollectIds(const format::LanceField& field, std::unordered_set<int32_t>* ids) {
  ids->insert(field.id);
  for (const auto& child : field.children) CollectIds(child, ids);
}

}  // namespace

std::vector<int> FieldHolders(const pb::DataFragment& frag,
                              const std::vector<format::LanceField>& fields) {
  std::vector<int> holders(fields.size(), -1);
  for (size_t i = 0; i < fields.size(); ++i) {
    std::unordered_set<int32_t> ids;
    CollectIds(fields[i], &ids);
    for (int f = 0; f < frag.files_size(); ++f) {
      for (int32_t id : frag.files(f).fields()) {
        if (id >= 0 && ids.count(id)) holders[i] = f;
      }
    }
  }
  return holders;
}

namespace {

/// Streams the rows of one snapshot. Externally synchronized.
class ScanReader : public array::RecordBatchReader {
 public:
  ScanReader(io::FileSystemPtr fs, std::string root, ManifestPtr manifest,
             std::vector<format::LanceField> fields, array::SchemaPtr schema, bool with_row_id,
             bool with_row_address, int64_t batch_size, format::RangePredicate may_match,
             bool materialize_blobs)
      : fs_(std::move(fs)),
        root_(std::move(root)),
        manifest_(std::move(manifest)),
        fields_(std::move(fields)),
        schema_(std::move(schema)),
        with_row_id_(with_row_id),
        with_row_address_(with_row_address),
        batch_size_(std::max<int64_t>(batch_size, 1)),
        may_match_(std::move(may_match)),
        read_options_{materialize_blobs,
                      materialize_blobs ? ExternalBlobBasesOf(manifest_->proto()) : nullptr} {}

  array::SchemaPtr schema() const override { return schema_; }

  Result<array::RecordBatchPtr> Next() override {
    const auto& frags = manifest_->proto().fragments();
    while (frag_index_ < static_cast<size_t>(frags.size())) {
      const auto& frag = frags[static_cast<int>(frag_index_)];
      if (!loaded_) {
        LANCEDB_RETURN_NOT_OK(LoadFragment(frag));
      }
      if (range_index_ >= ranges_.size()) {
        ++frag_index_;
        loaded_ = false;
        continue;
      }
      const int64_t range_end = ranges_[range_index_].second;
      if (pos_ < ranges_[range_index_].first) pos_ = ranges_[range_index_].first;
      const int64_t len = std::min(batch_size_, range_end - pos_);
      const int64_t start = pos_;
      pos_ += len;
      if (pos_ >= range_end) ++range_index_;
      // Rows kept, relative to `start`; empty when every row is (no deletions in the batch).
      std::vector<int64_t> keep;
      int64_t kept = len;
      if (!deleted_.empty()) {
        keep.reserve(static_cast<size_t>(len));
        for (int64_t r = start; r < start + len; ++r) {
          if (!deleted_[static_cast<size_t>(r)]) keep.push_back(r - start);
        }
        kept = static_cast<int64_t>(keep.size());
        if (kept == 0) continue;
        if (kept == len) keep.clear();
      }
      LANCEDB_ASSIGN_OR_RETURN(auto columns, ReadColumns(frag, start, len));
      if (!keep.empty()) {
        for (auto& col : columns) {
          LANCEDB_ASSIGN_OR_RETURN(col, array::Take(col, keep));
        }
      }
      // Row ids are the addresses unless the table has stable row ids.
      auto row_column = [&](bool address) {
        auto ids = Buffer::AllocateUninitialized(kept * static_cast<int64_t>(sizeof(uint64_t)));
        uint64_t* out = ids->mutable_data_as<uint64_t>();
        const bool stable = !address && !row_ids_.empty();
        const uint64_t base = (frag.id() << 32) | static_cast<uint64_t>(start);
        if (keep.empty() && stable) {
          std::copy_n(row_ids_.data() + start, kept, out);
        } else if (keep.empty()) {
          for (int64_t i = 0; i < kept; ++i) out[i] = base + static_cast<uint64_t>(i);
        } else {
          for (int64_t i = 0; i < kept; ++i) {
            const auto r = static_cast<uint64_t>(keep[static_cast<size_t>(i)]);
            out[i] = stable ? row_ids_[static_cast<size_t>(start) + r] : base + r;
          }
        }
        return array::ArrayData::Make(array::uint64(), kept, {nullptr, std::move(ids)});
      };
      if (with_row_id_) columns.push_back(row_column(false));
      if (with_row_address_) columns.push_back(row_column(true));
      return array::RecordBatch::Make(schema_, std::move(columns), kept);
    }
    return array::RecordBatchPtr();
  }

 private:
  Status LoadFragment(const pb::DataFragment& frag) {
    pos_ = 0;
    readers_.assign(static_cast<size_t>(frag.files_size()), nullptr);
    holders_ = FieldHolders(frag, fields_);
    range_index_ = 0;
    ranges_.clear();
    const auto rows = static_cast<int64_t>(frag.physical_rows());
    if (may_match_ && rows > 0) {
      LANCEDB_ASSIGN_OR_RETURN(ranges_, PruneRanges(frag, rows));
    } else if (rows > 0) {
      ranges_.emplace_back(0, rows);
    }
    if (ranges_.empty()) {
      loaded_ = true;
      return Status::OK();  // nothing to read: skip the deletion file too
    }
    deleted_.clear();
    row_ids_.clear();
    if (with_row_id_ && (manifest_->proto().reader_feature_flags() & kFlagStableRowIds) != 0) {
      // With stable row ids, _rowid is the fragment's sequence, not the row address (§3).
      LANCEDB_ASSIGN_OR_RETURN(row_ids_, FragmentRowIds(*fs_, root_, frag));
    }
    if (frag.has_deletion_file()) {
      LANCEDB_ASSIGN_OR_RETURN(auto offsets, ReadDeletions(*fs_, root_, manifest_->proto(), frag));
      deleted_.assign(frag.physical_rows(), false);
      for (uint32_t o : offsets) {
        if (o < deleted_.size()) deleted_[o] = true;
      }
    }
    loaded_ = true;
    return Status::OK();
  }

  Status OpenReader(const pb::DataFragment& frag, int f) {
    if (readers_[f] != nullptr) return Status::OK();
    const auto& file = frag.files(f);
    LANCEDB_ASSIGN_OR_RETURN(auto path, DataFilePath(manifest_->proto(), root_, file));
    int64_t size = file.file_size_bytes() > 0 ? static_cast<int64_t>(file.file_size_bytes()) : -1;
    LANCEDB_ASSIGN_OR_RETURN(readers_[f], format::FileReader::Open(fs_, path, size, read_options_));
    return Status::OK();
  }

  /// The row ranges of `frag` that may match may_match_, judged on the zone statistics of the
  /// projected fields; a file without (readable) statistics just contributes none.
  Result<std::vector<std::pair<int64_t, int64_t>>> PruneRanges(const pb::DataFragment& frag,
                                                               int64_t rows) {
    struct Source {
      std::string name;
      format::RangeColumnStats range;
      const format::FileStatistics::Column* column;
      std::shared_ptr<const format::FileStatistics> file;
    };
    std::vector<Source> sources;
    std::vector<int64_t> cuts = {0, rows};
    for (size_t i = 0; i < fields_.size(); ++i) {
      const int f = holders_[i];
      if (f < 0 || !fields_[i].children.empty()) continue;
      LANCEDB_RETURN_NOT_OK(OpenReader(frag, f));
      auto stats = format::ReadFileStatistics(*readers_[f]);
      if (!stats.ok() || *stats == nullptr || (*stats)->zone_starts.back() != rows) continue;
      const auto* column = (*stats)->FindColumn(fields_[i].id);
      auto type = fields_[i].ToArrowType();
      if (column == nullptr || !type.ok()) continue;
      Source src{fields_[i].name, {}, column, *stats};
      src.range.type = *type;
      src.range.stats_type = column->type;
      sources.push_back(std::move(src));
      cuts.insert(cuts.end(), (*stats)->zone_starts.begin(), (*stats)->zone_starts.end());
    }
    if (sources.empty()) return std::vector<std::pair<int64_t, int64_t>>{{0, rows}};
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    const format::RangeStatsLookup lookup =
        [&sources](const std::string& name) -> const format::RangeColumnStats* {
      for (const auto& s : sources) {
        if (s.name == name) return &s.range;
      }
      return nullptr;
    };
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (size_t k = 0; k + 1 < cuts.size(); ++k) {
      for (auto& s : sources) {
        const auto& starts = s.file->zone_starts;
        const auto zone = static_cast<size_t>(
            std::upper_bound(starts.begin(), starts.end(), cuts[k]) - starts.begin() - 1);
        s.range.stats = s.column->zones[zone];
        s.range.num_rows = starts[zone + 1] - starts[zone];
      }
      if (!may_match_(lookup)) continue;
      if (!ranges.empty() && ranges.back().second == cuts[k]) {
        ranges.back().second = cuts[k + 1];
      } else {
        ranges.emplace_back(cuts[k], cuts[k + 1]);
      }
    }
    return ranges;
  }

  Result<std::vector<array::ArrayPtr>> ReadColumns(const pb::DataFragment& frag, int64_t start,
                                                   int64_t len) {
    std::vector<array::ArrayPtr> columns(fields_.size());
    for (int f = 0; f < frag.files_size(); ++f) {
      std::vector<int32_t> ids;
      std::vector<size_t> outputs;
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (holders_[i] == f) {
          ids.push_back(fields_[i].id);
          outputs.push_back(i);
        }
      }
      if (ids.empty()) continue;
      LANCEDB_RETURN_NOT_OK(OpenReader(frag, f));
      LANCEDB_ASSIGN_OR_RETURN(auto batch, readers_[f]->Read(ids, start, len));
      for (size_t j = 0; j < outputs.size(); ++j)
        columns[outputs[j]] = batch->column(static_cast<int>(j));
    }
    for (size_t i = 0; i < fields_.size(); ++i) {
      if (columns[i] == nullptr) {
        columns[i] = array::MakeNullArray(schema_->field(static_cast<int>(i))->type(), len);
      }
    }
    return columns;
  }

  io::FileSystemPtr fs_;
  std::string root_;
  ManifestPtr manifest_;
  std::vector<format::LanceField> fields_;
  array::SchemaPtr schema_;
  bool with_row_id_;
  bool with_row_address_;
  int64_t batch_size_;
  format::RangePredicate may_match_;
  format::FileReadOptions read_options_;

  size_t frag_index_ = 0;
  bool loaded_ = false;
  int64_t pos_ = 0;
  std::vector<std::pair<int64_t, int64_t>> ranges_;  // row ranges of the fragment to read
  size_t range_index_ = 0;
  std::vector<std::shared_ptr<format::FileReader>> readers_;
  std::vector<int> holders_;  // per projected field: the file index holding it, or -1
  std::vector<bool> deleted_;
  std::vector<uint64_t> row_ids_;  // stable row ids of the fragment's physical rows, or empty
};

}  // namespace

Result<std::unique_ptr<array::RecordBatchReader>> Dataset::Scan(const ScanOptions& options) const {
  const auto& lance_schema = impl_->manifest->schema();
  format::LanceSchema projected = lance_schema;
  if (!options.columns.empty()) {
    LANCEDB_ASSIGN_OR_RETURN(projected, lance_schema.Project(options.columns));
  }
  LANCEDB_ASSIGN_OR_RETURN(auto arrow,
                           format::BlobReadSchema(projected, options.materialize_blobs));
  std::vector<array::FieldPtr> out_fields = arrow->fields();
  if (options.with_row_id) {
    out_fields.push_back(array::field("_rowid", array::uint64(), /*nullable=*/false));
  }
  if (options.with_row_address) {
    out_fields.push_back(array::field("_rowaddr", array::uint64(), /*nullable=*/false));
  }
  auto schema = array::schema(std::move(out_fields), arrow->metadata());
  return std::unique_ptr<array::RecordBatchReader>(std::make_unique<ScanReader>(
      impl_->fs, impl_->path, impl_->manifest, projected.fields(), std::move(schema),
      options.with_row_id, options.with_row_address, options.batch_size, options.may_match,
      options.materialize_blobs));
}

}  // namespace lancedb::table
