// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Writing new fragments: batches are split into data files of at most max_rows_per_file rows
// (one file per fragment), named as Lance names them (lance-format.md §1.1).

#include <algorithm>

#include "array/dictionary.h"
#include "common/memory.h"
#include "format/file_writer.h"
#include "table/dataset_impl.h"

namespace lancedb::table {

namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

/// Whether `a` holds a NULL (a null count of -1 means not yet counted).
bool HasNulls(const array::ArrayData& a) {
  if (a.null_count >= 0) return a.null_count > 0;
  for (int64_t i = 0; i < a.length; ++i) {
    if (a.IsNull(i)) return true;
  }
  return false;
}

/// Reorder the columns of `batch` to `schema` (matched by name); ordered dictionaries become
/// the unordered ones Lance stores. A NULL in a non-nullable top-level column is refused, as
/// Lance refuses it (with its message).
Result<array::RecordBatchPtr> Conform(const array::RecordBatch& batch,
                                      const array::SchemaPtr& schema) {
  std::vector<array::ArrayPtr> columns;
  for (const auto& field : schema->fields()) {
    auto col = batch.GetColumnByName(field->name());
    if (col == nullptr) {
      return Status::InvalidArgument("Column '" + field->name() + "' is missing from the data");
    }
    if (!field->nullable() && HasNulls(*col)) {
      return Status::InvalidArgument("The field `" + field->name() +
                                     "` contained null values even though the field is marked "
                                     "non-null in the schema");
    }
    if (array::EqualsIgnoringOrdered(*col->type, *field->type())) {
      col = array::Relabel(col, field->type());
    }
    columns.push_back(std::move(col));
  }
  return array::RecordBatch::Make(schema, std::move(columns), batch.num_rows());
}

struct OpenFile {
  std::unique_ptr<format::FileWriter> writer;
  std::string name;
  std::string path;
};

}  // namespace

std::shared_ptr<const format::ExternalBlobBases> ExternalBlobBasesOf(const pb::Manifest& manifest) {
  std::vector<format::BlobBase> bases;
  for (const auto& base : manifest.base_paths()) {
    bases.push_back({base.id(), base.path(), base.is_dataset_root()});
  }
  return std::make_shared<const format::ExternalBlobBases>(std::move(bases));
}

Status CheckAppendSchema(const array::Schema& table, const array::Schema& data) {
  for (const auto& field : data.fields()) {
    if (table.GetFieldIndex(field->name()) < 0) {
      return Status::InvalidArgument(
          "Schema mismatch: column '" + field->name() +
          "' is not in the table; table columns are: " + JoinNames(table.field_names()));
    }
  }
  for (const auto& field : table.fields()) {
    int i = data.GetFieldIndex(field->name());
    if (i < 0) {
      return Status::InvalidArgument("Schema mismatch: column '" + field->name() +
                                     "' of the table is missing from the data; data columns "
                                     "are: " +
                                     JoinNames(data.field_names()));
    }
    const auto& got = data.field(i)->type();
    if (!array::EqualsIgnoringOrdered(*got, *field->type())) {
      return Status::InvalidArgument("Schema mismatch: column '" + field->name() + "' has type " +
                                     got->ToString() + " in the data but " +
                                     field->type()->ToString() + " in the table");
    }
  }
  return Status::OK();
}

Result<format::FileVersion> ParseDataStorageVersion(std::string_view version) {
  if (version == "2.2" || version == "stable") return format::FileVersion{2, 2};
  if (version == "2.1") return format::FileVersion{2, 1};
  std::string name(version);
  if (version == "2.0") name = "2.0 (Lance's legacy encodings)";
  if (version == "legacy" || version == "0.1") name = "legacy (Lance's v1 format, 0.1)";
  return Status::NotSupported("Data storage version " + name +
                              " cannot be written; lancedb-cpp writes versions 2.1 and 2.2");
}

Result<format::FileVersion> WritableFileVersion(const Manifest& manifest, std::string_view action) {
  const std::string version = manifest.data_format_version();
  if (version == "2.1") return format::FileVersion{2, 1};
  if (version == "2.2") return format::FileVersion{2, 2};
  std::string name = version;
  if (version == "2.0") name = "2.0 (Lance's legacy 2.0 encodings)";
  if (version == "0.1") name = "0.1 (Lance's v1 format)";
  return Status::NotSupported(std::string(action) + " a dataset with data file version " + name +
                              " is not supported: lancedb-cpp writes file versions 2.1 and 2.2 "
                              "only");
}

Result<std::vector<pb::DataFragment>> WriteFragments(
    const io::FileSystemPtr& fs, const std::string& root, const format::LanceSchema& schema,
    array::RecordBatchReader* data, const WriteParams& params, const format::FileVersion& version,
    std::vector<std::string>* written) {
  if (params.max_rows_per_file <= 0 || params.max_rows_per_group <= 0) {
    return Status::InvalidArgument("max_rows_per_file and max_rows_per_group must be positive");
  }
  LANCEDB_ASSIGN_OR_RETURN(array::SchemaPtr arrow_schema, schema.ToArrow());
  // Fail before reading any data when the file version cannot hold the schema.
  LANCEDB_RETURN_NOT_OK(format::FileWriter::CheckSchema(schema, version));
  std::vector<pb::DataFragment> fragments;
  OpenFile current;
  auto finish = [&]() -> Status {
    LANCEDB_ASSIGN_OR_RETURN(auto result, current.writer->Finish());
    current.writer.reset();
    ReleaseFreeMemory();  // the file's page buffers, freed on the heap (common/memory.h)
    pb::DataFragment frag;
    frag.set_physical_rows(static_cast<uint64_t>(result.num_rows));
    auto* file = frag.add_files();
    file->set_path(current.name);
    for (int32_t f : result.fields) file->add_fields(f);
    for (int32_t c : result.column_indices) file->add_column_indices(c);
    file->set_file_major_version(result.version.major);
    file->set_file_minor_version(result.version.minor);
    file->set_file_size_bytes(static_cast<uint64_t>(result.file_size_bytes));
    fragments.push_back(std::move(frag));
    if (params.on_file_written) params.on_file_written(result.file_size_bytes);
    return Status::OK();
  };
  auto abort = [&](Status st) -> Status {
    if (current.writer) current.writer->Abort();
    return st;
  };
  while (true) {
    auto next = data->Next();
    if (!next.ok()) return abort(next.status());
    array::RecordBatchPtr batch = *next;
    if (batch == nullptr) break;
    auto conformed = Conform(*batch, arrow_schema);
    if (!conformed.ok()) return abort(conformed.status());
    batch = *conformed;
    int64_t offset = 0;
    while (offset < batch->num_rows()) {
      if (!current.writer) {
        current.name = NewDataFileName();
        current.path = io::JoinPath(io::JoinPath(root, "data"), current.name);
        format::FileWriterOptions file_options;
        file_options.version = version;
        file_options.external_blob_bases = params.external_blob_bases;
        file_options.allow_external_blob_outside_bases = params.allow_external_blob_outside_bases;
        auto writer = format::FileWriter::Open(fs, current.path, schema, file_options);
        if (!writer.ok()) return writer.status();
        current.writer = writer.MoveValueUnsafe();
        written->push_back(current.path);
      }
      int64_t room = params.max_rows_per_file - current.writer->num_rows();
      int64_t n = std::min({room, params.max_rows_per_group, batch->num_rows() - offset});
      Status st = current.writer->Write(*batch->Slice(offset, n));
      if (!st.ok()) return abort(st);
      offset += n;
      if (current.writer->num_rows() >= params.max_rows_per_file) {
        st = finish();
        if (!st.ok()) return abort(st);
      }
    }
  }
  if (current.writer) {
    Status st = finish();
    if (!st.ok()) return abort(st);
  }
  return fragments;
}

}  // namespace lancedb::table
