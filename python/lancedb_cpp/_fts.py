# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Full-text and hybrid query builders (LanceDB's ``LanceFtsQueryBuilder`` and
``LanceHybridQueryBuilder``).

A full-text query is sent to the engine as LanceDB's JSON form of the query tree: a plain
string is a match query over the `fts_columns` (every FTS-indexed column when none is given);
a string in double quotes, or any string after ``phrase_query()``, is a phrase query. A hybrid
query runs a vector query and a full-text query with the same filter, projection and
``limit + offset`` rows, then fuses them with a reranker (RRF by default; see _hybrid.py).
"""

from __future__ import annotations

import inspect
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union

import pyarrow as pa

from . import _hybrid
from .query import (
    FullTextQuery,
    FullTextSearchQuery,
    LanceQueryBuilder,
    MatchQuery,
    MultiMatchQuery,
    PhraseQuery,
    Query,
    _batch_length,
    _combine_where,
    _deadline,
)

if TYPE_CHECKING:  # pragma: no cover
    from .table import Table


def _fts_columns(fts_columns: Optional[Union[str, List[str]]]) -> Optional[List[str]]:
    if fts_columns is None:
        return None
    return [fts_columns] if isinstance(fts_columns, str) else list(fts_columns)


def query_json(query: Any, fts_columns: Optional[List[str]], phrase: bool = False) -> str:
    """The engine's JSON of a query string or FullTextQuery."""
    if isinstance(query, FullTextQuery):
        if phrase and not isinstance(query, PhraseQuery):
            raise TypeError(
                f"phrase_query() requires a string or PhraseQuery, got {type(query).__name__}"
            )
        return query.to_json()
    if not isinstance(query, str):
        raise ValueError(
            f"Full-text query must be a string or a FullTextQuery, got {type(query).__name__}"
        )
    columns = fts_columns or []
    quoted = len(query) >= 2 and query.startswith('"') and query.endswith('"')
    if phrase or quoted:
        text = query[1:-1] if quoted else query
        if len(columns) > 1:
            raise ValueError(
                "Invalid input, the column must be specified in the query: a phrase query "
                "searches one column"
            )
        return PhraseQuery(text, columns[0] if columns else "").to_json()
    if len(columns) > 1:
        return MultiMatchQuery(query, columns).to_json()
    return MatchQuery(query, columns[0] if columns else "").to_json()


class LanceFtsQueryBuilder(LanceQueryBuilder):
    """A full-text query (``table.search("text")``): BM25-ranked rows with ``_score``.

    ``where(filter, prefilter=True)`` filters before ranking (``prefilter=False``: ranks first,
    then filters, so fewer rows may remain); ``limit`` (default 10), ``offset``, ``select``,
    ``with_row_id``, ``phrase_query()``, ``fast_search()`` (skip rows appended since the index
    was built) and ``rerank(reranker)``."""

    def __init__(
        self,
        table: "Table",
        query: Any,
        ordering_field_name: Optional[str] = None,
        fts_columns: Optional[Union[str, List[str]]] = None,
        fast_search: Optional[bool] = None,
    ):
        super().__init__(table)
        if ordering_field_name is not None:
            raise NotImplementedError(
                "ordering_field_name (ordering full-text results by a column) is not supported "
                "by lancedb_cpp"
            )
        self._query = query
        self._fts_columns = _fts_columns(fts_columns)
        self._phrase_query = False
        self._fast_search = bool(fast_search)
        self._fast_search_arg: Optional[bool] = fast_search
        self._prefilter = True
        self._reranker = None
        self._limit = 10

    def limit(self, limit: Optional[int]) -> "LanceFtsQueryBuilder":
        """Return at most `limit` rows (None or 0: the default, 10)."""
        if limit is not None and limit < 0:
            raise ValueError("Limit must be non-negative")
        self._limit_arg = limit
        self._limit = 10 if not limit else int(limit)
        return self

    def where(self, where: str, prefilter: Optional[bool] = None) -> "LanceFtsQueryBuilder":
        """Keep rows where the SQL predicate is true; `prefilter=False` filters the top rows
        after ranking."""
        self._where = _combine_where(self._where, where)
        self._postfilter_arg = False if prefilter is None else not prefilter
        if prefilter is not None:
            self._prefilter = bool(prefilter)
        return self

    def phrase_query(self, phrase_query: bool = True) -> "LanceFtsQueryBuilder":
        """Search the string as one phrase (as if it were in double quotes)."""
        self._phrase_query = bool(phrase_query)
        return self

    def fast_search(self) -> "LanceFtsQueryBuilder":
        """Search only the indexed rows (rows appended since the index was built are skipped)."""
        self._fast_search = True
        self._fast_search_arg = True
        return self

    def rerank(self, reranker: Any) -> "LanceFtsQueryBuilder":
        """Rerank the results with ``reranker.rerank_fts(query, results)``."""
        if not _hybrid.is_reranker(reranker):
            raise ValueError("reranker must be an instance of Reranker class.")
        self._reranker = reranker
        if getattr(reranker, "score", None) == "all":
            self.with_row_id(True)
        return self

    def _native_args(self, max_batch_length: Optional[int] = None) -> Dict[str, Any]:
        columns = self._columns
        self._reject_fragments("full-text search")
        if isinstance(columns, dict):
            raise NotImplementedError(
                "select() with SQL expressions on a full-text query is not supported yet; "
                "select column names"
            )
        return dict(
            query_json=query_json(self._query, self._fts_columns, self._phrase_query),
            filter=self._where,
            columns=list(columns) if columns is not None else None,
            limit=self._limit,
            offset=self._offset,
            with_row_id=self._with_row_id,
            prefilter=self._prefilter,
            fast_search=self._fast_search,
            order_by=self._ordering_args(),
            with_row_address=bool(self._with_row_address),
            max_batch_length=_batch_length(max_batch_length),
        )

    def _phrase_semantics(self) -> Any:
        """The query as LanceDB records it: with phrase_query(), a string in double quotes."""
        query = self._query
        if not self._phrase_query:
            return query
        if isinstance(query, str):
            quoted = len(query) >= 2 and query.startswith('"') and query.endswith('"')
            return query if quoted else f'"{query}"'
        if isinstance(query, PhraseQuery):
            return query
        raise TypeError(
            f"phrase_query() requires a string or PhraseQuery, got {type(query).__name__}"
        )

    def to_query_object(self) -> Query:
        """The query as LanceDB's ``Query`` model, the text in ``full_text_query``."""
        fields = self._query_fields()
        fields.update(
            postfilter=self._postfilter_arg,
            full_text_query=FullTextSearchQuery(
                query=self._phrase_semantics(),
                columns=self._fts_columns if self._fts_columns is not None else [],
            ),
            fast_search=self._fast_search_arg,
        )
        return Query(**fields)

    def to_batches(
        self, /, batch_size: Optional[int] = None, *, timeout: Optional[timedelta] = None
    ) -> pa.RecordBatchReader:
        """Run the query and stream the results in batches of at most `batch_size` rows (None
        or 0: 1024)."""
        rows = _batch_length(batch_size)
        table = self.to_arrow(timeout=timeout)
        return pa.RecordBatchReader.from_batches(table.schema, table.to_batches(rows))

    def to_arrow(self, *, timeout: Optional[timedelta] = None) -> pa.Table:
        """Run the query: the selected columns, then ``_score`` (and ``_rowid`` when asked)."""
        deadline = _deadline(timeout)
        from . import _native
        from .table import _stream_to_reader

        stream = _native.fts_query(self._table._inner, **self._native_args())
        results = deadline.bound(_stream_to_reader(stream)).read_all()
        if self._reranker is not None:
            results = _hybrid.rerank_fts_results(self._reranker, self._query, results)
        return results

    def explain_plan(self, verbose: Optional[bool] = False) -> str:
        """The plan as text: the match/phrase node, the inverted index searched and the flat
        search of unindexed rows."""
        from . import _native

        return _native.fts_explain(self._table._inner, verbose=bool(verbose), **self._native_args())

    def analyze_plan(self, distributed_metrics: str = "aggregate") -> str:
        """The plan under an ``AnalyzeExec`` line with the measured output rows and time."""
        from .query import analyze_text

        start = time.perf_counter()
        rows = self.to_arrow().num_rows
        return analyze_text(self.explain_plan(True), rows, time.perf_counter() - start)

    def output_schema(self) -> pa.Schema:
        from . import _native

        return pa.schema(_native.fts_query_schema(self._table._inner, **self._native_args()))


class LanceHybridQueryBuilder(LanceQueryBuilder):
    """A hybrid query: ``table.search(query_type="hybrid").vector(v).text("words")``; the
    vector and full-text results are fused by a reranker (``rerank()``, default
    ``RRFReranker()``) into ``_relevance_score``."""

    def __init__(
        self,
        table: "Table",
        query: Any = None,
        vector_column: Optional[str] = None,
        fts_columns: Optional[Union[str, List[str]]] = None,
    ):
        super().__init__(table)
        self._query = query
        self._vector = None
        self._text = None
        self._vector_column = vector_column
        self._fts_columns = fts_columns
        self._norm = None
        self._reranker = None
        self._postfilter = False
        self._phrase_query = None
        self._vector_options: List[Any] = []
        self._limit = 10

    def limit(self, limit: Optional[int]) -> "LanceHybridQueryBuilder":
        if limit is not None and limit < 0:
            raise ValueError("Limit must be non-negative")
        self._limit = 10 if not limit else int(limit)
        return self

    def vector(self, vector: Any) -> "LanceHybridQueryBuilder":
        """The query vector."""
        self._vector = vector
        return self

    def text(self, text: Any) -> "LanceHybridQueryBuilder":
        """The full-text query (a string or FullTextQuery)."""
        self._text = text
        return self

    def where(self, where: str, prefilter: Optional[bool] = None) -> "LanceHybridQueryBuilder":
        self._where = _combine_where(self._where, where)
        if prefilter is not None:
            self._postfilter = not prefilter
        return self

    def phrase_query(self, phrase_query: bool = True) -> "LanceHybridQueryBuilder":
        self._phrase_query = phrase_query
        return self

    @staticmethod
    def _normalize_scores(scores: pa.Array, invert: bool = False) -> pa.Array:
        """The min-max normalization hybrid fusion applies to distances and scores (LanceDB's
        static helper of the same name)."""
        from . import _hybrid

        return _hybrid.normalize_scores(scores, invert)

    def rerank(self, reranker: Any = None, normalize: str = "score") -> "LanceHybridQueryBuilder":
        """Fuse with `reranker` (default RRFReranker()); `normalize` "score" min-max normalizes
        the distances and scores first, "rank" replaces them by their ranks first."""
        from .rerankers import RRFReranker

        reranker = RRFReranker() if reranker is None else reranker
        _hybrid.check_rerank_args(reranker, normalize)
        self._norm = normalize
        self._reranker = reranker
        if reranker.score == "all":
            self.with_row_id(True)
        return self

    def to_query_object(self) -> Query:
        raise NotImplementedError("to_query_object not yet supported on a hybrid query")

    def _reject_unsupported(self) -> None:
        """Options a hybrid query does not take (LanceDB 0.39 ignores them on sync hybrid
        queries; its async hybrid query orders each search before fusing)."""
        if self._order_by:
            raise NotImplementedError("order_by is not supported on hybrid queries")
        if self._with_row_address:
            raise NotImplementedError("with_row_address is not supported on hybrid queries")
        self._reject_fragments("hybrid search")

    def _vector_option(name: str):  # noqa: N805 - a method factory
        def option(self, *args: Any, **kwargs: Any) -> "LanceHybridQueryBuilder":
            self._vector_options.append((name, args, kwargs))
            return self

        from ._vector import LanceVectorQueryBuilder

        option.__name__ = name
        option.__doc__ = f"Passed to the vector search (see LanceVectorQueryBuilder.{name})."
        # help() and inspect show the parameters the vector search takes.
        option.__signature__ = inspect.signature(getattr(LanceVectorQueryBuilder, name))
        return option

    nprobes = _vector_option("nprobes")
    minimum_nprobes = _vector_option("minimum_nprobes")
    maximum_nprobes = _vector_option("maximum_nprobes")
    refine_factor = _vector_option("refine_factor")
    ef = _vector_option("ef")
    distance_type = _vector_option("distance_type")
    metric = _vector_option("metric")
    distance_range = _vector_option("distance_range")
    bypass_vector_index = _vector_option("bypass_vector_index")
    del _vector_option

    def _queries(self):
        query, vector, text = self._query, self._vector, self._text
        if query is not None and (vector is not None or text is not None):
            raise ValueError(
                "You can either provide a string query in search() method or set `vector()` "
                "and `text()` explicitly for hybrid search. But not both."
            )
        vector_query = vector if vector is not None else query
        if vector_query is None:
            raise ValueError("Vector query must be provided for hybrid search.")
        if isinstance(vector_query, str):
            vector_query = self._table._embed_query(vector_query, self._vector_column)
        text_query = text if text is not None else query
        if text_query is None:
            raise ValueError("Text query must be provided for hybrid search.")
        if not isinstance(text_query, (str, FullTextQuery)):
            raise ValueError("Text query must be a string or FullTextQuery")
        from ._vector import make_vector_query

        vq = make_vector_query(self._table, vector_query, self._vector_column, None)
        fq = LanceFtsQueryBuilder(self._table, text_query, fts_columns=self._fts_columns)
        sub_limit = self._limit + (self._offset or 0)
        vq.limit(sub_limit)
        fq.limit(sub_limit)
        if self._columns:
            vq.select(self._columns)
            fq.select(self._columns)
        if self._where:
            vq.where(self._where, not self._postfilter)
            fq.where(self._where, not self._postfilter)
        if self._phrase_query:
            fq.phrase_query(True)
        for name, args, kwargs in self._vector_options:
            getattr(vq, name)(*args, **kwargs)
        return vq.with_row_id(True), fq.with_row_id(True), text_query

    def to_arrow(self, *, timeout: Optional[timedelta] = None) -> pa.Table:
        """Run both searches and fuse them: the rows with ``_relevance_score`` (float32),
        best first."""
        deadline = _deadline(timeout)
        self._reject_unsupported()
        vq, fq, text_query = self._queries()
        with ThreadPoolExecutor(max_workers=2) as pool:
            fts_future = pool.submit(fq.to_arrow)
            vector_future = pool.submit(vq.to_arrow)
            fts_results, vector_results = fts_future.result(), vector_future.result()
        from .rerankers import RRFReranker

        results = _hybrid.combine_hybrid_results(
            fts_results,
            vector_results,
            norm=self._norm,
            fts_query=text_query,
            reranker=self._reranker if self._reranker is not None else RRFReranker(),
            limit=self._limit,
            offset=self._offset,
            with_row_ids=True,
        )
        if not self._with_row_id and "_rowid" in results.column_names:
            results = results.drop(["_rowid"])
        deadline.check()
        return results

    def to_batches(
        self, /, batch_size: Optional[int] = None, *, timeout: Optional[timedelta] = None
    ) -> pa.RecordBatchReader:
        """Run the query; batches of at most `batch_size` rows (None or 0: 1024)."""
        rows = _batch_length(batch_size)
        table = self.to_arrow(timeout=timeout)
        return pa.RecordBatchReader.from_batches(table.schema, table.to_batches(rows))

    def explain_plan(self, verbose: Optional[bool] = False) -> str:
        """The reranker, then the plans of the vector and the full-text search."""
        from .rerankers import RRFReranker

        vq, fq, _ = self._queries()
        reranker = self._reranker if self._reranker is not None else RRFReranker()
        indent = lambda text: "".join("  " + line + "\n" for line in text.splitlines())  # noqa
        return f"{reranker}\n" + indent(vq.explain_plan(verbose)) + indent(fq.explain_plan(verbose))

    def output_schema(self) -> pa.Schema:
        return self.to_arrow().schema
