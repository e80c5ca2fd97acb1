// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Write IVF_FLAT, IVF_PQ, IVF_SQ and IVF_HNSW_FLAT / _SQ / _PQ indices in the layout LanceDB builds
// (`index.idx` and `auxiliary.idx`, docs/format/lance-vector-index.md), the one lance_ivf_read.h
// reads, so that LanceDB searches and extends the indices lancedb-cpp builds. An index is first put
// in "Lance form" (ToLanceIvfIndex): Lance's quantizers and storages (ProductQuantizer with
// residuals for l2 and cosine, LancePqStorage, LanceScalarQuantizer with one range for all
// dimensions) and LanceDB's search style; for IVF_HNSW_* the graphs in Lance's form,
// lance_hnsw_write.h), so that searching it in memory and searching the files read back give the
// same results. Writing is deterministic: the same index gives the same bytes. Thread-safety: the
// functions are thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "array/type.h"
#include "index/vector/ivf_index.h"
#include "index/vector/ivf_persist.h"
#include "io/file_system.h"

namespace lancedb::index::vector {

/// Convert `built` (BuildIvfIndex's output: the FLAT quantizer for IVF_FLAT, IVF_SQ and their
/// HNSW types, PQ for IVF_PQ and IVF_HNSW_PQ; a flat sub-index for the IVF types, graphs
/// built with IvfBuildParams::lance_hnsw for the HNSW types) into Lance form for
/// `hnsw_or_ivf_type` ("IVF_FLAT", "IVF_PQ", "IVF_SQ", "IVF_HNSW_FLAT", ...). SQ codes all rows
/// with one range [start, end]: the smallest and largest value the index's (normalized, for
/// cosine) vectors hold. `element_type` is the type of the column's vector elements:
/// kFloat16, kFloat32, kFloat64, or kUInt8 for a hamming IVF_FLAT or IVF_HNSW_FLAT;
/// for kFloat16 the centroids, PQ codebook and stored vectors are rounded to float16, as the
/// files keep them (the HNSW types and IVF_RQ alike). IVF_RQ (from FLAT storages)
/// encodes the rows with `rq_num_bits` bits and a fast rotation whose signs are drawn from
/// `seed` (absent: random). `built` is consumed. InvalidArgument for another type or element
/// type or an index not built that way.
Result<std::unique_ptr<IvfIndex>> ToLanceIvfIndex(
    std::unique_ptr<IvfIndex> built, const std::string& hnsw_or_ivf_type,
    array::TypeId element_type = array::TypeId::kFloat32, int rq_num_bits = 1,
    std::optional<uint64_t> seed = std::nullopt);

/// LanceDB's type name of a Lance-form index ("IVF_FLAT", "IVF_HNSW_SQ", ...); empty when
/// `index` is not in Lance form (another quantizer or storage, lancedb-cpp's HNSW graphs).
std::string LanceIvfTypeName(const IvfIndex& index);

/// Return a Lance-form storage holding the rows of `a` (a LancePqStorage or LanceSqStorage of
/// quantizer `q`) followed by those of `b` (what q.Encode returned). NotSupported for other
/// storages. Layout: centroid (dim).
Result<std::unique_ptr<PartitionStorage>> ConcatLanceStorage(const Quantizer& q,
                                                             const PartitionStorage& a,
                                                             const PartitionStorage& b,
                                                             std::span<const float> centroid);

/// Move the rows of the Lance-form `index` to new row ids (a compaction's new row addresses):
/// `map` gives a row's new id, nullopt to drop the row (deleted). Partitions keep their order
/// of the surviving rows; an HNSW partition that lost rows gets a new graph over the codes of
/// those kept (DecodeLanceStorage). InvalidArgument for an index not in Lance form.
Status RemapLanceIvfIndex(IvfIndex* index,
                          const std::function<std::optional<uint64_t>(uint64_t)>& map);

/// Write the Lance-form `index` (ToLanceIvfIndex, ReadLanceIvfIndexFiles, possibly extended by
/// ExtendIvfIndex) into `dir`: auxiliary.idx then index.idx, with centroids, PQ codebook and
/// FLAT vectors in the column's `element_type` (as ToLanceIvfIndex). Returns the files written;
/// on error the directory is deleted. InvalidArgument for an index not in Lance form.
Result<std::vector<IvfFile>> WriteLanceIvfIndexFiles(
    const io::FileSystemPtr& fs, const std::string& dir, const IvfIndex& index,
    array::TypeId element_type = array::TypeId::kFloat32);

}  // namespace lancedb::index::vector
