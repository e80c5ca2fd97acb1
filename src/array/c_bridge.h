// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Zero-copy exchange of types, arrays, record batches and batch streams through the Arrow C
// Data Interface and C Stream Interface (include/lancedb/arrow_c.h).
//
// Export: the produced structures keep the exported objects alive (through their private_data)
// until the consumer calls `release`; buffer pointers are the Buffers' own memory.
// Import: the input structure is moved (its `release` set to null) into the returned object.
// Imported arrays wrap the producer's memory; the producer's release callback runs exactly once,
// when the last Buffer or array referencing it dies. Every imported array is checked with
// ValidateArray. An import that fails still releases its input.
// Thread-safety: the functions are reentrant; an exported stream is externally synchronized.

#pragma once

#include <memory>

#include "array/array.h"
#include "lancedb/arrow_c.h"

namespace lancedb::array {

/// Export a type as an unnamed, nullable ArrowSchema.
Status ExportType(const DataType& type, ArrowSchema* out);
/// Export a field (name, type, nullability, metadata).
Status ExportField(const Field& field, ArrowSchema* out);
/// Export a schema as a "+s" ArrowSchema whose children are the fields.
Status ExportSchema(const Schema& schema, ArrowSchema* out);

/// Export an array zero-copy. `out` keeps `array` alive until released.
Status ExportArray(const ArrayPtr& array, ArrowArray* out);
/// Export a batch as a non-null struct array; also export its schema when `out_schema` is set.
Status ExportRecordBatch(const RecordBatch& batch, ArrowArray* out,
                         ArrowSchema* out_schema = nullptr);

/// Import (and release) an ArrowSchema describing a type.
Result<DataTypePtr> ImportType(ArrowSchema* schema);
/// Import (and release) an ArrowSchema describing a field.
Result<FieldPtr> ImportField(ArrowSchema* schema);
/// Import (and release) a "+s" ArrowSchema describing a schema.
Result<SchemaPtr> ImportSchema(ArrowSchema* schema);

/// Import an array of `type` zero-copy, moving `array`; validated with ValidateArray.
Result<ArrayPtr> ImportArray(ArrowArray* array, const DataTypePtr& type);
/// Import (and release) both structures.
Result<ArrayPtr> ImportArray(ArrowArray* array, ArrowSchema* type);
/// Import a non-null struct array as a batch of `schema`.
Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, SchemaPtr schema);

/// Export a reader as a C stream; the stream owns the reader.
Status ExportRecordBatchReader(std::unique_ptr<RecordBatchReader> reader, ArrowArrayStream* out);
/// Import (move) a C stream as a reader. Producer errors surface with their get_last_error text.
Result<std::unique_ptr<RecordBatchReader>> ImportArrayStream(ArrowArrayStream* stream);

}  // namespace lancedb::array
