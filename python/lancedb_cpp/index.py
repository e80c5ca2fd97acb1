# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Index configurations, as ``lancedb.index``: pass one to ``Table.create_index(column,
config=...)``. Field names and defaults are LanceDB's; ``seed`` makes training reproducible
(same data, parameters and seed give byte-identical centroids and codebooks)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, List, Literal, Optional

from ._not_yet import unsupported_class

DistanceType = Literal["l2", "cosine", "dot", "hamming"]


# Parameter groups shared by the vector index configs. A dataclass orders its fields along the
# reversed MRO, base classes first, so every config lists its groups from the last parameters
# to the first: each keeps LanceDB's parameter order, defaults and repr.


@dataclass
class _Partitions:
    """IVF partitioning: the distance and the number of k-means partitions."""

    distance_type: DistanceType = "l2"
    num_partitions: Optional[int] = None


@dataclass
class _ProductQuantizer:
    """PQ: sub-vectors per vector and bits per code."""

    num_sub_vectors: Optional[int] = None
    num_bits: int = 8


@dataclass
class _KMeans:
    """k-means training: iterations and training rows sampled per partition."""

    max_iterations: int = 50
    sample_rate: int = 256


@dataclass
class _Graph:
    """HNSW: neighbours per node and the candidate list size while building."""

    m: int = 20
    ef_construction: int = 300


@dataclass
class _PartitionSize:
    target_partition_size: Optional[int] = None


@dataclass
class _Training(_PartitionSize):
    """The trailing training options: partition size, accelerator and seed."""

    accelerator: Optional[str] = None
    seed: Optional[int] = None


@dataclass
class IvfFlat(_Training, _KMeans, _Partitions):
    """IVF_FLAT: k-means partitions of the raw vectors."""

    index_type = "IVF_FLAT"


@dataclass
class IvfPq(_Training, _KMeans, _ProductQuantizer, _Partitions):
    """IVF_PQ (the default vector index): partitions of product-quantized vectors."""

    index_type = "IVF_PQ"


@dataclass
class IvfSq(_Training, _KMeans, _Partitions):
    """IVF_SQ: partitions of 8-bit scalar-quantized vectors."""

    index_type = "IVF_SQ"


@dataclass
class _RabitQuantizer:
    num_bits: int = 1


@dataclass
class IvfRq(_Training, _KMeans, _RabitQuantizer, _Partitions):
    """IVF_RQ: partitions of RaBitQ codes (num_bits 1 to 9 bits a dimension)."""

    index_type = "IVF_RQ"


@dataclass
class HnswPq(_Training, _Graph, _KMeans, _ProductQuantizer, _Partitions):
    """IVF_HNSW_PQ: an HNSW graph per partition over PQ codes."""

    index_type = "IVF_HNSW_PQ"


@dataclass
class HnswSq(_Training, _Graph, _KMeans, _Partitions):
    """IVF_HNSW_SQ: an HNSW graph per partition over 8-bit scalar-quantized vectors."""

    index_type = "IVF_HNSW_SQ"


@dataclass
class HnswFlat(_PartitionSize, _Graph, _KMeans, _Partitions):
    """IVF_HNSW_FLAT: an HNSW graph per partition over the raw vectors."""

    seed: Optional[int] = None  # no accelerator option, as LanceDB
    index_type = "IVF_HNSW_FLAT"


IvfHnswPq = HnswPq
IvfHnswSq = HnswSq
IvfHnswFlat = HnswFlat


@dataclass
class BTree:
    """BTREE: sorted keys in pages; equality, ranges, IN and IS NULL on orderable columns."""

    index_type = "BTREE"


@dataclass
class Bitmap:
    """BITMAP: a row bitmap per distinct value, for low-cardinality columns."""

    index_type = "BITMAP"


@dataclass
class LabelList:
    """LABEL_LIST: a row bitmap per list item, for ``array_has_any`` / ``array_has_all`` /
    ``array_contains`` on list columns."""

    index_type = "LABEL_LIST"


@dataclass
class FTS:
    """An FTS (inverted) index for full-text search, with LanceDB's options and defaults.

    `memory_limit` (MiB over all workers) and `num_workers` bound the build only and are not
    stored in the index."""

    with_position: bool = False
    base_tokenizer: str = "simple"
    language: str = "English"
    max_token_length: Optional[int] = 40
    lower_case: bool = True
    stem: bool = True
    remove_stop_words: bool = True
    ascii_folding: bool = True
    ngram_min_length: int = 3
    ngram_max_length: int = 3
    prefix_only: bool = False
    block_size: int = 128
    custom_stop_words: Optional[List[str]] = None
    memory_limit: Optional[int] = None
    num_workers: Optional[int] = None
    document_granularity: Any = "row"

    index_type = "FTS"


SCALAR_INDEX_TYPES = ("BTREE", "BITMAP", "LABEL_LIST")

# The engine's type names and LanceDB's spelling of them in ``list_indices``.
_LISTED_TYPE_NAMES = {
    "IVF_FLAT": "IvfFlat",
    "IVF_PQ": "IvfPq",
    "IVF_SQ": "IvfSq",
    "IVF_RQ": "IvfRq",
    "IVF_HNSW_PQ": "IvfHnswPq",
    "IVF_HNSW_SQ": "IvfHnswSq",
    "IVF_HNSW_FLAT": "IvfHnswFlat",
    "BTREE": "BTree",
    "BITMAP": "Bitmap",
    "LABEL_LIST": "LabelList",
    "FTS": "FTS",
}


def listed_type_name(engine_name: str) -> str:
    """``list_indices``' spelling of an index type ("IVF_PQ" → "IvfPq", "BTREE" → "BTree")."""
    return _LISTED_TYPE_NAMES.get(engine_name, engine_name)


def _rust_debug(text: str) -> str:
    """A string quoted and escaped as Rust's ``{:?}`` prints it (LanceDB's reprs use it)."""
    escapes = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}
    return '"' + "".join(escapes.get(c, c) for c in text) + '"'


@dataclass
class IndexConfig:
    """One index as ``list_indices()`` reports it: LanceDB's IndexConfig, its segments merged.
    ``created_at`` is the earliest segment's creation time (UTC, millisecond precision),
    ``size_bytes`` the total of the index files the manifest records, ``index_details`` the
    type-specific parameters (FTS analysis options; vector metric, quantizer and graph)."""

    name: str
    index_type: str
    columns: List[str]
    index_uuid: Optional[str] = None
    type_url: Optional[str] = None
    created_at: Optional[datetime] = None
    num_indexed_rows: Optional[int] = None
    num_unindexed_rows: Optional[int] = None
    size_bytes: Optional[int] = None
    num_segments: Optional[int] = None
    index_version: Optional[int] = None
    index_details: Optional[Any] = None

    def __getitem__(self, key):  # LanceDB's IndexConfig also reads like a dict
        if key == "index_name":
            key = "name"
        if key not in self.__dataclass_fields__:
            raise KeyError(f"Invalid key: {key}")
        return getattr(self, key)

    def __repr__(self) -> str:
        fields = [
            f"name={_rust_debug(self.name)}",
            f"index_type={_rust_debug(self.index_type)}",
            f"columns=[{', '.join(_rust_debug(c) for c in self.columns)}]",
        ]
        for key in ("index_uuid", "type_url"):
            if getattr(self, key) is not None:
                fields.append(f"{key}={_rust_debug(getattr(self, key))}")
        if self.created_at is not None:
            fields.append(f"created_at={self.created_at!r}")
        for key in ("num_indexed_rows", "num_unindexed_rows", "size_bytes"):
            if getattr(self, key) is not None:
                fields.append(f"{key}={getattr(self, key):_}")
        for key in ("num_segments", "index_version", "index_details"):
            if getattr(self, key) is not None:
                fields.append(f"{key}={getattr(self, key)!r}")
        return f"IndexConfig({', '.join(fields)})"


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


# FM indices (substring search) are not built yet: constructing the config raises.
Fm = unsupported_class("Fm", "FM (substring search) indices", __name__)


__all__ = [
    "Fm",
    "BTree",
    "Bitmap",
    "FTS",
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
    "LabelList",
]
