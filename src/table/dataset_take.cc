// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Random access by row address (lance-format.md §3): rows are grouped by fragment, read with
// FileReader::Take from the files holding each projected field, then put back in the caller's
// order.

#include <algorithm>
#include <map>

#include "format/blob.h"
#include "format/file_reader.h"
#include "table/dataset_impl.h"

namespace lancedb::table {

namespace {

/// Read `offsets` (sorted, unique) of one fragment as columns of `fields`.
Result<std::vector<array::ArrayPtr>> TakeFromFragment(
    const io::FileSystemPtr& fs, const std::string& root, const pb::Manifest& manifest,
    const pb::DataFragment& frag, const std::vector<format::LanceField>& fields,
    const array::Schema& schema, const std::vector<int64_t>& offsets,
    format::FileReadOptions read_options) {
  std::vector<int> holders = FieldHolders(frag, fields);
  std::vector<array::ArrayPtr> columns(fields.size());
  for (int f = 0; f < frag.files_size(); ++f) {
    std::vector<int32_t> ids;
    std::vector<size_t> outputs;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (holders[i] == f) {
        ids.push_back(fields[i].id);
        outputs.push_back(i);
      }
    }
    if (ids.empty()) continue;
    const auto& file = frag.files(f);
    LANCEDB_ASSIGN_OR_RETURN(auto path, DataFilePath(manifest, root, file));
    int64_t size = file.file_size_bytes() > 0 ? static_cast<int64_t>(file.file_size_bytes()) : -1;
    LANCEDB_ASSIGN_OR_RETURN(auto reader, format::FileReader::Open(fs, path, size, read_options));
    LANCEDB_ASSIGN_OR_RETURN(auto batch, reader->Take(ids, offsets));
    for (size_t j = 0; j < outputs.size(); ++j) {
      columns[outputs[j]] = batch->column(static_cast<int>(j));
    }
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (columns[i] == nullptr) {
      columns[i] = array::MakeNullArray(schema.field(static_cast<int>(i))->type(),
                                        static_cast<int64_t>(offsets.size()));
    }
  }
  return columns;
}

}  // namespace

Result<array::RecordBatchPtr> Dataset::Take(const std::vector<uint64_t>& row_addresses,
                                            const std::vector<std::string>& columns,
                                            bool materialize_blobs) const {
  const auto& manifest = impl_->manifest->proto();
  format::LanceSchema projected = impl_->manifest->schema();
  if (!columns.empty()) {
    LANCEDB_ASSIGN_OR_RETURN(projected, projected.Project(columns));
  }
  LANCEDB_ASSIGN_OR_RETURN(auto schema, format::BlobReadSchema(projected, materialize_blobs));
  std::map<uint64_t, const pb::DataFragment*> fragments;
  for (const auto& frag : manifest.fragments()) fragments[frag.id()] = &frag;
  // fragment id -> sorted unique offsets
  std::map<uint64_t, std::vector<int64_t>> wanted;
  for (uint64_t addr : row_addresses) {
    auto it = fragments.find(addr >> 32);
    uint64_t offset = addr & 0xFFFFFFFFu;
    if (it == fragments.end() || offset >= it->second->physical_rows()) {
      return Status::InvalidArgument("Row address " + std::to_string(addr) + " (fragment " +
                                     std::to_string(addr >> 32) + ", offset " +
                                     std::to_string(offset) + ") does not exist in version " +
                                     std::to_string(version()));
    }
    wanted[addr >> 32].push_back(static_cast<int64_t>(offset));
  }
  // Read each fragment's rows (in fragment id order, offsets ascending); the row at `offset` of
  // fragment `f` lands at first_row[f] + its rank among that fragment's offsets.
  format::FileReadOptions read_options;
  read_options.materialize_blobs = materialize_blobs;
  if (materialize_blobs) read_options.external_blob_bases = external_blob_bases();
  std::vector<array::RecordBatchPtr> parts;
  std::map<uint64_t, int64_t> first_row;
  int64_t base = 0;
  for (auto& [frag_id, offsets] : wanted) {
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    LANCEDB_ASSIGN_OR_RETURN(auto cols,
                             TakeFromFragment(impl_->fs, impl_->path, manifest, *fragments[frag_id],
                                              projected.fields(), *schema, offsets, read_options));
    LANCEDB_ASSIGN_OR_RETURN(
        auto part,
        array::RecordBatch::Make(schema, std::move(cols), static_cast<int64_t>(offsets.size())));
    first_row[frag_id] = base;
    base += static_cast<int64_t>(offsets.size());
    parts.push_back(std::move(part));
  }
  if (parts.empty()) {
    std::vector<array::ArrayPtr> empty;
    for (const auto& field : schema->fields())
      empty.push_back(array::MakeNullArray(field->type(), 0));
    return array::RecordBatch::Make(schema, std::move(empty), 0);
  }
  LANCEDB_ASSIGN_OR_RETURN(auto all, array::ConcatenateBatches(schema, parts));
  std::vector<int64_t> order;
  order.reserve(row_addresses.size());
  bool identity = row_addresses.size() == static_cast<size_t>(base);
  uint64_t frag_id = UINT64_MAX;
  const std::vector<int64_t>* offsets = nullptr;
  int64_t first = 0;
  for (uint64_t addr : row_addresses) {
    if (addr >> 32 != frag_id) {
      frag_id = addr >> 32;
      offsets = &wanted[frag_id];
      first = first_row[frag_id];
    }
    const auto offset = static_cast<int64_t>(addr & 0xFFFFFFFFu);
    const int64_t rank =
        std::lower_bound(offsets->begin(), offsets->end(), offset) - offsets->begin();
    order.push_back(first + rank);
    identity = identity && order.back() == static_cast<int64_t>(order.size()) - 1;
  }
  if (identity) return all;  // addresses given sorted and unique: already in the caller's order
  std::vector<array::ArrayPtr> out;
  for (const auto& col : all->columns()) {
    LANCEDB_ASSIGN_OR_RETURN(auto taken, array::Take(col, order));
    out.push_back(std::move(taken));
  }
  return array::RecordBatch::Make(schema, std::move(out), static_cast<int64_t>(order.size()));
}

}  // namespace lancedb::table
