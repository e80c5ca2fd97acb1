// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Arrow IPC writer (Arrow spec, "IPC format": encapsulated messages, streaming format, file
// format). Every message is [0xFFFFFFFF][int32 metadata length][Message flatbuffer, padded to
// 8][body]; every body buffer starts at a multiple of 8 and is padded to 8. Arrays are
// flattened depth-first into FieldNodes and buffers; sliced arrays are rebased so that the
// written buffers start at element 0 (bitmaps shifted, offsets made to start at 0).

#include <cstring>
#include <string>
#include <utility>

#include "array/ipc_internal.h"

namespace lancedb::array::ipc {

namespace {

using flatbuffers::FlatBufferBuilder;
using internal::kIpcAlignment;

/// Start of buffer `i` of `array`, or nullptr when absent (allowed for empty arrays).
const uint8_t* BufferData(const ArrayData& array, size_t i) {
  return i < array.buffers.size() && array.buffers[i] != nullptr ? array.buffers[i]->data()
                                                                 : nullptr;
}

/// Accumulates the body of one record batch and its FieldNode / Buffer descriptors.
/// Externally synchronized (one per batch).
class BodyWriter {
 public:
  explicit BodyWriter(Compression compression) : compression_(compression) {}

  /// Flatten the `length` elements of `array` starting at logical index `offset`.
  Status VisitArray(const ArrayData& array, int64_t offset, int64_t length);

  const std::vector<fb::FieldNode>& nodes() const { return nodes_; }
  const std::vector<fb::Buffer>& buffers() const { return buffers_; }
  BufferPtr FinishBody() { return body_.Finish(); }

 private:
  Status AppendBuffer(const uint8_t* data, int64_t size);
  Status AppendBitmap(const uint8_t* bits, int64_t bit_offset, int64_t length);
  template <typename Offset>
  Status AppendOffsets(const ArrayData& array, int64_t start, int64_t length, int64_t* first,
                       int64_t* last);
  Status VisitValidity(const ArrayData& array, int64_t start, int64_t length);

  Compression compression_;
  std::vector<fb::FieldNode> nodes_;
  std::vector<fb::Buffer> buffers_;
  BufferBuilder body_;
};

Status BodyWriter::AppendBuffer(const uint8_t* data, int64_t size) {
  const int64_t start = body_.size();
  if (size > 0 && compression_ == Compression::kNone) {
    body_.Append(data, size);
  } else if (size > 0) {
    // Arrow spec "Compression": an i64 uncompressed length, then the frame; -1 = stored raw.
    LANCEDB_ASSIGN_OR_RETURN(BufferPtr packed, internal::CompressBuffer(compression_, data, size));
    if (packed->size() < size) {
      body_.AppendValue<int64_t>(size);
      body_.Append(packed->span());
    } else {
      body_.AppendValue<int64_t>(-1);
      body_.Append(data, size);
    }
  }
  buffers_.emplace_back(start, body_.size() - start);
  body_.PadTo(kIpcAlignment);
  return Status::OK();
}

Status BodyWriter::AppendBitmap(const uint8_t* bits, int64_t bit_offset, int64_t length) {
  if (length == 0) return AppendBuffer(nullptr, 0);
  const int64_t num_bytes = bit_util::BytesForBits(length);
  if (bit_offset % 8 == 0) return AppendBuffer(bits + bit_offset / 8, num_bytes);
  BufferPtr shifted = Buffer::Allocate(num_bytes);
  bit_util::CopyBits(bits, bit_offset, length, shifted->mutable_data(), 0);
  return AppendBuffer(shifted->data(), num_bytes);
}

Status BodyWriter::VisitValidity(const ArrayData& array, int64_t start, int64_t length) {
  const BufferPtr& validity = array.buffers.empty() ? nullptr : array.buffers[0];
  int64_t null_count = 0;
  if (validity != nullptr && length > 0) {
    null_count = length - bit_util::CountSetBits(validity->data(), start, length);
  }
  nodes_.emplace_back(length, null_count);
  if (null_count == 0) return AppendBuffer(nullptr, 0);
  return AppendBitmap(validity->data(), start, length);
}

/// Write the offsets of elements [start, start+length] rebased to start at 0; report the
/// original first and last offsets (the range of the values / child to write).
template <typename Offset>
Status BodyWriter::AppendOffsets(const ArrayData& array, int64_t start, int64_t length,
                                 int64_t* first, int64_t* last) {
  const int64_t num_bytes = (length + 1) * static_cast<int64_t>(sizeof(Offset));
  if (array.buffers[1] == nullptr || array.buffers[1]->size() < num_bytes) {
    // Only an empty array may omit its offsets (ValidateArray checked); write the single 0.
    const Offset zero = 0;
    *first = *last = 0;
    return AppendBuffer(reinterpret_cast<const uint8_t*>(&zero), sizeof(zero));
  }
  const Offset* offsets = array.buffers[1]->data_as<Offset>() + start;
  *first = offsets[0];
  *last = offsets[length];
  if (*first == 0)
    return AppendBuffer(reinterpret_cast<const uint8_t*>(offsets),
                        (length + 1) * static_cast<int64_t>(sizeof(Offset)));
  std::vector<Offset> rebased(static_cast<size_t>(length) + 1);
  for (int64_t i = 0; i <= length; ++i) rebased[i] = static_cast<Offset>(offsets[i] - *first);
  return AppendBuffer(reinterpret_cast<const uint8_t*>(rebased.data()), num_bytes);
}

Status BodyWriter::VisitArray(const ArrayData& array, int64_t offset, int64_t length) {
  const DataType& type = *array.type;
  const int64_t start = array.offset + offset;
  if (type.id() == TypeId::kNull) {
    // Since metadata V5 the null type has no buffers.
    nodes_.emplace_back(length, length);
    return Status::OK();
  }
  LANCEDB_RETURN_NOT_OK(VisitValidity(array, start, length));
  int64_t first = 0;
  int64_t last = 0;
  switch (type.id()) {
    case TypeId::kBool:
      return AppendBitmap(BufferData(array, 1), start, length);
    case TypeId::kString:
    case TypeId::kBinary:
      LANCEDB_RETURN_NOT_OK(AppendOffsets<int32_t>(array, start, length, &first, &last));
      return AppendBuffer(BufferData(array, 2) + first, last - first);
    case TypeId::kLargeString:
    case TypeId::kLargeBinary:
      LANCEDB_RETURN_NOT_OK(AppendOffsets<int64_t>(array, start, length, &first, &last));
      return AppendBuffer(BufferData(array, 2) + first, last - first);
    case TypeId::kList:
      LANCEDB_RETURN_NOT_OK(AppendOffsets<int32_t>(array, start, length, &first, &last));
      return VisitArray(*array.children[0], first, last - first);
    case TypeId::kLargeList:
      LANCEDB_RETURN_NOT_OK(AppendOffsets<int64_t>(array, start, length, &first, &last));
      return VisitArray(*array.children[0], first, last - first);
    case TypeId::kFixedSizeList: {
      const int64_t size = type.fixed_size();
      return VisitArray(*array.children[0], start * size, length * size);
    }
    case TypeId::kStruct:
      for (const ArrayPtr& child : array.children) {
        LANCEDB_RETURN_NOT_OK(VisitArray(*child, start, length));
      }
      return Status::OK();
    default:
      break;
  }
  const int64_t width = type.byte_width();
  if (width <= 0) {
    return Status::NotSupported("IPC writer: cannot serialize type " + type.ToString());
  }
  if (length == 0) return AppendBuffer(nullptr, 0);
  return AppendBuffer(BufferData(array, 1) + start * width, length * width);
}

/// Append one encapsulated message; return the file Block describing it.
fb::Block AppendMessage(BufferBuilder& out, const FlatBufferBuilder& fbb, const Buffer* body) {
  const int64_t message_offset = out.size();
  const int64_t fb_size = static_cast<int64_t>(fbb.GetSize());
  const int64_t padded = bit_util::RoundUp(8 + fb_size, kIpcAlignment) - 8;
  out.AppendValue<uint32_t>(internal::kContinuation);
  out.AppendValue<int32_t>(static_cast<int32_t>(padded));
  out.Append(fbb.GetBufferPointer(), fb_size);
  out.AppendZeros(padded - fb_size);
  const int64_t body_size = body ? body->size() : 0;
  if (body != nullptr) out.Append(body->span());
  return fb::Block(message_offset, static_cast<int32_t>(8 + padded), body_size);
}

fb::Block AppendSchemaMessage(BufferBuilder& out, const Schema& schema) {
  FlatBufferBuilder fbb;
  auto schema_offset = internal::SchemaToFlatbuffer(fbb, schema);
  fbb.Finish(fb::CreateMessage(fbb, fb::MetadataVersion::V5, fb::MessageHeader::Schema,
                               schema_offset.Union(), 0));
  return AppendMessage(out, fbb, nullptr);
}

Status CheckBatch(const Schema& schema, const RecordBatch& batch) {
  if (batch.num_columns() != schema.num_fields()) {
    return Status::InvalidArgument("IPC writer: batch has " + std::to_string(batch.num_columns()) +
                                   " columns, schema has " + std::to_string(schema.num_fields()));
  }
  for (int i = 0; i < batch.num_columns(); ++i) {
    const ArrayData& column = *batch.column(i);
    if (!column.type->Equals(*schema.field(i)->type())) {
      return Status::InvalidArgument("IPC writer: column '" + schema.field(i)->name() +
                                     "' has type " + column.type->ToString() + ", schema says " +
                                     schema.field(i)->type()->ToString());
    }
    if (column.length != batch.num_rows()) {
      return Status::InvalidArgument("IPC writer: column '" + schema.field(i)->name() +
                                     "' length differs from the batch's row count");
    }
    Status st = ValidateArray(column);
    if (!st.ok()) return st.WithContext("IPC writer: column '" + schema.field(i)->name() + "'");
  }
  return Status::OK();
}

Result<fb::Block> AppendBatchMessage(BufferBuilder& out, const Schema& schema,
                                     const RecordBatch& batch, const WriteOptions& options) {
  LANCEDB_RETURN_NOT_OK(CheckBatch(schema, batch));
  BodyWriter writer(options.compression);
  for (const ArrayPtr& column : batch.columns()) {
    LANCEDB_RETURN_NOT_OK(writer.VisitArray(*column, 0, column->length));
  }
  BufferPtr body = writer.FinishBody();
  FlatBufferBuilder fbb;
  auto nodes = fbb.CreateVectorOfStructs(writer.nodes());
  auto buffers = fbb.CreateVectorOfStructs(writer.buffers());
  flatbuffers::Offset<fb::BodyCompression> compression = 0;
  if (options.compression != Compression::kNone) {
    compression = fb::CreateBodyCompression(fbb,
                                            options.compression == Compression::kZstd
                                                ? fb::CompressionType::ZSTD
                                                : fb::CompressionType::LZ4_FRAME,
                                            fb::BodyCompressionMethod::BUFFER);
  }
  auto header = fb::CreateRecordBatch(fbb, batch.num_rows(), nodes, buffers, compression);
  fbb.Finish(fb::CreateMessage(fbb, fb::MetadataVersion::V5, fb::MessageHeader::RecordBatch,
                               header.Union(), body->size()));
  return AppendMessage(out, fbb, body.get());
}

void AppendEndOfStream(BufferBuilder& out) {
  out.AppendValue<uint32_t>(internal::kContinuation);
  out.AppendValue<int32_t>(0);
}

bool HasDictionary(const DataType& type) {
  if (type.is_dictionary()) return true;
  for (const FieldPtr& f : type.fields()) {
    if (HasDictionary(*f->type())) return true;
  }
  return false;
}

Status CheckSchema(const SchemaPtr& schema) {
  if (schema == nullptr) return Status::InvalidArgument("IPC writer: null schema");
  for (const FieldPtr& f : schema->fields()) {
    if (HasDictionary(*f->type())) {
      return Status::NotSupported("IPC writer: field '" + f->name() + "' of type " +
                                  f->type()->ToString() + " is dictionary encoded");
    }
  }
  return Status::OK();
}

}  // namespace

Result<BufferPtr> WriteStream(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                              const WriteOptions& options) {
  LANCEDB_RETURN_NOT_OK(CheckSchema(schema));
  BufferBuilder out;
  AppendSchemaMessage(out, *schema);
  for (const RecordBatchPtr& batch : batches) {
    LANCEDB_RETURN_NOT_OK(AppendBatchMessage(out, *schema, *batch, options).status());
  }
  AppendEndOfStream(out);
  return out.Finish();
}

Result<BufferPtr> WriteFile(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                            const WriteOptions& options) {
  LANCEDB_RETURN_NOT_OK(CheckSchema(schema));
  // Layout (Arrow spec, "IPC File Format"):
  //   "ARROW1" pad-to-8 | stream (schema, batches, EOS) | Footer | int32 footer size | "ARROW1"
  BufferBuilder out;
  out.Append(internal::kFileMagic, internal::kFileMagicSize);
  out.PadTo(kIpcAlignment);
  AppendSchemaMessage(out, *schema);
  std::vector<fb::Block> blocks;
  for (const RecordBatchPtr& batch : batches) {
    LANCEDB_ASSIGN_OR_RETURN(fb::Block block, AppendBatchMessage(out, *schema, *batch, options));
    blocks.push_back(block);
  }
  AppendEndOfStream(out);
  FlatBufferBuilder fbb;
  auto schema_offset = internal::SchemaToFlatbuffer(fbb, *schema);
  auto dictionaries = fbb.CreateVectorOfStructs(std::vector<fb::Block>{});
  auto record_batches = fbb.CreateVectorOfStructs(blocks);
  fbb.Finish(
      fb::CreateFooter(fbb, fb::MetadataVersion::V5, schema_offset, dictionaries, record_batches));
  out.Append(fbb.GetBufferPointer(), fbb.GetSize());
  out.AppendValue<int32_t>(static_cast<int32_t>(fbb.GetSize()));
  out.Append(internal::kFileMagic, internal::kFileMagicSize);
  return out.Finish();
}

}  // namespace lancedb::array::ipc
