# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Table: LanceDB's sync ``Table`` API over the native engine.

A Table may be used from many Python threads at once: the engine handle is internally
synchronized and every native call runs without the GIL. Writes always apply to the newest
version on storage; reads see this handle's version (see ``read_consistency_interval``).
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Union

import pyarrow as pa

from . import _data
from ._index import IndexMixin
from . import _evolution
from ._unsupported import reject_unsupported
from ._evolution import LanceMergeInsertBuilder, MergeResult, Tags  # noqa: F401
from .query import LanceEmptyQueryBuilder, LanceQueryBuilder, LanceTakeQueryBuilder

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import polars as pl

    from ._native import Table as _NativeTable
    from .db import DBConnection


@dataclass(frozen=True)
class AddResult:
    """The outcome of ``Table.add``: the version it committed."""

    version: int


@dataclass(frozen=True)
class DeleteResult:
    """The outcome of ``Table.delete``."""

    num_deleted_rows: int
    version: int


@dataclass(frozen=True)
class UpdateResult:
    """The outcome of ``Table.update``."""

    rows_updated: int
    version: int


def value_to_sql(value: Any) -> str:
    """Render a Python value as a SQL literal (as ``lancedb.util.value_to_sql``)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, pa.Scalar):
        return value_to_sql(value.as_py())
    if type(value).__module__ == "numpy":
        if hasattr(value, "tolist"):
            return value_to_sql(value.tolist())
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "'NaN'::double"
        if math.isinf(value):
            return "'Infinity'::double" if value > 0 else "'-Infinity'::double"
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, (bytes, bytearray)):
        return "X'" + bytes(value).hex() + "'"
    if isinstance(value, (datetime.datetime, datetime.date)):
        return f"'{value.isoformat()}'"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(value_to_sql(v) for v in value) + "]"
    if isinstance(value, dict):
        parts = ", ".join(f"{value_to_sql(str(k))}, {value_to_sql(v)}" for k, v in value.items())
        return f"named_struct({parts})"
    raise NotImplementedError(f"SQL conversion is not implemented for {type(value).__name__}")


def _stream_to_reader(stream: Any) -> pa.RecordBatchReader:
    reader = pa.RecordBatchReader.from_stream(stream)
    schema = reader.schema
    for name in ("_rowid", "_rowaddr"):
        index = schema.get_field_index(name)
        if index >= 0 and not schema.field(index).nullable:
            # LanceDB and pylance report them as nullable uint64; relabel (no data is copied).
            schema = schema.set(index, schema.field(index).with_nullable(True))
    if schema is reader.schema:
        return reader
    return pa.RecordBatchReader.from_batches(
        schema, (pa.RecordBatch.from_arrays(b.columns, schema=schema) for b in reader)
    )


_BLOB_MODES = ("lazy", "bytes", "descriptions")


def _has_blob_field(schema: pa.Schema) -> bool:
    return any((f.metadata or {}).get(b"lance-encoding:blob") == b"true" for f in schema)


class Table(IndexMixin):
    """A LanceDB table (a Lance dataset). Obtain one from ``DBConnection.create_table`` or
    ``DBConnection.open_table``."""

    def __init__(self, conn: "DBConnection", inner: "_NativeTable"):
        self._conn = conn
        self._inner = inner

    # Basics ---------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The table's name."""
        return self._inner.name

    @property
    def uri(self) -> str:
        """The location of the table's Lance dataset."""
        return self._inner.uri

    @property
    def schema(self) -> pa.Schema:
        """The Arrow schema of the version this handle reads."""
        return pa.schema(self._inner.schema())

    @property
    def version(self) -> int:
        """The version this handle reads."""
        return self._inner.version()

    def to_lance(self, **kwargs: Any) -> Any:
        """The table as a pylance ``LanceDataset`` at the version this handle reads (needs the
        `pylance` package; `kwargs` go to ``lance.dataset``)."""
        try:
            import lance
        except ImportError as e:
            raise ImportError("Please install pylance to use to_lance()") from e
        if str(self.uri).startswith("memory://"):
            raise NotImplementedError("to_lance() of a memory:// table: pylance cannot open it")
        kwargs.setdefault("version", self.version)
        return lance.dataset(self.uri, **kwargs)

    def uses_v2_manifest_paths(self) -> bool:
        """Whether the table names its manifests with Lance's V2 scheme (zero-padded, inverted
        version numbers), as tables created with ``enable_v2_manifest_paths`` do."""
        import os
        import re

        if str(self.uri).startswith("memory://"):
            raise NotImplementedError("uses_v2_manifest_paths() of a memory:// table")
        names = os.listdir(os.path.join(self.uri, "_versions"))
        return any(re.fullmatch(r"\d{20}\.manifest", n) for n in names)

    def __repr__(self) -> str:
        return f"LanceTable(name={self.name!r}, version={self.version})"

    def __len__(self) -> int:
        return self.count_rows()

    def count_rows(self, filter: Optional[str] = None) -> int:
        """Count the rows, or those where the SQL `filter` is true."""
        if filter is None:
            return self._inner.count_rows()
        return self._inner.count_rows_where(filter)

    def head(self, n: int = 5) -> pa.Table:
        """The first `n` rows as a pyarrow Table."""
        return self.search().limit(n).to_arrow()

    def to_arrow(self) -> pa.Table:
        """All rows of the current version as a pyarrow Table (zero-copy from the engine)."""
        return _stream_to_reader(self._inner.scan()).read_all()

    def to_pandas(self, blob_mode: str = "lazy", **kwargs: Any) -> "pd.DataFrame":
        """All rows as a pandas DataFrame; `kwargs` go to ``pyarrow.Table.to_pandas``.
        `blob_mode` only matters for Lance blob columns, which are not supported: on a table
        with one, a `blob_mode` other than "lazy" raises NotImplementedError."""
        if blob_mode not in _BLOB_MODES:
            modes = ", ".join(repr(mode) for mode in _BLOB_MODES)
            raise ValueError(f"blob_mode must be one of {modes}, got {blob_mode!r}")
        if blob_mode != "lazy" and _has_blob_field(self.schema):
            raise NotImplementedError(
                "to_pandas(blob_mode=...) is not supported: blob columns are read as stored"
            )
        return self.to_arrow().to_pandas(**kwargs)

    def to_polars(self, batch_size: Optional[int] = None) -> "pl.LazyFrame":
        """All rows as a polars LazyFrame (requires polars), read in batches of at most
        `batch_size` rows."""
        import polars as pl

        reader = self.search().to_batches(batch_size)
        return pl.from_arrow(reader.read_all(), rechunk=False).lazy()

    # Writes ---------------------------------------------------------------------------------

    def _check_writable(self) -> None:
        if self._conn is not None and self._pinned is not None:
            raise ValueError(
                "Invalid input, table cannot be modified when a specific version is checked "
                f"out (version {self._pinned}); call checkout_latest() first"
            )

    _pinned: Optional[int] = None

    def add(
        self,
        data: Any,
        mode: str = "append",
        on_bad_vectors: str = "error",
        fill_value: float = 0.0,
        progress: Any = None,
        write_parallelism: Optional[int] = None,
        allow_external_blob_outside_bases: bool = False,
    ) -> AddResult:
        """Add rows (any supported input) with ``mode`` "append" or "overwrite".
        `progress`, `write_parallelism` and `allow_external_blob_outside_bases` are not
        supported: anything but their defaults raises NotImplementedError."""
        reject_unsupported(
            "add",
            progress=(progress, None),
            write_parallelism=(write_parallelism, None),
            allow_external_blob_outside_bases=(allow_external_blob_outside_bases, False),
        )
        if mode not in ("append", "overwrite"):
            raise ValueError(f"mode must be 'append' or 'overwrite', got {mode!r}")
        self._check_writable()
        current = self.schema
        target = None if mode == "overwrite" else current
        reader = _data.sanitize(
            data,
            target,
            on_bad_vectors,
            fill_value,
            allow_missing=(mode == "append"),
            metadata=current.metadata,
        )
        if mode == "overwrite":
            if set(reader.schema.names) == set(current.names):
                reader = _data._cast_to(reader, current)
        return AddResult(version=self._inner.add(reader, mode))

    def delete(self, where: str) -> DeleteResult:
        """Delete the rows where the SQL predicate is true."""
        self._check_writable()
        if hasattr(where, "to_sql"):
            where = where.to_sql()
        deleted, version = self._inner.delete(where)
        return DeleteResult(num_deleted_rows=deleted, version=version)

    def update(
        self,
        where: Optional[str] = None,
        values: Optional[Dict[str, Any]] = None,
        *,
        values_sql: Optional[Dict[str, str]] = None,
    ) -> UpdateResult:
        """Set columns in the rows where `where` is true (every row when None): `values` are
        Python literals, `values_sql` SQL expressions; give exactly one of them."""
        if values is not None and values_sql is not None:
            raise ValueError("Only one of values or values_sql can be provided")
        if values is None and values_sql is None:
            raise ValueError("Either values or values_sql must be provided")
        self._check_writable()
        if values is not None:
            updates = [(k, value_to_sql(v)) for k, v in values.items()]
        else:
            updates = [(k, str(v)) for k, v in values_sql.items()]
        updated, version = self._inner.update(where, updates)
        return UpdateResult(rows_updated=updated, version=version)

    def merge_insert(self, on: Union[str, List[str]]) -> LanceMergeInsertBuilder:
        """Start a merge insert keyed on the column(s) `on` (upsert, insert-if-not-exists,
        replace-range); finish with ``.execute(data)``."""
        return LanceMergeInsertBuilder(self, on)

    # Schema evolution and maintenance (lancedb_cpp/_evolution.py) ----------------------------

    def add_columns(
        self,
        transforms: Any = None,
        read_columns: Optional[List[str]] = None,
        *,
        batch_size: Optional[int] = None,
    ) -> "_evolution.AddColumnsResult":
        """Add columns: ``{"name": "SQL expression"}``, all-null columns from a
        ``pa.Field`` / list of fields / ``pa.Schema`` (nested structs allowed), or a function
        of a ``pa.RecordBatch`` returning the new columns (it sees only `read_columns` when
        given). The new columns are written as new files in the existing fragments."""
        return _evolution.add_columns(self, transforms, read_columns, batch_size)

    def alter_columns(self, *alterations: Dict[str, Any]) -> "_evolution.AlterColumnsResult":
        """Rename (``{"path": "a.b", "rename": "c"}``) or relax nullability
        (``"nullable": True``) of columns."""
        return _evolution.alter_columns(self, *alterations)

    def drop_columns(self, columns: Iterable[str]) -> "_evolution.DropColumnsResult":
        """Drop columns (dot paths for struct members)."""
        return _evolution.drop_columns(self, columns)

    def update_field_metadata(
        self, *updates: Dict[str, Any]
    ) -> "_evolution.UpdateFieldMetadataResult":
        """Change field metadata: ``{"path": p, "metadata": {k: v or None}, "replace": False}``.
        Conventional keys: ``lancedb:description``, ``lancedb:tag:<name>``,
        ``lancedb:logical-column``, ``lancedb:status`` (production, candidate, deprecated,
        archived)."""
        return _evolution.update_field_metadata(self, *updates)

    def optimize(
        self,
        *,
        cleanup_older_than: Optional[datetime.timedelta] = None,
        delete_unverified: bool = False,
        error_if_tagged_old_versions: bool = True,
        retrain: bool = False,
    ) -> "_evolution.OptimizeStats":
        """Compact small fragments, then remove versions older than `cleanup_older_than`
        (default 7 days; never the latest version), then index unindexed rows. A tagged
        version older than the cutoff raises ValueError unless `error_if_tagged_old_versions`
        is False, which keeps it. Unreferenced files are removed once 7 days old, or at once
        with `delete_unverified` (unsafe while others write). `retrain` is unused, as in
        LanceDB 0.39, which deprecated it: indices are extended, never retrained."""
        return _evolution.optimize(
            self,
            cleanup_older_than=cleanup_older_than,
            delete_unverified=delete_unverified,
            error_if_tagged_old_versions=error_if_tagged_old_versions,
            retrain=retrain,
        )

    def compact_files(self, **options: Any) -> "_evolution.CompactionStats":
        """Compact fragments (``target_rows_per_fragment``, ``max_rows_per_group``,
        ``materialize_deletions``, ``materialize_deletions_threshold``, ``num_threads``; the
        other options of ``lance.dataset.DatasetOptimizer.compact_files`` raise
        NotImplementedError unless None)."""
        return _evolution.compact_files(self, **options)

    def cleanup_old_versions(
        self,
        older_than: Optional[datetime.timedelta] = None,
        *,
        delete_unverified: bool = False,
        error_if_tagged_old_versions: bool = True,
    ) -> "_evolution.RemovalStats":
        """Remove versions older than `older_than` (default 7 days) and their files; see
        ``optimize`` for `delete_unverified` and `error_if_tagged_old_versions`."""
        return _evolution.cleanup_old_versions(
            self,
            older_than,
            delete_unverified=delete_unverified,
            error_if_tagged_old_versions=error_if_tagged_old_versions,
        )

    # Queries --------------------------------------------------------------------------------

    def search(
        self,
        query: Any = None,
        vector_column_name: Optional[str] = None,
        query_type: str = "auto",
        ordering_field_name: Optional[str] = None,
        fts_columns: Optional[Union[str, List[str]]] = None,
    ) -> LanceQueryBuilder:
        """Start a query. Without `query`, a plain scan with where/select/limit/offset; with a
        vector (list, numpy array) or a list of vectors, a nearest-neighbour query; with a
        string or a FullTextQuery (or ``query_type="fts"``), a full-text query over
        `fts_columns` (default: every FTS-indexed column); ``query_type="hybrid"`` starts a
        hybrid query (``.vector(v).text("words")``)."""
        from .query import FullTextQuery

        # LanceDB ignores ordering_field_name since its Tantivy index was removed.
        reject_unsupported("search", ordering_field_name=(ordering_field_name, None))
        if query_type not in ("auto", "vector", "fts", "hybrid"):
            raise ValueError(
                f"Invalid query_type {query_type!r}; expected auto, vector, fts or hybrid"
            )
        if query_type == "hybrid":
            from ._fts import LanceHybridQueryBuilder

            return LanceHybridQueryBuilder(self, query, vector_column_name, fts_columns)
        if query is None:
            if query_type == "fts":
                raise ValueError("A full-text query needs query text")
            reject_unsupported("search", fts_columns=(fts_columns, None))
            return LanceEmptyQueryBuilder(self)
        if (
            isinstance(query, str)
            and query_type == "auto"
            and self._embedding_config(vector_column_name) is not None
        ):
            query_type = "vector"  # LanceDB: a string is embedded when a function is set
        if isinstance(query, FullTextQuery) or query_type == "fts" or (
            isinstance(query, str) and query_type == "auto"
        ):
            from ._fts import LanceFtsQueryBuilder

            return LanceFtsQueryBuilder(self, query, fts_columns=fts_columns)
        if isinstance(query, str):
            query = self._embed_query(query, vector_column_name)
        reject_unsupported("search", fts_columns=(fts_columns, None))
        from ._vector import make_vector_query

        return make_vector_query(self, query, vector_column_name, None)

    @property
    def embedding_functions(self) -> Dict[str, Any]:
        """The table's embedding function configurations, by vector column (KeyError when
        the schema names a function that is not registered)."""
        return _data.embedding_configs(self.schema.metadata)

    def _embedding_config(self, vector_column_name: Optional[str]) -> Any:
        configs = self.embedding_functions
        if not configs:
            return None
        if vector_column_name is None and len(configs) == 1:
            return next(iter(configs.values()))  # the table's one embedded vector column
        return configs.get(vector_column_name or _data.VECTOR_COLUMN_NAME)

    def _embed_query(self, query: Any, vector_column_name: Optional[str]) -> Any:
        """The query vector for a non-vector query (a string ...), from the embedding
        function of the searched vector column."""
        conf = self._embedding_config(vector_column_name)
        if conf is None:
            column = vector_column_name or _data.VECTOR_COLUMN_NAME
            raise ValueError(f"No embedding function for {column}")
        return conf.function.compute_query_embeddings_with_retry(query)[0]

    def query(self) -> LanceQueryBuilder:
        """Start a plain query (as ``search()`` with no query)."""
        return LanceEmptyQueryBuilder(self)

    def take_offsets(
        self, offsets: Iterable[int], *, with_row_id: bool = False
    ) -> LanceTakeQueryBuilder:
        """A query for the rows at these offsets (positions among the live rows), in table
        order (a repeated offset gives its row again); `with_row_id` adds ``_rowid``."""
        return LanceTakeQueryBuilder(self, offsets=offsets).with_row_id(with_row_id)

    def take_row_ids(
        self, row_ids: Iterable[int], *, with_row_id: bool = False
    ) -> LanceTakeQueryBuilder:
        """A query for the rows with these row ids (from ``with_row_id``), in table order;
        `with_row_id` adds ``_rowid``."""
        return LanceTakeQueryBuilder(self, row_ids=row_ids).with_row_id(with_row_id)

    def _native_query_args(self, request: Dict[str, Any]) -> Dict[str, Any]:
        columns = request["columns"]
        return dict(
            filter=request["filter"],
            columns=list(columns) if isinstance(columns, list) else None,
            dynamic=list(columns.items()) if isinstance(columns, dict) else None,
            limit=request["limit"],
            offset=request["offset"],
            with_row_id=request["with_row_id"],
            max_batch_length=request["max_batch_length"] or 1024,
            take_offsets=request.get("take_offsets"),
            take_row_ids=request.get("take_row_ids"),
            order_by=request.get("order_by"),
            with_row_address=request.get("with_row_address", False),
            fragment_ids=request.get("fragment_ids"),
        )

    def _execute(self, request: Dict[str, Any]) -> pa.RecordBatchReader:
        return _stream_to_reader(self._inner.query(**self._native_query_args(request)))

    def _output_schema(self, request: Dict[str, Any]) -> pa.Schema:
        return pa.schema(self._inner.query_schema(**self._native_query_args(request)))

    def _explain(self, request: Dict[str, Any], verbose: bool) -> str:
        return self._inner.explain_query(verbose, **self._native_query_args(request))

    def _analyze(self, request: Dict[str, Any]) -> str:
        return self._inner.analyze_query(**self._native_query_args(request))

    # Versions -------------------------------------------------------------------------------

    def list_versions(self) -> List[Dict[str, Any]]:
        """Every version, oldest first: dicts with "version", "timestamp" and "metadata"."""
        return [
            {
                "version": version,
                "timestamp": datetime.datetime.fromtimestamp(micros / 1e6),
                "metadata": dict(metadata),
            }
            for version, micros, metadata in self._inner.list_versions()
        ]

    def checkout(self, version: Union[int, str]) -> None:
        """Pin this handle to `version` or to the version of a tag (read-only until
        ``checkout_latest``)."""
        if isinstance(version, str):
            version = self.tags.get_version(version)
        self._inner.checkout(int(version))
        self._pinned = int(version)

    @property
    def tags(self) -> Tags:
        """The table's tags (list, get_version, create, update, delete)."""
        return Tags(self)

    def checkout_latest(self) -> None:
        """Follow the newest version again (and allow writes)."""
        self._inner.checkout_latest()
        self._pinned = None

    def restore(self, version: Optional[Union[int, str]] = None) -> None:
        """Make `version` (or the checked-out version) the newest version, as a new commit."""
        if version is not None:
            self.checkout(version)
        elif self._pinned is None:
            raise ValueError("Invalid input, you must run checkout before running restore")
        self._inner.restore()
        self._pinned = None


LanceTable = Table


_ASYNC_NAMES = ('AsyncTable',)


def __getattr__(name: str):
    # The async classes (LanceDB has them here too) load on first use: _async imports this module.
    if name in _ASYNC_NAMES:
        from . import _async

        return getattr(_async, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
