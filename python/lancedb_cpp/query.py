# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Query builders, mirroring ``lancedb.query``: ``table.search()`` (a plain scan with filter,
projection, ordering, limit and offset) and ``table.take_offsets`` / ``table.take_row_ids``;
and the query models ``ColumnOrdering``, ``FullTextSearchQuery`` and ``Query``
(``to_query_object()``).

A builder is a value: each method records an option and returns the builder; ``to_arrow``,
``to_batches`` and friends run it. Results come back from the engine as an Arrow stream
imported zero-copy into pyarrow. A `timeout` (a ``timedelta``) bounds a query as LanceDB's does:
the time is checked as each batch of results is produced, and a query past it raises
LanceDB's ``RuntimeError("... Query timeout after N ms")``.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union

import pyarrow as pa

from ._unsupported import reject_unsupported

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import polars as pl

    from .table import Table

_BLOB_MODES = ("lazy", "bytes", "descriptions")
_DEFAULT_BATCH = 1024


def ensure_vector_query(val: Any) -> Any:
    """`val` when it has the shape of a vector query LanceDB accepts (a list of floats, a list
    of such lists, a pyarrow array or a list of them); ValueError, as LanceDB raises, for an
    empty list, a list holding an empty list, or a bare float. Other values give None, as in
    LanceDB (the search itself then converts or rejects them)."""
    if isinstance(val, float):
        raise ValueError("Vector query must be a list of floats or a list of lists of floats")
    sample = val
    if isinstance(val, list):
        if not val:
            raise ValueError("Vector query must be a non-empty list")
        sample = val[0]
    if isinstance(sample, pa.Array) or isinstance(sample, float):
        return val
    if isinstance(sample, list):
        if not sample:
            raise ValueError("Vector query must be a non-empty list")
        if isinstance(sample[0], float):
            return val
    return None


class _Deadline:
    """A query's ``timeout``: started when the query starts, checked as each batch of results
    is produced (a search computes its top-k before its first batch, so it is checked once
    that is done). Past it: LanceDB's RuntimeError."""

    def __init__(self, timeout: Optional[timedelta]):
        if timeout is not None:
            if not isinstance(timeout, timedelta):
                raise TypeError(
                    f"argument 'timeout': '{type(timeout).__name__}' object is not an "
                    "instance of 'timedelta'"
                )
            if timeout < timedelta(0):
                raise ValueError("It is not possible to convert a negative timedelta to a Rust Duration")
        self._timeout = timeout
        self._start = time.monotonic()

    def check(self) -> None:
        if self._timeout is None:
            return
        if time.monotonic() - self._start > self._timeout.total_seconds():
            ms = int(self._timeout / timedelta(milliseconds=1))
            raise RuntimeError(
                f"lance error: Query Execution error: Execution error: Query timeout after {ms} ms"
            )

    def bound(self, reader: pa.RecordBatchReader) -> pa.RecordBatchReader:
        """`reader`, checking the deadline after each batch (itself when there is none)."""
        self.check()
        if self._timeout is None:
            return reader

        def batches():
            for batch in reader:
                self.check()
                yield batch

        return pa.RecordBatchReader.from_batches(reader.schema, batches())


def _deadline(timeout: Optional[timedelta]) -> _Deadline:
    return _Deadline(timeout)


def _combine_where(old: Optional[str], new: str) -> str:
    if not isinstance(new, str):
        if hasattr(new, "to_sql"):
            new = new.to_sql()
        else:
            raise ValueError(f"where must be a SQL string, got {type(new).__name__}")
    return new if old is None else f"({old}) AND ({new})"


def _batch_length(batch_size: Optional[int]) -> int:
    """The engine's rows per batch for `batch_size` (None or 0: the default, 1024)."""
    if batch_size is None or (not isinstance(batch_size, bool) and batch_size == 0):
        return _DEFAULT_BATCH
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 0:
        raise ValueError(
            f"batch_size must be a positive integer (None or 0: the default), got {batch_size!r}"
        )
    return batch_size


def _check_blob_mode(blob_mode: str) -> None:
    if blob_mode not in _BLOB_MODES:
        modes = ", ".join(repr(m) for m in _BLOB_MODES)
        raise ValueError(f"blob_mode must be one of {modes}, got {blob_mode!r}")


def arrow_to_pandas(
    table: pa.Table, flatten: Optional[Union[int, bool]], blob_mode: str, **kwargs: Any
) -> "pd.DataFrame":
    """A query result as pandas (`flatten` struct columns: True for every level, n for n
    levels; `kwargs` go to ``pyarrow.Table.to_pandas``). Blob columns of a query are
    converted by the query itself (LanceQueryBuilder.to_pandas); here they stay as they are."""
    _check_blob_mode(blob_mode)
    if flatten is True:
        while any(pa.types.is_struct(f.type) for f in table.schema):
            table = table.flatten()
    elif isinstance(flatten, int) and not isinstance(flatten, bool) and flatten > 0:
        for _ in range(flatten):
            table = table.flatten()
    return table.to_pandas(**kwargs)


def _fragment_id(fragment: Any) -> int:
    """The id of a pylance ``LanceFragment`` (``.fragment_id``) or of an int."""
    value = getattr(fragment, "fragment_id", fragment)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(
            "fragments must be pylance LanceFragment objects or non-negative fragment ids, got "
            f"{fragment!r}"
        )
    return value


def _ordering_list(ordering: Any) -> Optional[List["ColumnOrdering"]]:
    """`ordering` as ColumnOrdering models (dicts are accepted, as LanceDB's Query accepts
    them); pydantic's ValidationError (a ValueError) for anything else."""
    if ordering is None:
        return None
    if not isinstance(ordering, (list, tuple)):
        raise ValueError(
            f"order_by takes a list of ColumnOrdering or None, got {type(ordering).__name__}"
        )
    return [
        o if isinstance(o, ColumnOrdering) else ColumnOrdering.model_validate(o) for o in ordering
    ]


def analyze_text(plan: str, rows: int, seconds: float) -> str:
    """An analyzed plan in LanceDB's shape (as the engine renders its own): an ``AnalyzeExec``
    line with the output rows and the time, above the plan indented one level."""
    body = "".join(f"  {line}\n" for line in plan.splitlines())
    return (
        f"AnalyzeExec verbose=true, elapsed={seconds * 1e3:.3f}ms, "
        f"metrics=[output_rows={rows}]\n{body}"
    )


class LanceQueryBuilder:
    """Common options and outputs of every query."""

    @classmethod
    def create(
        cls,
        table: "Table",
        query: Any,
        query_type: str,
        vector_column_name: Optional[str],
        ordering_field_name: Optional[str] = None,
        fts_columns: Optional[Union[str, List[str]]] = None,
        fast_search: Optional[bool] = None,
    ) -> "LanceQueryBuilder":
        """The builder ``table.search(query, vector_column_name, query_type, ...)`` returns;
        `fast_search` makes a vector or full-text search skip the unindexed rows."""
        builder = table.search(  # keywords: a RemoteTable's search has LanceDB's remote order
            query, vector_column_name, query_type, ordering_field_name=ordering_field_name,
            fts_columns=fts_columns,
        )  # fmt: skip
        if fast_search and hasattr(builder, "fast_search"):
            builder.fast_search()
        return builder

    def __init__(self, table: "Table"):
        self._table = table
        self._limit: Optional[int] = None
        self._offset: int = 0
        self._columns: Optional[Union[List[str], Dict[str, str]]] = None
        self._where: Optional[str] = None
        self._with_row_id: bool = False
        self._order_by: Optional[List[ColumnOrdering]] = None
        self._with_row_address: Optional[bool] = None
        self._fragments: Any = None
        self._fragment_ids: Optional[List[int]] = None
        self._use_lsm: Optional[bool] = None
        # The values the calls were given, as LanceDB records them (to_query_object).
        self._limit_arg: Optional[int] = None
        self._offset_arg: Optional[int] = None
        self._with_row_id_arg: Optional[bool] = None
        self._postfilter_arg: Optional[bool] = None

    # Options --------------------------------------------------------------------------------

    def limit(self, limit: Optional[int]) -> "LanceQueryBuilder":
        """Return at most `limit` rows; None or 0 returns every row of a plain query."""
        self._limit_arg = limit
        if limit is None or limit <= 0:
            self._limit = None
        else:
            self._limit = int(limit)
        return self

    def offset(self, offset: Optional[int]) -> "LanceQueryBuilder":
        """Skip the first `offset` matching rows."""
        self._offset = 0 if offset is None or offset <= 0 else int(offset)
        self._offset_arg = self._offset
        return self

    def select(self, columns: Union[List[str], Dict[str, str]]) -> "LanceQueryBuilder":
        """Return these columns: a list of names, or a dict of alias to SQL expression."""
        if isinstance(columns, (list, tuple)):
            self._columns = list(columns)
        elif isinstance(columns, dict):
            self._columns = {
                k: (v.to_sql() if hasattr(v, "to_sql") else v) for k, v in columns.items()
            }
        else:
            raise ValueError("columns must be a list or a dictionary")
        return self

    def where(self, where: str, prefilter: bool = True) -> "LanceQueryBuilder":
        """Keep rows where the SQL predicate is true; repeated calls combine with AND.
        `prefilter` matters to vector queries only (as in LanceDB)."""
        self._where = _combine_where(self._where, where)
        self._postfilter_arg = not prefilter
        return self

    def with_row_id(self, with_row_id: bool = True) -> "LanceQueryBuilder":
        """Append the ``_rowid`` column (uint64)."""
        self._with_row_id_arg = with_row_id
        self._with_row_id = bool(with_row_id)
        return self

    def with_row_address(self, with_row_address: bool = True) -> "LanceQueryBuilder":
        """Append the ``_rowaddr`` column (uint64: fragment id << 32 | row offset in the
        fragment), after ``_rowid``. (LanceDB 0.39 accepts the call but returns no such
        column.)"""
        self._with_row_address = with_row_address
        return self

    def order_by(self, ordering: Optional[List["ColumnOrdering"]]) -> "LanceQueryBuilder":
        """Sort the results by these columns of the table (the first key first; rows equal on
        every key keep their scan order) before offset and limit; None (or []) keeps the
        default order. A vector or full-text query sorts its ``limit + offset`` best rows."""
        self._order_by = _ordering_list(ordering)
        return self

    def with_fragments(self, fragments: Any) -> "LanceQueryBuilder":
        """Read only these fragments (pylance ``LanceFragment`` objects, or their ids) of a
        plain query."""
        self._fragments = fragments
        return self

    def fragment_ids(self, fragment_ids: List[int]) -> "LanceQueryBuilder":
        """Read only the fragments with these ids in a plain query."""
        self._fragment_ids = fragment_ids
        return self

    def use_lsm(self, enable: bool) -> "LanceQueryBuilder":
        """LanceDB's MemWAL read routing. lancedb_cpp reads the base table only (what
        ``use_lsm(False)`` asks); True raises NotImplementedError."""
        if enable:
            raise NotImplementedError("use_lsm: LSM writes are not supported")
        self._use_lsm = enable
        return self

    # Execution ------------------------------------------------------------------------------

    def _ordering_args(self) -> Optional[List[tuple]]:
        if not self._order_by:
            return None
        return [(o.column_name, o.ascending, o.nulls_first) for o in self._order_by]

    def _fragment_args(self) -> Optional[List[int]]:
        """The fragment ids to restrict to (None: every fragment)."""
        if self._fragments is not None and self._fragment_ids is not None:
            raise ValueError("fragments and fragment_ids cannot both be set")
        chosen = self._fragments if self._fragments is not None else self._fragment_ids
        if chosen is None:
            return None
        if not isinstance(chosen, (list, tuple)):
            chosen = [chosen]
        return [_fragment_id(f) for f in chosen]

    def _request(self, max_batch_length: Optional[int]) -> Dict[str, Any]:
        # A limit of 0 (set by the async builder, where LanceDB returns no rows for it) is a
        # filter that keeps nothing: the result keeps its schema.
        nothing = self._limit == 0
        return {
            "filter": "false" if nothing else self._where,
            "columns": self._columns,
            "limit": None if nothing else self._limit,
            "offset": self._offset,
            "with_row_id": self._with_row_id,
            "max_batch_length": _batch_length(max_batch_length),
            "order_by": self._ordering_args(),
            "with_row_address": bool(self._with_row_address),
            "fragment_ids": self._fragment_args(),
        }

    def _reject_fragments(self, kind: str) -> None:
        """Searches are not restricted to fragments (LanceDB applies fragments to plain
        queries only, and ignores them elsewhere)."""
        if self._fragments is not None or self._fragment_ids is not None:
            raise NotImplementedError(
                f"with_fragments / fragment_ids: restricting a {kind} to fragments is not "
                "supported; it applies to plain queries"
            )

    def to_batches(
        self, /, batch_size: Optional[int] = None, *, timeout: Optional[timedelta] = None
    ) -> pa.RecordBatchReader:
        """Run the query and stream the results as a pyarrow RecordBatchReader of batches of
        at most `batch_size` rows (None or 0: 1024)."""
        deadline = _deadline(timeout)
        return deadline.bound(self._table._execute(self._request(batch_size)))

    def to_arrow(self, *, timeout: Optional[timedelta] = None) -> pa.Table:
        """Run the query and return the results as a pyarrow Table. Blob columns hold
        descriptors; unless the query chose with_row_id, a blob v2 descriptor carries its
        row's id in ``_lance_row_id`` (for ``Table.fetch_blobs``), as in LanceDB."""
        tbl = self.to_batches(timeout=timeout).read_all()
        if self._with_row_id_arg is not None:
            return tbl
        v2 = self._blob_columns(tbl, v2_only=True)
        if not v2:
            return tbl
        from ._blob import stash_row_ids

        return stash_row_ids(self._with_row_ids(timeout), v2)

    def _blob_columns(self, tbl: pa.Table, v2_only: bool) -> List[str]:
        """The columns of result `tbl` that are blob columns of the table (looked up only when
        `tbl` has columns shaped as blob descriptors, so that other queries cost nothing)."""
        if not any(pa.types.is_struct(t) for t in tbl.schema.types):
            return []  # descriptors are structs
        from ._blob import looks_like_descriptor
        from .schema import is_blob_like_field, is_blob_v2_field

        shaped = [f.name for f in tbl.schema if looks_like_descriptor(f.type, v2_only)]
        if not shaped:
            return []
        schema = self._table.schema
        is_blob = is_blob_v2_field if v2_only else is_blob_like_field
        return [n for n in shaped if n in schema.names and is_blob(schema.field(n))]

    def _with_row_ids(self, timeout: Optional[timedelta] = None) -> pa.Table:
        """Run the query with ``_rowid`` added."""
        saved = self._with_row_id
        self._with_row_id = True
        try:
            return self.to_batches(timeout=timeout).read_all()
        finally:
            self._with_row_id = saved

    def to_list(self, *, timeout: Optional[timedelta] = None) -> List[dict]:
        """Run the query and return a list of dicts, one per row."""
        return self.to_arrow(timeout=timeout).to_pylist()

    def to_pandas(
        self,
        flatten: Optional[Union[int, bool]] = None,
        *,
        blob_mode: str = "lazy",
        timeout: Optional[timedelta] = None,
        **kwargs: Any,
    ) -> "pd.DataFrame":
        """Run the query and return a pandas DataFrame; `flatten` flattens struct columns
        (True: all levels, n: n levels); `kwargs` go to ``pyarrow.Table.to_pandas``.
        `blob_mode` sets what blob columns hold: "lazy" BlobFile handles (None for a null
        blob), "bytes" the payloads, "descriptions" the descriptors."""
        _check_blob_mode(blob_mode)
        tbl = self.to_batches(timeout=timeout).read_all()
        if not self._blob_columns(tbl, v2_only=False):
            return arrow_to_pandas(tbl, flatten, blob_mode, **kwargs)
        from ._blob import result_to_pandas

        if "_rowid" not in tbl.column_names:
            tbl = self._with_row_ids(timeout)
        row_ids = tbl["_rowid"].to_pylist()
        if not self._with_row_id:
            tbl = tbl.drop_columns(["_rowid"])
        return result_to_pandas(self._table, tbl, blob_mode, row_ids, **kwargs)

    def to_df(self) -> "pd.DataFrame":
        """Deprecated alias of to_pandas()."""
        return self.to_pandas()

    def to_polars(self, *, timeout: Optional[timedelta] = None) -> "pl.DataFrame":
        """Run the query and return a polars DataFrame (requires polars)."""
        import polars as pl

        return pl.from_arrow(self.to_arrow(timeout=timeout))

    def output_schema(self) -> pa.Schema:
        """The schema the query returns, without running it."""
        return self._table._output_schema(self._request(None))

    def to_pydantic(self, model: type, *, timeout: Optional[timedelta] = None) -> list:
        """Run the query and build one `model` per row (a LanceModel class, or any pydantic
        model). Columns the model lacks, such as ``_distance``, are ignored unless the model
        forbids extra fields; a model field the results lack fails validation unless it has a
        default."""
        return [model(**row) for row in self.to_list(timeout=timeout)]

    def explain_plan(self, verbose: Optional[bool] = False) -> str:
        """The plan of the query as text, as LanceDB prints it: the reads, the scalar index
        lookups (``ScalarIndexQuery: query=[id = 5]@id_idx(BTree)``) and the filter left to
        evaluate (``refine_filter``); `verbose` adds the projection."""
        return self._table._explain(self._request(None), bool(verbose))

    def analyze_plan(self, distributed_metrics: str = "aggregate") -> str:
        """Run the query and return its plan with what each step did: rows the index lookups
        returned, fragments scanned, output rows and times. `distributed_metrics` concerns
        remote tables; locally only "aggregate" exists."""
        if distributed_metrics != "aggregate":
            raise NotImplementedError(
                f"analyze_plan(distributed_metrics={distributed_metrics!r}) applies to remote "
                "tables; local tables report 'aggregate' metrics only"
            )
        return self._table._analyze(self._request(None))

    def vector(self, vector: Any) -> "LanceQueryBuilder":
        """Set the query vector: only hybrid queries take one this way (as in LanceDB)."""
        raise NotImplementedError

    def text(self, text: Any) -> "LanceQueryBuilder":
        """Set the query text: only hybrid queries take one this way (as in LanceDB)."""
        raise NotImplementedError

    def rerank(self, reranker: Any) -> "LanceQueryBuilder":
        """Rerank the results: vector, full-text and hybrid queries only."""
        raise NotImplementedError("Reranking is not yet supported.")

    # Query objects (LanceDB's Query model) ----------------------------------------------------

    def _query_fields(self) -> Dict[str, Any]:
        """The fields every query object of a sync builder has, as LanceDB fills them."""
        return dict(
            columns=self._columns,
            filter=self._where,
            limit=None if self._limit_arg is None or self._limit_arg <= 0 else self._limit_arg,
            with_row_id=self._with_row_id_arg,
            with_row_address=self._with_row_address,
            fragments=self._fragments,
            fragment_ids=self._fragment_ids,
            use_lsm=self._use_lsm,
            offset=self._offset_arg,
            order_by=self._order_by,
        )

    def to_query_object(self) -> "Query":
        """The query as LanceDB's ``Query`` model (a plain, serializable description)."""
        return Query(**self._query_fields())


class LanceEmptyQueryBuilder(LanceQueryBuilder):
    """``table.search()`` without a query vector or text: a filtered, projected scan."""


class LanceTakeQueryBuilder(LanceQueryBuilder):
    """Rows by offset (``take_offsets``) or by row id (``take_row_ids``), in table order."""

    def __init__(self, table: "Table", *, offsets=None, row_ids=None):
        super().__init__(table)
        self._offsets = None if offsets is None else [int(o) for o in offsets]
        self._row_ids = None if row_ids is None else [int(r) for r in row_ids]

    def _request(self, max_batch_length: Optional[int]) -> Dict[str, Any]:
        request = super()._request(max_batch_length)
        if request["fragment_ids"] is not None:
            raise NotImplementedError(
                "with_fragments / fragment_ids: restricting take_offsets / take_row_ids to "
                "fragments is not supported; they apply to plain queries"
            )
        request["take_offsets"] = self._offsets
        request["take_row_ids"] = self._row_ids
        return request

    def to_batches(
        self,
        batch_size: Optional[int] = None,
        *,
        max_batch_length: Optional[int] = None,
        timeout: Optional[timedelta] = None,
    ) -> pa.RecordBatchReader:
        """Run the query; batches of at most `max_batch_length` rows (LanceDB's name here;
        `batch_size` is the same option under the other builders' name)."""
        if None not in (batch_size, max_batch_length) and batch_size != max_batch_length:
            raise ValueError("Give one of batch_size and max_batch_length")
        return super().to_batches(
            batch_size if batch_size is not None else max_batch_length, timeout=timeout
        )

    def to_arrow(self, timeout: Optional[timedelta] = None) -> pa.Table:
        """Run the query and return the results as a pyarrow Table."""
        return super().to_arrow(timeout=timeout)

    def to_list(self, timeout: Optional[timedelta] = None) -> List[dict]:
        """Run the query and return a list of dicts, one per row."""
        return super().to_list(timeout=timeout)

    def to_pandas(
        self,
        flatten: Optional[Union[int, bool]] = None,
        timeout: Optional[timedelta] = None,
        *,
        blob_mode: str = "lazy",
        **kwargs: Any,
    ) -> "pd.DataFrame":
        """Run the query and return a pandas DataFrame (see LanceQueryBuilder.to_pandas)."""
        return super().to_pandas(flatten, blob_mode=blob_mode, timeout=timeout, **kwargs)

    def to_polars(self, timeout: Optional[timedelta] = None) -> "pl.DataFrame":
        """Run the query and return a polars DataFrame (requires polars)."""
        return super().to_polars(timeout=timeout)

    def _query_fields(self) -> Dict[str, Any]:
        # LanceDB describes a take as a filter (offsets once each, row ids as given).
        if self._offsets is not None:
            unique = list(dict.fromkeys(self._offsets))
            take_filter = f"_rowoffset IN ({', '.join(str(o) for o in unique)})"
        else:
            take_filter = f"_rowid IN ({', '.join(str(r) for r in self._row_ids)})"
        return dict(
            filter=take_filter,
            columns=_async_columns(self._columns),
            with_row_id=self._with_row_id,
            with_row_address=self._with_row_address,
            fragments=self._fragments,
            fragment_ids=self._fragment_ids,
            use_lsm=self._use_lsm,
            take_offsets=self._offsets,
            order_by=self._order_by,
        )


def _async_columns(columns: Any) -> Any:
    """A projection as LanceDB's async query objects give it (a dict as (name, SQL) pairs)."""
    return list(columns.items()) if isinstance(columns, dict) else columns


# Full-text query classes (lancedb.query) ------------------------------------------------------

import json as _json
from dataclasses import dataclass as _dataclass
from dataclasses import field as _field
from enum import Enum as _Enum
from typing import Tuple as _Tuple
from typing import TypeVar as _TypeVar


class FullTextQueryType(str, _Enum):
    MATCH = "match"
    MATCH_PHRASE = "match_phrase"
    BOOST = "boost"
    MULTI_MATCH = "multi_match"
    BOOLEAN = "boolean"


class FullTextOperator(str, _Enum):
    AND = "AND"
    OR = "OR"


Operator = FullTextOperator


class Occur(str, _Enum):
    SHOULD = "SHOULD"
    MUST = "MUST"
    MUST_NOT = "MUST_NOT"


class DocumentGranularity(str, _Enum):
    ROW = "row"
    LIST_ELEMENT = "list_element"


def _check_int(name: str, value: Any, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")


def _check_granularity(value: Any) -> None:
    if value not in (None, DocumentGranularity.ROW, "row"):
        raise NotImplementedError(
            "document_granularity=LIST_ELEMENT (one document per list element) is not "
            "supported by lancedb_cpp yet"
        )


class FullTextQuery:
    """A full-text query tree node; ``q1 & q2`` is a BooleanQuery of two MUST clauses and
    ``q1 | q2`` one of two SHOULD clauses."""

    def query_type(self) -> FullTextQueryType:  # pragma: no cover - abstract
        raise NotImplementedError

    def _to_dict(self) -> Dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def to_json(self) -> str:
        """LanceDB's JSON form of the query."""
        return _json.dumps(self._to_dict(), separators=(",", ":"))

    def __and__(self, other: "FullTextQuery") -> "FullTextQuery":
        return BooleanQuery([(Occur.MUST, self), (Occur.MUST, other)])

    def __or__(self, other: "FullTextQuery") -> "FullTextQuery":
        return BooleanQuery([(Occur.SHOULD, self), (Occur.SHOULD, other)])


@_dataclass
class MatchQuery(FullTextQuery):
    """Documents holding the query's terms (``operator`` OR: any, AND: all), scored by BM25
    times ``boost``; ``fuzziness`` expands each term to indexed terms within that edit
    distance (None: 0 up to 2 characters, 1 up to 5, else 2), at most ``max_expansions``,
    keeping the first ``prefix_length`` characters."""

    query: str
    column: str
    boost: float = _field(default=1.0, kw_only=True)
    fuzziness: Optional[int] = _field(default=0, kw_only=True)
    max_expansions: int = _field(default=50, kw_only=True)
    operator: FullTextOperator = _field(default=FullTextOperator.OR, kw_only=True)
    prefix_length: int = _field(default=0, kw_only=True)
    document_granularity: Optional[DocumentGranularity] = _field(default=None, kw_only=True)

    def __post_init__(self):
        if not isinstance(self.query, str):
            raise ValueError("MatchQuery: query must be a string")
        _check_int("fuzziness", self.fuzziness, allow_none=True)
        _check_int("max_expansions", self.max_expansions)
        _check_int("prefix_length", self.prefix_length)
        self.operator = FullTextOperator(str(getattr(self.operator, "value", self.operator)).upper())
        _check_granularity(self.document_granularity)

    def query_type(self) -> FullTextQueryType:
        return FullTextQueryType.MATCH

    def _to_dict(self) -> Dict[str, Any]:
        return {
            "match": {
                "column": self.column,
                "terms": self.query,
                "boost": float(self.boost),
                "fuzziness": self.fuzziness,
                "max_expansions": self.max_expansions,
                "operator": "And" if self.operator == FullTextOperator.AND else "Or",
                "prefix_length": self.prefix_length,
            }
        }


@_dataclass
class PhraseQuery(FullTextQuery):
    """Documents holding the terms in order, each at most ``slop`` positions further from
    the previous one than in the query (needs an index built ``with_position=True``)."""

    query: str
    column: str
    slop: int = _field(default=0, kw_only=True)
    document_granularity: Optional[DocumentGranularity] = _field(default=None, kw_only=True)

    def __post_init__(self):
        _check_int("slop", self.slop)
        _check_granularity(self.document_granularity)

    def query_type(self) -> FullTextQueryType:
        return FullTextQueryType.MATCH_PHRASE

    def _to_dict(self) -> Dict[str, Any]:
        return {"phrase": {"column": self.column, "terms": self.query, "slop": self.slop}}


@_dataclass
class BoostQuery(FullTextQuery):
    """Documents matching ``positive``, scored ``positive - negative_boost * negative``."""

    positive: FullTextQuery
    negative: FullTextQuery
    negative_boost: float = _field(default=0.5, kw_only=True)

    def query_type(self) -> FullTextQueryType:
        return FullTextQueryType.BOOST

    def _to_dict(self) -> Dict[str, Any]:
        return {
            "boost": {
                "positive": self.positive._to_dict(),
                "negative": self.negative._to_dict(),
                "negative_boost": float(self.negative_boost),
            }
        }


@_dataclass
class MultiMatchQuery(FullTextQuery):
    """A match query over several columns; a document scores the best ``boost * score`` of
    its columns."""

    query: str
    columns: List[str]
    boosts: Optional[List[float]] = _field(default=None, kw_only=True)
    operator: FullTextOperator = _field(default=FullTextOperator.OR, kw_only=True)

    def __post_init__(self):
        if self.boosts is not None and len(self.boosts) != len(self.columns):
            raise ValueError("MultiMatchQuery: boosts must have one value per column")
        self.operator = FullTextOperator(str(getattr(self.operator, "value", self.operator)).upper())

    def query_type(self) -> FullTextQueryType:
        return FullTextQueryType.MULTI_MATCH

    def _to_dict(self) -> Dict[str, Any]:
        boosts = self.boosts if self.boosts is not None else [1.0] * len(self.columns)
        body = {"query": self.query, "columns": list(self.columns), "boost": [float(b) for b in boosts]}
        if self.operator == FullTextOperator.AND:
            body["operator"] = "And"
        return {"multi_match": body}


@_dataclass
class BooleanQuery(FullTextQuery):
    """MUST clauses must all match, MUST_NOT clauses exclude, SHOULD clauses add their score
    (and one must match when there is no MUST clause)."""

    queries: List[_Tuple[Occur, FullTextQuery]]

    def query_type(self) -> FullTextQueryType:
        return FullTextQueryType.BOOLEAN

    def _to_dict(self) -> Dict[str, Any]:
        out: Dict[str, List[Any]] = {"should": [], "must": [], "must_not": []}
        for occur, query in self.queries:
            key = {Occur.SHOULD: "should", Occur.MUST: "must", Occur.MUST_NOT: "must_not"}[
                Occur(getattr(occur, "value", occur))
            ]
            out[key].append(query._to_dict())
        return {"boolean": out}


# Query models (lancedb.query) -----------------------------------------------------------------

import pydantic as _pydantic  # noqa: E402

from .expr import Expr  # noqa: E402


class ColumnOrdering(_pydantic.BaseModel):
    """One key of ``order_by``: a column of the table (a dot path for a struct member), the
    direction, and whether nulls come before the values (else after them), in either
    direction."""

    column_name: str
    ascending: bool = True
    nulls_first: bool = False


class FullTextSearchQuery(_pydantic.BaseModel):
    """The full-text part of a Query: the query (a string is a match query) and the columns
    searched (None or []: every FTS-indexed column)."""

    columns: Optional[List[str]] = None
    query: Union[str, FullTextQuery]

    model_config = _pydantic.ConfigDict(arbitrary_types_allowed=True)


class Query(_pydantic.BaseModel):
    """A query as a plain model, LanceDB's ``lancedb.query.Query``: what
    ``to_query_object()`` returns, with LanceDB's fields and, for the same builder calls,
    LanceDB's values (sync builders record the calls as made; async builders report the
    engine's request, defaults filled in)."""

    vector_column: Optional[str] = None
    vector: Optional[Union[List[float], List[List[float]], pa.Array, List[pa.Array]]] = None
    filter: Optional[Union[str, Expr]] = None
    postfilter: Optional[bool] = None
    full_text_query: Optional[FullTextSearchQuery] = None
    limit: Optional[int] = None
    distance_type: Optional[str] = None
    columns: Optional[
        Union[List[str], List[_Tuple[str, Union[str, Expr]]], Dict[str, Union[str, Expr]]]
    ] = None
    minimum_nprobes: Optional[int] = None
    maximum_nprobes: Optional[int] = None
    lower_bound: Optional[float] = None
    upper_bound: Optional[float] = None
    refine_factor: Optional[int] = None
    with_row_id: Optional[bool] = None
    with_row_address: Optional[bool] = None
    fragments: Optional[Any] = None
    fragment_ids: Optional[List[int]] = None
    offset: Optional[int] = None
    take_offsets: Optional[List[int]] = None
    fast_search: Optional[bool] = None
    use_lsm: Optional[bool] = None
    ef: Optional[int] = None
    bypass_vector_index: Optional[bool] = None
    order_by: Optional[List[ColumnOrdering]] = None

    model_config = _pydantic.ConfigDict(arbitrary_types_allowed=True)

    @classmethod
    def from_inner(cls, req: Any) -> "Query":
        """A Query from a request object with the attributes of LanceDB's native query
        request (``limit``, ``offset``, ``take_offsets``, ``filter``, ``full_text_search``,
        ``select``, ``with_row_id``, ``use_lsm``, ``column``, ``query_vector``,
        ``distance_type``, ``minimum_nprobes``, ``maximum_nprobes``, ``lower_bound``,
        ``upper_bound``, ``ef``, ``refine_factor``, ``bypass_vector_index``, ``postfilter``,
        ``order_by``); missing attributes read as None."""
        get = lambda name: getattr(req, name, None)  # noqa: E731
        query = cls(
            limit=get("limit"), offset=get("offset"), take_offsets=get("take_offsets"),
            filter=get("filter"), columns=get("select"), with_row_id=get("with_row_id"),
            use_lsm=get("use_lsm"), vector_column=get("column"), vector=get("query_vector"),
            distance_type=get("distance_type"), minimum_nprobes=get("minimum_nprobes"),
            maximum_nprobes=get("maximum_nprobes"), lower_bound=get("lower_bound"),
            upper_bound=get("upper_bound"), ef=get("ef"), refine_factor=get("refine_factor"),
            bypass_vector_index=get("bypass_vector_index"), postfilter=get("postfilter"),
        )  # fmt: skip
        if get("order_by") is not None:
            query.order_by = [ColumnOrdering(**o) for o in get("order_by")]
        if get("full_text_search") is not None:
            query.full_text_query = FullTextSearchQuery(query=get("full_text_search"))
        return query


T = _TypeVar("T")

# Names LanceDB has in this module that live in modules importing this one: loaded on first use.
_LAZY = {
    **{name: "_async_query" for name in (
        "AsyncFTSQuery", "AsyncHybridQuery", "AsyncQuery", "AsyncQueryBase",
        "AsyncRecordBatchReader", "AsyncStandardQuery", "AsyncTakeQuery", "AsyncVectorQuery",
        "AsyncVectorQueryBase",
    )},
    "LanceVectorQueryBuilder": "_vector",
    "LanceFtsQueryBuilder": "_fts",
    "LanceHybridQueryBuilder": "_fts",
    "Reranker": "rerankers",
    "RRFReranker": "rerankers",
}  # fmt: skip


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__package__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
