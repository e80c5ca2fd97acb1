# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Query builders, mirroring ``lancedb.query``: ``table.search()`` (a plain scan with filter,
projection, limit and offset) and ``table.take_offsets`` / ``table.take_row_ids``.

A builder is a value: each method records an option and returns the builder; ``to_arrow``,
``to_batches`` and friends run it. Results come back from the engine as an Arrow stream
imported zero-copy into pyarrow. Queries run to completion: a `timeout` other than None raises
NotImplementedError.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union

import pyarrow as pa

from ._unsupported import reject_unsupported

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import polars as pl

    from .table import Table


def _check_timeout(function: str, timeout: Optional[timedelta]) -> None:
    reject_unsupported(function, timeout=(timeout, None))


def _combine_where(old: Optional[str], new: str) -> str:
    if not isinstance(new, str):
        if hasattr(new, "to_sql"):
            new = new.to_sql()
        else:
            raise ValueError(f"where must be a SQL string, got {type(new).__name__}")
    return new if old is None else f"({old}) AND ({new})"


class LanceQueryBuilder:
    """Common options and outputs of every query."""

    def __init__(self, table: "Table"):
        self._table = table
        self._limit: Optional[int] = None
        self._offset: int = 0
        self._columns: Optional[Union[List[str], Dict[str, str]]] = None
        self._where: Optional[str] = None
        self._with_row_id: bool = False

    # Options --------------------------------------------------------------------------------

    def limit(self, limit: Optional[int]) -> "LanceQueryBuilder":
        """Return at most `limit` rows; None or 0 returns every row of a plain query."""
        if limit is None or limit <= 0:
            self._limit = None
        else:
            self._limit = int(limit)
        return self

    def offset(self, offset: Optional[int]) -> "LanceQueryBuilder":
        """Skip the first `offset` matching rows."""
        self._offset = 0 if offset is None or offset <= 0 else int(offset)
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
        return self

    def with_row_id(self, with_row_id: bool = True) -> "LanceQueryBuilder":
        """Append the ``_rowid`` column (uint64)."""
        self._with_row_id = bool(with_row_id)
        return self

    # Execution ------------------------------------------------------------------------------

    def _request(self, max_batch_length: Optional[int]) -> Dict[str, Any]:
        return {
            "filter": self._where,
            "columns": self._columns,
            "limit": self._limit,
            "offset": self._offset,
            "with_row_id": self._with_row_id,
            "max_batch_length": max_batch_length,
        }

    def to_batches(
        self, /, batch_size: Optional[int] = None, *, timeout: Optional[timedelta] = None
    ) -> pa.RecordBatchReader:
        """Run the query and stream the results as a pyarrow RecordBatchReader."""
        _check_timeout("to_batches", timeout)
        return self._table._execute(self._request(batch_size))

    def to_arrow(self, *, timeout: Optional[timedelta] = None) -> pa.Table:
        """Run the query and return the results as a pyarrow Table."""
        _check_timeout("to_arrow", timeout)
        return self.to_batches().read_all()

    def to_list(self, *, timeout: Optional[timedelta] = None) -> List[dict]:
        """Run the query and return a list of dicts, one per row."""
        _check_timeout("to_list", timeout)
        return self.to_arrow().to_pylist()

    def to_pandas(
        self, flatten: Optional[Union[int, bool]] = None, *, timeout: Optional[timedelta] = None
    ) -> "pd.DataFrame":
        """Run the query and return a pandas DataFrame; `flatten` flattens struct columns
        (True: all levels, n: n levels)."""
        _check_timeout("to_pandas", timeout)
        table = self.to_arrow()
        if flatten is True:
            while any(pa.types.is_struct(f.type) for f in table.schema):
                table = table.flatten()
        elif isinstance(flatten, int) and flatten > 0:
            for _ in range(flatten):
                table = table.flatten()
        return table.to_pandas()

    def to_df(self) -> "pd.DataFrame":
        """Deprecated alias of to_pandas()."""
        return self.to_pandas()

    def to_polars(self, *, timeout: Optional[timedelta] = None) -> "pl.DataFrame":
        """Run the query and return a polars DataFrame (requires polars)."""
        _check_timeout("to_polars", timeout)
        import polars as pl

        return pl.from_arrow(self.to_arrow())

    def output_schema(self) -> pa.Schema:
        """The schema the query returns, without running it."""
        return self._table._output_schema(self._request(None))

    def to_pydantic(self, model: type, *, timeout: Optional[timedelta] = None) -> list:
        """Run the query and build one `model` per row (a LanceModel class, or any pydantic
        model). Columns the model lacks, such as ``_distance``, are ignored unless the model
        forbids extra fields; a model field the results lack fails validation unless it has a
        default."""
        _check_timeout("to_pydantic", timeout)
        return [model(**row) for row in self.to_list()]

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


class LanceEmptyQueryBuilder(LanceQueryBuilder):
    """``table.search()`` without a query vector or text: a filtered, projected scan."""


class LanceTakeQueryBuilder(LanceQueryBuilder):
    """Rows by offset (``take_offsets``) or by row id (``take_row_ids``), in the order given."""

    def __init__(self, table: "Table", *, offsets=None, row_ids=None):
        super().__init__(table)
        self._offsets = None if offsets is None else [int(o) for o in offsets]
        self._row_ids = None if row_ids is None else [int(r) for r in row_ids]

    def _request(self, max_batch_length: Optional[int]) -> Dict[str, Any]:
        request = super()._request(max_batch_length)
        request["take_offsets"] = self._offsets
        request["take_row_ids"] = self._row_ids
        return request


# Full-text query classes (lancedb.query) ------------------------------------------------------

import json as _json
from dataclasses import dataclass as _dataclass
from dataclasses import field as _field
from enum import Enum as _Enum
from typing import Tuple as _Tuple


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


_ASYNC_NAMES = ('AsyncFTSQuery', 'AsyncHybridQuery', 'AsyncQuery', 'AsyncRecordBatchReader', 'AsyncTakeQuery', 'AsyncVectorQuery')


def __getattr__(name: str):
    # The async classes (LanceDB has them here too) load on first use: _async_query imports this module.
    if name in _ASYNC_NAMES:
        from . import _async_query

        return getattr(_async_query, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
