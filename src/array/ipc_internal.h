// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Private helpers shared by the IPC reader and writer: schema <-> flatbuffers conversion and
// body buffer compression. Not part of the array layer's API.

#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <vector>

#include "array/ipc.h"
#include "array/ipc/File_generated.h"
#include "array/ipc/Message_generated.h"
#include "array/ipc/Schema_generated.h"

namespace lancedb::array::ipc::internal {

namespace fb = ::lancedb::array::ipc::fb;

/// Message and file framing constants (Arrow spec, "Encapsulated message format").
inline constexpr uint32_t kContinuation = 0xFFFFFFFFu;
inline constexpr char kFileMagic[] = "ARROW1";
inline constexpr int64_t kFileMagicSize = 6;
/// Alignment of message metadata and of every buffer inside a body.
inline constexpr int64_t kIpcAlignment = 8;
/// Nesting limit for fields (guards the recursive converters against hostile input).
inline constexpr int kMaxNestingDepth = 48;

/// Serialize `schema` into `fbb`.
flatbuffers::Offset<fb::Schema> SchemaToFlatbuffer(flatbuffers::FlatBufferBuilder& fbb,
                                                   const Schema& schema);
/// Convert a verified flatbuffers schema. Corruption / NotSupported on what we cannot read.
Result<SchemaPtr> SchemaFromFlatbuffer(const fb::Schema* schema);

/// Compress `size` bytes with `codec` into a new buffer (raw frame, no length prefix).
Result<BufferPtr> CompressBuffer(Compression codec, const uint8_t* data, int64_t size);
/// Decompress a frame that must expand to exactly `uncompressed_size` bytes.
Result<BufferPtr> DecompressBuffer(Compression codec, const uint8_t* data, int64_t size,
                                   int64_t uncompressed_size);

}  // namespace lancedb::array::ipc::internal
