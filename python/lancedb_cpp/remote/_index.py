# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Index methods of RemoteTable: ``create_index/`` with LanceDB's JSON of each index config,
``index/list/``, ``index/{name}/stats/``, ``index/{name}/drop/`` and the polling
``wait_for_index`` (the server builds indices in the background)."""

from __future__ import annotations

import json
import logging
import time
import warnings
from datetime import datetime, timedelta, timezone
from typing import Any, Dict, Iterable, List, Optional
from urllib.parse import quote

from .._index import _LEGACY_CREATE_INDEX
from .._unsupported import warn_deprecated
from ..index import (
    FTS,
    BTree,
    Bitmap,
    HnswFlat,
    HnswSq,
    IndexConfig,
    IndexStatistics,
    IvfFlat,
    IvfPq,
    IvfRq,
    IvfSq,
    LabelList,
    listed_type_name,
)

_KNOWN_METRICS = ("l2", "cosine", "dot", "hamming")
_VECTOR_TYPES = ("IVF_FLAT", "IVF_PQ", "IVF_SQ", "IVF_RQ", "IVF_HNSW_SQ", "IVF_HNSW_FLAT")
_MAX_WAIT = timedelta(hours=2)


def _deprecated(name: str, details: str) -> None:
    warn_deprecated(name, "0.25.0", details, stacklevel=4)


def _fts_params(config: Any) -> Dict[str, Any]:
    if int(config.block_size) not in (128, 256):
        raise ValueError(
            "Invalid user input: FTS inverted index block_size must be one of 128 or 256, got "
            f"{config.block_size}"
        )
    granularity = getattr(config, "document_granularity", "row")
    params = {
        "lance_tokenizer": None,
        "base_tokenizer": config.base_tokenizer,
        "language": config.language,
        "with_position": bool(config.with_position),
        "max_token_length": config.max_token_length,
        "lower_case": bool(config.lower_case),
        "stem": bool(config.stem),
        "remove_stop_words": bool(config.remove_stop_words),
        "custom_stop_words": (
            None if config.custom_stop_words is None else list(config.custom_stop_words)
        ),
        "ascii_folding": bool(config.ascii_folding),
        "min_ngram_length": int(config.ngram_min_length),
        "max_ngram_length": int(config.ngram_max_length),
        "prefix_only": bool(config.prefix_only),
        "block_size": int(config.block_size),
        # Tokenizer options of LanceDB 0.39's InvertedIndexParams that its FTS config does
        # not expose: always their defaults.
        "split_identifiers": False,
        "split_on_numerics": False,
        "preserve_original": False,
        "index_operators": False,
    }
    text = str(getattr(granularity, "value", granularity)).lower()
    if text != "row":
        params["document_granularity"] = text
    return params


def _vector_params(config: Any) -> Dict[str, Any]:
    params: Dict[str, Any] = {"metric_type": str(config.distance_type).lower()}
    for key in ("num_partitions", "target_partition_size"):
        if getattr(config, key, None) is not None:
            params[key] = getattr(config, key)
    params["sample_rate"] = getattr(config, "sample_rate", 256)
    params["max_iterations"] = getattr(config, "max_iterations", 50)
    for key in ("num_sub_vectors", "num_bits"):
        if getattr(config, key, None) is not None:
            params[key] = getattr(config, key)
    if config.index_type.startswith("IVF_HNSW"):
        params["m"] = config.m
        params["ef_construction"] = config.ef_construction
    return params


def _index_body(table: Any, column: str, config: Any, name: Optional[str]) -> Dict[str, Any]:
    schema = table.schema
    body: Dict[str, Any] = {"column": column}
    if name is not None:
        body["name"] = name
    if config is None:  # LanceDB's Index::Auto
        import pyarrow as pa

        field = _field(schema, column)
        dtype = field.type
        is_vector = (pa.types.is_fixed_size_list(dtype) or pa.types.is_list(dtype)) and (
            pa.types.is_floating(dtype.value_type)
            or pa.types.is_fixed_size_list(dtype.value_type)
            or pa.types.is_uint8(dtype.value_type)
        )
        if is_vector:
            body["metric_type"] = "l2"
            body["index_type"] = "IVF_PQ"
        elif (
            pa.types.is_integer(dtype)
            or pa.types.is_floating(dtype)
            or pa.types.is_string(dtype)
            or pa.types.is_large_string(dtype)
            or pa.types.is_boolean(dtype)
            or pa.types.is_temporal(dtype)
        ):
            body["index_type"] = "BTREE"
        else:
            raise NotImplementedError(
                "LanceDBError: not supported: there are no indices supported for the field "
                f"`{field.name}` with the data type {dtype}"
            )
        return table._with_branch(body)
    kind = getattr(config, "index_type", None)
    if kind == "FTS":
        body["index_type"] = "FTS"
        body.update(_fts_params(config))
    elif kind in ("BTREE", "BITMAP", "LABEL_LIST"):
        body["index_type"] = kind
    elif kind in _VECTOR_TYPES:
        body["index_type"] = kind
        body.update(_vector_params(config))
    else:
        raise NotImplementedError("LanceDBError: not supported: Index type not supported")
    return table._with_branch(body)


def _field(schema: Any, column: str) -> Any:
    parts = column.split(".")
    field = schema.field(parts[0]) if parts[0] in schema.names else None
    for part in parts[1:]:
        if field is None:
            break
        import pyarrow as pa

        if not pa.types.is_struct(field.type):
            field = None
            break
        idx = field.type.get_field_index(part)
        field = None if idx < 0 else field.type.field(idx)
    if field is None:
        raise ValueError(f"Invalid input, Column {column} not found in schema")
    return field


def _submit(
    table: Any,
    column: str,
    config: Any,
    *,
    name: Optional[str],
    train: bool,
    wait_timeout: Optional[timedelta],
) -> Optional[str]:
    table._check_mutable()
    if not train:
        logging.warning(
            "train=false has no effect remote tables. The index will be created empty and "
            "automatically populated in the background."
        )
    body = _index_body(table, column, config, name)
    data = table._post_json("create_index/", json_body=body)
    job_id = data.get("job_id") if isinstance(data, dict) else None
    if wait_timeout is not None:
        table.wait_for_index([name or f"{column}_idx"], wait_timeout)
    return job_id


def create_index(
    self,
    metric: str = "l2",
    vector_column_name: str = "vector",
    index_cache_size: Optional[int] = None,
    num_partitions: Optional[int] = None,
    num_sub_vectors: Optional[int] = None,
    replace: Optional[bool] = None,
    accelerator: Optional[str] = None,
    index_type: str = "vector",
    wait_timeout: Optional[timedelta] = None,
    *,
    num_bits: int = 8,
    config: Any = None,
    name: Optional[str] = None,
    train: bool = True,
) -> None:
    """Create an index: ``create_index("column", config=IvfPq(...))`` (or BTree(), FTS() ...),
    or LanceDB's deprecated form ``create_index("l2", vector_column_name="vector",
    num_partitions=...)``. The server builds it in the background; `wait_timeout` waits."""
    legacy = config is None and (
        any(x is not None for x in (num_partitions, num_sub_vectors, accelerator,
                                    index_cache_size, replace))  # fmt: skip
        or vector_column_name != "vector"
        or str(metric).lower() in _KNOWN_METRICS
    )
    if legacy:
        warnings.warn(_LEGACY_CREATE_INDEX, DeprecationWarning, stacklevel=2)
        column = vector_column_name
        if replace is not None:
            logging.warning(
                "replace is not supported on LanceDB cloud.Existing indexes will always be "
                "replaced."
            )
        kind = str(index_type).upper()
        if kind in ("VECTOR", "IVF_PQ"):
            config = IvfPq(distance_type=metric, num_partitions=num_partitions,
                           num_sub_vectors=num_sub_vectors, num_bits=num_bits)  # fmt: skip
        elif kind == "IVF_RQ":
            config = IvfRq(distance_type=metric, num_partitions=num_partitions, num_bits=num_bits)
        elif kind == "IVF_SQ":
            config = IvfSq(distance_type=metric, num_partitions=num_partitions)
        elif kind == "IVF_HNSW_PQ":
            raise ValueError(
                "IVF_HNSW_PQ is not supported on LanceDB cloud.Please use IVF_HNSW_SQ instead."
            )
        elif kind == "IVF_HNSW_SQ":
            config = HnswSq(distance_type=metric, num_partitions=num_partitions)
        elif kind == "IVF_HNSW_FLAT":
            config = HnswFlat(distance_type=metric, num_partitions=num_partitions)
        elif kind == "IVF_FLAT":
            config = IvfFlat(distance_type=metric, num_partitions=num_partitions)
        else:
            raise ValueError(
                f"Unknown vector index type: {kind}. Valid options are 'IVF_FLAT', 'IVF_PQ', "
                "'IVF_RQ', 'IVF_SQ', 'IVF_HNSW_PQ', 'IVF_HNSW_SQ', 'IVF_HNSW_FLAT'"
            )
    else:
        column = metric
    if replace is False:
        raise NotImplementedError(
            "LanceDBError: not supported: replace=False is not supported on remote tables"
        )
    _submit(self, column, config, name=name, train=train, wait_timeout=wait_timeout)


def create_index_async(
    self,
    column: str,
    *,
    config: Any,
    replace: Optional[bool] = None,
    wait_timeout: Optional[timedelta] = None,
    name: Optional[str] = None,
    train: bool = True,
):
    """Create an index and return its job (done at once when the server names none)."""
    from .job import RemoteJob

    job_id = _submit(self, column, config, name=name, train=train, wait_timeout=wait_timeout)
    return RemoteJob.wrap(self._conn, job_id)


def create_scalar_index(
    self,
    column: str,
    index_type: str = "scalar",
    *,
    replace: bool = False,
    wait_timeout: Optional[timedelta] = None,
    name: Optional[str] = None,
) -> None:
    """Deprecated: ``create_index(column, config=BTree() / Bitmap() / LabelList())``."""
    _deprecated(
        "create_scalar_index",
        "Use create_index() with config=BTree()/Bitmap()/LabelList() instead.",
    )
    if index_type in ("scalar", "BTREE"):
        config: Any = BTree()
    elif index_type == "BITMAP":
        config = Bitmap()
    elif index_type == "LABEL_LIST":
        config = LabelList()
    else:
        raise ValueError(f"Unknown index type: {index_type}")
    _submit(self, column, config, name=name, train=True, wait_timeout=wait_timeout)


def create_fts_index(
    self,
    column: str,
    *,
    replace: bool = False,
    wait_timeout: Optional[timedelta] = None,
    with_position: bool = False,
    base_tokenizer: str = "simple",
    language: str = "English",
    max_token_length: Optional[int] = 40,
    lower_case: bool = True,
    stem: bool = True,
    remove_stop_words: bool = True,
    custom_stop_words: Optional[List[str]] = None,
    ascii_folding: bool = True,
    ngram_min_length: int = 3,
    ngram_max_length: int = 3,
    prefix_only: bool = False,
    block_size: int = 128,
    document_granularity: Any = "row",
    name: Optional[str] = None,
) -> None:
    """Deprecated: ``create_index(column, config=FTS(...))``."""
    _deprecated("create_fts_index", "Use create_index() with config=FTS() instead.")
    config = FTS(
        with_position=with_position,
        base_tokenizer=base_tokenizer,
        language=language,
        max_token_length=max_token_length,
        lower_case=lower_case,
        stem=stem,
        remove_stop_words=remove_stop_words,
        custom_stop_words=custom_stop_words,
        ascii_folding=ascii_folding,
        ngram_min_length=ngram_min_length,
        ngram_max_length=ngram_max_length,
        prefix_only=prefix_only,
        block_size=block_size,
        document_granularity=document_granularity,
    )
    _submit(self, column, config, name=name, train=True, wait_timeout=wait_timeout)


def index_stats(self, index_name: str) -> Optional[IndexStatistics]:
    """The statistics of an index, or None when the server knows no such index."""
    request_id, response = self._client.send(
        "POST",
        self._path(f"index/{quote(index_name, safe='')}/stats/"),
        json=self._version_body(),
        headers=self._read_headers() or None,
    )
    if response.status_code == 404:
        return None
    data = self._client.check(request_id, response).json()
    return IndexStatistics(
        num_indexed_rows=data["num_indexed_rows"],
        num_unindexed_rows=data["num_unindexed_rows"],
        index_type=data["index_type"],
        distance_type=data.get("distance_type"),
        num_indices=data.get("num_indices"),
    )


def list_indices(self) -> List[IndexConfig]:
    """The table's indices as the server lists them."""
    data = self._post_json("index/list/", json_body=self._version_body(), read=True) or {}
    indices = []
    for entry in data.get("indexes", []):
        name = entry["index_name"]
        kind = entry.get("index_type")
        if kind is None:
            stats = self.index_stats(name)
            if stats is None:
                continue
            kind = stats.index_type
        details = entry.get("index_details")
        if isinstance(details, str):
            details = json.loads(details)
        indices.append(
            IndexConfig(
                name=name,
                index_type=listed_type_name(kind),
                columns=list(entry.get("columns") or []),
                index_uuid=entry.get("index_uuid"),
                type_url=entry.get("type_url"),
                created_at=_created_at(entry.get("created_at")),
                num_indexed_rows=entry.get("num_indexed_rows"),
                num_unindexed_rows=entry.get("num_unindexed_rows"),
                size_bytes=entry.get("size_bytes"),
                num_segments=entry.get("num_segments"),
                index_version=entry.get("index_version"),
                index_details=details,
            )
        )
    return indices


def _created_at(value: Any) -> Optional[datetime]:
    """An index's creation time: RFC 3339 text or epoch milliseconds."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=value)
    return datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def tokenize(
    self, query: str, *, column: Optional[str] = None, index_name: Optional[str] = None
) -> List[Any]:
    """Tokenize `query` as the FTS index on `column` (or named `index_name`) analyses text:
    its analysis options come from the server's index list; the tokenizer runs here."""
    from .. import FtsToken, _native
    from .._index import analysis_kwargs

    if not isinstance(query, str):
        raise TypeError(
            f"argument 'query': '{type(query).__name__}' object is not an instance of 'str'"
        )
    if (column is None) == (index_name is None):
        raise ValueError("Specify exactly one of 'column' or 'index_name'")
    indices = self.list_indices()
    if index_name is not None:
        found = [i for i in indices if i.name == index_name]
        if not found:
            raise ValueError(f"Invalid input, No index named '{index_name}'")
    else:
        found = [i for i in indices if i.columns == [column] and i.index_type == "FTS"]
        if not found:
            raise ValueError(
                f"Invalid input, Column '{column}' does not have a full text search index"
            )
    index = found[0]
    if index.index_type != "FTS":
        raise ValueError(f"Invalid input, Index '{index.name}' is not a full text search index")
    d = dict(index.index_details or {})
    config = FTS(
        with_position=d.get("with_position", False),
        base_tokenizer=d.get("base_tokenizer", "simple"),
        language=d.get("language", "English"),
        max_token_length=d.get("max_token_length", 40),
        lower_case=d.get("lower_case", True),
        stem=d.get("stem", True),
        remove_stop_words=d.get("remove_stop_words", True),
        ascii_folding=d.get("ascii_folding", True),
        ngram_min_length=d.get("min_ngram_length", 3),
        ngram_max_length=d.get("max_ngram_length", 3),
        prefix_only=d.get("prefix_only", False),
        custom_stop_words=d.get("custom_stop_words"),
    )
    pairs = _native.tokenize(query, **analysis_kwargs(config))
    return [FtsToken(text, position) for text, position in pairs]


def drop_index(self, name: str) -> None:
    """Drop index `name` (RuntimeError, as LanceDB, when the server has none of that
    name)."""
    request_id, response = self._client.send(
        "POST",
        self._path(f"index/{quote(name, safe='')}/drop/"),
        params=self._branch_params() or None,
        headers=self._read_headers() or None,
    )
    if response.status_code == 404:
        raise RuntimeError(f"Index '{name}' was not found")
    self._client.check(request_id, response)


def prewarm_index(self, name: str) -> None:
    """Ask the server to load index `name` into its caches."""
    request_id, response = self._client.send(
        "POST",
        self._path(f"index/{quote(name, safe='')}/prewarm/"),
        headers=self._read_headers() or None,
    )
    if response.status_code == 404:
        raise ValueError(f"Index '{name}' was not found")
    self._client.check(request_id, response)


def _duration_text(seconds: float) -> str:
    """A duration as Rust's Debug prints it (``1s``, ``1.5s``, ``500ms``)."""
    if seconds >= 1:
        return f"{seconds:g}s"
    return f"{seconds * 1000:g}ms"


def wait_for_index(
    self, index_names: Iterable[str], timeout: timedelta = timedelta(seconds=300)
) -> None:
    """Poll the index list and statistics until every index covers all rows (RuntimeError
    "Timeout error: ..." after `timeout`)."""
    names = [index_names] if isinstance(index_names, str) else list(index_names)
    if timeout > _MAX_WAIT:
        raise ValueError(f"Invalid input, timeout must be less than {_duration_text(7200)}")
    start = time.monotonic()
    remaining = list(names)
    while time.monotonic() - start < timeout.total_seconds():
        listed = {i.name for i in self.list_indices()}
        done = []
        for name in remaining:
            if name not in listed:
                continue
            stats = self.index_stats(name)
            if stats is not None and stats.num_unindexed_rows == 0:
                done.append(name)
        remaining = [n for n in remaining if n not in done]
        if not remaining:
            return
        time.sleep(1.0)
    quoted = ", ".join(f'"{n}"' for n in remaining)
    raise RuntimeError(
        f"Timeout error: timed out waiting for indices: [{quoted}] after "
        f"{_duration_text(timeout.total_seconds())}"
    )
