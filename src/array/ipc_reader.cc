// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Arrow IPC reader (Arrow spec, "IPC format"). Input is untrusted: every flatbuffer is run
// through the flatbuffers Verifier before it is read, every offset and length is checked
// against the bytes it points into, and every decoded array is checked for size consistency
// (then with ValidateArray) before it is handed out. Malformed input yields
// Status::Corruption; valid but unsupported features (dictionaries, unions, ...) NotSupported.
// Uncompressed buffers are zero-copy slices of the input when suitably aligned.

#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "array/ipc_internal.h"

namespace lancedb::array::ipc {

namespace {

using internal::kIpcAlignment;

/// One encapsulated message located in the input.
struct MessageView {
  const fb::Message* message = nullptr;
  BufferPtr metadata;  // keeps `message` alive (a copy when the input was misaligned)
  int64_t body_offset = 0;
  int64_t body_length = 0;
  int64_t end = 0;  // offset just past the body
  bool end_of_stream = false;
};

Status Truncated(const std::string& what, int64_t position) {
  return Status::Corruption("IPC: truncated input: " + what + " at byte " +
                            std::to_string(position));
}

int32_t LoadInt32(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

bool IsAligned(const void* p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

/// Whether the elements of a verified vector of structs are aligned for direct access (the
/// flatbuffers Verifier only checks the 4-byte alignment of the vector's length field).
template <typename T>
bool StructsAligned(const flatbuffers::Vector<const T*>* vector) {
  return vector == nullptr || IsAligned(vector->Data(), alignof(T));
}

/// A zero-copy slice of `data`, or an aligned copy if the slice start is not 8-byte aligned.
BufferPtr SliceAligned(const BufferPtr& data, int64_t offset, int64_t length) {
  if (IsAligned(data->data() + offset, kIpcAlignment)) return Buffer::Slice(data, offset, length);
  return Buffer::Copy(data->data() + offset, length);
}

/// Parse the message starting at `pos` of `data`: its metadata must end by `limit`, its body
/// by `body_limit`.
Result<MessageView> ReadMessage(const BufferPtr& data, int64_t pos, int64_t limit,
                                int64_t body_limit) {
  MessageView view;
  if (pos == limit) {  // a stream may end without the end-of-stream marker
    view.end_of_stream = true;
    view.end = pos;
    return view;
  }
  if (limit - pos < 4) return Truncated("message length", pos);
  int64_t meta_pos = pos + 4;
  int32_t meta_length = LoadInt32(data->data() + pos);
  if (static_cast<uint32_t>(meta_length) == internal::kContinuation) {
    if (limit - pos < 8) return Truncated("message length", pos);
    meta_length = LoadInt32(data->data() + pos + 4);
    meta_pos = pos + 8;
  }
  if (meta_length == 0) {
    view.end_of_stream = true;
    view.end = meta_pos;
    return view;
  }
  if (meta_length < 0) {
    return Status::Corruption("IPC: negative message metadata length at byte " +
                              std::to_string(pos));
  }
  if (meta_length > limit - meta_pos) return Truncated("message metadata", meta_pos);
  view.metadata = SliceAligned(data, meta_pos, meta_length);
  flatbuffers::Verifier verifier(view.metadata->data(), static_cast<size_t>(meta_length));
  if (!fb::VerifyMessageBuffer(verifier)) {
    return Status::Corruption("IPC: invalid message flatbuffer at byte " + std::to_string(pos));
  }
  view.message = fb::GetMessage(view.metadata->data());
  view.body_offset = meta_pos + meta_length;
  view.body_length = view.message->body_length();
  if (view.body_length < 0 || view.body_length > body_limit - view.body_offset) {
    return Truncated("message body of " + std::to_string(view.body_length) + " bytes",
                     view.body_offset);
  }
  view.end = view.body_offset + view.body_length;
  return view;
}

/// Decodes the arrays of one RecordBatch message from its body.
/// Externally synchronized (one per batch).
class BatchDecoder {
 public:
  BatchDecoder(const fb::RecordBatch* batch, BufferPtr body, Compression codec)
      : batch_(batch), body_(std::move(body)), codec_(codec) {}

  Result<ArrayPtr> DecodeArray(const Field& field, int depth);

 private:
  Result<const fb::FieldNode*> NextNode(const Field& field);
  Result<BufferPtr> NextBuffer(const Field& field);
  Status DecodeChildren(const Field& field, int depth, ArrayData* out);
  Status DecodeOffsetsAndValues(const Field& field, int depth, ArrayData* out);

  const fb::RecordBatch* batch_;
  BufferPtr body_;
  Compression codec_;
  flatbuffers::uoffset_t next_node_ = 0;
  flatbuffers::uoffset_t next_buffer_ = 0;
};

Status FieldCorruption(const Field& field, const std::string& what) {
  return Status::Corruption("IPC record batch, field '" + field.name() + "': " + what);
}

Result<const fb::FieldNode*> BatchDecoder::NextNode(const Field& field) {
  const auto* nodes = batch_->nodes();
  if (nodes == nullptr || next_node_ >= nodes->size()) {
    return FieldCorruption(field, "fewer field nodes than the schema needs");
  }
  const fb::FieldNode* node = nodes->Get(next_node_++);
  if (node->length() < 0 || node->null_count() < 0 || node->null_count() > node->length()) {
    return FieldCorruption(field, "invalid length " + std::to_string(node->length()) +
                                      " / null count " + std::to_string(node->null_count()));
  }
  return node;
}

Result<BufferPtr> BatchDecoder::NextBuffer(const Field& field) {
  const auto* buffers = batch_->buffers();
  if (buffers == nullptr || next_buffer_ >= buffers->size()) {
    return FieldCorruption(field, "fewer buffers than the schema needs");
  }
  const fb::Buffer* desc = buffers->Get(next_buffer_++);
  const int64_t offset = desc->offset();
  const int64_t length = desc->length();
  if (offset < 0 || length < 0 || offset > body_->size() || length > body_->size() - offset) {
    return FieldCorruption(field, "buffer [" + std::to_string(offset) + ", +" +
                                      std::to_string(length) + ") outside the " +
                                      std::to_string(body_->size()) + "-byte body");
  }
  if (length == 0) return Buffer::Allocate(0);
  if (codec_ == Compression::kNone) return SliceAligned(body_, offset, length);
  // Arrow spec "Compression": i64 uncompressed length (-1 = stored raw), then the data.
  if (length < 8) return FieldCorruption(field, "compressed buffer shorter than its prefix");
  int64_t uncompressed;
  std::memcpy(&uncompressed, body_->data() + offset, sizeof(uncompressed));
  if (uncompressed == -1) return SliceAligned(body_, offset + 8, length - 8);
  Result<BufferPtr> out =
      internal::DecompressBuffer(codec_, body_->data() + offset + 8, length - 8, uncompressed);
  if (!out.ok()) return out.status().WithContext("field '" + field.name() + "'");
  return out;
}

/// Size of `count` elements of `width` bytes, or -1 on overflow.
int64_t CheckedBytes(int64_t count, int64_t width) {
  if (width != 0 && count > std::numeric_limits<int64_t>::max() / width) return -1;
  return count * width;
}

template <typename Offset>
Status CheckOffsets(const Field& field, const ArrayData& array, int64_t* last) {
  const Offset* offsets = array.buffers[1]->data_as<Offset>();
  if (offsets[0] < 0) return FieldCorruption(field, "negative first offset");
  for (int64_t i = 0; i < array.length; ++i) {
    if (offsets[i + 1] < offsets[i]) return FieldCorruption(field, "offsets are not monotonic");
  }
  *last = offsets[array.length];
  return Status::OK();
}

Status BatchDecoder::DecodeOffsetsAndValues(const Field& field, int depth, ArrayData* out) {
  const DataType& type = *field.type();
  const int64_t width = type.has_large_offsets() ? 8 : 4;
  LANCEDB_ASSIGN_OR_RETURN(BufferPtr offsets, NextBuffer(field));
  if (offsets->size() == 0 && out->length == 0) {
    offsets = Buffer::Allocate(width);  // writers may omit the single 0 of an empty array
  }
  const int64_t needed = CheckedBytes(out->length + 1, width);
  if (needed < 0 || offsets->size() < needed) {
    return FieldCorruption(field, "offsets buffer too small");
  }
  out->buffers.push_back(std::move(offsets));
  int64_t last = 0;
  LANCEDB_RETURN_NOT_OK(width == 8 ? CheckOffsets<int64_t>(field, *out, &last)
                                   : CheckOffsets<int32_t>(field, *out, &last));
  if (type.is_binary_like()) {
    LANCEDB_ASSIGN_OR_RETURN(BufferPtr values, NextBuffer(field));
    if (values->size() < last) return FieldCorruption(field, "offsets point past the data");
    out->buffers.push_back(std::move(values));
    return Status::OK();
  }
  LANCEDB_RETURN_NOT_OK(DecodeChildren(field, depth, out));
  if (out->children[0]->length < last) {
    return FieldCorruption(field, "offsets point past the child array");
  }
  return Status::OK();
}

Status BatchDecoder::DecodeChildren(const Field& field, int depth, ArrayData* out) {
  for (const FieldPtr& child : field.type()->fields()) {
    LANCEDB_ASSIGN_OR_RETURN(ArrayPtr decoded, DecodeArray(*child, depth + 1));
    out->children.push_back(std::move(decoded));
  }
  return Status::OK();
}

Result<ArrayPtr> BatchDecoder::DecodeArray(const Field& field, int depth) {
  if (depth > internal::kMaxNestingDepth) return FieldCorruption(field, "nested too deep");
  const DataType& type = *field.type();
  LANCEDB_ASSIGN_OR_RETURN(const fb::FieldNode* node, NextNode(field));
  auto out = std::make_shared<ArrayData>();
  out->type = field.type();
  out->length = node->length();
  if (type.id() == TypeId::kNull) {
    out->null_count = out->length;
    return ArrayPtr(std::move(out));
  }
  LANCEDB_ASSIGN_OR_RETURN(BufferPtr validity, NextBuffer(field));
  if (node->null_count() > 0) {
    if (validity->size() < bit_util::BytesForBits(out->length)) {
      return FieldCorruption(field, "validity bitmap too small");
    }
    out->null_count = out->length - bit_util::CountSetBits(validity->data(), 0, out->length);
    out->buffers.push_back(std::move(validity));
  } else {
    out->buffers.push_back(nullptr);
  }
  switch (type.id()) {
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kList:
    case TypeId::kLargeList:
      LANCEDB_RETURN_NOT_OK(DecodeOffsetsAndValues(field, depth, out.get()));
      return ArrayPtr(std::move(out));
    case TypeId::kFixedSizeList: {
      LANCEDB_RETURN_NOT_OK(DecodeChildren(field, depth, out.get()));
      int64_t needed = CheckedBytes(out->length, type.fixed_size());
      if (needed < 0 || out->children[0]->length < needed) {
        return FieldCorruption(field, "child array shorter than length * list_size");
      }
      return ArrayPtr(std::move(out));
    }
    case TypeId::kStruct:
      LANCEDB_RETURN_NOT_OK(DecodeChildren(field, depth, out.get()));
      for (const ArrayPtr& child : out->children) {
        if (child->length < out->length) return FieldCorruption(field, "child array too short");
      }
      return ArrayPtr(std::move(out));
    default:
      break;
  }
  // Fixed width: bool (bits), ints, floats, temporal, decimal128, fixed_size_binary.
  LANCEDB_ASSIGN_OR_RETURN(BufferPtr values, NextBuffer(field));
  const int64_t needed = type.id() == TypeId::kBool ? bit_util::BytesForBits(out->length)
                                                    : CheckedBytes(out->length, type.byte_width());
  if (needed < 0 || values->size() < needed)
    return FieldCorruption(field, "values buffer too small");
  out->buffers.push_back(std::move(values));
  return ArrayPtr(std::move(out));
}

Result<Compression> BatchCompression(const fb::RecordBatch* batch) {
  const fb::BodyCompression* compression = batch->compression();
  if (compression == nullptr) return Compression::kNone;
  if (compression->method() != fb::BodyCompressionMethod::BUFFER) {
    return Status::NotSupported("IPC: unknown body compression method");
  }
  switch (compression->codec()) {
    case fb::CompressionType::ZSTD:
      return Compression::kZstd;
    case fb::CompressionType::LZ4_FRAME:
      return Compression::kLz4Frame;
  }
  return Status::Corruption("IPC: unknown compression codec " +
                            std::to_string(static_cast<int>(compression->codec())));
}

Result<RecordBatchPtr> DecodeBatch(const SchemaPtr& schema, const BufferPtr& data,
                                   const MessageView& view) {
  const fb::RecordBatch* header = view.message->header_as_RecordBatch();
  if (header == nullptr) return Status::Corruption("IPC: record batch message without header");
  if (header->length() < 0) return Status::Corruption("IPC: negative record batch length");
  if (!StructsAligned(header->nodes()) || !StructsAligned(header->buffers())) {
    return Status::Corruption("IPC: misaligned field nodes or buffers in record batch header");
  }
  LANCEDB_ASSIGN_OR_RETURN(Compression codec, BatchCompression(header));
  BatchDecoder decoder(header, Buffer::Slice(data, view.body_offset, view.body_length), codec);
  std::vector<ArrayPtr> columns;
  for (const FieldPtr& field : schema->fields()) {
    LANCEDB_ASSIGN_OR_RETURN(ArrayPtr column, decoder.DecodeArray(*field, 0));
    if (column->length != header->length()) {
      return FieldCorruption(*field, "length " + std::to_string(column->length) +
                                         " differs from the batch's " +
                                         std::to_string(header->length()) + " rows");
    }
    Status st = ValidateArray(*column);
    if (!st.ok()) return FieldCorruption(*field, st.message());
    columns.push_back(std::move(column));
  }
  return std::make_shared<RecordBatch>(schema, std::move(columns), header->length());
}

Result<SchemaPtr> DecodeSchemaMessage(const MessageView& view) {
  if (view.end_of_stream) return Status::Corruption("IPC: stream has no schema message");
  if (view.message->header_type() != fb::MessageHeader::Schema) {
    return Status::Corruption("IPC: stream does not start with a schema message");
  }
  return internal::SchemaFromFlatbuffer(view.message->header_as_Schema());
}

}  // namespace

Result<ReadResult> ReadStream(const BufferPtr& data) {
  if (data == nullptr) return Status::InvalidArgument("IPC: null input buffer");
  ReadResult result;
  LANCEDB_ASSIGN_OR_RETURN(MessageView first, ReadMessage(data, 0, data->size(), data->size()));
  LANCEDB_ASSIGN_OR_RETURN(result.schema, DecodeSchemaMessage(first));
  int64_t pos = first.end;
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(MessageView view, ReadMessage(data, pos, data->size(), data->size()));
    if (view.end_of_stream) break;
    pos = view.end;
    switch (view.message->header_type()) {
      case fb::MessageHeader::RecordBatch: {
        LANCEDB_ASSIGN_OR_RETURN(RecordBatchPtr batch, DecodeBatch(result.schema, data, view));
        result.batches.push_back(std::move(batch));
        break;
      }
      case fb::MessageHeader::DictionaryBatch:
        return Status::NotSupported("IPC: dictionary batches are not supported");
      default:
        return Status::Corruption("IPC: unexpected message type " +
                                  std::to_string(static_cast<int>(view.message->header_type())));
    }
  }
  return result;
}

Result<ReadResult> ReadFile(const BufferPtr& data) {
  if (data == nullptr) return Status::InvalidArgument("IPC: null input buffer");
  const int64_t size = data->size();
  constexpr int64_t kMagic = internal::kFileMagicSize;
  // "ARROW1" pad | messages | footer | int32 footer length | "ARROW1"
  if (size < kMagic * 2 + 4 || std::memcmp(data->data(), internal::kFileMagic, kMagic) != 0 ||
      std::memcmp(data->data() + size - kMagic, internal::kFileMagic, kMagic) != 0) {
    return Status::Corruption("IPC: not an Arrow IPC file (missing ARROW1 magic)");
  }
  const int32_t footer_length = LoadInt32(data->data() + size - kMagic - 4);
  const int64_t footer_end = size - kMagic - 4;
  if (footer_length <= 0 || footer_length > footer_end - kMagic) {
    return Status::Corruption("IPC: invalid footer length " + std::to_string(footer_length));
  }
  const int64_t footer_start = footer_end - footer_length;
  BufferPtr footer_bytes = SliceAligned(data, footer_start, footer_length);
  flatbuffers::Verifier verifier(footer_bytes->data(), static_cast<size_t>(footer_length));
  if (!fb::VerifyFooterBuffer(verifier)) return Status::Corruption("IPC: invalid file footer");
  const fb::Footer* footer = fb::GetFooter(footer_bytes->data());
  ReadResult result;
  LANCEDB_ASSIGN_OR_RETURN(result.schema, internal::SchemaFromFlatbuffer(footer->schema()));
  if (footer->dictionaries() != nullptr && footer->dictionaries()->size() > 0) {
    return Status::NotSupported("IPC: dictionary batches are not supported");
  }
  if (footer->record_batches() == nullptr) return result;
  if (!StructsAligned(footer->record_batches())) {
    return Status::Corruption("IPC: misaligned record batch blocks in file footer");
  }
  for (const fb::Block* block : *footer->record_batches()) {
    const int64_t offset = block->offset();
    const int64_t meta = block->meta_data_length();
    if (offset < kMagic || meta <= 0 || offset > footer_start || meta > footer_start - offset ||
        block->body_length() < 0 || block->body_length() > footer_start - offset - meta) {
      return Status::Corruption("IPC: record batch block at " + std::to_string(offset) +
                                " lies outside the file");
    }
    LANCEDB_ASSIGN_OR_RETURN(MessageView view,
                             ReadMessage(data, offset, offset + meta, footer_start));
    if (view.end_of_stream || view.message->header_type() != fb::MessageHeader::RecordBatch) {
      return Status::Corruption("IPC: file block at " + std::to_string(offset) +
                                " is not a record batch");
    }
    // The body follows the block's metadata (whose length includes the prefix and padding).
    view.body_offset = offset + meta;
    if (view.body_length > block->body_length()) {
      return Status::Corruption("IPC: record batch body larger than its file block");
    }
    LANCEDB_ASSIGN_OR_RETURN(RecordBatchPtr batch, DecodeBatch(result.schema, data, view));
    result.batches.push_back(std::move(batch));
  }
  return result;
}

}  // namespace lancedb::array::ipc
