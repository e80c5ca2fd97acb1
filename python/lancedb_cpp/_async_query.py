# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Async query builders (LanceDB's ``AsyncQuery``, ``AsyncVectorQuery``, ``AsyncFTSQuery``,
``AsyncHybridQuery``, ``AsyncTakeQuery``).

Each async builder wraps one of the sync builders (query.py, _vector.py, _fts.py), so both
APIs share one implementation: option methods record into the sync builder and return the
async builder; the terminal calls (``to_arrow``, ``to_batches`` ...) run the sync call on a
worker thread (``asyncio.to_thread``). The engine releases the GIL while it works, so several
awaited queries run in parallel and the event loop stays responsive.
"""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union

import numpy as np
import pyarrow as pa

from ._fts import LanceFtsQueryBuilder, LanceHybridQueryBuilder
from ._vector import LanceVectorQueryBuilder, _to_vectors
from .query import (
    FullTextSearchQuery,
    LanceEmptyQueryBuilder,
    LanceQueryBuilder,
    LanceTakeQueryBuilder,
    Query,
    _async_columns,
    _check_blob_mode,
    analyze_text,
    arrow_to_pandas,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import polars as pl

    from ._async import AsyncTable



def _float32(value: Optional[float]) -> Optional[float]:
    return None if value is None else float(np.float32(value))


def async_query_object(inner: LanceQueryBuilder) -> Query:
    """The Query model of an async builder, as LanceDB's async builders report it: the
    engine's request with its defaults filled in (a vector query's limit 10 and nprobes 20,
    its vectors as float32 arrays, a projection dict as (name, SQL) pairs). LanceDB drops
    ``fast_search`` there; so does this. A full-text query (which LanceDB 0.39 fails to
    describe) gets its text in ``full_text_query``."""
    if isinstance(inner, LanceHybridQueryBuilder):
        raise NotImplementedError("to_query_object not yet supported on a hybrid query")
    if isinstance(inner, LanceTakeQueryBuilder):
        return inner.to_query_object()  # the same description, sync or async
    fields: Dict[str, Any] = dict(
        filter=inner._where,
        columns=_async_columns(inner._columns),
        limit=inner._limit_arg,
        offset=inner._offset_arg,
        with_row_id=inner._with_row_id,
        with_row_address=inner._with_row_address,
        fragments=inner._fragments,
        fragment_ids=inner._fragment_ids,
        use_lsm=inner._use_lsm,
        order_by=inner._order_by,
    )
    if isinstance(inner, LanceVectorQueryBuilder):
        fields.update(
            vector=[pa.array(v, type=pa.float32()) for v in inner._vectors],
            vector_column=inner._vector_column,
            postfilter=bool(inner._postfilter),
            limit=10 if inner._limit_arg is None else inner._limit_arg,
            distance_type=inner._distance_type,
            minimum_nprobes=20 if inner._minimum_nprobes is None else inner._minimum_nprobes,
            maximum_nprobes=20 if inner._maximum_nprobes is None else inner._maximum_nprobes,
            lower_bound=_float32(inner._lower_bound),
            upper_bound=_float32(inner._upper_bound),
            refine_factor=inner._refine_factor,
            ef=inner._ef,
            bypass_vector_index=bool(inner._bypass_vector_index),
        )
    elif isinstance(inner, LanceFtsQueryBuilder):
        fields.update(
            full_text_query=FullTextSearchQuery(
                query=inner._phrase_semantics(), columns=inner._fts_columns
            ),
            # As LanceDB's async full-text query object: postfilter and limit only when set.
            postfilter=None if inner._prefilter else True,
            limit=inner._limit_arg,
            fast_search=inner._fast_search_arg,
        )
    return Query(**fields)


class AsyncRecordBatchReader:
    """An async iterator over the RecordBatches of a query's results; each batch is read on a
    worker thread. ``await reader.read_all()`` returns the remaining batches as a list."""

    def __init__(self, inner: Union[pa.RecordBatchReader, pa.Table],
                 max_batch_length: Optional[int] = None):
        if isinstance(inner, pa.Table):
            inner = pa.RecordBatchReader.from_batches(
                inner.schema, inner.to_batches(max_batch_length)
            )
        self._inner = inner

    @property
    def schema(self) -> pa.Schema:
        """The schema of the batches."""
        return self._inner.schema

    def __aiter__(self) -> "AsyncRecordBatchReader":
        return self

    async def __anext__(self) -> pa.RecordBatch:
        def next_batch() -> Optional[pa.RecordBatch]:
            try:
                return self._inner.read_next_batch()
            except StopIteration:
                return None

        batch = await asyncio.to_thread(next_batch)
        if batch is None:
            raise StopAsyncIteration
        return batch

    async def read_all(self) -> List[pa.RecordBatch]:
        """Read every remaining batch."""
        return await asyncio.to_thread(lambda: list(self._inner))


class AsyncQueryBase:
    """Options and outputs shared by every async query."""

    def __init__(self, inner: LanceQueryBuilder, table: Optional["AsyncTable"] = None):
        # A remote table's builders run on its server (lancedb_cpp/remote/query.py).
        self._inner = getattr(inner._table, "_remote_builder", lambda b: b)(inner)
        self._async_table = table

    # Options --------------------------------------------------------------------------------

    def to_query_object(self) -> Query:
        """The query as LanceDB's ``Query`` model (see async_query_object)."""
        return async_query_object(self._inner)

    def select(self, columns: Union[List[str], dict]) -> "AsyncQueryBase":
        """Return these columns: a list of names, or a dict of alias to SQL expression."""
        self._inner.select(columns)
        return self

    def with_row_id(self) -> "AsyncQueryBase":
        """Append the ``_rowid`` column."""
        self._inner.with_row_id(True)
        return self

    def with_row_address(self, with_row_address: bool = True) -> "AsyncQueryBase":
        """Append the ``_rowaddr`` column (fragment id << 32 | row offset in the fragment).
        (LanceDB 0.39 accepts the call but returns no such column.)"""
        self._inner.with_row_address(with_row_address)
        return self

    def with_fragments(self, fragments: Any) -> "AsyncQueryBase":
        """Read only these fragments (pylance ``LanceFragment`` objects, or their ids) of a
        plain query."""
        self._inner.with_fragments(fragments)
        return self

    def fragment_ids(self, fragment_ids: List[int]) -> "AsyncQueryBase":
        """Read only the fragments with these ids in a plain query."""
        self._inner.fragment_ids(fragment_ids)
        return self

    # Execution ------------------------------------------------------------------------------

    async def to_batches(
        self, *, max_batch_length: Optional[int] = None, timeout: Optional[timedelta] = None
    ) -> AsyncRecordBatchReader:
        """Run the query; the results as an async iterator of RecordBatches of at most
        `max_batch_length` rows (None or 0: 1024)."""
        reader = await asyncio.to_thread(self._inner.to_batches, max_batch_length, timeout=timeout)
        return AsyncRecordBatchReader(reader)

    async def output_schema(self) -> pa.Schema:
        """The schema the query returns, without running it."""
        return await asyncio.to_thread(self._inner.output_schema)

    async def to_arrow(self, timeout: Optional[timedelta] = None) -> pa.Table:
        """Run the query; the results as a pyarrow Table."""
        return await asyncio.to_thread(self._inner.to_arrow, timeout=timeout)

    async def to_list(self, timeout: Optional[timedelta] = None) -> List[dict]:
        """Run the query; the results as a list of dicts."""
        return (await self.to_arrow(timeout=timeout)).to_pylist()

    async def to_pandas(
        self,
        flatten: Optional[Union[int, bool]] = None,
        timeout: Optional[timedelta] = None,
        *,
        blob_mode: str = "lazy",
        **kwargs: Any,
    ) -> "pd.DataFrame":
        """Run the query; the results as a pandas DataFrame (`flatten` struct columns: True
        for every level, n for n levels; `kwargs` go to ``pyarrow.Table.to_pandas``).
        `blob_mode` other than "lazy" with a blob column in the result raises
        NotImplementedError (blob columns are not supported yet)."""
        _check_blob_mode(blob_mode)
        table = await self.to_arrow(timeout=timeout)
        return await asyncio.to_thread(arrow_to_pandas, table, flatten, blob_mode, **kwargs)

    async def to_polars(self, timeout: Optional[timedelta] = None) -> "pl.DataFrame":
        """Run the query; the results as a polars DataFrame (requires polars)."""
        import polars as pl

        return pl.from_arrow(await self.to_arrow(timeout=timeout))

    async def to_pydantic(self, model: type, *, timeout: Optional[timedelta] = None) -> list:
        """Run the query; one `model` per row."""
        return [model(**row) for row in await self.to_list(timeout=timeout)]

    async def explain_plan(self, verbose: Optional[bool] = False) -> str:
        """The query plan as text."""
        return await asyncio.to_thread(self._inner.explain_plan, verbose)

    async def analyze_plan(self, distributed_metrics: str = "aggregate") -> str:
        """Run the query; its plan with runtime metrics."""
        return await asyncio.to_thread(self._inner.analyze_plan, distributed_metrics)


class AsyncStandardQuery(AsyncQueryBase):
    """Filtering, limit, offset and search flags of plain, vector and full-text queries."""

    def where(self, predicate: Any) -> "AsyncStandardQuery":
        """Keep rows where the SQL predicate is true; repeated calls combine with AND."""
        if isinstance(self._inner, (LanceVectorQueryBuilder, LanceFtsQueryBuilder,
                                    LanceHybridQueryBuilder)):
            self._inner.where(predicate, None)  # keep an earlier postfilter()
        else:
            self._inner.where(predicate)
        return self

    def limit(self, limit: int) -> "AsyncStandardQuery":
        """Return at most `limit` rows (an unsigned integer, as LanceDB's binding takes it;
        at least 1 for vector queries)."""
        if limit is None or isinstance(limit, float):
            raise TypeError(
                f"argument 'limit': '{type(limit).__name__}' object cannot be interpreted as an "
                "integer"
            )
        if limit < 0:
            raise OverflowError("out of range integral type conversion attempted")
        if isinstance(self._inner, LanceVectorQueryBuilder):
            if limit == 0:
                raise ValueError("Invalid input, k must be positive")
        self._inner.limit(limit)
        if limit == 0 and type(self._inner) in (LanceQueryBuilder, LanceEmptyQueryBuilder):
            self._inner._limit = 0  # LanceDB's async plain query: limit 0 returns no rows
        return self

    def offset(self, offset: int) -> "AsyncStandardQuery":
        """Skip the first `offset` rows."""
        if offset is not None and offset < 0:
            raise ValueError("Offset must be non-negative")
        self._inner.offset(offset)
        return self

    def order_by(self, ordering: Optional[List[Any]]) -> "AsyncStandardQuery":
        """Sort the results by these ColumnOrdering keys (columns of the table) before offset
        and limit; a vector or full-text search sorts its ``limit + offset`` best rows."""
        self._inner.order_by(ordering)
        return self

    def use_lsm(self, enable: bool) -> "AsyncStandardQuery":
        """Read the base table only (False); True raises NotImplementedError."""
        self._inner.use_lsm(enable)
        return self

    def fast_search(self) -> "AsyncStandardQuery":
        """Search only the indexed rows (vector and full-text searches)."""
        if isinstance(self._inner, (LanceVectorQueryBuilder, LanceFtsQueryBuilder)):
            self._inner.fast_search()
        else:
            self._fast_search = True  # applies once nearest_to / nearest_to_text is called
        return self

    def postfilter(self) -> "AsyncStandardQuery":
        """Filter after the vector / full-text search instead of before it."""
        inner = self._inner
        if isinstance(inner, LanceFtsQueryBuilder):
            inner._prefilter = False
        elif isinstance(inner, (LanceVectorQueryBuilder, LanceHybridQueryBuilder)):
            inner._postfilter = True
        else:
            self._postfilter = True  # applies once nearest_to / nearest_to_text is called
        return self

    _fast_search = False
    _postfilter = False


def _copy_common(src: LanceQueryBuilder, dst: LanceQueryBuilder) -> None:
    """Carry the filter, projection, limit, offset, ordering, row id and row address flags,
    fragments and LSM choice to a new builder."""
    dst._where = src._where
    dst._columns = src._columns
    if src._limit is not None:
        dst._limit = src._limit
    dst._offset = src._offset
    dst._with_row_id = src._with_row_id
    for name in ("_order_by", "_with_row_address", "_fragments", "_fragment_ids", "_use_lsm",
                 "_limit_arg", "_offset_arg", "_with_row_id_arg"):
        setattr(dst, name, getattr(src, name))


class AsyncQuery(AsyncStandardQuery):
    """``table.query()``: a plain scan; ``nearest_to`` makes it a vector search and
    ``nearest_to_text`` a full-text search, keeping the options set so far."""

    def nearest_to(self, query_vector: Any) -> "AsyncVectorQuery":
        """Search for the rows nearest to `query_vector` (a list of vectors: one search per
        vector, told apart by ``query_index``)."""
        if query_vector is None:
            raise ValueError("query_vector can not be None")
        vq = LanceVectorQueryBuilder(self._inner._table, query_vector)
        _copy_common(self._inner, vq)
        if self._fast_search:
            vq.fast_search()
        if self._postfilter:
            vq.postfilter()
        return AsyncVectorQuery(vq, self._async_table)

    def nearest_to_text(
        self, query: Any, columns: Union[str, List[str], None] = None
    ) -> "AsyncFTSQuery":
        """Full-text search for `query` (a string or FullTextQuery) over `columns` (default:
        every FTS-indexed column)."""
        fq = LanceFtsQueryBuilder(self._inner._table, query, fts_columns=columns)
        _copy_common(self._inner, fq)
        if self._fast_search:
            fq.fast_search()
        if self._postfilter:
            fq._prefilter = False
        return AsyncFTSQuery(fq, self._async_table)


class AsyncVectorQueryBase:
    """Vector search options (mixed into AsyncVectorQuery and AsyncHybridQuery)."""

    _inner: Any

    def column(self, column: str) -> "AsyncVectorQueryBase":
        """Search this vector column."""
        self._inner._vector_column = column
        return self

    def nprobes(self, nprobes: int) -> "AsyncVectorQueryBase":
        self._inner.nprobes(nprobes)
        return self

    def minimum_nprobes(self, minimum_nprobes: int) -> "AsyncVectorQueryBase":
        self._inner.minimum_nprobes(minimum_nprobes)
        return self

    def maximum_nprobes(self, maximum_nprobes: int) -> "AsyncVectorQueryBase":
        self._inner.maximum_nprobes(maximum_nprobes)
        return self

    def distance_range(
        self, lower_bound: Optional[float] = None, upper_bound: Optional[float] = None
    ) -> "AsyncVectorQueryBase":
        self._inner.distance_range(lower_bound, upper_bound)
        return self

    def ef(self, ef: int) -> "AsyncVectorQueryBase":
        self._inner.ef(ef)
        return self

    def refine_factor(self, refine_factor: int) -> "AsyncVectorQueryBase":
        self._inner.refine_factor(refine_factor)
        return self

    def distance_type(self, distance_type: str) -> "AsyncVectorQueryBase":
        self._inner.distance_type(distance_type)
        return self

    def bypass_vector_index(self) -> "AsyncVectorQueryBase":
        self._inner.bypass_vector_index()
        return self


def _vector_options_to_hybrid(vq: LanceVectorQueryBuilder, hq: LanceHybridQueryBuilder) -> None:
    if vq._distance_type is not None:
        hq.distance_type(vq._distance_type)
    if vq._minimum_nprobes is not None:
        hq.minimum_nprobes(vq._minimum_nprobes)
    if vq._maximum_nprobes is not None:
        hq.maximum_nprobes(vq._maximum_nprobes)
    if vq._refine_factor is not None:
        hq.refine_factor(vq._refine_factor)
    if vq._ef is not None:
        hq.ef(vq._ef)
    if vq._lower_bound is not None or vq._upper_bound is not None:
        hq.distance_range(vq._lower_bound, vq._upper_bound)
    if vq._bypass_vector_index:
        hq.bypass_vector_index()


def _make_hybrid(
    vq: LanceVectorQueryBuilder, fq: LanceFtsQueryBuilder, table: Optional["AsyncTable"]
) -> "AsyncHybridQuery":
    if len(vq._vectors) != 1:
        raise ValueError("A hybrid query takes exactly one query vector")
    if getattr(vq, "_rerank", None) is not None or fq._reranker is not None:
        raise ValueError("rerank() a hybrid query after combining the vector and text queries")
    hq = LanceHybridQueryBuilder(vq._table, None, vq._vector_column, fq._fts_columns)
    hq.vector(vq._vectors[0]).text(fq._query)
    # The plain options come from whichever query set them (the vector side wins).
    for src in (fq, vq):
        if src._where is not None:
            hq._where = src._where
        if src._columns is not None:
            hq._columns = src._columns
        if src._offset:
            hq._offset = src._offset
        if src._with_row_id:
            hq._with_row_id = True
    hq._limit = vq._limit
    for name in ("_order_by", "_with_row_address", "_fragments", "_fragment_ids"):
        # Rejected when the query runs (see LanceHybridQueryBuilder), never dropped.
        setattr(hq, name, getattr(vq, name) or getattr(fq, name))
    hq._postfilter = vq._postfilter or not fq._prefilter
    if fq._phrase_query:
        hq.phrase_query(True)
    if vq._fast_search or fq._fast_search:
        raise NotImplementedError("fast_search() on a hybrid query is not supported by lancedb_cpp")
    _vector_options_to_hybrid(vq, hq)
    return AsyncHybridQuery(hq, table)


class AsyncVectorQuery(AsyncStandardQuery, AsyncVectorQueryBase):
    """A nearest-neighbour search (``table.query().nearest_to(v)`` or
    ``table.vector_search(v)``); default limit 10."""

    def nearest_to(self, query_vector: Any) -> "AsyncVectorQuery":
        """Add more query vectors (a batch search; results carry ``query_index``)."""
        if query_vector is None:
            raise ValueError("query_vector can not be None")
        self._inner._vectors.extend(_to_vectors(query_vector))
        return self

    def rerank(self, reranker: Any = None, query_string: Optional[str] = None
               ) -> "AsyncVectorQuery":
        """Rerank the results with ``reranker`` (default RRFReranker()) against
        `query_string`."""
        self._inner.rerank(reranker, query_string)
        return self

    def nearest_to_text(
        self, query: Any, columns: Union[str, List[str], None] = None
    ) -> "AsyncHybridQuery":
        """Combine with a full-text search into a hybrid query."""
        fq = LanceFtsQueryBuilder(self._inner._table, query, fts_columns=columns)
        return _make_hybrid(self._inner, fq, self._async_table)


class AsyncFTSQuery(AsyncStandardQuery):
    """A full-text search (``table.query().nearest_to_text("words")``); default limit 10."""

    def get_query(self) -> str:
        """The query text (the JSON of a FullTextQuery)."""
        query = self._inner._query
        return query if isinstance(query, str) else query.to_json()

    def rerank(self, reranker: Any = None) -> "AsyncFTSQuery":
        """Rerank the results with ``reranker`` (default RRFReranker())."""
        from .rerankers import RRFReranker

        self._inner.rerank(RRFReranker() if reranker is None else reranker)
        return self

    def nearest_to(self, query_vector: Any) -> "AsyncHybridQuery":
        """Combine with a vector search into a hybrid query."""
        if query_vector is None:
            raise ValueError("query_vector can not be None")
        vq = LanceVectorQueryBuilder(self._inner._table, query_vector)
        return _make_hybrid(vq, self._inner, self._async_table)


class AsyncHybridQuery(AsyncStandardQuery, AsyncVectorQueryBase):
    """A vector search and a full-text search fused by a reranker (default RRF) into
    ``_relevance_score``."""

    def rerank(self, reranker: Any = None, normalize: str = "score") -> "AsyncHybridQuery":
        """Fuse with `reranker` (default RRFReranker()); `normalize` "score" or "rank"."""
        self._inner.rerank(reranker, normalize)
        return self

    def fast_search(self) -> "AsyncHybridQuery":
        raise NotImplementedError("fast_search() on a hybrid query is not supported by lancedb_cpp")

    def column(self, column: str) -> "AsyncHybridQuery":
        self._inner._vector_column = column
        return self

    async def to_batches(
        self, *, max_batch_length: Optional[int] = None, timeout: Optional[timedelta] = None
    ) -> AsyncRecordBatchReader:
        table = await self.to_arrow(timeout=timeout)
        return AsyncRecordBatchReader(table, max_batch_length)

    async def analyze_plan(self, distributed_metrics: str = "aggregate") -> str:
        """The plan of both searches, then the measured output rows."""
        if distributed_metrics != "aggregate":
            raise NotImplementedError(
                f"analyze_plan(distributed_metrics={distributed_metrics!r}) applies to remote "
                "tables; local tables report 'aggregate' metrics only"
            )
        plan = await self.explain_plan(True)
        start = time.perf_counter()
        rows = (await self.to_arrow()).num_rows
        return analyze_text(plan, rows, time.perf_counter() - start)


class AsyncTakeQuery(AsyncQueryBase):
    """Rows by offset or row id (``table.take_offsets`` / ``table.take_row_ids``)."""

    def use_lsm(self, enable: bool) -> "AsyncTakeQuery":
        """Read the base table only (False); True raises NotImplementedError."""
        self._inner.use_lsm(enable)
        return self


def wrap_sync_query(inner: LanceQueryBuilder, table: Optional["AsyncTable"]) -> AsyncQueryBase:
    """The async builder for a sync builder (as returned by ``Table.search``)."""
    if isinstance(inner, LanceHybridQueryBuilder):
        return AsyncHybridQuery(inner, table)
    if isinstance(inner, LanceFtsQueryBuilder):
        return AsyncFTSQuery(inner, table)
    if isinstance(inner, LanceVectorQueryBuilder):
        return AsyncVectorQuery(inner, table)
    if isinstance(inner, LanceTakeQueryBuilder):
        return AsyncTakeQuery(inner, table)
    return AsyncQuery(inner, table)


__all__ = [
    "AsyncFTSQuery",
    "AsyncHybridQuery",
    "AsyncQuery",
    "AsyncQueryBase",
    "AsyncRecordBatchReader",
    "AsyncStandardQuery",
    "AsyncTakeQuery",
    "AsyncVectorQuery",
    "AsyncVectorQueryBase",
    "wrap_sync_query",
]
