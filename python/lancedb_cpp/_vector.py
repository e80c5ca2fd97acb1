# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Vector search: ``table.search(vector)`` returns a :class:`LanceVectorQueryBuilder`, as in
``lancedb.query``. The query runs in the engine (exact search, or through the column's vector
index for the rows it covers); results carry a float32 ``_distance`` column and, for several
query vectors, an int32 ``query_index`` column first. On a multivector column
(``list<fixed_size_list>``) the vectors are one late-interaction (MaxSim) query instead, as in
LanceDB (docs/vector-search.md).
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union

import numpy as np
import pyarrow as pa

from .query import LanceQueryBuilder, Query, _batch_length, _combine_where, _deadline

if TYPE_CHECKING:  # pragma: no cover
    from .table import Table

_DISTANCE_TYPES = ("l2", "cosine", "dot", "hamming")


def _to_vectors(query: Any) -> List[List[float]]:
    """Normalise a query (list, tuple, numpy array, pyarrow array, or a list of those) into a
    list of float lists; several vectors make a batch query."""
    if isinstance(query, np.ndarray) and query.dtype.kind == "f" and query.size > 0:
        # Fast path: tolist() already gives Python floats.
        if query.ndim == 1:
            return [query.tolist()]
        if query.ndim == 2:
            return query.tolist()
    if isinstance(query, (pa.Array, pa.ChunkedArray)):
        query = query.to_pylist()
    elif isinstance(query, pa.Scalar):
        query = query.as_py()
    if hasattr(query, "tolist") and not isinstance(query, (list, tuple)):
        query = query.tolist()
    if not isinstance(query, (list, tuple)) or len(query) == 0:
        raise ValueError(f"A vector query must be a non-empty list or array, got {query!r}")
    first = query[0]
    if hasattr(first, "tolist") and not isinstance(first, (list, tuple)):
        query = [q.tolist() for q in query]
        first = query[0]
    if isinstance(first, (list, tuple)):
        return [[float(x) for x in v] for v in query]
    return [[float(x) for x in query]]


def _is_nested(query: Any) -> bool:
    """Whether a query is a list of vectors (rather than one vector)."""
    if isinstance(query, (pa.Array, pa.ChunkedArray)):
        return pa.types.is_list(query.type) or pa.types.is_fixed_size_list(query.type)
    if hasattr(query, "ndim"):
        return query.ndim > 1
    if isinstance(query, (list, tuple)) and len(query) > 0:
        return isinstance(query[0], (list, tuple)) or hasattr(query[0], "tolist")
    return False


def _inferred_column(table: "Table", dim: int) -> Optional[str]:
    """The vector column a query of `dim` values searches when none is named: the one
    fixed-size list column of that size (None when there is not exactly one)."""
    names = []
    for f in table.schema:
        t = f.type
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            t = t.value_type  # multivector
        if pa.types.is_fixed_size_list(t) and t.list_size == dim:
            names.append(f.name)
    return names[0] if len(names) == 1 else None


def _check_nprobes(minimum: Optional[int], maximum: Optional[int]) -> None:
    """LanceDB's checks of ``minimum_nprobes`` / ``maximum_nprobes`` at execution: with both
    set, the minimum is taken as is and the maximum checked against it; with one set, it is
    checked against the other's default (20). A maximum of 0 means no bound."""
    min_msg = "Invalid input, minimum_nprobes must be greater than 0"
    max_msg = "Invalid input, maximum_nprobes must be greater than or equal to minimum_nprobes"
    if minimum is not None and maximum is not None:
        if maximum != 0 and maximum < minimum:
            raise ValueError(max_msg)
    elif minimum is not None:
        if minimum <= 0:
            raise ValueError(min_msg)
        if minimum > 20:
            raise ValueError(
                "Invalid input, minimum_nprobes must be less than or equal to maximum_nprobes"
            )
    elif maximum is not None and maximum != 0 and maximum < 20:
        raise ValueError(max_msg)


class LanceVectorQueryBuilder(LanceQueryBuilder):
    """A nearest-neighbour query (``table.search(vector)``).

    Options mirror LanceDB: ``distance_type``/``metric``, ``limit`` (default 10), ``nprobes``,
    ``minimum_nprobes``, ``maximum_nprobes``, ``refine_factor``, ``ef``, ``distance_range``,
    ``where(filter, prefilter=True)``, ``postfilter``, ``bypass_vector_index``,
    ``fast_search``, ``with_row_id``, ``select``.
    """

    def __init__(
        self,
        table: "Table",
        query: Any,
        vector_column: Optional[str] = None,
        str_query: Optional[str] = None,
        fast_search: Optional[bool] = None,
    ):
        super().__init__(table)
        self._str_query = str_query  # the text the vector was embedded from, for rerank()
        self._vectors = _to_vectors(query)
        self._nested_query = _is_nested(query)
        self._vector_column = vector_column
        self._distance_type: Optional[str] = None
        self._minimum_nprobes: Optional[int] = None
        self._maximum_nprobes: Optional[int] = None
        self._refine_factor: Optional[int] = None
        self._ef: Optional[int] = None
        self._lower_bound: Optional[float] = None
        self._upper_bound: Optional[float] = None
        self._postfilter = False
        self._bypass_vector_index = False
        self._fast_search = bool(fast_search)
        self._fast_search_arg: Optional[bool] = fast_search
        self._limit = 10

    def limit(self, limit: Optional[int]) -> "LanceVectorQueryBuilder":
        """Return at most `limit` rows per query vector; None or a limit below 1 raise
        ValueError, as in LanceDB (a vector query needs a limit)."""
        if limit is None or limit <= 0:
            raise ValueError("Limit is required for ANN/KNN queries")
        self._limit_arg = limit
        self._limit = 10 if not limit else int(limit)
        return self

    def metric(self, metric: str) -> "LanceVectorQueryBuilder":
        """Alias of :meth:`distance_type`."""
        return self.distance_type(metric)

    def distance_type(self, distance_type: str) -> "LanceVectorQueryBuilder":
        """Set the distance: "l2" (default), "cosine", "dot" or "hamming"."""
        name = str(distance_type).lower()
        if name not in _DISTANCE_TYPES:
            raise ValueError(
                f"Invalid distance type '{distance_type}'.  Must be one of l2, cosine, dot, "
                "or hamming"
            )
        self._distance_type = name
        return self

    def nprobes(self, nprobes: int) -> "LanceVectorQueryBuilder":
        """Probe exactly `nprobes` IVF partitions (sets the minimum and the maximum)."""
        self._minimum_nprobes = self._maximum_nprobes = int(nprobes)
        return self

    def minimum_nprobes(self, minimum_nprobes: int) -> "LanceVectorQueryBuilder":
        """Probe at least this many partitions."""
        self._minimum_nprobes = int(minimum_nprobes)
        return self

    def maximum_nprobes(self, maximum_nprobes: int) -> "LanceVectorQueryBuilder":
        """Probe more partitions, up to this many (0: no bound), while fewer than `limit`
        rows were found."""
        self._maximum_nprobes = int(maximum_nprobes)
        return self

    def distance_range(
        self, lower_bound: Optional[float] = None, upper_bound: Optional[float] = None
    ) -> "LanceVectorQueryBuilder":
        """Keep only rows with ``lower_bound <= _distance < upper_bound``."""
        self._lower_bound = None if lower_bound is None else float(lower_bound)
        self._upper_bound = None if upper_bound is None else float(upper_bound)
        return self

    def ef(self, ef: int) -> "LanceVectorQueryBuilder":
        """HNSW search breadth (default 1.5 * limit)."""
        self._ef = int(ef)
        return self

    def refine_factor(self, refine_factor: int) -> "LanceVectorQueryBuilder":
        """Re-rank ``refine_factor * limit`` index candidates with exact distances."""
        self._refine_factor = int(refine_factor)
        return self

    def where(self, where: str, prefilter: Optional[bool] = None) -> "LanceVectorQueryBuilder":
        """Keep rows where the SQL predicate is true; prefilter (default) filters before the
        search, so `limit` rows come back whenever that many match."""
        self._where = _combine_where(self._where, where)
        if prefilter is not None:
            self._postfilter = not prefilter
            self._postfilter_arg = not prefilter
        return self

    def postfilter(self) -> "LanceVectorQueryBuilder":
        """Filter the nearest rows after the search (possibly fewer than `limit` remain)."""
        self._postfilter = True
        self._postfilter_arg = True
        return self

    def bypass_vector_index(self) -> "LanceVectorQueryBuilder":
        """Search exhaustively even when the column is indexed (ground truth)."""
        self._bypass_vector_index = True
        return self

    def fast_search(self) -> "LanceVectorQueryBuilder":
        """Skip the rows not covered by the vector index."""
        self._fast_search = True
        self._fast_search_arg = True
        return self

    def rerank(
        self, reranker: Any = None, query_string: Optional[str] = None
    ) -> "LanceVectorQueryBuilder":
        """Rerank the results with ``reranker.rerank_vector(query_string, results)`` (default
        RRFReranker()); `query_string` defaults to the text the query vector was embedded from
        and is required when there is none."""
        from . import _hybrid
        from .rerankers import RRFReranker

        reranker = RRFReranker() if reranker is None else reranker
        if not _hybrid.is_reranker(reranker):
            raise ValueError("reranker must be an instance of Reranker class.")
        self._rerank = (
            reranker,
            _hybrid.check_vector_rerank_args(reranker, self._str_query, query_string),
        )
        if getattr(reranker, "score", None) == "all":
            self.with_row_id(True)
        return self

    def to_arrow(self, *, timeout: Optional[timedelta] = None) -> pa.Table:
        """Run the query and return the results as a pyarrow Table (reranked when asked)."""
        results = super().to_arrow(timeout=timeout)
        rerank = getattr(self, "_rerank", None)
        if rerank is not None:
            from . import _hybrid

            results = _hybrid.rerank_vector_results(rerank[0], rerank[1], results)
        return results

    # Execution ------------------------------------------------------------------------------

    def _native_args(self, max_batch_length: Optional[int]) -> Dict[str, Any]:
        columns = self._columns
        self._reject_fragments("vector search")
        _check_nprobes(self._minimum_nprobes, self._maximum_nprobes)
        return dict(
            vectors=self._vectors,
            column=self._vector_column,
            distance_type=self._distance_type,
            filter=self._where,
            columns=list(columns) if isinstance(columns, list) else None,
            dynamic=list(columns.items()) if isinstance(columns, dict) else None,
            limit=self._limit,
            offset=self._offset,
            with_row_id=self._with_row_id,
            max_batch_length=_batch_length(max_batch_length),
            prefilter=not self._postfilter,
            minimum_nprobes=self._minimum_nprobes,
            maximum_nprobes=self._maximum_nprobes,
            refine_factor=self._refine_factor,
            ef=self._ef,
            lower_bound=self._lower_bound,
            upper_bound=self._upper_bound,
            bypass_vector_index=self._bypass_vector_index,
            fast_search=self._fast_search,
            order_by=self._ordering_args(),
            with_row_address=bool(self._with_row_address),
        )

    def to_query_object(self) -> Query:
        """The query as LanceDB's ``Query`` model: the vector (as float32 values), the
        searched column (inferred when not given), and the options as set."""
        vectors = [[float(np.float32(x)) for x in v] for v in self._vectors]
        fields = self._query_fields()
        fields.update(
            vector=vectors if self._nested_query else vectors[0],
            vector_column=self._vector_column or _inferred_column(self._table, len(vectors[0])),
            postfilter=self._postfilter_arg,
            distance_type=self._distance_type,
            minimum_nprobes=self._minimum_nprobes,
            maximum_nprobes=self._maximum_nprobes,
            lower_bound=self._lower_bound,
            upper_bound=self._upper_bound,
            refine_factor=self._refine_factor,
            fast_search=self._fast_search_arg,
            ef=self._ef,
            bypass_vector_index=True if self._bypass_vector_index else None,
        )
        return Query(**fields)

    def to_batches(
        self, /, batch_size: Optional[int] = None, *, timeout: Optional[timedelta] = None
    ) -> pa.RecordBatchReader:
        """Run the query and stream the results as a pyarrow RecordBatchReader."""
        deadline = _deadline(timeout)
        from . import _native
        from .table import _stream_to_reader

        try:
            stream = _native.vector_query(self._table._inner, **self._native_args(batch_size))
        except ValueError as e:
            # Lance checks the HNSW breadth inside its index search, so LanceDB reports it as
            # a RuntimeError ("lance error: ..."), unlike its argument checks.
            if str(e).startswith("ef must be greater than or equal to k"):
                raise RuntimeError(f"lance error: {e}") from None
            raise
        return deadline.bound(_stream_to_reader(stream))

    def explain_plan(self, verbose: Optional[bool] = False) -> str:
        """The plan as text, as LanceDB prints it: the vector index searched (``ANNSubIndex``)
        or the flat scan (``KNNVectorDistance``), the top-k, and the prefilter's own plan with
        its scalar index lookups."""
        from . import _native

        return _native.vector_explain(
            self._table._inner, verbose=bool(verbose), **self._native_args(None)
        )

    def analyze_plan(self, distributed_metrics: str = "aggregate") -> str:
        """Run the query and return its plan with the measured output rows and time."""
        from . import _native

        if distributed_metrics != "aggregate":
            raise NotImplementedError(
                f"analyze_plan(distributed_metrics={distributed_metrics!r}) applies to remote "
                "tables; local tables report 'aggregate' metrics only"
            )
        return _native.vector_analyze(self._table._inner, **self._native_args(None))

    def output_schema(self) -> pa.Schema:
        """The schema the query returns, without running it."""
        from . import _native

        return pa.schema(
            _native.vector_query_schema(self._table._inner, **self._native_args(None))
        )


def make_vector_query(
    table: "Table",
    query: Any,
    vector_column_name: Optional[str],
    fast_search: Optional[bool],
    str_query: Optional[str] = None,
) -> Union[LanceVectorQueryBuilder, LanceQueryBuilder]:
    """``table.search(query, vector_column_name)`` for a vector query (`str_query`: the text
    the query vector was embedded from)."""
    return LanceVectorQueryBuilder(
        table, query, vector_column_name, str_query=str_query, fast_search=fast_search
    )
