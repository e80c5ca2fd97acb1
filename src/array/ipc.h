// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Arrow IPC stream and file formats (the Arrow columnar spec, "IPC format"), whole-buffer API.
// Reading understands zstd and lz4-frame buffer compression (an i64 uncompressed length
// prefix, -1 meaning stored raw); writing is uncompressed unless asked.
// Lance deletion files are IPC files (lance-format.md §3).

#pragma once

#include <vector>

#include "array/array.h"

namespace lancedb::array::ipc {

enum class Compression : uint8_t { kNone, kLz4Frame, kZstd };

struct WriteOptions {
  Compression compression = Compression::kNone;
};

struct ReadResult {
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
};

/// Serialize `batches` (all of `schema`) as an IPC file ("ARROW1" magic, footer).
Result<BufferPtr> WriteFile(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                            const WriteOptions& options = {});
/// Serialize as an IPC stream (schema message, batches, end-of-stream marker).
Result<BufferPtr> WriteStream(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                              const WriteOptions& options = {});
/// Parse an IPC file. Corruption for malformed input (never a crash); NotSupported for valid
/// features this reader lacks (dictionary encoding, unions, maps, views, big-endian data).
/// Uncompressed buffers of the result are zero-copy slices that keep `data` alive.
Result<ReadResult> ReadFile(const BufferPtr& data);
/// Parse an IPC stream (a missing end-of-stream marker is accepted). Errors and buffer
/// ownership as ReadFile.
Result<ReadResult> ReadStream(const BufferPtr& data);

}  // namespace lancedb::array::ipc
