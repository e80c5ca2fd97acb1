// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Private state of a Dataset snapshot and helpers shared by the dataset_*.cc files.

#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "table/dataset.h"
#include "table/manifest.h"

namespace lancedb::table {

struct Dataset::Impl {
  io::FileSystemPtr fs;
  std::string path;
  ManifestPtr manifest;
  ManifestNaming naming = ManifestNaming::kV2;
  array::SchemaPtr schema;
};

/// Wrap a manifest as a Dataset snapshot (converts the schema to Arrow).
Result<DatasetPtr> MakeDataset(io::FileSystemPtr fs, std::string path, ManifestPtr manifest,
                               ManifestNaming naming);

/// The base paths registered in `manifest`, for external blobs.
std::shared_ptr<const format::ExternalBlobBases> ExternalBlobBasesOf(const pb::Manifest& manifest);

/// A random 16-byte UUID, hyphenated ("8-4-4-4-12").
std::string NewUuid();
/// A data file name in Lance's shape: 24 binary digits, 26 hex digits, ".lance" (§1.1).
std::string NewDataFileName();

/// Check that `data` can be appended to a table of `table` schema: every column present with
/// the same type. InvalidArgument naming the first mismatch.
Status CheckAppendSchema(const array::Schema& table, const array::Schema& data);

/// The file version new data files of the table of `manifest` are written in: the table's own
/// (2.1 or 2.2, Lance forbids mixing). NotSupported for 2.0 and older tables, the message
/// starting with `action` ("Appending to", "Compacting", ...).
Result<format::FileVersion> WritableFileVersion(const Manifest& manifest, std::string_view action);

/// Write the batches of `data` as new fragments (ids unassigned, 0) of data files of file
/// `version` under `{root}/data/`, each file holding at most params.max_rows_per_file rows.
/// Columns are matched to `schema` by name. The full paths written are appended to `written`.
Result<std::vector<pb::DataFragment>> WriteFragments(
    const io::FileSystemPtr& fs, const std::string& root, const format::LanceSchema& schema,
    array::RecordBatchReader* data, const WriteParams& params, const format::FileVersion& version,
    std::vector<std::string>* written);

/// For each top-level field of `fields`, the index of the data file of `frag` that holds it
/// (the last file listing an id of the field's subtree; tombstones (-2) ignored), or -1 when no
/// file does and the field reads as nulls.
std::vector<int> FieldHolders(const pb::DataFragment& frag,
                              const std::vector<format::LanceField>& fields);

/// Full path of a data file of the dataset (resolving base_id).
Result<std::string> DataFilePath(const pb::Manifest& manifest, const std::string& root,
                                 const pb::DataFile& file);

}  // namespace lancedb::table
