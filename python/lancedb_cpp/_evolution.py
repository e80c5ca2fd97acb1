# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Table evolution and maintenance: ``merge_insert``, tags, schema changes, compaction.

Mirrors LanceDB's ``LanceMergeInsertBuilder``, ``MergeResult`` and ``Tags``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union

from . import _data
from . import _native
from ._unsupported import reject_unsupported

if TYPE_CHECKING:  # pragma: no cover
    from .table import Table


@dataclass(frozen=True)
class MergeResult:
    """The outcome of ``merge_insert(...).execute(data)``."""

    version: int
    num_updated_rows: int = 0
    num_inserted_rows: int = 0
    num_deleted_rows: int = 0
    num_attempts: int = 1
    num_rows: int = 0


def _condition_sql(condition: Any) -> Optional[str]:
    """A merge condition as SQL: a string as it is, a ``lancedb.expr`` expression rendered."""
    if condition is None or isinstance(condition, str):
        return condition
    if hasattr(condition, "to_sql"):
        return condition.to_sql()
    raise TypeError(
        f"a merge_insert condition must be a SQL string or an Expr, not {type(condition).__name__}"
    )


class LanceMergeInsertBuilder:
    """Builder returned by ``Table.merge_insert(on)``.

    Upsert: ``.when_matched_update_all().when_not_matched_insert_all()``; insert if not
    exists: ``.when_not_matched_insert_all()``; replace a range: add
    ``.when_not_matched_by_source_delete("<condition>")``.
    """

    def __init__(self, table: "Table", on: Union[str, List[str]]):
        self._table = table
        self._on = [on] if isinstance(on, str) else list(on)
        self._update_all = False
        self._update_where: Optional[str] = None
        self._insert_all = False
        self._delete_by_source = False
        self._delete_condition: Optional[str] = None
        self._timeout: Optional[float] = None

    def when_matched_update_all(self, *, where: Any = None) -> "LanceMergeInsertBuilder":
        """Replace matched rows with the new row, where ``where`` (SQL or a ``lancedb.expr``
        expression, over ``target.<col>`` and ``source.<col>``) is true when given."""
        self._update_all = True
        self._update_where = _condition_sql(where)
        return self

    def when_not_matched_insert_all(self) -> "LanceMergeInsertBuilder":
        """Insert new rows that match no existing row."""
        self._insert_all = True
        return self

    def when_not_matched_by_source_delete(self, condition: Any = None) -> "LanceMergeInsertBuilder":
        """Delete existing rows that match no new row (where ``condition``, SQL or a
        ``lancedb.expr`` expression, is true)."""
        self._delete_by_source = True
        self._delete_condition = _condition_sql(condition)
        return self

    def use_index(self, use_index: bool) -> "LanceMergeInsertBuilder":
        """Whether the merge may use an index on the key (LanceDB's default, True, uses one
        when there is one). Both give the same result here: the merge always hashes the new
        data and scans the key column, which is what ``use_index(False)`` asks for."""
        return self

    def use_lsm(self, enable: bool) -> "LanceMergeInsertBuilder":
        """Route the merge through the table's LSM write buffers (True) or not (False).
        LSM write buffers are not supported yet: True raises NotImplementedError; False is
        the only path there is."""
        if enable:
            from ._not_yet import LSM, not_yet_error

            raise not_yet_error("use_lsm(True)", LSM)
        return self

    def validate_single_shard(self, validate_single_shard: bool) -> "LanceMergeInsertBuilder":
        """How an LSM merge checks that its rows go to one shard; no effect on a table
        without an LSM write spec, which is every table lancedb_cpp writes."""
        return self

    def execute(
        self,
        new_data: Any,
        on_bad_vectors: str = "error",
        fill_value: float = 0.0,
        timeout: Optional[Any] = None,
    ) -> MergeResult:
        """Run the merge. ``timeout`` (seconds or ``timedelta``) bounds the whole merge, as in
        LanceDB: one still running at the deadline commits nothing and raises RuntimeError
        ("merge insert timed out"); without it, retries after commit conflicts stop after 30 s
        and the first attempt is not bounded."""
        self._table._check_writable()
        # As in LanceDB, merge_insert coerces bytes to blobs but not URI strings.
        # As in LanceDB, the data may have a subset of the columns (every key among them):
        # updated rows keep their other values, inserted rows get NULLs there.
        reader = _data.sanitize(
            new_data, self._table.schema, on_bad_vectors, fill_value, blob_strings=False,
            subset=True,
        )
        if timeout is not None and hasattr(timeout, "total_seconds"):
            timeout = timeout.total_seconds()
        counter = _CountingReader(reader)
        try:
            version, inserted, updated, deleted, attempts = _native.merge_insert(
                self._table._inner,
                counter.reader(),
                self._on,
                self._update_all,
                self._update_where,
                self._insert_all,
                self._delete_by_source,
                self._delete_condition,
                None if timeout is None else float(timeout),
            )
        except RuntimeError as err:
            if str(err) == "Cancelled: merge insert timed out":  # LanceDB's wording
                raise RuntimeError("Runtime error: merge insert timed out") from None
            raise
        return MergeResult(
            version=version,
            num_updated_rows=updated,
            num_inserted_rows=inserted,
            num_deleted_rows=deleted,
            num_attempts=attempts,
            num_rows=counter.rows,
        )


class _CountingReader:
    """Wrap a RecordBatchReader, counting the rows it yields."""

    def __init__(self, reader: Any):
        self._reader = reader
        self.rows = 0

    def reader(self) -> Any:
        import pyarrow as pa

        def gen():
            for batch in self._reader:
                self.rows += batch.num_rows
                yield batch

        return pa.RecordBatchReader.from_batches(self._reader.schema, gen())


class Tags:
    """Table tag manager (``Table.tags``): names for versions, stored as Lance stores them."""

    def __init__(self, table: "Table"):
        self._table = table

    def list(self) -> Dict[str, Dict[str, int]]:
        """Every tag: ``{name: {"version": v, "manifest_size": n}}``."""
        return {
            name: {"version": version, "manifest_size": size}
            for name, (version, size) in _native.list_tags(self._table._inner).items()
        }

    def get_version(self, tag: str) -> int:
        """The version ``tag`` points to."""
        return _native.get_tag_version(self._table._inner, tag)

    def create(self, tag: str, version: int) -> None:
        """Tag ``version`` (the name must be new)."""
        _native.create_tag(self._table._inner, tag, int(version))

    def delete(self, tag: str) -> None:
        """Delete ``tag``."""
        _native.delete_tag(self._table._inner, tag)

    def update(self, tag: str, version: int) -> None:
        """Move ``tag`` to ``version``."""
        _native.update_tag(self._table._inner, tag, int(version))


# Schema evolution -----------------------------------------------------------------------------


@dataclass(frozen=True)
class AddColumnsResult:
    version: int


@dataclass(frozen=True)
class AlterColumnsResult:
    version: int


@dataclass(frozen=True)
class DropColumnsResult:
    version: int


@dataclass(frozen=True)
class UpdateFieldMetadataResult:
    version: int


def _udf_adapter(fn: Any, output_schema: Any) -> Any:
    """Call `fn` on a RecordBatch and return a RecordBatch of `output_schema`."""
    import pyarrow as pa

    def call(batch: Any) -> Any:
        out = fn(batch)
        if hasattr(out, "to_batches") and not isinstance(out, pa.RecordBatch):
            out = out.combine_chunks().to_batches()[0] if out.num_rows else None
        elif isinstance(out, dict):
            out = pa.RecordBatch.from_pydict(out)
        elif not isinstance(out, pa.RecordBatch):
            import pandas as pd

            if isinstance(out, pd.DataFrame):
                out = pa.RecordBatch.from_pandas(out, preserve_index=False)
        if out is None:
            out = pa.RecordBatch.from_pylist([], schema=output_schema)
        if not isinstance(out, pa.RecordBatch):
            raise TypeError(
                f"the add_columns function must return a pyarrow RecordBatch, got {type(out)}"
            )
        return out.select(output_schema.names).cast(output_schema)

    return call


def add_columns(
    table: "Table",
    transforms: Any,
    read_columns: Optional[List[str]] = None,
    batch_size: Optional[int] = None,
) -> AddColumnsResult:
    """See ``Table.add_columns``."""
    import pyarrow as pa

    table._check_writable()
    read = list(read_columns or [])
    size = int(batch_size or 8192)
    if transforms is None:
        version = _native.add_columns(table._inner, None, None, None, read, size)
    elif isinstance(transforms, dict):
        version = _native.add_columns(
            table._inner, [(k, str(v)) for k, v in transforms.items()], None, None, read, size
        )
    elif isinstance(transforms, (pa.Field, pa.Schema, list)):
        if isinstance(transforms, pa.Field):
            transforms = [transforms]
        schema = pa.schema(transforms)
        version = _native.add_columns(table._inner, None, schema, None, read, size)
    elif callable(transforms):
        schema = getattr(transforms, "output_schema", None)
        if schema is None:
            query = table.search().limit(1)
            if read:
                query = query.select(read)
            probe = query.to_arrow()
            if probe.num_rows == 0:
                raise ValueError(
                    "add_columns: cannot infer the output schema of the function on an empty "
                    "table; give the function an `output_schema` attribute"
                )
            out = transforms(probe.to_batches()[0])
            if hasattr(out, "schema"):
                schema = out.schema
            else:
                schema = pa.RecordBatch.from_pandas(out, preserve_index=False).schema
        fn = _udf_adapter(transforms, schema)
        version = _native.add_columns(table._inner, None, schema, fn, read, size)
    else:
        raise TypeError(
            "add_columns transforms must be a dict of SQL expressions, a pyarrow Field, list of "
            f"Fields or Schema, or a function of a RecordBatch; got {type(transforms)}"
        )
    return AddColumnsResult(version=version)


def batch_udf(output_schema: Any) -> Any:
    """Declare the output schema of a RecordBatch -> RecordBatch function for add_columns."""

    def wrap(fn: Any) -> Any:
        fn.output_schema = output_schema
        return fn

    return wrap


def alter_columns(table: "Table", *alterations: Dict[str, Any]) -> AlterColumnsResult:
    """See ``Table.alter_columns``."""
    table._check_writable()
    alts = []
    for alt in alterations:
        if "path" not in alt:
            raise ValueError("each alteration needs a 'path'")
        unknown = set(alt) - {"path", "rename", "nullable", "data_type"}
        if unknown:
            raise ValueError(f"unknown alteration keys: {sorted(unknown)}")
        alts.append((alt["path"], alt.get("rename"), alt.get("nullable"), alt.get("data_type")))
    return AlterColumnsResult(version=_native.alter_columns(table._inner, alts))


def drop_columns(table: "Table", columns: Any) -> DropColumnsResult:
    """See ``Table.drop_columns``."""
    table._check_writable()
    if isinstance(columns, str):
        columns = [columns]
    return DropColumnsResult(version=_native.drop_columns(table._inner, list(columns)))


def update_field_metadata(table: "Table", *updates: Dict[str, Any]) -> UpdateFieldMetadataResult:
    """See ``Table.update_field_metadata``."""
    table._check_writable()
    ups = []
    for u in updates:
        metadata = [(str(k), None if v is None else str(v)) for k, v in u.get("metadata", {}).items()]
        ups.append((u["path"], metadata, bool(u.get("replace", False))))
    return UpdateFieldMetadataResult(version=_native.update_field_metadata(table._inner, ups))


def set_unenforced_primary_key(table: "Table", columns: Any) -> None:
    """See ``Table.set_unenforced_primary_key``."""
    table._check_writable()
    names = [columns] if isinstance(columns, str) else list(columns)
    try:
        _native.set_unenforced_primary_key(table._inner, [str(n) for n in names])
    except ValueError as e:
        # Lance rejects a nullable key in its schema check, which LanceDB reports as a
        # RuntimeError ("lance error: ..."); its own argument checks are ValueErrors.
        if str(e).startswith("Primary key column"):
            raise RuntimeError(f"lance error: {e}") from None
        raise


# Maintenance ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompactionStats:
    fragments_removed: int = 0
    fragments_added: int = 0
    files_removed: int = 0
    files_added: int = 0


@dataclass(frozen=True)
class RemovalStats:
    bytes_removed: int = 0
    old_versions_removed: int = 0


@dataclass(frozen=True, repr=False)
class OptimizeStats:
    compaction: CompactionStats
    prune: RemovalStats

    def __repr__(self) -> str:
        """LanceDB's rendering (its native stats' debug form)."""
        c, p = self.compaction, self.prune
        return (
            f"OptimizeStats(compaction=CompactionStats {{ fragments_removed: "
            f"{c.fragments_removed}, fragments_added: {c.fragments_added}, files_removed: "
            f"{c.files_removed}, files_added: {c.files_added} }}, prune=RemovalStats {{ "
            f"bytes_removed: {p.bytes_removed}, old_versions_removed: "
            f"{p.old_versions_removed} }})"
        )


def compact_files(
    table: "Table",
    *,
    target_rows_per_fragment: Optional[int] = None,
    max_rows_per_group: Optional[int] = None,
    max_bytes_per_file: Optional[int] = None,
    materialize_deletions: Optional[bool] = None,
    materialize_deletions_threshold: Optional[float] = None,
    defer_index_remap: Optional[bool] = None,
    num_threads: Optional[int] = None,
    batch_size: Optional[int] = None,
    compaction_mode: Optional[str] = None,
    binary_copy_read_batch_bytes: Optional[int] = None,
    max_source_fragments: Optional[int] = None,
    max_source_rows: Optional[int] = None,
    max_source_bytes: Optional[int] = None,
    excluded_fragment_ids: Optional[List[int]] = None,
) -> CompactionStats:
    """See ``Table.compact_files``; the options of ``lance.dataset.DatasetOptimizer
    .compact_files``, None meaning Lance's default."""
    reject_unsupported(
        "compact_files",
        max_bytes_per_file=(max_bytes_per_file, None),
        defer_index_remap=(defer_index_remap, None),
        batch_size=(batch_size, None),
        compaction_mode=(compaction_mode, None),
        binary_copy_read_batch_bytes=(binary_copy_read_batch_bytes, None),
        max_source_fragments=(max_source_fragments, None),
        max_source_rows=(max_source_rows, None),
        max_source_bytes=(max_source_bytes, None),
        excluded_fragment_ids=(excluded_fragment_ids, None),
    )
    table._check_writable()
    return CompactionStats(
        *_native.compact(
            table._inner,
            int(_default(target_rows_per_fragment, 1024 * 1024)),
            int(_default(max_rows_per_group, 1024)),
            bool(_default(materialize_deletions, True)),
            float(_default(materialize_deletions_threshold, 0.1)),
            num_threads,
        )
    )


def _default(value: Any, default: Any) -> Any:
    return default if value is None else value


def _seconds(value: Any) -> Optional[float]:
    if value is None:
        return None
    if hasattr(value, "total_seconds"):
        return value.total_seconds()
    return float(value)


def cleanup_old_versions(
    table: "Table",
    older_than: Any = None,
    *,
    delete_unverified: bool = False,
    error_if_tagged_old_versions: bool = True,
) -> RemovalStats:
    """See ``Table.cleanup_old_versions``."""
    table._check_writable()
    return RemovalStats(
        *_native.prune(
            table._inner,
            _seconds(older_than),
            bool(delete_unverified),
            bool(error_if_tagged_old_versions),
        )
    )


def optimize(
    table: "Table",
    *,
    cleanup_older_than: Any = None,
    delete_unverified: bool = False,
    error_if_tagged_old_versions: bool = True,
    retrain: bool = False,
) -> OptimizeStats:
    """See ``Table.optimize``."""
    compaction = compact_files(table)
    prune = cleanup_old_versions(
        table,
        cleanup_older_than,
        delete_unverified=delete_unverified,
        error_if_tagged_old_versions=error_if_tagged_old_versions,
    )
    # As LanceDB: the rows compaction moved, and any appended rows, join the existing indices.
    table.optimize_indices()
    return OptimizeStats(compaction=compaction, prune=prune)


# LanceTable.merge: add the columns of another table, joined on a key ----------------------------


def _as_arrow_table(data: Any, schema: Any) -> Any:
    import pyarrow as pa

    from . import _data

    if hasattr(data, "to_arrow") and hasattr(data, "_inner"):  # a lancedb_cpp Table
        return data.to_arrow()
    if schema is not None and hasattr(schema, "to_arrow_schema"):  # a LanceModel class
        schema = schema.to_arrow_schema()
    reader = _data.to_reader(data, schema)
    return pa.Table.from_batches(list(reader), schema=reader.schema)


def merge(table: "Table", other: Any, left_on: str, right_on: Optional[str], schema: Any) -> None:
    """See ``Table.merge``: a left join adding every column of `other` except its key; rows
    without a match get nulls; when the right side repeats a key, its last row wins. Errors are
    Lance's (IOError "Invalid user input: ...") and nothing is written."""
    import pyarrow as pa

    table._check_writable()
    right = _as_arrow_table(other, schema)
    right_key = right_on or left_on
    current = table.schema
    if left_on not in current.names:
        raise OSError(
            f"Invalid user input: Column {left_on} does not exist in the left side dataset"
        )
    if right_key not in right.schema.names:
        raise OSError(
            f"Invalid user input: Column {right_key} does not exist in the right side dataset"
        )
    new_fields = [f for f in right.schema if f.name != right_key]
    for field in new_fields:
        if field.name in current.names:
            raise OSError(
                f"Invalid user input: Column {field.name} exists in both sides of the dataset"
            )
    left_type = current.field(left_on).type
    right_type = right.schema.field(right_key).type
    if left_type != right_type:
        raise OSError(
            "Invalid user input: Index column type mismatch: expected "
            f"{_arrow_type_name(right_type)}, got {_arrow_type_name(left_type)}"
        )
    if not new_fields:
        raise OSError("Invalid user input: the right side has no column besides the join key")
    # Key -> row of `right`; a repeated key keeps its last row, as Lance's hash join does.
    position = {key: i for i, key in enumerate(right.column(right_key).to_pylist())}
    values = right.select([f.name for f in new_fields])
    output_schema = pa.schema(
        [pa.field(f.name, f.type, True, f.metadata) for f in new_fields]
    )

    def join(batch: Any) -> Any:
        keys = batch.column(batch.schema.get_field_index(left_on)).to_pylist()
        rows = pa.array([position.get(k) if k is not None else None for k in keys], pa.int64())
        return pa.RecordBatch.from_arrays(
            [values.column(f.name).combine_chunks().take(rows) for f in new_fields],
            schema=output_schema,
        )

    _native.add_columns(table._inner, None, output_schema, join, [left_on], 8192)


def _arrow_type_name(t: Any) -> str:
    """The Rust Arrow spelling Lance's messages use (Int64, Utf8, Float32, ...)."""
    import pyarrow as pa

    names = {pa.string(): "Utf8", pa.large_string(): "LargeUtf8", pa.binary(): "Binary",
             pa.bool_(): "Boolean", pa.float16(): "Float16", pa.float32(): "Float32",
             pa.float64(): "Float64", pa.date32(): "Date32", pa.date64(): "Date64"}  # fmt: skip
    if t in names:
        return names[t]
    text = str(t)
    if pa.types.is_integer(t):
        return ("UInt" if text.startswith("u") else "Int") + text.lstrip("uint")
    return text
