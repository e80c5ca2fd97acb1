// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Key helpers and index file I/O shared by the scalar index implementations.

#include <cmath>

#include "format/file_writer.h"
#include "format/lance_schema.h"
#include "index/scalar/scalar_index_internal.h"

namespace lancedb::index::scalar {

namespace {

int Sign(int64_t c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

}  // namespace

int CompareDoubles(double a, double b) {
  const bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
  return a < b ? -1 : (a > b ? 1 : 0);
}

Key KeyAt(const expr::Vec& v, int64_t i) {
  Key k;
  k.kind = v.kind;
  const auto row = static_cast<size_t>(i);
  switch (v.kind) {
    case expr::ValueKind::kFloat:
      k.f = v.floats[row];
      break;
    case expr::ValueKind::kString:
      k.s = std::string(v.strings[row]);
      break;
    case expr::ValueKind::kBool:
      k.i = v.bools[row];
      break;
    default:
      k.i = v.ints[row];
      k.is_unsigned = v.is_unsigned;
      break;
  }
  return k;
}

int CompareAt(const expr::Vec& v, int64_t i, const Key& key) {
  const auto row = static_cast<size_t>(i);
  switch (v.kind) {
    case expr::ValueKind::kFloat:
      return CompareDoubles(v.floats[row], key.f);
    case expr::ValueKind::kString:
      return Sign(v.strings[row].compare(key.s));
    case expr::ValueKind::kBool:
      return Sign(int64_t{v.bools[row]} - key.i);
    default:
      if (v.is_unsigned || key.is_unsigned) {
        const auto a = static_cast<uint64_t>(v.ints[row]), b = static_cast<uint64_t>(key.i);
        return a < b ? -1 : (a > b ? 1 : 0);
      }
      return v.ints[row] < key.i ? -1 : (v.ints[row] > key.i ? 1 : 0);
  }
}

int CompareRows(const expr::Vec& v, int64_t i, int64_t j) { return CompareAt(v, i, KeyAt(v, j)); }

Result<std::unique_ptr<format::FileReader>> OpenIndexFile(const io::FileSystemPtr& fs,
                                                          const std::string& dir,
                                                          const std::string& name) {
  auto reader = format::FileReader::Open(fs, io::JoinPath(dir, name));
  if (!reader.ok())
    return reader.status().WithContext("Index file '" + name + "' in '" + dir + "'");
  return reader;
}

Result<WrittenFile> WriteIndexFile(const io::FileSystemPtr& fs, const std::string& dir,
                                   const std::string& name, const array::SchemaPtr& schema,
                                   const std::vector<array::RecordBatchPtr>& batches,
                                   const array::KeyValueMetadata& metadata,
                                   const std::vector<std::string>& buffers, int64_t page_rows) {
  LANCEDB_ASSIGN_OR_RETURN(auto lance_schema, format::LanceSchema::FromArrow(*schema));
  lance_schema = format::LanceSchema(lance_schema.fields(), metadata);
  format::FileWriterOptions options;
  options.statistics_zone_rows = 0;  // extra buffers start at 1, as Lance's index files
  options.max_page_rows = page_rows;
  LANCEDB_ASSIGN_OR_RETURN(auto writer, format::FileWriter::Open(fs, io::JoinPath(dir, name),
                                                                 std::move(lance_schema), options));
  for (const auto& batch : batches) {
    Status st = writer->Write(*batch);
    if (!st.ok()) {
      writer->Abort();
      return st;
    }
  }
  for (const auto& b : buffers) writer->AddGlobalBuffer(b);
  auto result = writer->Finish();
  if (!result.ok()) {
    writer->Abort();
    return result.status();
  }
  return WrittenFile{name, result->file_size_bytes};
}

}  // namespace lancedb::index::scalar
