# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Index configurations, as ``lancedb.index``: pass one to ``Table.create_index(column,
config=...)``. Field names and defaults are LanceDB's; ``seed`` makes training reproducible
(same data, parameters and seed give byte-identical centroids and codebooks)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Literal, Optional

DistanceType = Literal["l2", "cosine", "dot", "hamming"]


@dataclass
class IvfFlat:
    """IVF_FLAT: k-means partitions of the raw vectors."""

    distance_type: DistanceType = "l2"
    num_partitions: Optional[int] = None
    max_iterations: int = 50
    sample_rate: int = 256
    target_partition_size: Optional[int] = None
    accelerator: Optional[str] = None
    seed: Optional[int] = None
    index_type = "IVF_FLAT"


@dataclass
class IvfPq:
    """IVF_PQ (the default vector index): partitions of product-quantized vectors."""

    distance_type: DistanceType = "l2"
    num_partitions: Optional[int] = None
    num_sub_vectors: Optional[int] = None
    num_bits: int = 8
    max_iterations: int = 50
    sample_rate: int = 256
    target_partition_size: Optional[int] = None
    accelerator: Optional[str] = None
    seed: Optional[int] = None
    index_type = "IVF_PQ"


@dataclass
class IvfSq:
    """IVF_SQ: partitions of 8-bit scalar-quantized vectors."""

    distance_type: DistanceType = "l2"
    num_partitions: Optional[int] = None
    max_iterations: int = 50
    sample_rate: int = 256
    target_partition_size: Optional[int] = None
    accelerator: Optional[str] = None
    seed: Optional[int] = None
    index_type = "IVF_SQ"


@dataclass
class IvfRq:
    """IVF_RQ: partitions of RaBitQ (1-bit) codes."""

    distance_type: DistanceType = "l2"
    num_partitions: Optional[int] = None
    num_bits: int = 1
    max_iterations: int = 50
    sample_rate: int = 256
    target_partition_size: Optional[int] = None
    accelerator: Optional[str] = None
    seed: Optional[int] = None
    index_type = "IVF_RQ"


@dataclass
class HnswPq:
    """IVF_HNSW_PQ: an HNSW graph per partition over PQ codes."""

    distance_type: DistanceType = "l2"
    num_partitions: Optional[int] = None
    num_sub_vectors: Optional[int] = None
    num_bits: int = 8
    max_iterations: int = 50
    sample_rate: int = 256
    m: int = 20
    ef_construction: int = 300
    target_partition_size: Optional[int] = None
    accelerator: Optional[str] = None
    seed: Optional[int] = None
    index_type = "IVF_HNSW_PQ"


@dataclass
class HnswSq:
    """IVF_HNSW_SQ: an HNSW graph per partition over 8-bit scalar-quantized vectors."""

    distance_type: DistanceType = "l2"
    num_partitions: Optional[int] = None
    max_iterations: int = 50
    sample_rate: int = 256
    m: int = 20
    ef_construction: int = 300
    target_partition_size: Optional[int] = None
    accelerator: Optional[str] = None
    seed: Optional[int] = None
    index_type = "IVF_HNSW_SQ"


@dataclass
class HnswFlat:
    """IVF_HNSW_FLAT: an HNSW graph per partition over the raw vectors."""

    distance_type: DistanceType = "l2"
    num_partitions: Optional[int] = None
    max_iterations: int = 50
    sample_rate: int = 256
    m: int = 20
    ef_construction: int = 300
    target_partition_size: Optional[int] = None
    seed: Optional[int] = None
    index_type = "IVF_HNSW_FLAT"


IvfHnswPq = HnswPq
IvfHnswSq = HnswSq
IvfHnswFlat = HnswFlat


@dataclass
class IndexConfig:
    """One index as ``list_indices()`` reports it."""

    name: str
    index_type: str
    columns: List[str]
    index_uuid: Optional[str] = None
    type_url: Optional[str] = None

    def __getitem__(self, key):  # LanceDB's IndexConfig also reads like a dict
        return getattr(self, key)


@dataclass
class IndexStatistics:
    """``index_stats(name)``: rows covered and not, the type, the distance, the segments."""

    num_indexed_rows: int
    num_unindexed_rows: int
    index_type: str
    distance_type: Optional[str] = None
    num_indices: Optional[int] = None
    loss: Optional[float] = None

    def __getitem__(self, key):
        return getattr(self, key)


__all__ = [
    "HnswFlat",
    "HnswPq",
    "HnswSq",
    "IndexConfig",
    "IndexStatistics",
    "IvfFlat",
    "IvfHnswFlat",
    "IvfHnswPq",
    "IvfHnswSq",
    "IvfPq",
    "IvfRq",
    "IvfSq",
]
