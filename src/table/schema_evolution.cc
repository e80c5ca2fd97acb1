// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/schema_evolution.h"

#include <algorithm>
#include <set>

#include "table/dataset_impl.h"

namespace lancedb::table {
namespace {

/// The new columns of one fragment, as one data file.
Result<pb::DataFile> WriteFragmentColumns(const DatasetPtr& ds, const pb::DataFragment& frag,
                                          const format::LanceSchema& added,
                                          const array::SchemaPtr& added_arrow,
                                          const std::vector<std::string>& read_columns,
                                          const ColumnGenerator& generator, int64_t batch_size,
                                          std::vector<std::string>* written) {
  const int64_t rows = static_cast<int64_t>(frag.physical_rows());
  std::vector<array::RecordBatchPtr> batches;
  for (int64_t start = 0; start < rows; start += batch_size) {
    const int64_t n = std::min(batch_size, rows - start);
    array::RecordBatchPtr out;
    if (generator) {
      std::vector<uint64_t> addresses(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        addresses[static_cast<size_t>(i)] = (frag.id() << 32) | static_cast<uint64_t>(start + i);
      }
      LANCEDB_ASSIGN_OR_RETURN(auto input, ds->Take(addresses, read_columns));
      LANCEDB_ASSIGN_OR_RETURN(out, generator(*input));
      if (out == nullptr || out->num_rows() != n) {
        return Status::InvalidArgument("The column transform returned " +
                                       std::to_string(out == nullptr ? 0 : out->num_rows()) +
                                       " rows for a batch of " + std::to_string(n));
      }
      if (!out->schema()->Equals(*added_arrow)) {
        return Status::InvalidArgument("The column transform returned the schema " +
                                       out->schema()->ToString() + " but declared " +
                                       added_arrow->ToString());
      }
    } else {
      std::vector<array::ArrayPtr> nulls;
      for (const auto& f : added_arrow->fields())
        nulls.push_back(array::MakeNullArray(f->type(), n));
      LANCEDB_ASSIGN_OR_RETURN(out, array::RecordBatch::Make(added_arrow, std::move(nulls), n));
    }
    batches.push_back(std::move(out));
  }
  auto reader = array::MakeVectorReader(added_arrow, std::move(batches));
  WriteParams params;
  params.max_rows_per_file = std::max<int64_t>(rows, 1);
  params.external_blob_bases = ds->external_blob_bases();
  LANCEDB_ASSIGN_OR_RETURN(auto version, WritableFileVersion(ds->manifest(), "Adding columns to"));
  LANCEDB_ASSIGN_OR_RETURN(auto frags, WriteFragments(ds->fs(), ds->path(), added, reader.get(),
                                                      params, version, written));
  if (frags.size() != 1 || frags[0].files_size() != 1) {
    return Status::Internal("Adding columns to fragment " + std::to_string(frag.id()) +
                            " did not produce exactly one data file");
  }
  return frags[0].files(0);
}

}  // namespace

Status MergeColumnsOperation::Build(CommitAttempt* a) {
  auto* merge = a->transaction.mutable_merge();
  for (auto& frag : *a->manifest.mutable_fragments()) {
    auto it = added_.find(frag.id());
    if (it == added_.end()) {
      return Status::RetryableCommitConflict(
          "Merge (add columns) conflicts with a concurrent write committed by version " +
          std::to_string(a->base->version()) + ": fragment " + std::to_string(frag.id()) +
          " appeared; retry on the new version");
    }
    for (auto& file : *frag.mutable_files()) {
      for (int k = 0; k < file.fields_size(); ++k) {
        if (tombstoned_.count(file.fields(k))) file.set_fields(k, -2);
      }
    }
    *frag.add_files() = it->second;
    *merge->add_fragments() = frag;
  }
  SetManifestSchema(schema_, &a->manifest);
  for (const auto& f : a->manifest.fields()) *merge->add_schema() = f;
  *merge->mutable_schema_metadata() = a->manifest.schema_metadata();
  return Status::OK();
}

Status ProjectOperation::Build(CommitAttempt* a) {
  SetManifestSchema(schema_, &a->manifest);
  auto* project = a->transaction.mutable_project();
  for (const auto& f : a->manifest.fields()) *project->add_schema() = f;
  return Status::OK();
}

Result<DatasetPtr> AddColumns(const DatasetPtr& ds, const array::Schema& new_columns,
                              const std::vector<std::string>& read_columns,
                              const ColumnGenerator& generator, int64_t batch_size) {
  const Manifest& manifest = ds->manifest();
  LANCEDB_RETURN_NOT_OK(WritableFileVersion(manifest, "Adding columns to").status());
  if (new_columns.num_fields() == 0) {
    return Status::InvalidArgument("add_columns needs at least one new column");
  }
  for (const auto& f : new_columns.fields()) {
    if (ds->schema()->GetFieldIndex(f->name()) >= 0) {
      return Status::InvalidArgument("Column '" + f->name() + "' already exists in the table");
    }
    if (!generator && !f->nullable()) {
      return Status::InvalidArgument("Column '" + f->name() +
                                     "' is not nullable but is added with only NULL values");
    }
  }
  for (const auto& c : read_columns) {
    if (ds->schema()->GetFieldIndex(c) < 0) {
      return ds->schema()->GetFieldByName(c).status().WithContext("read_columns");
    }
  }
  const int32_t first_id = manifest.schema().MaxFieldId() + 1;
  LANCEDB_ASSIGN_OR_RETURN(auto added, format::LanceSchema::FromArrow(new_columns, first_id));
  LANCEDB_ASSIGN_OR_RETURN(auto added_arrow, added.ToArrow());
  std::vector<format::LanceField> all = manifest.schema().fields();
  for (const auto& f : added.fields()) all.push_back(f);
  format::LanceSchema schema(std::move(all), manifest.schema().metadata());

  std::map<uint64_t, pb::DataFile> files;
  std::vector<std::string> written;
  for (const auto& frag : manifest.proto().fragments()) {
    auto file = WriteFragmentColumns(ds, frag, added, added_arrow, read_columns, generator,
                                     std::max<int64_t>(batch_size, 1), &written);
    if (!file.ok()) {
      for (const auto& p : written) (void)ds->fs()->DeleteFile(p);
      return file.status();
    }
    files.emplace(frag.id(), file.MoveValueUnsafe());
  }
  MergeColumnsOperation op(std::move(files), std::move(schema));
  op.data_files = std::move(written);
  return CommitOperation(ds, &op);
}

namespace {

void CollectIds(const format::LanceField& field, std::set<int32_t>* ids) {
  ids->insert(field.id);
  for (const auto& child : field.children) CollectIds(child, ids);
}

/// Replace the field at dot path `path` (struct members below the top level) in `fields` with
/// one of type `type` and fresh ids from `*next_id`; return the position of its top-level field.
Result<size_t> ReplaceField(std::vector<format::LanceField>* fields, const std::string& path,
                            const array::DataTypePtr& type, int32_t* next_id) {
  std::vector<format::LanceField>* level = fields;
  format::LanceField* target = nullptr;
  size_t top = 0;
  for (size_t start = 0, end = 0; end != std::string::npos; start = end + 1) {
    end = path.find('.', start);
    const std::string part = path.substr(start, end == std::string::npos ? end : end - start);
    if (target != nullptr && target->logical_type != "struct") {
      return Status::InvalidArgument("Cannot cast '" + path + "': '" + target->name +
                                     "' is not a struct");
    }
    auto it = std::find_if(level->begin(), level->end(),
                           [&part](const format::LanceField& f) { return f.name == part; });
    if (it == level->end()) {
      return Status::InvalidArgument("Column '" + path + "' not found in the table schema");
    }
    if (target == nullptr) top = static_cast<size_t>(it - level->begin());
    target = &*it;
    level = &target->children;
  }
  const auto arrow =
      array::schema({array::field(target->name, type, target->nullable, target->metadata)});
  LANCEDB_ASSIGN_OR_RETURN(auto one, format::LanceSchema::FromArrow(*arrow, *next_id));
  *next_id = one.MaxFieldId() + 1;
  format::LanceField replacement = one.fields()[0];
  replacement.parent_id = target->parent_id;  // its children already point at it
  *target = std::move(replacement);
  return top;
}

}  // namespace

Result<DatasetPtr> CastColumns(const DatasetPtr& ds,
                               const std::vector<std::pair<std::string, array::DataTypePtr>>& casts,
                               const ColumnConverter& convert, int64_t batch_size,
                               const SchemaFinisher& finish) {
  const Manifest& manifest = ds->manifest();
  LANCEDB_RETURN_NOT_OK(WritableFileVersion(manifest, "Changing column types in").status());
  // Each top-level column holding a cast field is rewritten whole into one new file per
  // fragment: the cast fields get new ids, the others keep theirs (as Lance).
  std::vector<format::LanceField> fields = manifest.schema().fields();
  std::vector<size_t> rewritten;  // positions in `fields`, in the order of first cast
  std::set<int32_t> old_ids;      // every id of the rewritten columns, tombstoned in old files
  int32_t next_id = manifest.schema().MaxFieldId() + 1;
  for (const auto& [path, type] : casts) {
    LANCEDB_ASSIGN_OR_RETURN(size_t top, ReplaceField(&fields, path, type, &next_id));
    if (std::find(rewritten.begin(), rewritten.end(), top) == rewritten.end()) {
      rewritten.push_back(top);
      CollectIds(manifest.schema().fields()[top], &old_ids);
    }
  }
  std::vector<format::LanceField> added_fields;
  std::vector<std::string> names;
  for (size_t top : rewritten) {
    added_fields.push_back(fields[top]);
    names.push_back(fields[top].name);
  }
  format::LanceSchema added(std::move(added_fields), {});
  LANCEDB_ASSIGN_OR_RETURN(auto added_arrow, added.ToArrow());
  ColumnGenerator generator = [&](const array::RecordBatch& rows) -> Result<array::RecordBatchPtr> {
    std::vector<array::ArrayPtr> columns;
    for (const auto& f : added_arrow->fields()) {
      LANCEDB_ASSIGN_OR_RETURN(auto converted, convert(rows.GetColumnByName(f->name()), f->type()));
      if (!f->nullable() && converted->null_count != 0) {
        return Status::InvalidArgument("Casting column '" + f->name() +
                                       "' produced NULLs in a non-nullable column");
      }
      columns.push_back(std::move(converted));
    }
    return array::RecordBatch::Make(added_arrow, std::move(columns), rows.num_rows());
  };
  std::map<uint64_t, pb::DataFile> files;
  std::vector<std::string> written;
  for (const auto& frag : manifest.proto().fragments()) {
    auto file = WriteFragmentColumns(ds, frag, added, added_arrow, names, generator,
                                     std::max<int64_t>(batch_size, 1), &written);
    if (!file.ok()) {
      for (const auto& p : written) (void)ds->fs()->DeleteFile(p);
      return file.status();
    }
    files.emplace(frag.id(), file.MoveValueUnsafe());
  }
  if (finish) {
    auto finished = finish(std::move(fields));
    if (!finished.ok()) {
      for (const auto& p : written) (void)ds->fs()->DeleteFile(p);
      return finished.status();
    }
    fields = finished.MoveValueUnsafe();
  }
  // The old columns are tombstoned in the files that hold them.
  MergeColumnsOperation op(std::move(files),
                           format::LanceSchema(std::move(fields), manifest.schema().metadata()),
                           old_ids);
  op.data_files = std::move(written);
  return CommitOperation(ds, &op);
}

Status ReplaceColumnOperation::Build(CommitAttempt* a) {
  auto* merge = a->transaction.mutable_merge();
  size_t replaced = 0;
  for (auto& frag : *a->manifest.mutable_fragments()) {
    auto it = added_.find(frag.id());
    if (it != added_.end()) {
      for (auto& file : *frag.mutable_files()) {
        for (int k = 0; k < file.fields_size(); ++k) {
          if (tombstoned_.count(file.fields(k))) file.set_fields(k, -2);
        }
      }
      *frag.add_files() = it->second;
      ++replaced;
    }
    *merge->add_fragments() = frag;
  }
  if (replaced != added_.size()) {
    return Status::RetryableCommitConflict(
        "Replacing column values conflicts with a concurrent write committed by version " +
        std::to_string(a->base->version()) +
        ": a fragment was rewritten or removed; retry on "
        "the new version");
  }
  for (const auto& f : a->manifest.fields()) *merge->add_schema() = f;
  *merge->mutable_schema_metadata() = a->manifest.schema_metadata();
  return Status::OK();
}

Result<DatasetPtr> ReplaceColumnValues(const DatasetPtr& ds, const std::string& column,
                                       const std::map<uint64_t, array::ArrayPtr>& values) {
  const Manifest& manifest = ds->manifest();
  LANCEDB_RETURN_NOT_OK(WritableFileVersion(manifest, "Replacing column values in").status());
  const auto& fields = manifest.schema().fields();
  auto field = std::find_if(fields.begin(), fields.end(),
                            [&](const format::LanceField& f) { return f.name == column; });
  if (field == fields.end()) {
    return Status::InvalidArgument("Column '" + column + "' not found in the table schema");
  }
  std::set<int32_t> ids;
  CollectIds(*field, &ids);
  format::LanceSchema one({*field}, {});
  LANCEDB_ASSIGN_OR_RETURN(auto one_arrow, one.ToArrow());
  std::map<uint64_t, const pb::DataFragment*> fragments;
  for (const auto& frag : manifest.proto().fragments()) fragments[frag.id()] = &frag;
  std::map<uint64_t, pb::DataFile> files;
  std::vector<std::string> written;
  auto write_one = [&](uint64_t id, const array::ArrayPtr& column_values) -> Status {
    auto frag = fragments.find(id);
    if (frag == fragments.end()) {
      return Status::InvalidArgument("Fragment " + std::to_string(id) + " is not in version " +
                                     std::to_string(ds->version()));
    }
    const auto rows = static_cast<int64_t>(frag->second->physical_rows());
    if (column_values == nullptr || column_values->length != rows) {
      return Status::InvalidArgument("New values for fragment " + std::to_string(id) +
                                     " must hold its " + std::to_string(rows) + " rows");
    }
    LANCEDB_ASSIGN_OR_RETURN(auto batch,
                             array::RecordBatch::Make(one_arrow, {column_values}, rows));
    auto reader = array::MakeVectorReader(one_arrow, {batch});
    WriteParams params;
    params.max_rows_per_file = std::max<int64_t>(rows, 1);
    params.external_blob_bases = ds->external_blob_bases();
    LANCEDB_ASSIGN_OR_RETURN(auto version,
                             WritableFileVersion(ds->manifest(), "Replacing column values in"));
    LANCEDB_ASSIGN_OR_RETURN(auto frags, WriteFragments(ds->fs(), ds->path(), one, reader.get(),
                                                        params, version, &written));
    if (frags.size() != 1 || frags[0].files_size() != 1) {
      return Status::Internal("Replacing column values of fragment " + std::to_string(id) +
                              " did not produce exactly one data file");
    }
    files.emplace(id, frags[0].files(0));
    return Status::OK();
  };
  for (const auto& [id, column_values] : values) {
    Status st = write_one(id, column_values);
    if (!st.ok()) {
      for (const auto& p : written) (void)ds->fs()->DeleteFile(p);
      return st;
    }
  }
  ReplaceColumnOperation op(std::move(files), std::move(ids));
  op.data_files = std::move(written);
  return CommitOperation(ds, &op);
}

Result<DatasetPtr> CommitProjectedSchema(const DatasetPtr& ds, format::LanceSchema schema) {
  ProjectOperation op(std::move(schema));
  return CommitOperation(ds, &op);
}

}  // namespace lancedb::table
