// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Shared by the build, load and management halves of vector_index.h.
#pragma once

#include <string>
#include <vector>

#include "index/vector/ivf_persist.h"
#include "index/vector_index.h"
#include "table/manifest.h"

namespace lancedb::index {

/// Where a segment's files live: `{root}/_indices/{uuid}`.
std::string IndexDir(const table::Dataset& dataset, const std::string& uuid);
/// Where the files of the registered segment `index` live: as above, or under the base path
/// its base_id names (a segment a branch or shallow clone inherited).
std::string IndexDir(const table::Dataset& dataset, const table::pb::IndexMetadata& index);

/// A uuid as 16 random bytes plus its hyphenated text form.
struct NewIndexUuid {
  std::string bytes, text;
};
NewIndexUuid MakeIndexUuid();

/// The wall clock in milliseconds since the epoch (IndexMetadata.created_at).
uint64_t NowMillis();

/// Persist `ivf` under a new uuid and commit it as index `name` on field `field_id`, covering
/// `fragments`, removing the segments `removed` (and, with `replace`, any other segment of the
/// same name). Deletes the files when the commit fails.
Result<table::DatasetPtr> CommitVectorIndex(const table::DatasetPtr& dataset,
                                            const vector::IvfIndex& ivf,
                                            const vector::IvfFileParams& file_params,
                                            const std::string& name, int32_t field_id,
                                            const std::vector<uint64_t>& fragments,
                                            std::vector<table::pb::IndexMetadata> removed,
                                            bool replace);

/// Append the `dim` values from `start` of a float16, bfloat16, float32, float64 or uint8 vector
/// column's child array to `out`, as float32 (the precision every vector index trains and
/// searches in).
void AppendVectorAsFloats(const array::ArrayData& child, int64_t start, size_t dim,
                          std::vector<float>* out);

/// The element type of the vectors of a column of `column_type` whose vector indices are in
/// Lance's layout: fixed_size_list<float16 / float32 / float64 / uint8 (hamming)> and multivector
/// list<fixed_size_list<float16 / float32 / float64>>. kNull for another type.
array::TypeId LanceIndexElementType(const array::DataType& column_type);

/// LanceIndexElementType of the column of field `field_id`; kNull for another column or none.
array::TypeId VectorElementType(const table::Dataset& dataset, int32_t field_id);

/// The name of field `field_id`: a top-level column's name, a struct member's dotted path
/// ("s.a"); empty when the field is gone.
std::string FieldName(const table::Dataset& dataset, int32_t field_id);

}  // namespace lancedb::index
