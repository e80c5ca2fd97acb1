// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// 2.0 page encodings (lance-format.md §2.2). Layouts decoded here:
//   Flat{bits, buffer}        n values of `bits` bits (1 = LSB-first bitmap); the buffer may be a
//                             zstd block (u64 LE size prefix, or a bare frame) or an lz4 block
//                             (u32 LE size prefix) when `compression` names one
//   Nullable                  no_nulls{values} | some_nulls{validity bitmap, values} | all_nulls
//   Binary{indices, bytes}    indices: end offsets without the leading 0; a null value stores
//                             end + null_adjustment
//   Dictionary                indices 1-based into `items` (0 = null)
//   FixedSizeList{dim, items} n * dim items
//   FixedSizeBinary{bytes, w} binary values of w bytes each

#include "format/v20_decoder.h"

#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <limits>

#include "array/dictionary.h"
#include "format/bitpacking.h"
#include "format/fsst.h"

namespace lancedb::format {
namespace {

using array::ArrayData;
using array::ArrayPtr;
using array::DataTypePtr;
using array::TypeId;

constexpr uint64_t kMaxDecompressed = uint64_t{1} << 34;

Status Unsupported(const pb20::ArrayEncoding& encoding, const std::string& what) {
  return Status::NotSupported("2.0 encoding '" + V20EncodingName(encoding) + "' " + what);
}

Result<BufferPtr> Decompress(const pb20::Compression& compression, const BufferPtr& raw) {
  const std::string& scheme = compression.scheme();
  const uint8_t* data = raw->data();
  const size_t size = static_cast<size_t>(raw->size());
  if (scheme == "zstd") {
    if (size == 0) return Buffer::Allocate(0);
    uint32_t magic = 0;
    if (size >= 8) std::memcpy(&magic, data, 4);
    const bool bare_frame = size < 8 || (magic == 0xFD2FB528u && (data[4] & 0x10) == 0);
    const uint8_t* frame = data;
    size_t frame_size = size;
    uint64_t out_size = 0;
    if (bare_frame) {
      const unsigned long long content = ZSTD_getFrameContentSize(data, size);
      if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN) {
        return Status::Corruption("zstd buffer without a readable content size");
      }
      out_size = content;
    } else {
      std::memcpy(&out_size, data, 8);
      frame += 8;
      frame_size -= 8;
    }
    if (out_size > kMaxDecompressed) return Status::Corruption("zstd buffer claims a huge size");
    auto out = Buffer::AllocateUninitialized(static_cast<int64_t>(out_size));
    const size_t n = ZSTD_decompress(out->mutable_data(), out_size, frame, frame_size);
    if (ZSTD_isError(n) || n != out_size) {
      return Status::Corruption(std::string("zstd decompression failed: ") +
                                (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short output"));
    }
    return out;
  }
  if (scheme == "lz4") {
    if (size < 4) return Status::Corruption("lz4 buffer shorter than its size prefix");
    uint32_t out_size = 0;
    std::memcpy(&out_size, data, 4);
    if (out_size > static_cast<uint32_t>(std::numeric_limits<int>::max()) ||
        size - 4 > static_cast<size_t>(std::numeric_limits<int>::max())) {
      return Status::Corruption("lz4 buffer too large");
    }
    auto out = Buffer::AllocateUninitialized(out_size);
    const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(data + 4),
                                      reinterpret_cast<char*>(out->mutable_data()),
                                      static_cast<int>(size - 4), static_cast<int>(out_size));
    if (n < 0 || static_cast<uint32_t>(n) != out_size) {
      return Status::Corruption("lz4 decompression failed");
    }
    return out;
  }
  return Status::NotSupported("2.0 buffer compression '" + scheme + "'");
}

/// The bytes of a Flat encoding holding at least `num_values` values of its width.
Result<BufferPtr> FlatBytes(const pb20::Flat& flat, int64_t num_values,
                            const V20BufferSource& buffers) {
  const uint64_t bits = flat.bits_per_value();
  if (bits == 0 || bits > 1u << 20 || (bits != 1 && bits % 8 != 0)) {
    return Status::NotSupported("2.0 flat encoding of " + std::to_string(bits) + " bits");
  }
  if (num_values < 0 || static_cast<uint64_t>(num_values) > (uint64_t{1} << 62) / bits) {
    return Status::Corruption("2.0 flat encoding with an impossible value count");
  }
  const uint64_t need = (static_cast<uint64_t>(num_values) * bits + 7) / 8;
  LANCEDB_ASSIGN_OR_RETURN(BufferPtr buffer, buffers(flat.buffer()));
  if (flat.has_compression() && !flat.compression().scheme().empty() &&
      flat.compression().scheme() != "none") {
    LANCEDB_ASSIGN_OR_RETURN(buffer, Decompress(flat.compression(), buffer));
  }
  if (static_cast<uint64_t>(buffer->size()) < need) {
    return Status::Corruption("2.0 flat buffer has " + std::to_string(buffer->size()) + " bytes; " +
                              std::to_string(need) + " needed for " + std::to_string(num_values) +
                              " values of " + std::to_string(bits) + " bits");
  }
  return buffer;
}

/// BitpackedForNonNeg: FastLanes blocks of 1024 values packed at `compressed` bits, the last
/// block zero-padded. Returns `num_values` words of `uncompressed` bits.
Result<BufferPtr> BitpackedBytes(const pb20::BitpackedForNonNeg& packed, int64_t num_values,
                                 const V20BufferSource& buffers) {
  const uint64_t word = packed.uncompressed_bits_per_value();
  const uint64_t width = packed.compressed_bits_per_value();
  if ((word != 8 && word != 16 && word != 32 && word != 64) || width > word) {
    return Status::NotSupported("2.0 bit-packing of " + std::to_string(width) + " into " +
                                std::to_string(word) + " bits");
  }
  if (num_values < 0 || num_values > (int64_t{1} << 40)) {
    return Status::Corruption("2.0 bit-packed page with an impossible value count");
  }
  const int64_t blocks = (num_values + kFastLanesBlock - 1) / kFastLanesBlock;
  const int64_t block_bytes = static_cast<int64_t>(kFastLanesBlock * width / 8);
  LANCEDB_ASSIGN_OR_RETURN(auto bytes, buffers(packed.buffer()));
  if (bytes->size() < blocks * block_bytes) {
    return Status::Corruption("2.0 bit-packed buffer has " + std::to_string(bytes->size()) +
                              " bytes; " + std::to_string(blocks * block_bytes) + " needed");
  }
  const int64_t word_bytes = static_cast<int64_t>(word / 8);
  auto out = Buffer::Allocate(blocks * kFastLanesBlock * word_bytes);
  for (int64_t b = 0; b < blocks; ++b) {
    UnpackFastLanes(static_cast<int>(word), static_cast<int>(width),
                    bytes->data() + b * block_bytes,
                    out->mutable_data() + b * kFastLanesBlock * word_bytes);
  }
  return out;
}

/// Unsigned integers (offsets, indices) of any byte width.
Result<std::vector<uint64_t>> DecodeUnsigned(const pb20::ArrayEncoding& encoding,
                                             int64_t num_values, const V20BufferSource& buffers) {
  if (encoding.has_nullable() && encoding.nullable().has_no_nulls()) {
    return DecodeUnsigned(encoding.nullable().no_nulls().values(), num_values, buffers);
  }
  BufferPtr bytes;
  uint64_t bits = 0;
  if (encoding.has_bitpacked_for_non_neg()) {
    bits = encoding.bitpacked_for_non_neg().uncompressed_bits_per_value();
    LANCEDB_ASSIGN_OR_RETURN(bytes,
                             BitpackedBytes(encoding.bitpacked_for_non_neg(), num_values, buffers));
  } else if (encoding.has_flat()) {
    bits = encoding.flat().bits_per_value();
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
      return Status::NotSupported("2.0 integer offsets or indices of " + std::to_string(bits) +
                                  " bits");
    }
    LANCEDB_ASSIGN_OR_RETURN(bytes, FlatBytes(encoding.flat(), num_values, buffers));
  } else {
    return Unsupported(encoding, "for offsets or indices");
  }
  std::vector<uint64_t> out(static_cast<size_t>(num_values));
  const size_t width = bits / 8;
  for (size_t i = 0; i < out.size(); ++i) {
    uint64_t v = 0;
    std::memcpy(&v, bytes->data() + i * width, width);  // little endian
    out[i] = v;
  }
  return out;
}

/// A validity bitmap of `num_values` bits.
Result<BufferPtr> DecodeBitmap(const pb20::ArrayEncoding& encoding, int64_t num_values,
                               const V20BufferSource& buffers) {
  if (encoding.has_nullable() && encoding.nullable().has_no_nulls()) {
    return DecodeBitmap(encoding.nullable().no_nulls().values(), num_values, buffers);
  }
  if (!encoding.has_flat() || encoding.flat().bits_per_value() != 1) {
    return Unsupported(encoding, "for a validity bitmap");
  }
  return FlatBytes(encoding.flat(), num_values, buffers);
}

ArrayPtr WithValidity(const ArrayPtr& values, BufferPtr validity) {
  auto out = std::make_shared<ArrayData>(*values);
  if (out->buffers.empty()) return out;  // the null type
  if (out->buffers[0] != nullptr) {
    // Combine with the values' own validity (e.g. a dictionary item that is null).
    auto combined = Buffer::Copy(validity->data(), (out->length + 7) / 8);
    for (int64_t i = 0; i < out->length; ++i) {
      if (!bit_util::GetBit(out->buffers[0]->data(), out->offset + i)) {
        bit_util::ClearBit(combined->mutable_data(), i);
      }
    }
    validity = combined;
  }
  out->buffers[0] = std::move(validity);
  out->null_count = array::ComputeNullCount(*out);
  return out;
}

Result<ArrayPtr> MakeBinary(const DataTypePtr& type, const std::vector<uint64_t>& ends,
                            const std::vector<uint8_t>& valid, BufferPtr bytes) {
  const int64_t n = static_cast<int64_t>(ends.size());
  const uint64_t total = ends.empty() ? 0 : ends.back();
  BufferPtr offsets;
  if (type->has_large_offsets()) {
    std::vector<int64_t> o(ends.size() + 1, 0);
    for (size_t i = 0; i < ends.size(); ++i) o[i + 1] = static_cast<int64_t>(ends[i]);
    offsets = Buffer::FromVector(o);
  } else {
    if (total > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      return Status::Corruption("2.0 binary page of " + std::to_string(total) +
                                " bytes does not fit 32-bit offsets");
    }
    std::vector<int32_t> o(ends.size() + 1, 0);
    for (size_t i = 0; i < ends.size(); ++i) o[i + 1] = static_cast<int32_t>(ends[i]);
    offsets = Buffer::FromVector(o);
  }
  BufferPtr validity;
  int64_t nulls = 0;
  for (uint8_t v : valid) nulls += v ? 0 : 1;
  if (nulls > 0) {
    validity = Buffer::Allocate((n + 7) / 8);
    for (int64_t i = 0; i < n; ++i) {
      if (valid[static_cast<size_t>(i)]) bit_util::SetBit(validity->mutable_data(), i);
    }
  }
  return ArrayPtr(ArrayData::Make(type, n, {validity, offsets, std::move(bytes)}, {}, nulls));
}

Result<ArrayPtr> DecodeBinary(const pb20::Binary& binary, const DataTypePtr& type,
                              int64_t num_values, const V20BufferSource& buffers) {
  if (!type->is_binary_like()) {
    return Status::NotSupported("2.0 binary encoding for type " + type->ToString());
  }
  LANCEDB_ASSIGN_OR_RETURN(auto raw, DecodeUnsigned(binary.indices(), num_values, buffers));
  const uint64_t adjustment = binary.null_adjustment();
  std::vector<uint8_t> valid(raw.size(), 1);
  uint64_t prev = 0;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (adjustment > 0 && raw[i] >= adjustment) {
      valid[i] = 0;
      raw[i] -= adjustment;
    }
    if (raw[i] < prev)
      return Status::Corruption("2.0 binary offsets decrease at value " + std::to_string(i));
    prev = raw[i];
  }
  if (prev > kMaxDecompressed) return Status::Corruption("2.0 binary page claims a huge size");
  LANCEDB_ASSIGN_OR_RETURN(auto bytes, DecodeV20Bytes(binary.bytes(), prev, buffers));
  return MakeBinary(type, raw, valid, std::move(bytes));
}

Result<ArrayPtr> DecodeDictionary(const pb20::Dictionary& dict, const DataTypePtr& type,
                                  int64_t num_values, const V20BufferSource& buffers) {
  const int64_t num_items = dict.num_dictionary_items();
  LANCEDB_ASSIGN_OR_RETURN(auto items, DecodeV20Array(dict.items(), type, num_items, buffers));
  LANCEDB_ASSIGN_OR_RETURN(auto indices, DecodeUnsigned(dict.indices(), num_values, buffers));
  std::vector<int64_t> take(indices.size(), 0);
  BufferPtr validity;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] > static_cast<uint64_t>(num_items)) {
      return Status::Corruption("2.0 dictionary index " + std::to_string(indices[i]) +
                                " beyond its " + std::to_string(num_items) + " items");
    }
    if (indices[i] == 0) {
      if (validity == nullptr) {
        validity = Buffer::Allocate((num_values + 7) / 8);
        std::memset(validity->mutable_data(), 0xFF, static_cast<size_t>(validity->size()));
      }
      bit_util::ClearBit(validity->mutable_data(), static_cast<int64_t>(i));
    } else {
      take[i] = static_cast<int64_t>(indices[i] - 1);
    }
  }
  if (num_items == 0) return array::MakeNullArray(type, num_values);
  LANCEDB_ASSIGN_OR_RETURN(auto out, array::Take(items, take));
  return validity ? WithValidity(out, std::move(validity)) : out;
}

/// A dictionary-typed field. Lance 2.0 writes an Arrow dictionary array as Dictionary{0-based
/// indices, items} with a null item for null rows; other encodings hold plain values. Either
/// way the values are encoded again, seeded with the stored items.
Result<ArrayPtr> DecodeDictionaryField(const pb20::ArrayEncoding& encoding, const DataTypePtr& type,
                                       int64_t num_values, const V20BufferSource& buffers) {
  if (encoding.has_nullable()) {
    const auto& nullable = encoding.nullable();
    if (nullable.has_no_nulls()) {
      return DecodeDictionaryField(nullable.no_nulls().values(), type, num_values, buffers);
    }
    if (nullable.has_all_nulls()) return array::MakeNullArray(type, num_values);
    if (!nullable.has_some_nulls()) return Status::Corruption("2.0 nullable encoding unset");
    LANCEDB_ASSIGN_OR_RETURN(auto validity,
                             DecodeBitmap(nullable.some_nulls().validity(), num_values, buffers));
    LANCEDB_ASSIGN_OR_RETURN(auto values, DecodeDictionaryField(nullable.some_nulls().values(),
                                                                type, num_values, buffers));
    return WithValidity(values, std::move(validity));
  }
  const DataTypePtr& value_type = type->value_type();
  if (!encoding.has_dictionary()) {
    LANCEDB_ASSIGN_OR_RETURN(auto values,
                             DecodeV20Array(encoding, value_type, num_values, buffers));
    return array::DictionaryEncode(values, type);
  }
  const auto& dict = encoding.dictionary();
  const int64_t num_items = dict.num_dictionary_items();
  if (num_items < 0 || num_items > (int64_t{1} << 32)) {
    return Status::Corruption("2.0 dictionary claims " + std::to_string(num_items) + " items");
  }
  LANCEDB_ASSIGN_OR_RETURN(auto items,
                           DecodeV20Array(dict.items(), value_type, num_items, buffers));
  LANCEDB_ASSIGN_OR_RETURN(auto indices, DecodeUnsigned(dict.indices(), num_values, buffers));
  if (num_items == 0) return array::MakeNullArray(type, num_values);
  std::vector<int64_t> take(indices.size(), 0);
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] >= static_cast<uint64_t>(num_items)) {
      return Status::Corruption("2.0 dictionary index " + std::to_string(indices[i]) +
                                " beyond its " + std::to_string(num_items) + " items");
    }
    take[i] = static_cast<int64_t>(indices[i]);
  }
  LANCEDB_ASSIGN_OR_RETURN(auto values, array::Take(items, take));
  auto encoded = array::DictionaryEncode(values, type, {items});
  if (!encoded.ok()) return array::DictionaryEncode(values, type);
  return encoded;
}

Result<ArrayPtr> DecodeFixedSizeBinary(const pb20::FixedSizeBinary& fsb, const DataTypePtr& type,
                                       int64_t num_values, const V20BufferSource& buffers) {
  if (!type->is_binary_like()) {
    return Status::NotSupported("2.0 fixed-size binary encoding for type " + type->ToString());
  }
  const uint64_t width = fsb.byte_width();
  if (width > (uint64_t{1} << 30)) return Status::Corruption("2.0 fixed-size binary too wide");
  const uint64_t total = width * static_cast<uint64_t>(num_values);
  LANCEDB_ASSIGN_OR_RETURN(auto bytes, DecodeV20Bytes(fsb.bytes(), total, buffers));
  std::vector<uint64_t> ends(static_cast<size_t>(num_values));
  for (size_t i = 0; i < ends.size(); ++i) ends[i] = (i + 1) * width;
  return MakeBinary(type, ends, std::vector<uint8_t>(ends.size(), 1), std::move(bytes));
}

Result<ArrayPtr> DecodeFsst(const pb20::Fsst& fsst, const DataTypePtr& type, int64_t num_values,
                            const V20BufferSource& buffers) {
  LANCEDB_ASSIGN_OR_RETURN(auto decoder, FsstDecoder::Make(fsst.symbol_table()));
  LANCEDB_ASSIGN_OR_RETURN(auto compressed,
                           DecodeV20Array(fsst.binary(), type, num_values, buffers));
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> ends;
  std::vector<uint8_t> valid;
  for (int64_t i = 0; i < num_values; ++i) {
    valid.push_back(compressed->IsValid(i) ? 1 : 0);
    const std::string_view v = compressed->GetView(i);
    LANCEDB_RETURN_NOT_OK(decoder.DecodeValue(reinterpret_cast<const uint8_t*>(v.data()),
                                              static_cast<int64_t>(v.size()), &bytes));
    ends.push_back(bytes.size());
  }
  return MakeBinary(type, ends, valid, Buffer::FromVector(bytes));
}

Result<ArrayPtr> DecodeFixedWidth(const pb20::ArrayEncoding& encoding, const DataTypePtr& type,
                                  int64_t num_values, const V20BufferSource& buffers) {
  const int bits = type->bit_width();
  if (bits <= 0 || type->is_nested()) {
    return Unsupported(encoding, "for type " + type->ToString());
  }
  if (encoding.flat().bits_per_value() != static_cast<uint64_t>(bits)) {
    return Status::Corruption("2.0 flat encoding of " +
                              std::to_string(encoding.flat().bits_per_value()) + " bits for type " +
                              type->ToString());
  }
  LANCEDB_ASSIGN_OR_RETURN(auto bytes, FlatBytes(encoding.flat(), num_values, buffers));
  return ArrayPtr(ArrayData::Make(type, num_values, {nullptr, std::move(bytes)}, {}, 0));
}

}  // namespace

Result<BufferPtr> DecodeV20Bytes(const pb20::ArrayEncoding& encoding, uint64_t num_bytes,
                                 const V20BufferSource& buffers) {
  if (encoding.has_nullable() && encoding.nullable().has_no_nulls()) {
    return DecodeV20Bytes(encoding.nullable().no_nulls().values(), num_bytes, buffers);
  }
  if (!encoding.has_flat() || encoding.flat().bits_per_value() != 8) {
    return Unsupported(encoding, "for the bytes of binary values");
  }
  return FlatBytes(encoding.flat(), static_cast<int64_t>(num_bytes), buffers);
}

std::string V20EncodingName(const pb20::ArrayEncoding& encoding) {
  switch (encoding.array_encoding_case()) {
    case pb20::ArrayEncoding::kFlat:
      return "flat";
    case pb20::ArrayEncoding::kNullable:
      return "nullable";
    case pb20::ArrayEncoding::kFixedSizeList:
      return "fixed_size_list";
    case pb20::ArrayEncoding::kList:
      return "list";
    case pb20::ArrayEncoding::kStruct:
      return "struct";
    case pb20::ArrayEncoding::kBinary:
      return "binary";
    case pb20::ArrayEncoding::kDictionary:
      return "dictionary";
    case pb20::ArrayEncoding::kFsst:
      return "fsst";
    case pb20::ArrayEncoding::kPackedStruct:
      return "packed_struct";
    case pb20::ArrayEncoding::kBitpacked:
      return "bitpacked";
    case pb20::ArrayEncoding::kFixedSizeBinary:
      return "fixed_size_binary";
    case pb20::ArrayEncoding::kBitpackedForNonNeg:
      return "bitpacked_for_non_neg";
    case pb20::ArrayEncoding::kConstant:
      return "constant";
    case pb20::ArrayEncoding::ARRAY_ENCODING_NOT_SET:
      return "unset";
  }
  return "unknown";
}

Result<ArrayPtr> DecodeV20Array(const pb20::ArrayEncoding& encoding, const DataTypePtr& type,
                                int64_t num_values, const V20BufferSource& buffers) {
  if (num_values < 0) return Status::Corruption("2.0 page with a negative value count");
  if (type->id() == TypeId::kNull) return array::MakeNullArray(type, num_values);
  if (type->is_dictionary()) {
    LANCEDB_RETURN_NOT_OK(array::ValidateDictionaryType(*type));
    return DecodeDictionaryField(encoding, type, num_values, buffers);
  }
  switch (encoding.array_encoding_case()) {
    case pb20::ArrayEncoding::kNullable: {
      const auto& nullable = encoding.nullable();
      if (nullable.has_no_nulls()) {
        return DecodeV20Array(nullable.no_nulls().values(), type, num_values, buffers);
      }
      if (nullable.has_all_nulls()) return array::MakeNullArray(type, num_values);
      if (!nullable.has_some_nulls()) return Status::Corruption("2.0 nullable encoding unset");
      LANCEDB_ASSIGN_OR_RETURN(auto validity,
                               DecodeBitmap(nullable.some_nulls().validity(), num_values, buffers));
      LANCEDB_ASSIGN_OR_RETURN(
          auto values, DecodeV20Array(nullable.some_nulls().values(), type, num_values, buffers));
      return WithValidity(values, std::move(validity));
    }
    case pb20::ArrayEncoding::kFlat:
      return DecodeFixedWidth(encoding, type, num_values, buffers);
    case pb20::ArrayEncoding::kFixedSizeList: {
      const auto& fsl = encoding.fixed_size_list();
      if (type->id() != TypeId::kFixedSizeList ||
          static_cast<uint32_t>(type->fixed_size()) != fsl.dimension()) {
        return Status::Corruption("2.0 fixed-size list of dimension " +
                                  std::to_string(fsl.dimension()) + " for type " +
                                  type->ToString());
      }
      if (fsl.dimension() > 0 &&
          static_cast<uint64_t>(num_values) > (uint64_t{1} << 40) / fsl.dimension()) {
        return Status::Corruption("2.0 fixed-size list page too large");
      }
      LANCEDB_ASSIGN_OR_RETURN(auto items, DecodeV20Array(fsl.items(), type->value_type(),
                                                          num_values * fsl.dimension(), buffers));
      return ArrayPtr(ArrayData::Make(type, num_values, {nullptr}, {std::move(items)}, 0));
    }
    case pb20::ArrayEncoding::kBinary:
      return DecodeBinary(encoding.binary(), type, num_values, buffers);
    case pb20::ArrayEncoding::kDictionary:
      return DecodeDictionary(encoding.dictionary(), type, num_values, buffers);
    case pb20::ArrayEncoding::kFixedSizeBinary:
      return DecodeFixedSizeBinary(encoding.fixed_size_binary(), type, num_values, buffers);
    case pb20::ArrayEncoding::kFsst:
      if (!type->is_binary_like()) return Unsupported(encoding, "for type " + type->ToString());
      return DecodeFsst(encoding.fsst(), type, num_values, buffers);
    case pb20::ArrayEncoding::kBitpackedForNonNeg: {
      const auto& packed = encoding.bitpacked_for_non_neg();
      if (type->bit_width() <= 0 || type->is_nested() ||
          static_cast<uint64_t>(type->bit_width()) != packed.uncompressed_bits_per_value()) {
        return Unsupported(encoding, "for type " + type->ToString());
      }
      LANCEDB_ASSIGN_OR_RETURN(auto bytes, BitpackedBytes(packed, num_values, buffers));
      return ArrayPtr(ArrayData::Make(type, num_values, {nullptr, std::move(bytes)}, {}, 0));
    }
    case pb20::ArrayEncoding::kStruct:
    case pb20::ArrayEncoding::kList:
      return Status::Corruption("2.0 '" + V20EncodingName(encoding) +
                                "' encoding in a value column of type " + type->ToString());
    default:
      return Unsupported(encoding, "is not supported");
  }
}

Result<V20ListPage> DecodeV20ListOffsets(const pb20::List& list, int64_t num_rows,
                                         const V20BufferSource& buffers) {
  V20ListPage page;
  LANCEDB_ASSIGN_OR_RETURN(page.ends, DecodeUnsigned(list.offsets(), num_rows, buffers));
  page.valid.assign(page.ends.size(), 1);
  page.num_items = list.num_items();
  const uint64_t adjustment = list.null_offset_adjustment();
  uint64_t prev = 0;
  for (size_t i = 0; i < page.ends.size(); ++i) {
    uint64_t& end = page.ends[i];
    if (adjustment > 0 && end >= adjustment) {
      page.valid[i] = 0;
      end -= adjustment;
    }
    if (end < prev || end > page.num_items) {
      return Status::Corruption("2.0 list offset " + std::to_string(end) + " of list " +
                                std::to_string(i) + " is out of order or beyond the page's " +
                                std::to_string(page.num_items) + " items");
    }
    prev = end;
  }
  return page;
}

}  // namespace lancedb::format
