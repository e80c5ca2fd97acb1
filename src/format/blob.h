// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Blob columns (docs/format/blobs.md). A blob column keeps its payloads out of line and
// stores one small descriptor per row in its page, so scans never read the payloads:
//
//   legacy (v1): a large_binary field with metadata lance-encoding:blob=true, in 2.0/2.1 files.
//     Payloads are file buffers written before the page; the page is a BlobLayout whose inner
//     mini-block layout holds a packed struct<position: u64, size: u64> per row (all valid).
//     A null row is size 0 with position = def << 16 | rep (never 0); an empty value is (0, 0).
//   v2: a struct field with extension lance.blob.v2 (storage struct<data, uri, position, size>)
//     in 2.2 files. In the data file the field is a struct with metadata lance-encoding:blob and
//     lance-encoding:packed whose five descriptor members are listed after it with id -1; its
//     single column is a full-zip page whose values are variable packed structs
//     (kind u8, position u64, size u64, blob_id u32, blob_uri u32 length + bytes).
//     kind 0 = inline (position is an offset in the data file), 1 = packed and 2 = dedicated
//     (a sidecar file data/<file stem>/<blob_id>.blob), 3 = external (blob_uri; size 0 = the
//     whole object).

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "array/array.h"
#include "format/blob_bases.h"
#include "format/lance_schema.h"
#include "format/leaf_data.h"
#include "format/proto/encodings_v2_1.pb.h"
#include "io/file_system.h"

namespace lancedb::format {

enum class BlobEncoding : uint8_t { kNone, kLegacy, kV2 };

enum class BlobKind : uint8_t { kInline = 0, kPacked = 1, kDedicated = 2, kExternal = 3 };

inline constexpr std::string_view kBlobV2ExtensionName = "lance.blob.v2";
inline constexpr std::string_view kBlobMetadataKey = "lance-encoding:blob";
inline constexpr std::string_view kPackedMetadataKey = "lance-encoding:packed";

/// The blob encoding of a top-level field: as a table declares it (the v2 extension, or the
/// legacy metadata on a binary field) or as a data file records it (the metadata on a struct).
BlobEncoding BlobEncodingOf(const LanceField& field);

/// struct<position: u64, size: u64>: what scans return for a legacy blob column.
array::DataTypePtr BlobV1DescriptorType();
/// struct<kind: u8, position: u64, size: u64, blob_id: u32, blob_uri: utf8>: what scans
/// return for a blob v2 column.
array::DataTypePtr BlobV2DescriptorType();
/// struct<data: large_binary, uri: utf8, position: u64, size: u64>: the v2 storage type.
array::DataTypePtr BlobV2StorageType();

/// The type a read returns for `field`: its descriptor type for a blob column, or, with
/// `materialize`, the payload type (large_binary for legacy, the storage struct for v2);
/// other fields keep their type.
Result<array::DataTypePtr> BlobReadType(const LanceField& field, bool materialize);
/// The Arrow schema of reads of `schema` (see BlobReadType).
Result<array::SchemaPtr> BlobReadSchema(const LanceSchema& schema, bool materialize);

/// The single column leaf of a blob field in a data file: legacy fields decode as 16-byte
/// descriptors, v2 fields as the packed descriptor bytes of each (nullable) row.
Result<LeafPath> BlobLeafPath(const LanceField& field, BlobEncoding encoding);

/// Turn a blob page layout into the layout of its descriptor leaf (see BlobLeafPath):
/// legacy BlobLayout -> its inner mini-block layout with the packed values as flat values;
/// v2 full-zip packed struct -> plain variable values (an all-null constant page stays).
/// NotSupported for other layouts.
Status UnwrapBlobPageLayout(BlobEncoding encoding, lance::encodings21::PageLayout* layout);

/// Descriptor array (BlobV1DescriptorType / BlobV2DescriptorType) from the leaf items.
Result<array::ArrayPtr> BlobDescriptorsFromItems(BlobEncoding encoding, const LeafItems& items);

/// Read the payloads the descriptors point at: legacy -> large_binary; v2 -> storage struct
/// with `data` for stored payloads and uri/position/size for external ones.
/// `data_file` is the path of the data file holding the descriptors. An external reference
/// relative to a base path comes back as its absolute URI, resolved by `bases` (Corruption
/// when `bases` is null or lacks the base).
Result<array::ArrayPtr> MaterializeBlobs(const io::FileSystemPtr& fs, const std::string& data_file,
                                         BlobEncoding encoding, const array::ArrayData& descriptors,
                                         const ExternalBlobBases* bases = nullptr);

/// Path of the sidecar file `blob_id` of a packed or dedicated v2 blob.
std::string BlobSidecarPath(const std::string& data_file, uint32_t blob_id);

/// One v2 descriptor, packed as the full-zip value bytes of a row.
std::string PackBlobV2Descriptor(BlobKind kind, uint64_t position, uint64_t size, uint32_t blob_id,
                                 std::string_view uri);
/// The value compression of v2 descriptor pages (the variable packed struct).
lance::encodings21::CompressiveEncoding BlobV2DescriptorEncoding();

/// The fields a data file records for a v2 blob field `field` (id kept): the packed struct
/// marked as blob, followed by its five descriptor members (id -1, as Lance writes them).
std::vector<LanceField> BlobV2FileFields(const LanceField& field);

}  // namespace lancedb::format
