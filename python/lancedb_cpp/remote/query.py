# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Query builders of remote tables: lancedb_cpp's own builders (their options and outputs),
run by sending LanceDB's query JSON to ``/v1/table/{id}/query/`` instead of the engine.

``as_remote(builder)`` turns a builder a RemoteTable's ``search()`` made into its remote
counterpart (the same state, a class whose execution is remote)."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, Dict, List, Optional

import numpy as np
import pyarrow as pa

from .._fts import LanceFtsQueryBuilder, LanceHybridQueryBuilder, query_json
from .._vector import LanceVectorQueryBuilder
from ..query import (
    LanceEmptyQueryBuilder,
    LanceQueryBuilder,
    LanceTakeQueryBuilder,
    _batch_length,
    _deadline,
)

if TYPE_CHECKING:
    from .table import RemoteTable

# The limit of an unlimited plain query (the server requires one): isize::MAX.
UNLIMITED = 9223372036854775807
_DEFAULT_NPROBES = 20


def _base_body(builder: LanceQueryBuilder, prefilter: bool, limit: Optional[int]) -> Dict[str, Any]:
    """The fields every query body has (LanceDB's apply_query_params)."""
    table: "RemoteTable" = builder._table
    body: Dict[str, Any] = table._version_body()
    body["prefilter"] = prefilter
    if getattr(builder, "_use_lsm", None) is not None:
        body["use_lsm"] = bool(builder._use_lsm)
    if builder._offset_arg is not None or builder._offset:
        body["offset"] = builder._offset
    body["k"] = UNLIMITED if limit is None else int(limit)
    if builder._where is not None:
        body["filter"] = builder._where
    columns = builder._columns
    if isinstance(columns, dict):
        body["columns"] = dict(columns)
    elif columns is not None:
        body["columns"] = list(columns)
    if getattr(builder, "_fast_search", False):
        body["fast_search"] = True
    if builder._with_row_id:
        body["with_row_id"] = True
    if builder._order_by:
        body["order_by"] = [
            {"column_name": o.column_name, "ascending": o.ascending, "nulls_first": o.nulls_first}
            for o in builder._order_by
        ]
    return body


def _reader(tables: List[pa.Table], batch_size: Optional[int]) -> pa.RecordBatchReader:
    if len(tables) == 1:
        table = tables[0]
    else:
        # One request per query vector (servers before 0.2.0): tag the rows as LanceDB does.
        tagged = [
            t.append_column("query_index", pa.array([i] * t.num_rows, pa.int32()))
            for i, t in enumerate(tables)
        ]
        table = pa.concat_tables(tagged)
    rows = _batch_length(batch_size)
    return pa.RecordBatchReader.from_batches(table.schema, table.to_batches(rows))


class _RemoteMixin:
    """Execution through the table's ``/query/`` route."""

    def _bodies(self) -> List[Dict[str, Any]]:  # pragma: no cover - each builder has its own
        raise NotImplementedError

    def to_batches(
        self, /, batch_size: Optional[int] = None, *, timeout: Optional[timedelta] = None
    ) -> pa.RecordBatchReader:
        """Run the query on the server; the results as batches of at most `batch_size` rows."""
        deadline = _deadline(timeout)
        tables = [self._table._run_query(body, timeout) for body in self._bodies()]
        deadline.check()
        return _reader(tables, batch_size)

    def to_arrow(self, *, timeout: Optional[timedelta] = None) -> pa.Table:
        """Run the query on the server. When the results hold blob v2 columns and row ids were
        not asked for, they are asked for and kept in the descriptors' ``_lance_row_id`` (for
        ``fetch_blobs``), as LanceDB does."""
        blob_columns = []
        if self._with_row_id_arg is None and not self._with_row_id:
            blob_columns = self._table._selected_blob_columns(self._columns)
        if not blob_columns:
            return self.to_batches(timeout=timeout).read_all()
        from .._blob import stash_row_ids

        self._with_row_id = True
        try:
            results = self.to_batches(timeout=timeout).read_all()
        finally:
            self._with_row_id = False
        return stash_row_ids(results, blob_columns)

    def explain_plan(self, verbose: Optional[bool] = False) -> str:
        """The server's plan of the query."""
        return self._table._explain_remote(self._bodies()[0], bool(verbose))

    def analyze_plan(self, distributed_metrics: str = "aggregate") -> str:
        """Run the query on the server and return its plan with metrics."""
        return self._table._analyze_remote(self._bodies()[0], distributed_metrics)

    def output_schema(self) -> pa.Schema:
        """The schema of the results (the server runs the query, as in LanceDB)."""
        return self.to_batches().schema


class RemoteEmptyQueryBuilder(_RemoteMixin, LanceEmptyQueryBuilder):
    """A plain query of a remote table."""

    def _bodies(self) -> List[Dict[str, Any]]:
        if self._fragments is not None or self._fragment_ids is not None:
            raise NotImplementedError(
                "with_fragments / fragment_ids are not supported on remote tables"
            )
        body = _base_body(self, True, self._limit)
        body["vector"] = []
        return [body]


class RemoteTakeQueryBuilder(_RemoteMixin, LanceTakeQueryBuilder):
    """Rows by offset or row id, as a filter on ``_rowoffset`` / ``_rowid`` (LanceDB's). A
    take by offset selects ``_rowoffset`` too (every column of the table when none were
    chosen), as LanceDB does, and drops it from the results."""

    def _bodies(self) -> List[Dict[str, Any]]:
        request = self._request(None)
        offsets, row_ids = request.get("take_offsets"), request.get("take_row_ids")
        column, values = ("_rowoffset", offsets) if offsets is not None else ("_rowid", row_ids)
        saved_where, saved_columns = self._where, self._columns
        self._where = f"{column} IN ({', '.join(str(int(v)) for v in values)})"
        if offsets is not None:
            if isinstance(saved_columns, dict):
                self._columns = dict(saved_columns, _rowoffset="_rowoffset")
            else:
                names = self._table.schema.names if saved_columns is None else saved_columns
                self._columns = list(names) + ["_rowoffset"]
        try:
            body = _base_body(self, True, self._limit)
        finally:
            self._where, self._columns = saved_where, saved_columns
        body["vector"] = []
        return [body]

    def to_batches(
        self, /, batch_size: Optional[int] = None, *, timeout: Optional[timedelta] = None
    ) -> pa.RecordBatchReader:
        reader = _RemoteMixin.to_batches(self, batch_size, timeout=timeout)
        if self._offsets is None:
            return reader
        table = reader.read_all()
        if "_rowoffset" not in table.column_names:
            raise ValueError(
                "Schema Error: take query result did not include ordering column '_rowoffset'"
            )
        table = table.drop_columns(["_rowoffset"])
        rows = _batch_length(batch_size)
        return pa.RecordBatchReader.from_batches(table.schema, table.to_batches(rows))


def _f32(value: Any) -> float:
    return float(np.float32(value))


def _vector_json(vector: Any) -> List[float]:
    return [_f32(x) for x in vector]


class RemoteVectorQueryBuilder(_RemoteMixin, LanceVectorQueryBuilder):
    """A nearest-neighbour query of a remote table."""

    def _bodies(self) -> List[Dict[str, Any]]:
        from .._vector import _check_nprobes

        self._reject_fragments("vector search")
        _check_nprobes(self._minimum_nprobes, self._maximum_nprobes)
        body = _base_body(self, not self._postfilter, self._limit)
        if self._distance_type is not None:
            body["distance_type"] = self._distance_type
        minimum = _DEFAULT_NPROBES if self._minimum_nprobes is None else self._minimum_nprobes
        maximum = _DEFAULT_NPROBES if self._maximum_nprobes is None else self._maximum_nprobes
        if self._maximum_nprobes is None and minimum > maximum:
            maximum = minimum
        body["nprobes"] = minimum
        body["minimum_nprobes"] = minimum
        body["maximum_nprobes"] = maximum
        # The bounds travel as float32 values, as LanceDB sends them.
        body["lower_bound"] = None if self._lower_bound is None else _f32(self._lower_bound)
        body["upper_bound"] = None if self._upper_bound is None else _f32(self._upper_bound)
        body["ef"] = self._ef
        body["refine_factor"] = self._refine_factor
        if self._vector_column is not None:
            body["vector_column"] = self._vector_column
        if self._bypass_vector_index:
            body["bypass_vector_index"] = True
        vectors = [_vector_json(v) for v in self._vectors]
        if len(vectors) == 0:
            body["vector"] = []
            return [body]
        if len(vectors) == 1:
            body["vector"] = vectors[0]
            return [body]
        if self._table._server_version >= (0, 2, 0):
            body["vector"] = vectors
            return [body]
        return [dict(body, vector=v) for v in vectors]

    def to_arrow(self, *, timeout: Optional[timedelta] = None) -> pa.Table:
        """Run the query on the server (reranked when asked)."""
        results = _RemoteMixin.to_arrow(self, timeout=timeout)
        rerank = getattr(self, "_rerank", None)
        if rerank is not None:
            from .. import _hybrid

            results = _hybrid.rerank_vector_results(rerank[0], rerank[1], results)
        return results

    def to_batches(
        self, /, batch_size: Optional[int] = None, *, timeout: Optional[timedelta] = None
    ) -> pa.RecordBatchReader:
        return _RemoteMixin.to_batches(self, batch_size, timeout=timeout)

    def explain_plan(self, verbose: Optional[bool] = False) -> str:
        return _RemoteMixin.explain_plan(self, verbose)

    def analyze_plan(self, distributed_metrics: str = "aggregate") -> str:
        return _RemoteMixin.analyze_plan(self, distributed_metrics)

    def output_schema(self) -> pa.Schema:
        return _RemoteMixin.output_schema(self)


class RemoteFtsQueryBuilder(_RemoteMixin, LanceFtsQueryBuilder):
    """A full-text query of a remote table."""

    def _bodies(self) -> List[Dict[str, Any]]:
        import json

        from ..query import FullTextQuery

        self._reject_fragments("full-text search")
        body = _base_body(self, self._prefilter, self._limit)
        query = self._phrase_semantics()
        if self._table._server_version >= (0, 3, 0) or isinstance(query, FullTextQuery):
            if self._table._server_version < (0, 3, 0):
                raise NotImplementedError(
                    "structured full-text queries need a server of version 0.3.0 or newer"
                )
            body["full_text_query"] = {"query": json.loads(query_json(query, self._fts_columns))}
        else:
            body["full_text_query"] = {"columns": list(self._fts_columns or []), "query": query}
        body["vector"] = []
        return [body]

    def to_arrow(self, *, timeout: Optional[timedelta] = None) -> pa.Table:
        """Run the query on the server (reranked when asked)."""
        results = self.to_batches(timeout=timeout).read_all()
        if self._reranker is not None:
            from .. import _hybrid

            results = _hybrid.rerank_fts_results(self._reranker, self._query, results)
        return results

    def to_batches(
        self, /, batch_size: Optional[int] = None, *, timeout: Optional[timedelta] = None
    ) -> pa.RecordBatchReader:
        return _RemoteMixin.to_batches(self, batch_size, timeout=timeout)

    def explain_plan(self, verbose: Optional[bool] = False) -> str:
        return _RemoteMixin.explain_plan(self, verbose)

    def analyze_plan(self, distributed_metrics: str = "aggregate") -> str:
        return _RemoteMixin.analyze_plan(self, distributed_metrics)

    def output_schema(self) -> pa.Schema:
        return _RemoteMixin.output_schema(self)


class RemoteHybridQueryBuilder(LanceHybridQueryBuilder):
    """A hybrid query of a remote table: a vector and a full-text query sent separately,
    fused client-side (as LanceDB does)."""

    def _queries(self):
        vq, fq, text_query = super()._queries()
        return as_remote(vq), as_remote(fq), text_query


_REMOTE_CLASSES = [
    (LanceHybridQueryBuilder, RemoteHybridQueryBuilder),
    (LanceFtsQueryBuilder, RemoteFtsQueryBuilder),
    (LanceVectorQueryBuilder, RemoteVectorQueryBuilder),
    (LanceTakeQueryBuilder, RemoteTakeQueryBuilder),
    (LanceEmptyQueryBuilder, RemoteEmptyQueryBuilder),
]


def as_remote(builder: Any) -> Any:
    """`builder` (made for a RemoteTable by lancedb_cpp's own search()) run remotely."""
    for local, remote in _REMOTE_CLASSES:
        if isinstance(builder, remote):
            return builder
        if type(builder) is local:
            builder.__class__ = remote
            return builder
    raise NotImplementedError(f"{type(builder).__name__} is not supported on remote tables yet")
