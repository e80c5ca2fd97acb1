// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Building, loading, merging and remapping scalar index segments (scalar_index_manager.h).

#include "index/scalar_index_manager.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>

#include "common/memory.h"
#include "expr/vec.h"
#include "index/segment_cache.h"
#include "index/vector_index.h"
#include "index/vector_index_internal.h"
#include "table/commit.h"
#include "table/create_index_op.h"
#include "table/dataset_impl.h"
#include "table/deletion.h"
#include "table/row_ids.h"
#include "table/stable_row_ids.h"

namespace lancedb::index {

namespace {

using scalar::ScalarIndexType;

SegmentCache<scalar::ScalarIndex>& GetCache() {
  static auto* cache = new SegmentCache<scalar::ScalarIndex>();  // never destroyed: used until exit
  return *cache;
}

/// Field `field_id`, if it is still there.
const format::LanceField* IndexedField(const table::Dataset& dataset, int32_t field_id) {
  return dataset.lance_schema().FindById(field_id);
}

/// `column` split at dots when the schema has no top-level column of that exact name.
std::vector<std::string> ColumnPath(const table::Dataset& dataset, const std::string& column) {
  if (dataset.schema()->GetFieldIndex(column) >= 0) return {column};
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = column.find('.', start);
    parts.push_back(column.substr(start, dot == std::string::npos ? dot : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

/// The field at `column` (a top-level name, or a dotted path into struct members).
const format::LanceField* FindFieldByPath(const table::Dataset& dataset,
                                          const std::string& column) {
  const auto parts = ColumnPath(dataset, column);
  const format::LanceField* field = dataset.lance_schema().FindTopLevel(parts[0]);
  for (size_t i = 1; field != nullptr && i < parts.size(); ++i) {
    const format::LanceField* next = nullptr;
    for (const auto& c : field->children) {
      if (c.name == parts[i]) next = &c;
    }
    field = next;
  }
  return field;
}

Result<array::DataTypePtr> ColumnType(const table::Dataset& dataset, const std::string& column) {
  const auto parts = ColumnPath(dataset, column);
  auto field = dataset.schema()->GetFieldByName(parts[0]);
  for (size_t i = 1; field.ok() && i < parts.size(); ++i) {
    const auto& type = (*field)->type();
    field = Status::InvalidArgument("not a struct member");
    if (type->id() != array::TypeId::kStruct) break;
    for (const auto& child : type->fields()) {
      if (child->name() == parts[i]) field = child;
    }
  }
  if (!field.ok()) {
    return Status::InvalidArgument("Column '" + column + "' not found; columns are: " + [&] {
      std::string names;
      for (const auto& f : dataset.schema()->fields()) {
        names += (names.empty() ? "" : ", ") + f->name();
      }
      return names;
    }());
  }
  return (*field)->type();
}

/// Read `column` (and row ids) of the fragments accepted by `keep` into build inputs.
Result<std::vector<scalar::BuildInput>> ReadColumn(const table::Dataset& dataset,
                                                   const std::string& column,
                                                   const std::function<bool(uint64_t)>& keep) {
  pb::Manifest subset = dataset.manifest().proto();
  subset.clear_fragments();
  for (const auto& f : dataset.manifest().proto().fragments()) {
    if (!keep || keep(f.id())) *subset.add_fragments() = f;
  }
  LANCEDB_ASSIGN_OR_RETURN(auto manifest, table::Manifest::Make(std::move(subset), {}));
  LANCEDB_ASSIGN_OR_RETURN(auto sub, table::MakeDataset(dataset.fs(), dataset.path(), manifest,
                                                        dataset.manifest_naming()));
  const auto path = ColumnPath(dataset, column);
  table::ScanOptions opts;
  opts.columns = {path[0]};
  opts.with_row_id = true;
  opts.batch_size = 65536;
  LANCEDB_ASSIGN_OR_RETURN(auto reader, sub->Scan(opts));
  std::vector<scalar::BuildInput> out;
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (batch == nullptr) break;
    scalar::BuildInput in;
    in.values = batch->column(0);
    for (size_t i = 1; i < path.size(); ++i) {  // a struct member: the parent's nulls apply
      LANCEDB_ASSIGN_OR_RETURN(in.values, expr::StructField(in.values, path[i]));
    }
    const auto& ids = batch->column(1);
    in.row_ids.assign(ids->GetValues<uint64_t>(1), ids->GetValues<uint64_t>(1) + ids->length);
    out.push_back(std::move(in));
  }
  return out;
}

Result<std::vector<uint64_t>> FragmentsOf(const pb::IndexMetadata& meta) {
  return DecodeFragmentBitmap(meta.fragment_bitmap());
}

/// Metadata of a new segment of `type` on field `field_id`, its files in `files`.
pb::IndexMetadata SegmentMetadata(const NewIndexUuid& uuid, const std::string& name,
                                  int32_t field_id, ScalarIndexType type, uint64_t dataset_version,
                                  const std::vector<uint64_t>& fragments,
                                  const std::vector<scalar::WrittenFile>& files) {
  pb::IndexMetadata meta;
  meta.mutable_uuid()->set_uuid(uuid.bytes);
  meta.add_fields(field_id);
  meta.set_name(name);
  meta.set_dataset_version(dataset_version);
  meta.set_fragment_bitmap(EncodeFragmentBitmap(fragments));
  meta.mutable_index_details()->set_type_url(std::string(scalar::ScalarIndexTypeUrl(type)));
  meta.set_index_version(scalar::ScalarIndexVersion(type));
  meta.set_created_at(NowMillis());
  for (const auto& f : files) {
    auto* file = meta.add_files();
    file->set_path(f.name);
    file->set_size_bytes(static_cast<uint64_t>(f.size_bytes));
  }
  return meta;
}

}  // namespace

Result<std::vector<ScalarSegment>> LoadScalarIndices(const table::Dataset& dataset) {
  std::set<uint64_t> present;
  for (const auto& f : dataset.manifest().proto().fragments()) present.insert(f.id());
  std::vector<ScalarSegment> out;
  for (const auto& meta : dataset.manifest().index_section().indices()) {
    auto type = scalar::ScalarIndexTypeFromUrl(meta.index_details().type_url());
    if (!type || meta.fields_size() != 1) continue;
    if (meta.index_version() > scalar::ScalarIndexVersion(*type)) continue;  // newer: scan
    const format::LanceField* field = IndexedField(dataset, meta.fields(0));
    if (field == nullptr) continue;  // column dropped
    ScalarSegment seg;
    seg.name = meta.name();
    seg.column = FieldName(dataset, field->id);
    seg.type = *type;
    LANCEDB_ASSIGN_OR_RETURN(auto frags, FragmentsOf(meta));
    for (uint64_t f : frags) {
      if (present.count(f)) seg.fragments.insert(f);
    }
    const std::string uuid = table::IndexUuidString(meta);
    LANCEDB_ASSIGN_OR_RETURN(
        seg.index,
        GetCache().GetOrOpen(
            dataset.path(), uuid, [&]() -> Result<std::shared_ptr<const scalar::ScalarIndex>> {
              LANCEDB_ASSIGN_OR_RETURN(auto type_of, ColumnType(dataset, seg.column));
              return scalar::OpenScalarIndex(dataset.fs(), IndexDir(dataset, meta), *type, type_of);
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

Result<table::DatasetPtr> CreateScalarIndex(const table::DatasetPtr& dataset,
                                            const std::string& column, ScalarIndexType type,
                                            const CreateIndexOptions& options) {
  const std::string name = options.name.empty() ? column + "_idx" : options.name;
  LANCEDB_ASSIGN_OR_RETURN(auto column_type, ColumnType(*dataset, column));
  LANCEDB_RETURN_NOT_OK(scalar::CheckIndexableType(type, column, *column_type));
  if (!options.replace) {
    for (const auto& m : dataset->manifest().index_section().indices()) {
      if (m.name() == name) {
        return Status::AlreadyExists("Index name '" + name +
                                     "' already exists, please specify a different name or use "
                                     "replace=True");
      }
    }
  }
  const auto* field = FindFieldByPath(*dataset, column);
  if (field == nullptr) return Status::InvalidArgument("Column '" + column + "' not found");
  LANCEDB_ASSIGN_OR_RETURN(auto inputs, ReadColumn(*dataset, column, nullptr));
  NewIndexUuid uuid = MakeIndexUuid();
  const std::string dir = IndexDir(*dataset, uuid.text);
  auto files = scalar::BuildScalarIndex(dataset->fs(), dir, type, column_type, inputs);
  inputs.clear();
  ReleaseFreeMemory();  // the column read and the sort's buffers (common/memory.h)
  if (!files.ok()) {
    (void)dataset->fs()->DeleteDirRecursive(dir);
    return files.status();
  }
  std::vector<uint64_t> fragments;
  for (const auto& f : dataset->manifest().proto().fragments()) fragments.push_back(f.id());
  pb::IndexMetadata meta =
      SegmentMetadata(uuid, name, field->id, type, dataset->version(), fragments, *files);
  table::CreateIndexOperation op({meta}, {}, options.replace);
  auto committed = table::CommitOperation(dataset, &op);
  if (!committed.ok()) (void)dataset->fs()->DeleteDirRecursive(dir);
  return committed;
}

Result<table::DatasetPtr> OptimizeScalarIndex(const table::DatasetPtr& dataset,
                                              const std::string& name) {
  std::vector<const pb::IndexMetadata*> segments;
  for (const auto& m : dataset->manifest().index_section().indices()) {
    if (m.name() == name) segments.push_back(&m);
  }
  if (segments.empty()) return Status::NotFound("Index '" + name + "' not found");
  auto type = scalar::ScalarIndexTypeFromUrl(segments[0]->index_details().type_url());
  if (!type || segments[0]->fields_size() != 1) {
    return Status::NotSupported("Index '" + name + "' is not a scalar index lancedb-cpp merges");
  }
  const format::LanceField* field = IndexedField(*dataset, segments[0]->fields(0));
  if (field == nullptr) return Status::NotFound("The column of index '" + name + "' is gone");
  const std::string column = FieldName(*dataset, field->id);
  LANCEDB_ASSIGN_OR_RETURN(auto column_type, ColumnType(*dataset, column));
  std::set<uint64_t> present, covered;
  for (const auto& f : dataset->manifest().proto().fragments()) present.insert(f.id());
  for (const auto* m : segments) {
    LANCEDB_ASSIGN_OR_RETURN(auto frags, FragmentsOf(*m));
    for (uint64_t f : frags) {
      if (present.count(f)) covered.insert(f);
    }
  }
  if (covered == present && segments.size() == 1) return dataset;
  // The old entries of the fragments still covered, then the rows of the others.
  const bool stable = table::UsesStableRowIds(*dataset);
  std::set<uint64_t> covered_ids;  // with stable row ids: the ids of covered fragments
  if (stable) {
    const auto& manifest = dataset->manifest().proto();
    for (const auto& f : manifest.fragments()) {
      if (!covered.count(f.id())) continue;
      LANCEDB_ASSIGN_OR_RETURN(auto ids, table::FragmentRowIds(*dataset->fs(), dataset->path(), f));
      // Live rows only: an updated row keeps its id, and its new copy is indexed anew.
      std::vector<uint32_t> deleted;
      if (f.has_deletion_file()) {
        LANCEDB_ASSIGN_OR_RETURN(
            deleted, table::ReadDeletions(*dataset->fs(), dataset->path(), manifest, f));
      }
      std::set<uint32_t> gone(deleted.begin(), deleted.end());
      for (size_t off = 0; off < ids.size(); ++off) {
        if (!gone.count(static_cast<uint32_t>(off))) covered_ids.insert(ids[off]);
      }
    }
  }
  std::vector<array::ArrayPtr> keys;
  scalar::IndexEntries merged;
  for (const auto* m : segments) {
    LANCEDB_ASSIGN_OR_RETURN(
        auto index,
        scalar::OpenScalarIndex(dataset->fs(), IndexDir(*dataset, *m), *type, column_type));
    LANCEDB_ASSIGN_OR_RETURN(auto entries, index->ReadAll());
    std::vector<int64_t> keep;
    for (size_t i = 0; i < entries.row_ids.size(); ++i) {
      const uint64_t id = entries.row_ids[i];
      if (stable ? covered_ids.count(id) > 0 : covered.count(id >> 32) > 0) {
        keep.push_back(static_cast<int64_t>(i));
        merged.row_ids.push_back(id);
      }
    }
    LANCEDB_ASSIGN_OR_RETURN(auto kept, array::Take(entries.keys, keep));
    keys.push_back(kept);
    entries.list_nulls.FilterHigh([&](uint32_t high) { return stable || covered.count(high); });
    merged.list_nulls.UnionWith(entries.list_nulls);
  }
  LANCEDB_ASSIGN_OR_RETURN(
      auto inputs, ReadColumn(*dataset, column, [&](uint64_t f) { return !covered.count(f); }));
  if (*type == ScalarIndexType::kLabelList) {
    // New rows as entries: one per item; NULL lists apart.
    for (const auto& in : inputs) {
      for (int64_t r = 0; r < in.values->length; ++r) {
        const uint64_t id = in.row_ids[static_cast<size_t>(r)];
        if (in.values->IsNull(r)) {
          merged.list_nulls.Add(id);
          continue;
        }
        auto [begin, end] = in.values->GetListRange(r);
        merged.row_ids.insert(merged.row_ids.end(), static_cast<size_t>(end - begin), id);
        keys.push_back(array::Slice(in.values->children[0], begin, end - begin));
      }
    }
  } else {
    for (const auto& in : inputs) {
      keys.push_back(in.values);
      merged.row_ids.insert(merged.row_ids.end(), in.row_ids.begin(), in.row_ids.end());
    }
  }
  const auto key_type =
      *type == ScalarIndexType::kLabelList ? column_type->value_type() : column_type;
  merged.keys = array::MakeNullArray(key_type, 0);
  if (!keys.empty()) {
    LANCEDB_ASSIGN_OR_RETURN(merged.keys, array::Concatenate(keys));
  }
  NewIndexUuid uuid = MakeIndexUuid();
  const std::string dir = IndexDir(*dataset, uuid.text);
  auto files = scalar::BuildScalarIndexFromEntries(dataset->fs(), dir, *type, column_type, merged);
  if (!files.ok()) {
    (void)dataset->fs()->DeleteDirRecursive(dir);
    return files.status();
  }
  std::vector<uint64_t> fragments(present.begin(), present.end());
  // As LanceDB: the merged segment keeps the old one's dataset_version.
  pb::IndexMetadata meta = SegmentMetadata(uuid, name, field->id, *type,
                                           segments[0]->dataset_version(), fragments, *files);
  std::vector<pb::IndexMetadata> removed;
  for (const auto* m : segments) removed.push_back(*m);
  table::CreateIndexOperation op({meta}, std::move(removed), /*replace=*/false);
  auto committed = table::CommitOperation(dataset, &op);
  if (!committed.ok()) (void)dataset->fs()->DeleteDirRecursive(dir);
  return committed;
}

Result<std::optional<pb::IndexMetadata>> RemapScalarIndex(
    const table::Dataset& dataset, const pb::IndexMetadata& meta, const RowAddressMap& map,
    const std::vector<uint64_t>& new_fragments) {
  auto type = scalar::ScalarIndexTypeFromUrl(meta.index_details().type_url());
  if (!type || meta.fields_size() != 1) return std::optional<pb::IndexMetadata>();
  const format::LanceField* field = IndexedField(dataset, meta.fields(0));
  if (field == nullptr) return std::optional<pb::IndexMetadata>();
  LANCEDB_ASSIGN_OR_RETURN(auto column_type, ColumnType(dataset, FieldName(dataset, field->id)));
  LANCEDB_ASSIGN_OR_RETURN(
      auto index,
      scalar::OpenScalarIndex(dataset.fs(), IndexDir(dataset, meta), *type, column_type));
  LANCEDB_ASSIGN_OR_RETURN(auto entries, index->ReadAll());
  scalar::IndexEntries remapped;
  std::vector<int64_t> keep;
  for (size_t i = 0; i < entries.row_ids.size(); ++i) {
    auto moved = map(entries.row_ids[i]);
    if (!moved) continue;
    keep.push_back(static_cast<int64_t>(i));
    remapped.row_ids.push_back(*moved);
  }
  LANCEDB_ASSIGN_OR_RETURN(remapped.keys, array::Take(entries.keys, keep));
  for (uint64_t id : entries.list_nulls.ToVector()) {
    if (auto moved = map(id)) remapped.list_nulls.Add(*moved);
  }
  NewIndexUuid uuid = MakeIndexUuid();
  const std::string dir = IndexDir(dataset, uuid.text);
  auto files = scalar::BuildScalarIndexFromEntries(dataset.fs(), dir, *type, column_type, remapped);
  if (!files.ok()) {
    (void)dataset.fs()->DeleteDirRecursive(dir);
    return files.status();
  }
  pb::IndexMetadata out = SegmentMetadata(uuid, meta.name(), meta.fields(0), *type,
                                          meta.dataset_version(), new_fragments, *files);
  out.set_created_at(meta.created_at());
  out.set_index_version(meta.index_version());
  return std::optional<pb::IndexMetadata>(std::move(out));
}

}  // namespace lancedb::index
