// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// ArrowArray and ArrowArrayStream export and import (Arrow C Data / C Stream Interface).

#include "array/c_bridge.h"

#include <cerrno>
#include <limits>
#include <string>
#include <vector>

#include "array/layout.h"

namespace lancedb::array {
namespace {

// ---- Array export ----

/// Owns everything an exported ArrowArray points to and keeps the array alive.
struct ExportedArray {
  ArrayPtr array;
  std::vector<const void*> buffers;
  std::vector<ArrowArray> children;
  std::vector<ArrowArray*> child_pointers;
  ArrowArray dictionary{};  // the values of a dictionary array
};

void ReleaseExportedArray(ArrowArray* array) {
  if (array == nullptr || array->release == nullptr) return;
  for (int64_t i = 0; i < array->n_children; ++i) {
    ArrowArray* child = array->children[i];
    if (child->release != nullptr) child->release(child);
  }
  if (array->dictionary != nullptr && array->dictionary->release != nullptr) {
    array->dictionary->release(array->dictionary);
  }
  delete static_cast<ExportedArray*>(array->private_data);
  array->release = nullptr;
}

void ExportInto(const ArrayPtr& array, ArrowArray* out) {
  auto* priv = new ExportedArray();
  priv->array = array;
  for (const auto& buffer : array->buffers) {
    priv->buffers.push_back(buffer ? buffer->data() : nullptr);
  }
  priv->children.resize(array->children.size());
  for (size_t i = 0; i < array->children.size(); ++i) {
    ExportInto(array->children[i], &priv->children[i]);
    priv->child_pointers.push_back(&priv->children[i]);
  }
  out->length = array->length;
  out->null_count = array->null_count;
  out->offset = array->offset;
  out->n_buffers = static_cast<int64_t>(priv->buffers.size());
  out->n_children = static_cast<int64_t>(priv->children.size());
  out->buffers = priv->buffers.empty() ? nullptr : priv->buffers.data();
  out->children = priv->child_pointers.empty() ? nullptr : priv->child_pointers.data();
  out->dictionary = nullptr;
  if (array->dictionary != nullptr) {
    ExportInto(array->dictionary, &priv->dictionary);
    out->dictionary = &priv->dictionary;
  }
  out->release = ReleaseExportedArray;
  out->private_data = priv;
}

// ---- Array import ----

using Owner = std::shared_ptr<const void>;

/// Take ownership of a moved ArrowArray: release it once, when the last reference dies.
Owner MakeOwner(ArrowArray* moved) {
  return std::shared_ptr<ArrowArray>(moved, [](ArrowArray* a) {
    if (a->release != nullptr) a->release(a);
    delete a;
  });
}

Status ImportError(const DataType& type, const std::string& what) {
  return Status::InvalidArgument("Invalid imported ArrowArray of type " + type.ToString() + ": " +
                                 what);
}

/// Wrap buffer `i` of `c` (`size` bytes) or fail when it is missing but needed.
Result<BufferPtr> WrapBuffer(const ArrowArray& c, const DataType& type, int i, int64_t size,
                             const Owner& owner, bool nullable_pointer) {
  const auto* data = static_cast<const uint8_t*>(c.buffers[i]);
  if (data == nullptr) {
    if (nullable_pointer) return BufferPtr();
    if (size > 0) {
      return ImportError(type, "buffer " + std::to_string(i) + " is null but needs " +
                                   std::to_string(size) + " bytes");
    }
    return Buffer::Allocate(0);
  }
  return Buffer::Wrap(data, size, owner);
}

/// The end offset of an offsets buffer (already wrapped, size checked by the caller).
int64_t LastOffset(const Buffer& offsets, bool large, int64_t index) {
  return large ? offsets.data_as<int64_t>()[index] : offsets.data_as<int32_t>()[index];
}

Result<ArrayPtr> ImportNode(const ArrowArray& c, const DataTypePtr& type, const Owner& owner);

Result<std::vector<ArrayPtr>> ImportChildren(const ArrowArray& c, const DataType& type,
                                             const Owner& owner) {
  const auto& fields = type.fields();
  if (c.n_children != static_cast<int64_t>(fields.size())) {
    return ImportError(type, "has " + std::to_string(c.n_children) + " children, expected " +
                                 std::to_string(fields.size()));
  }
  if (c.n_children > 0 && c.children == nullptr) return ImportError(type, "children is null");
  std::vector<ArrayPtr> children;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (c.children[i] == nullptr)
      return ImportError(type, "child " + std::to_string(i) + " is null");
    LANCEDB_ASSIGN_OR_RETURN(ArrayPtr child, ImportNode(*c.children[i], fields[i]->type(), owner));
    children.push_back(std::move(child));
  }
  return children;
}

Result<ArrayPtr> ImportNode(const ArrowArray& c, const DataTypePtr& type, const Owner& owner) {
  const DataType& t = *type;
  if (c.length < 0 || c.offset < 0 || c.offset > (int64_t{1} << 56) - c.length) {
    return ImportError(
        t, "bad length " + std::to_string(c.length) + " or offset " + std::to_string(c.offset));
  }
  const Layout layout = GetLayout(t);
  if ((c.dictionary != nullptr) != (layout == Layout::kDictionary)) {
    return ImportError(t, c.dictionary != nullptr
                              ? "has a dictionary but is not of a dictionary type"
                              : "has no dictionary");
  }
  const int64_t expected = NumBuffers(layout);
  const bool ok_count =
      c.n_buffers == expected || (layout == Layout::kNull && c.n_buffers == 1 &&
                                  c.buffers != nullptr && c.buffers[0] == nullptr);
  if (!ok_count) {
    return ImportError(
        t, "has " + std::to_string(c.n_buffers) + " buffers, expected " + std::to_string(expected));
  }
  if (c.n_buffers > 0 && c.buffers == nullptr) return ImportError(t, "buffers is null");
  const int64_t end = c.offset + c.length;
  if (layout == Layout::kNull) {
    if (c.n_children != 0) return ImportError(t, "null arrays have no children");
    return ArrayPtr(ArrayData::Make(type, c.length, {}, {}, c.length, c.offset));
  }
  std::vector<BufferPtr> buffers;
  LANCEDB_ASSIGN_OR_RETURN(BufferPtr validity,
                           WrapBuffer(c, t, 0, bit_util::BytesForBits(end), owner, true));
  buffers.push_back(std::move(validity));
  std::vector<ArrayPtr> children;
  switch (layout) {
    case Layout::kBool:
    case Layout::kFixed:
    case Layout::kDictionary: {
      const int width =
          layout == Layout::kDictionary ? t.index_type()->byte_width() : t.byte_width();
      if (width > 0 && end > std::numeric_limits<int64_t>::max() / width) {
        return ImportError(t, "values buffer size overflows");
      }
      const int64_t size = layout == Layout::kBool ? bit_util::BytesForBits(end) : end * width;
      LANCEDB_ASSIGN_OR_RETURN(BufferPtr values, WrapBuffer(c, t, 1, size, owner, false));
      buffers.push_back(std::move(values));
      break;
    }
    case Layout::kBinary:
    case Layout::kList: {
      const bool large = t.has_large_offsets();
      const int64_t offsets_size =
          c.length == 0 && c.buffers[1] == nullptr ? 0 : (end + 1) * (large ? 8 : 4);
      LANCEDB_ASSIGN_OR_RETURN(BufferPtr offsets, WrapBuffer(c, t, 1, offsets_size, owner, false));
      if (offsets_size == 0) offsets = Buffer::Allocate(large ? 8 : 4);
      const int64_t last = offsets_size == 0 ? 0 : LastOffset(*offsets, large, end);
      buffers.push_back(std::move(offsets));
      if (layout == Layout::kBinary) {
        if (last < 0) return ImportError(t, "negative last offset " + std::to_string(last));
        LANCEDB_ASSIGN_OR_RETURN(BufferPtr bytes, WrapBuffer(c, t, 2, last, owner, false));
        buffers.push_back(std::move(bytes));
      }
      break;
    }
    default:
      break;
  }
  if (layout == Layout::kList || layout == Layout::kFixedSizeList || layout == Layout::kStruct) {
    LANCEDB_ASSIGN_OR_RETURN(children, ImportChildren(c, t, owner));
  } else if (c.n_children != 0) {
    return ImportError(t, "has " + std::to_string(c.n_children) + " children, expected none");
  }
  auto data =
      ArrayData::Make(type, c.length, std::move(buffers), std::move(children), -1, c.offset);
  if (layout == Layout::kDictionary) {
    LANCEDB_ASSIGN_OR_RETURN(data->dictionary, ImportNode(*c.dictionary, t.value_type(), owner));
  }
  if (c.null_count >= 0 && c.null_count != data->null_count) {
    return ImportError(t, "null_count is " + std::to_string(c.null_count) +
                              " but the validity bitmap has " + std::to_string(data->null_count) +
                              " nulls");
  }
  return ArrayPtr(std::move(data));
}

// ---- Stream export ----

int ErrnoFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
      return EINVAL;
    case StatusCode::kNotSupported:
      return ENOSYS;
    case StatusCode::kCancelled:
      return ECANCELED;
    default:
      return EIO;
  }
}

/// State of an exported stream: the reader and the text of the last error.
struct ExportedStream {
  std::unique_ptr<RecordBatchReader> reader;
  std::string last_error;

  int Fail(const Status& status) {
    last_error = status.ToString();
    return ErrnoFor(status);
  }
};

ExportedStream* StreamState(ArrowArrayStream* stream) {
  return static_cast<ExportedStream*>(stream->private_data);
}

int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  ExportedStream* state = StreamState(stream);
  Status st = ExportSchema(*state->reader->schema(), out);
  return st.ok() ? 0 : state->Fail(st);
}

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  ExportedStream* state = StreamState(stream);
  Result<RecordBatchPtr> next = state->reader->Next();
  if (!next.ok()) return state->Fail(next.status());
  if (*next == nullptr) {
    out->release = nullptr;
    return 0;
  }
  Status st = ExportRecordBatch(**next, out);
  return st.ok() ? 0 : state->Fail(st);
}

const char* StreamGetLastError(ArrowArrayStream* stream) {
  ExportedStream* state = StreamState(stream);
  return state->last_error.empty() ? nullptr : state->last_error.c_str();
}

void StreamRelease(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) return;
  delete StreamState(stream);
  stream->release = nullptr;
}

// ---- Stream import ----

Status StreamError(ArrowArrayStream* stream, int code, const char* operation) {
  const char* message = stream->get_last_error ? stream->get_last_error(stream) : nullptr;
  std::string text = std::string("ArrowArrayStream ") + operation + " failed (errno " +
                     std::to_string(code) + ")" + (message ? std::string(": ") + message : "");
  switch (code) {
    case EINVAL:
      return Status::InvalidArgument(std::move(text));
    case ENOSYS:
      return Status::NotSupported(std::move(text));
    case ECANCELED:
      return Status::Cancelled(std::move(text));
    default:
      return Status::IOError(std::move(text));
  }
}

/// A reader over an imported C stream, which it owns and releases. Externally synchronized.
class ImportedStreamReader : public RecordBatchReader {
 public:
  explicit ImportedStreamReader(ArrowArrayStream stream) : stream_(stream) {}
  ~ImportedStreamReader() override {
    if (stream_.release != nullptr) stream_.release(&stream_);
  }
  ImportedStreamReader(const ImportedStreamReader&) = delete;
  ImportedStreamReader& operator=(const ImportedStreamReader&) = delete;

  Status Init() {
    ArrowSchema c_schema{};
    int code = stream_.get_schema(&stream_, &c_schema);
    if (code != 0) return StreamError(&stream_, code, "get_schema");
    LANCEDB_ASSIGN_OR_RETURN(schema_, ImportSchema(&c_schema));
    return Status::OK();
  }

  SchemaPtr schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    if (stream_.release == nullptr) return RecordBatchPtr();
    ArrowArray c_array{};
    int code = stream_.get_next(&stream_, &c_array);
    if (code != 0) return StreamError(&stream_, code, "get_next");
    if (c_array.release == nullptr) {
      stream_.release(&stream_);
      return RecordBatchPtr();
    }
    return ImportRecordBatch(&c_array, schema_);
  }

 private:
  ArrowArrayStream stream_;
  SchemaPtr schema_;
};

}  // namespace

Status ExportArray(const ArrayPtr& array, ArrowArray* out) {
  if (array == nullptr) return Status::InvalidArgument("ExportArray: array is null");
  ExportInto(array, out);
  return Status::OK();
}

Status ExportRecordBatch(const RecordBatch& batch, ArrowArray* out, ArrowSchema* out_schema) {
  if (out_schema != nullptr) LANCEDB_RETURN_NOT_OK(ExportSchema(*batch.schema(), out_schema));
  ExportInto(batch.ToStructArray(), out);
  return Status::OK();
}

Result<ArrayPtr> ImportArray(ArrowArray* array, const DataTypePtr& type) {
  if (array == nullptr || array->release == nullptr) {
    return Status::InvalidArgument("ArrowArray is null or already released");
  }
  if (type == nullptr) {
    array->release(array);
    return Status::InvalidArgument("ImportArray needs a type");
  }
  auto* moved = new ArrowArray(*array);
  array->release = nullptr;
  Owner owner = MakeOwner(moved);
  LANCEDB_ASSIGN_OR_RETURN(ArrayPtr imported, ImportNode(*moved, type, owner));
  LANCEDB_RETURN_NOT_OK(ValidateArray(*imported));
  return imported;
}

Result<ArrayPtr> ImportArray(ArrowArray* array, ArrowSchema* type) {
  Result<DataTypePtr> imported_type = ImportType(type);
  if (!imported_type.ok()) {
    if (array != nullptr && array->release != nullptr) array->release(array);
    return imported_type.status();
  }
  return ImportArray(array, *imported_type);
}

Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, SchemaPtr schema) {
  if (schema == nullptr) {
    if (array != nullptr && array->release != nullptr) array->release(array);
    return Status::InvalidArgument("ImportRecordBatch needs a schema");
  }
  LANCEDB_ASSIGN_OR_RETURN(ArrayPtr st, ImportArray(array, struct_(schema->fields())));
  if (st->null_count != 0) {
    return Status::InvalidArgument("An imported record batch must not have null rows, got " +
                                   std::to_string(st->null_count));
  }
  std::vector<ArrayPtr> columns;
  for (const auto& child : st->children) {
    const bool whole = st->offset == 0 && child->length == st->length;
    columns.push_back(whole ? child : Slice(child, st->offset, st->length));
  }
  return RecordBatch::Make(std::move(schema), std::move(columns), st->length);
}

Status ExportRecordBatchReader(std::unique_ptr<RecordBatchReader> reader, ArrowArrayStream* out) {
  if (reader == nullptr) return Status::InvalidArgument("ExportRecordBatchReader: reader is null");
  auto* state = new ExportedStream{std::move(reader), {}};
  out->get_schema = StreamGetSchema;
  out->get_next = StreamGetNext;
  out->get_last_error = StreamGetLastError;
  out->release = StreamRelease;
  out->private_data = state;
  return Status::OK();
}

Result<std::unique_ptr<RecordBatchReader>> ImportArrayStream(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) {
    return Status::InvalidArgument("ArrowArrayStream is null or already released");
  }
  auto reader = std::make_unique<ImportedStreamReader>(*stream);
  stream->release = nullptr;
  LANCEDB_RETURN_NOT_OK(reader->Init());
  return std::unique_ptr<RecordBatchReader>(std::move(reader));
}

}  // namespace lancedb::array
