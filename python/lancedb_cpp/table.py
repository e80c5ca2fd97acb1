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
from . import _not_yet as nyi
from ._index import IndexMixin, tokenizer_preset
from ._unsupported import warn_deprecated
from . import _computed, _evolution
from ._not_yet import not_yet, unsupported_class
from ._unsupported import reject_unsupported
from ._evolution import LanceMergeInsertBuilder, MergeResult, Tags  # noqa: F401
from ._stats import FragmentStatistics, FragmentSummaryStats, TableStatistics  # noqa: F401
from .query import LanceEmptyQueryBuilder, LanceQueryBuilder, LanceTakeQueryBuilder
from .query import Query  # noqa: F401  (lancedb.table has it too)

# Names LanceDB's table module has too (re-exported from where they live here).
from ._fts import LanceFtsQueryBuilder, LanceHybridQueryBuilder  # noqa: F401,E402
from ._vector import LanceVectorQueryBuilder  # noqa: F401,E402
from .embeddings import EmbeddingFunctionConfig, EmbeddingFunctionRegistry  # noqa: F401,E402
from .expr import Expr  # noqa: F401,E402
from .functions import FunctionApplication  # noqa: F401,E402
from .functions import RefreshColumnResult as RefreshColumnJobResult  # noqa: F401,E402
from .index import (  # noqa: F401,E402
    FTS,
    BTree,
    Bitmap,
    Fm,
    HnswFlat,
    HnswPq,
    HnswSq,
    IndexStatistics,
    IvfFlat,
    IvfPq,
    IvfRq,
    IvfSq,
    LabelList,
)
from .job import AsyncJob, Job  # noqa: F401,E402
from .pydantic import LanceModel, model_to_dict  # noqa: F401,E402
from .query import DocumentGranularity, FullTextQuery  # noqa: F401,E402
from .scannable import to_scannable  # noqa: F401,E402
from .schema import (  # noqa: F401,E402
    blob_v2_column_paths,
    blob_column_paths,
    is_blob_v2_field,
    row_addressable_blob_v2_paths,
    schema_has_blob_field,
)

from ._branches import AsyncBranches, Branches  # noqa: E402,F401

from ._blob import BlobFile  # noqa: E402
from ._sanitize import (  # noqa: E402,F401  (LanceDB's input-data helpers, as lancedb.table)
    _append_vector_columns,
    _cast_to_target_schema,
    _fill_bad_vector_values,
    _handle_bad_vectors,
    _infer_target_schema,
    _into_pyarrow_reader,
    _merge_metadata,
    _sanitize_data,
    has_nan_values,
    sanitize_create_table,
)
LsmWriteSpec = unsupported_class("LsmWriteSpec", nyi.LSM, __name__)

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
    relabeled = False
    for name in ("_rowid", "_rowaddr"):
        index = schema.get_field_index(name)
        if index >= 0 and not schema.field(index).nullable:
            # LanceDB and pylance report them as nullable uint64; relabel (no data is copied).
            schema = schema.set(index, schema.field(index).with_nullable(True))
            relabeled = True
    if not relabeled:  # (reader.schema is a new object at each access: compare no identities)
        return reader
    return pa.RecordBatchReader.from_batches(
        schema, (pa.RecordBatch.from_arrays(b.columns, schema=schema) for b in reader)
    )


_BLOB_MODES = ("lazy", "bytes", "descriptions")


def _has_blob_field(schema: pa.Schema) -> bool:
    return schema_has_blob_field(schema)


def _check_write_parallelism(value: Any) -> None:
    """LanceDB's checks of ``add(write_parallelism=...)``: an unsigned integer above 0."""
    if value is None:
        return
    if not isinstance(value, int):
        raise TypeError(
            f"argument 'write_parallelism': '{type(value).__name__}' object cannot be "
            "interpreted as an integer"
        )
    if value < 0:
        raise OverflowError("can't convert negative int to unsigned")
    if value == 0:
        raise ValueError("Invalid input, write_parallelism must be greater than 0")


class Table(IndexMixin):
    """A LanceDB table (a Lance dataset). Obtain one from ``DBConnection.create_table`` or
    ``DBConnection.open_table``."""

    def __init__(
        self,
        connection: "DBConnection",
        name: str,
        *,
        namespace_path: Optional[List[str]] = None,
        storage_options: Optional[Dict[str, str]] = None,
        index_cache_size: Optional[int] = None,
        location: Optional[str] = None,
        namespace_client: Any = None,
        managed_versioning: Optional[bool] = None,
        pushdown_operations: Optional[set] = None,
        route_pushdown_to_rust: bool = False,
        _async: Any = None,
        _inner: "Optional[_NativeTable]" = None,
    ):
        """Open table `name` of `connection` (as ``connection.open_table(name)``); ValueError
        when it does not exist. `_async` wraps the table of an AsyncTable instead."""
        self._conn = connection
        if _inner is not None:
            self._inner = _inner
            return
        if _async is not None:
            self._inner = _async._inner._inner
            self._pinned = _async._inner._pinned
            return
        reject_unsupported(
            "LanceTable",
            location=(location, None),
            namespace_client=(namespace_client, None),
            managed_versioning=(managed_versioning, None),
            pushdown_operations=(pushdown_operations or None, None),
            route_pushdown_to_rust=(route_pushdown_to_rust, False),
        )
        opened = connection.open_table(
            name,
            namespace_path=namespace_path,
            storage_options=storage_options,
            index_cache_size=index_cache_size,
        )
        self._inner = opened._inner
        self._namespace = opened._namespace

    @classmethod
    def open(
        cls,
        db: "DBConnection",
        name: str,
        *,
        namespace_path: Optional[List[str]] = None,
        storage_options: Optional[Dict[str, str]] = None,
        index_cache_size: Optional[int] = None,
        location: Optional[str] = None,
        namespace_client: Any = None,
        managed_versioning: Optional[bool] = None,
        pushdown_operations: Optional[set] = None,
    ) -> "Table":
        """Open table `name` of `db` (as ``db.open_table(name)``)."""
        return cls(
            db,
            name,
            namespace_path=namespace_path,
            storage_options=storage_options,
            index_cache_size=index_cache_size,
            location=location,
            namespace_client=namespace_client,
            managed_versioning=managed_versioning,
            pushdown_operations=pushdown_operations,
        )

    @classmethod
    def create(
        cls,
        db: "DBConnection",
        name: str,
        data: Any = None,
        schema: Any = None,
        mode: str = "create",
        exist_ok: bool = False,
        on_bad_vectors: str = "error",
        fill_value: float = 0.0,
        embedding_functions: Any = None,
        *,
        namespace_path: Optional[List[str]] = None,
        storage_options: Optional[Dict[str, Any]] = None,
        data_storage_version: Optional[str] = None,
        enable_v2_manifest_paths: Optional[bool] = None,
        location: Optional[str] = None,
        namespace_client: Any = None,
        pushdown_operations: Optional[set] = None,
        route_pushdown_to_rust: bool = False,
    ) -> "Table":
        """Create table `name` in `db` (as ``db.create_table``)."""
        reject_unsupported(
            "LanceTable.create",
            location=(location, None),
            namespace_client=(namespace_client, None),
            pushdown_operations=(pushdown_operations or None, None),
            route_pushdown_to_rust=(route_pushdown_to_rust, False),
        )
        return db.create_table(
            name,
            data,
            schema,
            mode=mode,
            exist_ok=exist_ok,
            on_bad_vectors=on_bad_vectors,
            fill_value=fill_value,
            embedding_functions=embedding_functions,
            namespace_path=namespace_path,
            storage_options=storage_options,
            data_storage_version=data_storage_version,
            enable_v2_manifest_paths=enable_v2_manifest_paths,
        )

    @classmethod
    async def from_inner(cls, tbl: "_NativeTable") -> "Table":
        """A Table over an engine table handle (``Table._inner``), with no connection."""
        return cls(None, tbl.name, _inner=tbl)

    # Basics ---------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The table's name."""
        return self._inner.name

    @property
    def uri(self) -> str:
        """The location of the table's Lance dataset."""
        return self._inner.uri

    _namespace: tuple = ()  # set by the connection for a table of a child namespace

    @property
    def namespace(self) -> List[str]:
        """The table's namespace path (``[]``: the root namespace)."""
        return list(self._namespace)

    @property
    def id(self) -> str:
        """The table's identifier: its namespace path and name joined with ``$``."""
        return "$".join([*self._namespace, self.name])

    @property
    def schema(self) -> pa.Schema:
        """The Arrow schema of the version this handle reads."""
        from .schema import with_blob_types

        return with_blob_types(pa.schema(self._inner.schema()))

    def initial_storage_options(self) -> Optional[Dict[str, str]]:
        """The storage options the table was opened with: None (local and memory://
        storage take none)."""
        return None

    def latest_storage_options(self) -> Optional[Dict[str, str]]:
        """The storage options in force now: None (local and memory:// storage take
        none)."""
        return None

    @property
    def version(self) -> int:
        """The version this handle reads."""
        return self._inner.version()

    def to_lance(self, **kwargs: Any) -> Any:
        """The table as a pylance ``LanceDataset`` at the version (and on the branch) this
        handle reads (needs the `pylance` package; `kwargs` go to ``lance.dataset``)."""
        try:
            import lance
        except ImportError as e:
            raise ImportError("Please install pylance to use to_lance()") from e
        if str(self.uri).startswith("memory://"):
            raise NotImplementedError("to_lance() of a memory:// table: pylance cannot open it")
        kwargs.setdefault("version", self.version)
        if str(self.uri).startswith("s3://"):  # the connection's endpoint and credentials
            options = {
                k: v
                for k, v in (getattr(self._conn, "storage_options", None) or {}).items()
                if not str(k).startswith("new_table_")
            }
            if options:
                kwargs.setdefault("storage_options", options)
        branch = self.current_branch()
        if branch is not None:  # as LanceDB: the dataset of the branch, at this version
            version = kwargs.pop("version")
            return lance.dataset(self.uri, **kwargs).checkout_version((branch, version))
        return lance.dataset(self.uri, **kwargs)

    def uses_v2_manifest_paths(self) -> bool:
        """Whether the table names its manifests with Lance's V2 scheme (zero-padded, inverted
        version numbers), as tables created with ``enable_v2_manifest_paths`` do (the naming
        of the newest manifest)."""
        from . import _native

        return _native.uses_v2_manifest_paths(self._inner)

    def migrate_v2_manifest_paths(self) -> None:
        """Rename the manifests to Lance's V2 scheme; a no-op when they already use it.
        Versions, tags and time travel are unchanged. Do not run it while others write the
        table (as in LanceDB); if it is interrupted, the table stays readable here (LanceDB
        refuses it until the migration is run again) and calling it again finishes it."""
        from . import _native

        self._check_writable()
        _native.migrate_manifest_paths_v2(self._inner)

    def __repr__(self) -> str:
        return f"LanceTable(name={self.name!r}, _conn={self._conn!r})"  # LanceDB's

    def __len__(self) -> int:
        return self.count_rows()

    def count_rows(self, filter: Optional[str] = None) -> int:
        """Count the rows, or those where the SQL `filter` is true."""
        if filter is None:
            return self._inner.count_rows()
        return self._inner.count_rows_where(filter)

    def stats(self) -> Dict[str, Any]:
        """Sizes and counts of the version this handle reads, as LanceDB's dict:
        ``total_bytes``, ``num_rows``, ``num_indices`` and ``fragment_stats``
        (``num_fragments``, ``num_small_fragments``, ``lengths``); see lancedb_cpp._stats."""
        from ._stats import table_stats

        return table_stats(self._inner)

    def head(self, n: int = 5) -> pa.Table:
        """The first `n` rows as a pyarrow Table."""
        return self.search().limit(n).to_arrow()

    def to_arrow(self) -> pa.Table:
        """All rows of the current version as a pyarrow Table (zero-copy from the engine).
        Blob columns hold descriptors, not payloads; a blob v2 descriptor carries the row's
        id in ``_lance_row_id`` (for ``fetch_blobs``), as in LanceDB."""
        from . import _blob

        v2 = blob_v2_column_paths(self.schema)
        if not v2:
            return _stream_to_reader(self._inner.scan()).read_all()
        tbl = _stream_to_reader(self._inner.scan(with_row_id=True)).read_all()
        return _blob.stash_row_ids(tbl, v2)

    def to_pandas(self, blob_mode: str = "lazy", **kwargs: Any) -> "pd.DataFrame":
        """All rows as a pandas DataFrame; `kwargs` go to ``pyarrow.Table.to_pandas``.
        `blob_mode` sets what blob columns hold: "lazy" BlobFile handles (None for a null
        blob), "bytes" the payloads, "descriptions" the descriptors."""
        if blob_mode not in _BLOB_MODES:
            modes = ", ".join(repr(mode) for mode in _BLOB_MODES)
            raise ValueError(f"blob_mode must be one of {modes}, got {blob_mode!r}")
        if not _has_blob_field(self.schema):
            return self.to_arrow().to_pandas(**kwargs)
        from . import _blob

        tbl = _stream_to_reader(self._inner.scan(with_row_id=True)).read_all()
        row_ids = tbl["_rowid"].to_pylist()
        tbl = tbl.drop_columns(["_rowid"])
        return _blob.result_to_pandas(self, tbl, blob_mode, row_ids, **kwargs)

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
        """Add rows (any supported input) with ``mode`` "append" or "overwrite". `progress`:
        True (a tqdm bar), a callable receiving progress dicts, or a tqdm-like bar (see
        lancedb_cpp._write_progress). `write_parallelism` caps how many partitions of the
        input are written at once (at least 1, LanceDB's errors otherwise); lancedb_cpp writes
        one at a time, which every cap allows. Blob v2 columns take
        bytes (stored inline) or URI strings (external blobs: a URI under a registered base path
        is stored relative to it; one outside every base needs
        `allow_external_blob_outside_bases=True` and is stored as its absolute URI)."""
        _check_write_parallelism(write_parallelism)
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
            reject_nan_vectors=True,
        )
        if mode == "overwrite":
            if set(reader.schema.names) == set(current.names):
                reader = _data._cast_to(reader, current)
        from . import _write_progress

        total = _write_progress.known_rows(data, mode, on_bad_vectors)
        return AddResult(
            version=_write_progress.add(
                self._inner, reader, mode, progress, total, allow_external_blob_outside_bases
            )
        )

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
        if hasattr(where, "to_sql"):  # a lancedb.expr.Expr
            where = where.to_sql()
        if values is not None:
            updates = [(k, value_to_sql(v)) for k, v in values.items()]
        else:
            updates = [(k, v.to_sql() if hasattr(v, "to_sql") else str(v))
                       for k, v in values_sql.items()]  # fmt: skip
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
        computed: Optional[Dict[str, str]] = None,
    ) -> "_evolution.AddColumnsResult":
        """Add columns: ``{"name": "SQL expression"}``, all-null columns from a
        ``pa.Field`` / list of fields / ``pa.Schema`` (nested structs allowed), or a function
        of a ``pa.RecordBatch`` returning the new columns (it sees only `read_columns` when
        given). The new columns are written as new files in the existing fragments.

        `computed` (``{"name": "SQL expression"}``, in declaration order: an expression may
        read the columns declared before it) declares computed columns instead: the
        expression is stored in the column's field metadata and the column is added with no
        values; ``refresh_column`` fills it, and rows added later are filled by the next
        refresh. Cannot be combined with `transforms`.
        """
        if computed:
            return _computed.add_computed_columns(self, transforms, computed)
        if transforms is None:
            raise ValueError("add_columns requires transforms or computed columns")
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

    def replace_field_metadata(self, field_name: str, new_metadata: Dict[str, str]) -> None:
        """Replace the whole metadata of field `field_name` (a dot path) with
        `new_metadata`. Deprecated as in LanceDB 0.33.1: use update_field_metadata."""
        warn_deprecated(
            "replace_field_metadata", "0.33.1", "Use update_field_metadata() instead."
        )
        self.update_field_metadata(
            {"path": field_name, "metadata": dict(new_metadata), "replace": True}
        )

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

    def compact_files(self, *args: Any, **options: Any) -> "_evolution.CompactionStats":
        """Compact fragments (``target_rows_per_fragment``, ``max_rows_per_group``,
        ``materialize_deletions``, ``materialize_deletions_threshold``, ``num_threads``; the
        other options of ``lance.dataset.DatasetOptimizer.compact_files`` raise
        NotImplementedError unless None). The options are keyword-only, as there."""
        warn_deprecated("compact_files", "0.21.0", "Use `Table.optimize` instead.")
        if args:
            raise TypeError("compact_files() takes keyword arguments only")
        return _evolution.compact_files(self, **options)

    def cleanup_old_versions(
        self,
        older_than: Optional[datetime.timedelta] = None,
        *,
        delete_unverified: bool = False,
        error_if_tagged_old_versions: bool = True,
    ) -> "_evolution.RemovalStats":
        """Remove versions older than `older_than` (default 7 days) and their files; see
        ``optimize`` for `delete_unverified` and `error_if_tagged_old_versions`. Deprecated
        as in LanceDB 0.21.0: use optimize."""
        warn_deprecated("cleanup_old_versions", "0.21.0", "Use `Table.optimize` instead.")
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
            raise ValueError(  # LanceDB's words (it takes "hybrid" as well)
                f"Invalid query_type, must be 'vector', 'fts', or 'auto': {query_type}"
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
        str_query = query if isinstance(query, str) else None
        if isinstance(query, str):
            query = self._embed_query(query, vector_column_name)
        reject_unsupported("search", fts_columns=(fts_columns, None))
        from ._vector import make_vector_query

        return make_vector_query(self, query, vector_column_name, None, str_query)

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

    def __getitems__(self, offsets: List[int]) -> pa.Table:
        """The rows at `offsets`, in the order given (the batch fetch of PyTorch's Dataset
        protocol, as LanceDB's)."""
        offsets = list(offsets)
        order = sorted(range(len(offsets)), key=lambda i: offsets[i])
        rows = self.take_offsets(offsets).to_arrow()  # in table (offset) order
        inverse = [0] * len(order)
        for rank, i in enumerate(order):
            inverse[i] = rank
        return rows.take(pa.array(inverse, pa.int64())).combine_chunks()

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
        """Pin this handle to `version` or to the version of a tag, on the tag's branch
        (read-only until ``checkout_latest``)."""
        if isinstance(version, str):
            from . import _branches

            _branches.checkout_tag(self, version)  # on the tag's branch
            return
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

    @property
    def branches(self) -> Branches:
        """The table's branches (create, list, checkout, delete, diff, cherry_pick): Lance
        branches, which pylance and LanceDB open too. ``create``/``checkout`` return a handle
        on the branch; writes on it never change the branch it came from."""
        return Branches(self)

    def current_branch(self) -> Optional[str]:
        """The branch this handle is on; None for main."""
        from . import _branches

        return _branches.current_branch(self)

    # Blob columns ---------------------------------------------------------------------------

    def blob_columns(self) -> List[str]:
        """The names of the blob v2 columns (as LanceDB: legacy blob columns are not
        listed)."""
        return row_addressable_blob_v2_paths(self.schema)

    def fetch_blobs(self, column: str, row_ids: Union[List[int], pa.Table]) -> pa.Array:
        """The payloads of blob v2 column `column` at `row_ids` (a list, or a query result
        carrying its row ids), as a LargeBinaryArray in that order: null for a null blob,
        ``b""`` for an empty one. External blobs are read from their URI."""
        from . import _blob

        _blob.blob_column_kind(self.schema, column)
        return _blob.fetch(self._inner, column, _blob.row_ids_of(row_ids, column))

    def fetch_blob_ranges(self, column: str, requests: Any) -> pa.Array:
        """Byte ranges ``(row_id, offset, length)`` of blobs of blob v2 column `column`, in
        request order (repeats allowed): null for a null blob. ValueError for a range past
        the end of its blob."""
        from . import _blob

        _blob.blob_column_kind(self.schema, column)
        return _blob.fetch_ranges(self._inner, column, requests)

    def fetch_blob_files(
        self, column: str, row_ids: Union[List[int], pa.Table]
    ) -> List[Optional[BlobFile]]:
        """Lazy, seekable BlobFile handles on the blobs of `column` at `row_ids` (None for a
        null blob); the payload is read on the first read."""
        from . import _blob

        _blob.blob_column_kind(self.schema, column)
        ids = _blob.row_ids_of(row_ids, column)
        sizes = _blob.descriptor_sizes(self, column, ids)
        return [
            None if size is None else BlobFile(self._inner, column, rid, size)
            for rid, size in zip(ids, sizes)
        ]

    # Not built yet (each raises NotImplementedError naming its feature) ----------------------

    def create_index_async(
        self,
        column: str,
        *,
        config: Any,
        replace: Optional[bool] = None,
        wait_timeout: Optional[datetime.timedelta] = None,
        name: Optional[str] = None,
        train: bool = True,
    ) -> Job:
        """Start building an index (the arguments of ``create_index``) on a background
        thread; a Job whose ``wait()`` returns None once the index exists. An unknown column
        raises here (ValueError); a build error fails the job."""
        options = dict(config=config, replace=replace, wait_timeout=wait_timeout, name=name,
                       train=train)  # fmt: skip
        return Job(_computed.create_index_async(self, column, options))

    @not_yet(nyi.PREWARM)
    def prewarm_data(self, columns: Optional[List[str]] = None) -> None:
        """Load column data into the cache."""

    @staticmethod
    def infer_tokenizer_configs(tokenizer_name: str) -> Dict[str, Any]:
        """The FTS options of LanceDB's legacy `tokenizer_name` presets ("default", "raw",
        "whitespace", "<language code>_stem")."""
        return tokenizer_preset(tokenizer_name)

    def merge(
        self,
        other_table: Any,
        left_on: str,
        right_on: Optional[str] = None,
        schema: Any = None,
    ) -> None:
        """Add the columns of `other_table` (a Table or any data ``add`` takes), left-joined on
        `left_on` = `right_on` (default `left_on`): unmatched rows get nulls, a repeated right
        key keeps its last row, a column on both sides other than the key is an IOError."""
        _evolution.merge(self, other_table, left_on, right_on, schema)

    def refresh_column(self, column: str) -> "_computed.RefreshColumnResult":
        """Fill the rows of computed column `column` that hold no value yet (NULL): its
        expression is evaluated over them and the values published as a new version (a
        second commit records the refresh in the field metadata). A row whose expression
        fails (a division by zero, a failed cast) is left unfilled and does not fail the
        refresh; a row whose expression is NULL stays NULL. Returns
        ``RefreshColumnResult(rows_filled, version)``; nothing is committed when no row gets a
        value. RuntimeError for an unknown column or one that is not computed."""
        return _computed.refresh_column(self, column)

    def refresh_column_async(self, column: str) -> Job:
        """Like ``refresh_column``, on a background thread: a Job whose ``wait()`` returns a
        ``lancedb.functions.RefreshColumnResult`` (rows_assigned, rows_failed, rows_remaining,
        source_version, published_version). Invalid input (an unknown column, one that is not
        computed) raises here rather than failing the job; ``cancel()`` stops the refresh at
        its next batch, writing nothing."""
        return Job(_computed.refresh_column_async(self, column))

    def set_unenforced_primary_key(self, columns: Union[str, Iterable[str]]) -> None:
        """Declare the table's primary key: one column (a dot path reaches a struct member)
        of type int32, int64, string, large_string, binary, large_binary or
        fixed_size_binary that is not nullable, nor any struct holding it. It is recorded in
        the field's metadata as Lance does and not enforced (uniqueness is not checked). As in
        LanceDB 0.39: compound keys and changing a key once set raise ValueError; a nullable
        column raises RuntimeError."""
        _evolution.set_unenforced_primary_key(self, columns)

    @not_yet(nyi.LSM)
    def set_lsm_write_spec(self, spec: Any) -> None:
        """Buffer writes in an LSM tree."""

    @not_yet(nyi.LSM)
    def unset_lsm_write_spec(self) -> None:
        """Stop buffering writes in an LSM tree."""

    @not_yet(nyi.LSM)
    def get_lsm_write_spec(self) -> Any:
        """The LSM write spec, or None."""

    @not_yet(nyi.LSM)
    def checkpoint_lsm(self) -> None:
        """Checkpoint the LSM write buffers."""

    @not_yet(nyi.LSM)
    def flush_lsm(self) -> None:
        """Flush the LSM write buffers."""

    @not_yet(nyi.LSM)
    def compact_lsm(self) -> None:
        """Compact the LSM generations."""

    @not_yet(nyi.LSM)
    def get_lsm_stats(self, *, include_generation_rows: bool = False) -> Optional[dict]:
        """Statistics of the LSM write buffers."""

    @not_yet(nyi.LSM)
    def close_lsm_writers(self) -> None:
        """Close the LSM writers."""


LanceTable = Table


# Names that load on first use (LanceDB has them here too): their modules import this one.
_LAZY_NAMES = {
    "AsyncTable": "_async",
    "AsyncTags": "_async",
    "AsyncQuery": "_async_query",
    "AsyncFTSQuery": "_async_query",
    "AsyncHybridQuery": "_async_query",
    "AsyncTakeQuery": "_async_query",
    "AsyncVectorQuery": "_async_query",
    "get_uri_scheme": "util",
    "join_uri": "util",
    "infer_vector_column_name": "util",
    "add_note": "util",
    "fs_from_uri": "util",
}


def __getattr__(name: str):
    if name in _LAZY_NAMES:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY_NAMES[name]}", __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
