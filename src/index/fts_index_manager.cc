// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Building, loading, rebuilding and remapping FTS index segments (fts_index_manager.h).

#include "index/fts_index_manager.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "common/memory.h"
#include "index/segment_cache.h"
#include "index/vector_index.h"
#include "index/vector_index_internal.h"
#include "table/commit.h"
#include "table/create_index_op.h"
#include "table/dataset_impl.h"

namespace lancedb::index {

namespace {

constexpr uint64_t kDefaultWorkerMemoryMib = 2048;

SegmentCache<fts::InvertedIndex>& GetCache() {
  static auto* cache = new SegmentCache<fts::InvertedIndex>();  // never destroyed: used until exit
  return *cache;
}

bool IsText(const array::DataType& t) {
  return t.id() == array::TypeId::kString || t.id() == array::TypeId::kLargeString;
}

Status CheckTextColumn(const table::Dataset& dataset, const std::string& column) {
  auto field = dataset.schema()->GetFieldByName(column);
  if (!field.ok()) {
    std::string names;
    for (const auto& f : dataset.schema()->fields()) {
      names += (names.empty() ? "" : ", ") + f->name();
    }
    return Status::InvalidArgument("Column '" + column + "' not found; columns are: " + names);
  }
  const auto& type = *(*field)->type();
  const bool list_of_text =
      (type.id() == array::TypeId::kList || type.id() == array::TypeId::kLargeList) &&
      IsText(*type.value_type());
  if (!IsText(type) && !list_of_text) {
    return Status::InvalidArgument(
        "FTS index can only be created on a string column or a list "
        "of strings; column '" +
        column + "' is " + type.ToString());
  }
  return Status::OK();
}

/// One batch of documents for the build workers.
struct DocBatch {
  array::ArrayPtr values;
  std::vector<uint64_t> row_ids;
};

/// The text of row `i` of `values` (list elements joined with single spaces).
void RowText(const array::ArrayData& values, int64_t i, std::string* out) {
  out->clear();
  if (values.IsNull(i)) return;
  if (values.type->id() == array::TypeId::kList || values.type->id() == array::TypeId::kLargeList) {
    auto [begin, end] = values.GetListRange(i);
    const auto& child = *values.children[0];
    bool first = true;
    for (int64_t k = begin; k < end; ++k) {
      if (child.IsNull(k)) continue;
      if (!first) out->push_back(' ');
      first = false;
      out->append(child.GetView(k));
    }
    return;
  }
  out->append(values.GetView(i));
}

/// Tokenize `column` of the fragments accepted by `keep` (live rows), with ids mapped through
/// `map` (rows mapped to nothing skipped), into partitions of `dir`. Returns the files and the
/// partition ids.
Result<std::pair<std::vector<scalar::WrittenFile>, std::vector<uint32_t>>> BuildPartitions(
    const table::Dataset& dataset, const std::string& column, const fts::FtsParams& params,
    uint64_t memory_limit_mib, uint32_t num_workers, const std::function<bool(uint64_t)>& keep,
    const RowAddressMap& map, const std::string& dir) {
  LANCEDB_ASSIGN_OR_RETURN(auto analyzer, fts::Analyzer::Make(params.analyzer));
  pb::Manifest subset = dataset.manifest().proto();
  subset.clear_fragments();
  for (const auto& f : dataset.manifest().proto().fragments()) {
    if (!keep || keep(f.id())) *subset.add_fragments() = f;
  }
  LANCEDB_ASSIGN_OR_RETURN(auto manifest, table::Manifest::Make(std::move(subset), {}));
  LANCEDB_ASSIGN_OR_RETURN(auto sub, table::MakeDataset(dataset.fs(), dataset.path(), manifest,
                                                        dataset.manifest_naming()));
  table::ScanOptions opts;
  opts.columns = {column};
  opts.with_row_id = true;
  opts.batch_size = 8192;
  LANCEDB_ASSIGN_OR_RETURN(auto reader, sub->Scan(opts));

  const size_t worker_limit = static_cast<size_t>(memory_limit_mib) * 1024 * 1024 / num_workers;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<DocBatch> queue;
  bool done = false;
  Status failure;
  std::atomic<uint32_t> next_partition{0};
  std::vector<scalar::WrittenFile> files;
  std::vector<uint32_t> partitions;
  auto fail = [&](Status st) {
    std::lock_guard lock(mu);
    if (failure.ok()) failure = std::move(st);
    done = true;
    cv.notify_all();
  };
  auto flush = [&](fts::PartitionBuilder* builder) -> Status {
    const uint32_t id = next_partition++;
    LANCEDB_ASSIGN_OR_RETURN(auto written, builder->Flush(dataset.fs(), dir, id));
    std::lock_guard lock(mu);
    files.insert(files.end(), written.begin(), written.end());
    partitions.push_back(id);
    return Status::OK();
  };
  auto work = [&] {
    fts::PartitionBuilder builder(params, analyzer.get());
    std::string text;
    while (true) {
      DocBatch batch;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return !queue.empty() || done; });
        if (!failure.ok()) return;
        if (queue.empty()) break;
        batch = std::move(queue.front());
        queue.pop_front();
        cv.notify_all();
      }
      for (size_t i = 0; i < batch.row_ids.size(); ++i) {
        RowText(*batch.values, static_cast<int64_t>(i), &text);
        const size_t before = builder.memory_bytes();
        builder.Add(batch.row_ids[i], text);
        if (builder.memory_bytes() - before > worker_limit) {
          return fail(Status::InvalidArgument(
              "single document row_id=" + std::to_string(batch.row_ids[i]) +
              " exceeds worker memory limit: " + std::to_string(builder.memory_bytes() - before) +
              " > " + std::to_string(worker_limit) + " bytes"));
        }
        if (builder.memory_bytes() > worker_limit) {
          Status st = flush(&builder);
          if (!st.ok()) return fail(std::move(st));
        }
      }
    }
    if (!builder.empty()) {
      Status st = flush(&builder);
      if (!st.ok()) fail(std::move(st));
    }
  };
  std::vector<std::thread> threads;
  for (uint32_t w = 0; w < num_workers; ++w) threads.emplace_back(work);
  Status read_status;
  while (true) {
    auto next = reader->Next();
    if (!next.ok()) {
      read_status = next.status();
      break;
    }
    if (*next == nullptr) break;
    DocBatch batch;
    batch.values = (*next)->column(0);
    const auto& ids = (*next)->column(1);
    const uint64_t* raw = ids->GetValues<uint64_t>(1);
    if (map) {
      std::vector<int64_t> kept;
      for (int64_t i = 0; i < ids->length; ++i) {
        if (auto moved = map(raw[i])) {
          kept.push_back(i);
          batch.row_ids.push_back(*moved);
        }
      }
      if (kept.size() != static_cast<size_t>(ids->length)) {
        auto taken = array::Take(batch.values, kept);
        if (!taken.ok()) {  // stop the workers before returning (they are joined below)
          read_status = taken.status();
          break;
        }
        batch.values = std::move(*taken);
      }
    } else {
      batch.row_ids.assign(raw, raw + ids->length);
    }
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return queue.size() < 2 * num_workers || done; });
    if (done) break;
    queue.push_back(std::move(batch));
    cv.notify_all();
  }
  {
    std::lock_guard lock(mu);
    done = true;
    cv.notify_all();
  }
  for (auto& t : threads) t.join();
  LANCEDB_RETURN_NOT_OK(read_status);
  LANCEDB_RETURN_NOT_OK(failure);
  std::sort(partitions.begin(), partitions.end());
  return std::make_pair(std::move(files), std::move(partitions));
}

/// Write a whole index for `column` into a new directory; returns its metadata (not committed).
Result<pb::IndexMetadata> WriteIndex(
    const table::Dataset& dataset, const std::string& name, const std::string& column,
    int32_t field_id, const fts::FtsParams& params, uint64_t memory_limit_mib, uint32_t num_workers,
    const std::function<bool(uint64_t)>& keep, const RowAddressMap& map,
    const std::vector<uint64_t>& fragments, uint64_t dataset_version) {
  NewIndexUuid uuid = MakeIndexUuid();
  const std::string dir = IndexDir(dataset, uuid.text);
  auto built =
      BuildPartitions(dataset, column, params, memory_limit_mib, num_workers, keep, map, dir);
  ReleaseFreeMemory();
  if (built.ok()) {
    auto meta_file = fts::WriteFtsMetadata(dataset.fs(), dir, params, built->second);
    if (meta_file.ok()) {
      built->first.push_back(*meta_file);
    } else {
      built = meta_file.status();
    }
  }
  if (!built.ok()) {
    (void)dataset.fs()->DeleteDirRecursive(dir);
    return built.status();
  }
  pb::IndexMetadata meta;
  meta.mutable_uuid()->set_uuid(uuid.bytes);
  meta.add_fields(field_id);
  meta.set_name(name);
  meta.set_dataset_version(dataset_version);
  meta.set_fragment_bitmap(EncodeFragmentBitmap(fragments));
  meta.mutable_index_details()->set_type_url(fts::kInvertedIndexTypeUrl);
  meta.mutable_index_details()->set_value(fts::EncodeInvertedIndexDetails(params));
  meta.set_index_version(fts::kInvertedIndexVersion);
  meta.set_created_at(NowMillis());
  for (const auto& f : built->first) {
    auto* file = meta.add_files();
    file->set_path(f.name);
    file->set_size_bytes(static_cast<uint64_t>(f.size_bytes));
  }
  return meta;
}

uint32_t DefaultWorkers() { return std::max(1u, std::thread::hardware_concurrency()); }

}  // namespace

Result<std::vector<FtsSegment>> LoadFtsIndices(const table::Dataset& dataset) {
  std::set<uint64_t> present;
  for (const auto& f : dataset.manifest().proto().fragments()) present.insert(f.id());
  std::vector<FtsSegment> out;
  for (const auto& meta : dataset.manifest().index_section().indices()) {
    if (meta.index_details().type_url() != fts::kInvertedIndexTypeUrl || meta.fields_size() != 1) {
      continue;
    }
    const format::LanceField* field = dataset.lance_schema().FindById(meta.fields(0));
    if (field == nullptr) continue;  // column dropped
    FtsSegment seg;
    seg.name = meta.name();
    seg.column = FieldName(dataset, field->id);
    LANCEDB_ASSIGN_OR_RETURN(auto frags, DecodeFragmentBitmap(meta.fragment_bitmap()));
    for (uint64_t f : frags) {
      if (present.count(f)) seg.fragments.insert(f);
    }
    const std::string uuid = table::IndexUuidString(meta);
    LANCEDB_ASSIGN_OR_RETURN(seg.index, GetCache().GetOrOpen(dataset.path(), uuid, [&] {
      return fts::InvertedIndex::Open(dataset.fs(), IndexDir(dataset, meta));
    }));
    out.push_back(std::move(seg));
  }
  std::set<std::string> registered;
  for (const auto& meta : dataset.manifest().index_section().indices()) {
    registered.insert(table::IndexUuidString(meta));
  }
  GetCache().Retain(dataset.path(), registered);
  return out;
}

Result<fts::FtsParams> FindFtsIndexParams(const table::Dataset& dataset,
                                          const std::optional<std::string>& column,
                                          const std::optional<std::string>& index_name) {
  if (column.has_value() == index_name.has_value()) {
    return Status::InvalidArgument("Specify exactly one of 'column' or 'index_name'");
  }
  const auto& indices = dataset.manifest().index_section().indices();
  auto is_fts = [](const pb::IndexMetadata& m) {
    return m.index_details().type_url() == fts::kInvertedIndexTypeUrl;
  };
  const pb::IndexMetadata* found = nullptr;
  if (index_name) {
    for (const auto& m : indices) {
      if (m.name() == *index_name && found == nullptr) found = &m;
    }
    if (found == nullptr) return Status::InvalidArgument("No index named '" + *index_name + "'");
    if (!is_fts(*found)) {
      return Status::InvalidArgument("Index '" + *index_name + "' is not a full text search index");
    }
  } else {
    std::vector<std::string> paths;
    for (int32_t id : dataset.lance_schema().AllFieldIds()) paths.push_back(FieldName(dataset, id));
    if (std::find(paths.begin(), paths.end(), *column) == paths.end()) {
      std::string list;
      for (const auto& p : paths) list += (list.empty() ? "" : ", ") + p;
      return Status::NotFound("Field path `" + *column +
                              "` not found in schema. Available field paths: " + list);
    }
    for (const auto& m : indices) {
      if (!is_fts(m) || m.fields_size() != 1 || FieldName(dataset, m.fields(0)) != *column) {
        continue;
      }
      if (found != nullptr && found->name() != m.name()) {
        return Status::InvalidArgument("Column '" + *column +
                                       "' has multiple full text search indexes; tokenization "
                                       "by column is ambiguous");
      }
      if (found == nullptr) found = &m;
    }
    if (found == nullptr) {
      return Status::InvalidArgument("Column '" + *column +
                                     "' does not have a full text search index");
    }
  }
  return fts::ReadFtsParams(dataset.fs(), IndexDir(dataset, table::IndexUuidString(*found)));
}

Result<fts::FtsParams> FtsParamsOf(const FtsIndexConfig& c) {
  fts::FtsParams p;
  p.with_position = c.with_position;
  p.block_size = c.block_size;
  auto& a = p.analyzer;
  a.base_tokenizer = c.base_tokenizer;
  a.language = c.language;
  a.max_token_length = c.max_token_length;
  a.lower_case = c.lower_case;
  a.stem = c.stem;
  a.remove_stop_words = c.remove_stop_words;
  a.custom_stop_words = c.custom_stop_words;
  a.ascii_folding = c.ascii_folding;
  a.min_ngram_length = c.ngram_min_length;
  a.max_ngram_length = c.ngram_max_length;
  a.prefix_only = c.prefix_only;
  if (c.block_size == 256) {
    return Status::NotSupported(
        "FTS block_size=256 (Lance's experimental posting format 3) is not supported by "
        "lancedb-cpp; use 128");
  }
  if (c.block_size != 128) {
    return Status::InvalidArgument("FTS inverted index block_size must be one of 128 or 256, got " +
                                   std::to_string(c.block_size));
  }
  LANCEDB_RETURN_NOT_OK(fts::Analyzer::Make(a).status());
  return p;
}

Result<table::DatasetPtr> CreateFtsIndex(const table::DatasetPtr& dataset,
                                         const std::string& column, const FtsIndexConfig& config,
                                         const CreateIndexOptions& options) {
  LANCEDB_RETURN_NOT_OK(CheckTextColumn(*dataset, column));
  LANCEDB_ASSIGN_OR_RETURN(auto params, FtsParamsOf(config));
  const std::string name = options.name.empty() ? column + "_idx" : options.name;
  if (!options.replace) {
    for (const auto& m : dataset->manifest().index_section().indices()) {
      if (m.name() == name) {
        return Status::AlreadyExists("Index name '" + name +
                                     "' already exists, please specify a different name or use "
                                     "replace=True");
      }
    }
  }
  const uint32_t workers =
      config.num_workers.value_or(0) > 0 ? *config.num_workers : DefaultWorkers();
  const uint64_t memory = config.memory_limit_mib.value_or(kDefaultWorkerMemoryMib * workers);
  const auto* field = dataset->lance_schema().FindTopLevel(column);
  std::vector<uint64_t> fragments;
  for (const auto& f : dataset->manifest().proto().fragments()) fragments.push_back(f.id());
  LANCEDB_ASSIGN_OR_RETURN(
      auto meta, WriteIndex(*dataset, name, column, field->id, params, memory, workers, nullptr,
                            nullptr, fragments, dataset->version()));
  table::CreateIndexOperation op({meta}, {}, options.replace);
  auto committed = table::CommitOperation(dataset, &op);
  if (!committed.ok()) {
    (void)dataset->fs()->DeleteDirRecursive(IndexDir(*dataset, table::IndexUuidString(meta)));
  }
  return committed;
}

Result<table::DatasetPtr> OptimizeFtsIndex(const table::DatasetPtr& dataset,
                                           const std::string& name) {
  std::vector<const pb::IndexMetadata*> segments;
  for (const auto& m : dataset->manifest().index_section().indices()) {
    if (m.name() == name) segments.push_back(&m);
  }
  if (segments.empty()) return Status::NotFound("Index '" + name + "' not found");
  const format::LanceField* field = dataset->lance_schema().FindById(segments[0]->fields(0));
  if (field == nullptr) return Status::NotFound("The column of index '" + name + "' is gone");
  std::set<uint64_t> present, covered;
  for (const auto& f : dataset->manifest().proto().fragments()) present.insert(f.id());
  for (const auto* m : segments) {
    LANCEDB_ASSIGN_OR_RETURN(auto frags, DecodeFragmentBitmap(m->fragment_bitmap()));
    for (uint64_t f : frags) {
      if (present.count(f)) covered.insert(f);
    }
  }
  if (covered == present && segments.size() == 1) return dataset;
  LANCEDB_ASSIGN_OR_RETURN(
      auto index, fts::InvertedIndex::Open(dataset->fs(), IndexDir(*dataset, *segments[0])));
  const std::string column = FieldName(*dataset, field->id);
  const uint32_t workers = DefaultWorkers();
  std::vector<uint64_t> fragments(present.begin(), present.end());
  LANCEDB_ASSIGN_OR_RETURN(
      auto meta, WriteIndex(*dataset, name, column, field->id, index->params(),
                            kDefaultWorkerMemoryMib * workers, workers, nullptr, nullptr, fragments,
                            segments[0]->dataset_version()));
  std::vector<pb::IndexMetadata> removed;
  for (const auto* m : segments) removed.push_back(*m);
  table::CreateIndexOperation op({meta}, std::move(removed), /*replace=*/false);
  auto committed = table::CommitOperation(dataset, &op);
  if (!committed.ok()) {
    (void)dataset->fs()->DeleteDirRecursive(IndexDir(*dataset, table::IndexUuidString(meta)));
  }
  return committed;
}

Result<std::optional<pb::IndexMetadata>> RemapFtsIndex(const table::Dataset& dataset,
                                                       const pb::IndexMetadata& meta,
                                                       const RowAddressMap& map,
                                                       const std::vector<uint64_t>& new_fragments) {
  if (meta.index_details().type_url() != fts::kInvertedIndexTypeUrl || meta.fields_size() != 1) {
    return std::optional<pb::IndexMetadata>();
  }
  const format::LanceField* field = dataset.lance_schema().FindById(meta.fields(0));
  if (field == nullptr) return std::optional<pb::IndexMetadata>();
  LANCEDB_ASSIGN_OR_RETURN(auto index,
                           fts::InvertedIndex::Open(dataset.fs(), IndexDir(dataset, meta)));
  LANCEDB_ASSIGN_OR_RETURN(auto covered, DecodeFragmentBitmap(meta.fragment_bitmap()));
  std::set<uint64_t> keep(covered.begin(), covered.end());
  // The covered rows are re-read from the snapshot before compaction and indexed under their
  // new addresses: the same postings as the old index without the deleted rows.
  const uint32_t workers = DefaultWorkers();
  LANCEDB_ASSIGN_OR_RETURN(
      auto out,
      WriteIndex(
          dataset, meta.name(), FieldName(dataset, field->id), field->id, index->params(),
          kDefaultWorkerMemoryMib * workers, workers, [&](uint64_t f) { return keep.count(f) > 0; },
          map, new_fragments, meta.dataset_version()));
  out.set_created_at(meta.created_at());
  return std::optional<pb::IndexMetadata>(std::move(out));
}

}  // namespace lancedb::index
