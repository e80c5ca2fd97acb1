# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Type aliases of the API's string options (``lancedb.types``), for annotations."""

from __future__ import annotations

from typing import Dict, List, Literal, Optional, Tuple, Union

from .expr import Expr

QueryType = Literal["vector", "fts", "hybrid", "auto"]
BlobMode = Literal["lazy", "bytes", "descriptions"]

# A projection: column names, (name, expression) pairs or {name: expression}.
QueryProjectionSpec = Union[
    List[str],
    List[Tuple[str, Union[str, Expr]]],
    Dict[str, Union[str, Expr]],
]
QueryProjection = Optional[QueryProjectionSpec]

DistanceType = Literal["l2", "cosine", "dot"]
DistanceTypeWithHamming = Literal["l2", "cosine", "dot", "hamming"]

OnBadVectorsType = Literal["error", "drop", "fill", "null"]

AddMode = Literal["append", "overwrite"]
CreateMode = Literal["create", "overwrite"]

VectorIndexType = Literal[
    "IVF_FLAT", "IVF_SQ", "IVF_PQ", "IVF_HNSW_SQ", "IVF_HNSW_PQ", "IVF_HNSW_FLAT", "IVF_RQ"
]
ScalarIndexType = Literal["BTREE", "BITMAP", "LABEL_LIST"]
IndexType = Literal[
    "IVF_PQ", "IVF_HNSW_PQ", "IVF_HNSW_SQ", "IVF_HNSW_FLAT", "IVF_SQ", "FTS", "BTREE",
    "BITMAP", "LABEL_LIST", "IVF_RQ",
]  # fmt: skip

BuiltinTokenizerType = Literal["simple", "raw", "whitespace", "ngram", "icu", "icu/split"]
BaseTokenizerType = Union[BuiltinTokenizerType, str]
