# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Reading a permutation: the rows of one split of a permutation table, fetched from the base
table by row id in the permutation's order (LanceDB's ``PermutationReader``).

The base table is read at the version the permutation table records (``base_version``, and
``base_branch``), through a new handle pinned to it, so appends, deletes and compactions of
the base table after the build change nothing; a permutation table without a recorded version
reads the base table's handle as it is. Without a permutation table (``identity``) the reader
scans the base table in storage order.

A window (``with_offset`` / ``with_limit``, LanceDB's skip and take) selects a contiguous part
of the split; ``with_repeat`` repeats that window. Iteration fetches the rows in chunks of many
batches (one take per chunk; the next chunks are fetched on worker threads while the current one is
consumed) and cuts them into batches of exactly ``batch_size`` rows (the last may be shorter).

Thread-safety: immutable (the ``with_*`` methods return new readers); the row-id list is loaded
once, under a lock.
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Deque, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np
import pyarrow as pa

from . import _native
from ._permutation_build import (
    BASE_BRANCH_KEY,
    BASE_VERSION_KEY,
    ROW_ID,
    SPLIT_ID,
    invalid_input,
    to_u64,
)

ROWID = "_rowid"
DEFAULT_READ_BATCH_SIZE = 1024
# Rows fetched per take: enough to amortize a take's fixed cost, bounded in bytes.
_CHUNK_TARGET_BYTES = 16 << 20
_CHUNK_MAX_ROWS = 65536
_FIRST_CHUNK_ROWS = 1024
# Chunks being fetched ahead of the one being read (each on its own worker thread).
_PREFETCH = 2


def sync_table(table: Any) -> Any:
    """The lancedb_cpp Table of `table` (a Table or an AsyncTable)."""
    from ._async import AsyncTable
    from .table import Table

    if isinstance(table, Table):
        return table
    if isinstance(table, AsyncTable):
        return table._inner
    raise RuntimeError("Provided table does not appear to be a Table or RemoteTable instance")


def _read_all(stream: Any) -> pa.Table:
    return pa.RecordBatchReader.from_stream(stream).read_all()


def _one_batch(table: pa.Table) -> pa.RecordBatch:
    if table.num_rows == 0:
        return pa.RecordBatch.from_pylist([], schema=table.schema)
    return table.combine_chunks().to_batches()[0]


class _Selection:
    """A caller's selection (output name -> SQL, or None for every column) split into what the
    engine evaluates and where the row id goes: ``_rowid`` is asked for with ``with_row_id``,
    never inside the projection."""

    def __init__(self, selection: Optional[Dict[str, str]]):
        self.all = selection is None
        self.pairs: List[Tuple[str, str]] = []
        self.slots: Optional[List[Tuple[str, bool]]] = None
        if selection is None:
            return
        items = list(selection.items())
        for alias, expr in items:
            if alias == ROWID and expr != ROWID:
                raise invalid_input(f"Dynamic column {expr} cannot be used to select _rowid")
        self.pairs = [(a, e) for a, e in items if e != ROWID]
        if len(self.pairs) != len(items):
            self.slots = [(a, e == ROWID) for a, e in items]

    def query_args(self) -> Dict[str, Any]:
        return {} if self.all else {"dynamic": self.pairs}

    def finish(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        """The caller's columns from a fetched batch that carries `_rowid`."""
        if self.slots is None:
            index = batch.schema.get_field_index(ROWID)
            return batch.drop_columns([ROWID]) if index >= 0 else batch
        row_ids = batch.column(ROWID)
        arrays, fields = [], []
        for alias, is_row_id in self.slots:
            if is_row_id:
                arrays.append(row_ids)
                fields.append(pa.field(alias, pa.uint64()))
            else:
                arrays.append(batch.column(alias))
                fields.append(batch.schema.field(alias))
        return pa.RecordBatch.from_arrays(arrays, schema=pa.schema(fields))

    def finish_schema(self, schema: pa.Schema) -> pa.Schema:
        if self.slots is None:
            return schema
        return pa.schema(
            [pa.field(a, pa.uint64()) if r else schema.field(a) for a, r in self.slots]
        )


def _check_window(limit: Optional[int], offset: Optional[int], available: int) -> int:
    """The rows a window of the split keeps (LanceDB's validation and messages)."""
    if offset is not None and limit is not None:
        if offset + limit > available:
            raise invalid_input(
                "Offset + limit is greater than the number of rows in the permutation table"
            )
        return limit
    if offset is not None:
        if offset > available:
            raise invalid_input(
                "Offset is greater than the number of rows in the permutation table"
            )
        return available - offset
    if limit is not None:
        if limit > available:
            raise invalid_input("Limit is greater than the number of rows in the permutation table")
        return limit
    return available


def _base_handle(base: Any, permutation: Optional[Any]) -> Any:
    """The engine handle rows are read from: the base table at the permutation's recorded
    version (and branch), else the base table's handle itself."""
    metadata = (permutation.schema.metadata if permutation is not None else None) or {}
    version = metadata.get(BASE_VERSION_KEY.encode())
    if version is None:
        return base._inner
    branch = metadata.get(BASE_BRANCH_KEY.encode(), b"main").decode()
    return _native.checkout_branch(base._inner, branch, int(version))


class PermutationReader:
    """Reads one split of a permutation (see the module docstring)."""

    def __init__(
        self,
        base_table: Any,
        permutation_table: Optional[Any],
        split: int,
        *,
        offset: Optional[int] = None,
        limit: Optional[int] = None,
        repeat: int = 1,
        _handle: Any = None,
        _total: Optional[int] = None,
    ):
        self._base = sync_table(base_table)
        self._perm = None if permutation_table is None else sync_table(permutation_table)
        self._split = split
        self._offset = offset
        self._limit = limit
        self._repeat = repeat
        if self._perm is not None and _total is None:
            names = self._perm.schema.names
            for column in (ROW_ID, SPLIT_ID):
                if column not in names:
                    raise invalid_input(
                        f"Permutation table must contain a column named {column}"
                    )
        self._handle = _handle if _handle is not None else _base_handle(self._base, self._perm)
        if _total is None:
            if self._perm is None:
                _total = self._base.count_rows()
            else:
                _total = self._perm.count_rows(f"{SPLIT_ID} = {split}")
            if _total == 0:
                raise invalid_input("No rows found in the permutation table for the given split")
        self._total = _total
        self._window = _check_window(limit, offset, _total)
        self._lock = threading.Lock()
        self._row_ids: Optional[np.ndarray] = None

    @classmethod
    def from_tables(
        cls, base_table: Any, permutation_table: Optional[Any], split: int = 0
    ) -> "PermutationReader":
        """A reader of split `split` of `permutation_table` (the whole base table in storage
        order when it is None)."""
        split = to_u64("split", split)
        return cls(base_table, permutation_table, split)

    @classmethod
    def identity(cls, base_table: Any) -> "PermutationReader":
        """A reader of the whole base table in storage order."""
        return cls(base_table, None, 0)

    def _derive(self, **changes: Any) -> "PermutationReader":
        args = dict(offset=self._offset, limit=self._limit, repeat=self._repeat)
        args.update(changes)
        return PermutationReader(
            self._base, self._perm, self._split, _handle=self._handle, _total=self._total, **args
        )

    def with_offset(self, offset: int) -> "PermutationReader":
        """This reader skipping the first `offset` rows of the split."""
        return self._derive(offset=to_u64("offset", offset))

    def with_limit(self, limit: int) -> "PermutationReader":
        """This reader keeping `limit` rows of the split (after the offset)."""
        return self._derive(limit=to_u64("limit", limit))

    def with_repeat(self, times: int) -> "PermutationReader":
        """This reader reading its window `times` times over."""
        return self._derive(repeat=to_u64("times", times))

    def count_rows(self) -> int:
        """Rows this reader returns."""
        return self._window * self._repeat

    def output_schema(self, selection: Optional[Dict[str, str]] = None) -> pa.Schema:
        """The schema of the batches `read` returns for `selection`."""
        sel = _Selection(selection)
        with_row_id = sel.slots is not None
        schema = pa.schema(
            self._handle.query_schema(with_row_id=with_row_id, limit=1, **sel.query_args())
        )
        if sel.slots is None:
            return schema
        return sel.finish_schema(schema)

    # Row ids ---------------------------------------------------------------------------------

    def _window_row_ids(self) -> np.ndarray:
        """The base row ids of the window, in permutation order (loaded once)."""
        with self._lock:
            if self._row_ids is None:
                self._row_ids = self._load_row_ids()
            return self._row_ids

    def _load_row_ids(self) -> np.ndarray:
        if self._window == 0:
            return np.zeros(0, dtype=np.uint64)
        stream = self._perm._inner.query(
            filter=f"{SPLIT_ID} = {self._split}",
            columns=[ROW_ID],
            offset=self._offset or 0,
            limit=self._window,
            max_batch_length=65536,
        )
        column = _read_all(stream).column(0)
        if column.null_count:
            raise invalid_input("The permutation table has null row ids")
        return column.to_numpy().astype(np.uint64, copy=False)

    # Fetching rows -------------------------------------------------------------------------------

    def _take_row_ids(self, row_ids: np.ndarray, sel: _Selection) -> pa.RecordBatch:
        """The base rows with `row_ids`, in that order (a repeated id repeats its row)."""
        unique, inverse = np.unique(row_ids, return_inverse=True)
        table = _read_all(
            self._handle.query(
                with_row_id=True,
                take_row_ids=unique.tolist(),
                max_batch_length=max(len(unique), 1),
                **sel.query_args(),
            )
        )
        batch = _one_batch(table)
        got = batch.column(ROWID).to_numpy()
        if len(got) != len(unique):
            raise invalid_input(
                "Base table returned different number of rows than the number of row IDs"
            )
        order = np.argsort(got, kind="stable")
        if not np.array_equal(got[order], unique):
            raise invalid_input("Base table returned rows other than the requested row IDs")
        positions = order[inverse]
        if not np.array_equal(positions, np.arange(len(positions))):
            batch = batch.take(pa.array(positions))
        return sel.finish(batch)

    def _take_positions(self, positions: np.ndarray, sel: _Selection) -> pa.RecordBatch:
        """The base rows at storage `positions` (identity readers), in that order."""
        unique, inverse = np.unique(positions, return_inverse=True)
        table = _read_all(  # rows come back in storage order: the order of `unique`
            self._handle.query(
                with_row_id=sel.slots is not None,
                take_offsets=unique.tolist(),
                max_batch_length=max(len(unique), 1),
                **sel.query_args(),
            )
        )
        batch = _one_batch(table)
        if batch.num_rows != len(unique):
            raise invalid_input(
                f"Base table returned {batch.num_rows} rows for {len(unique)} offsets"
            )
        if not np.array_equal(inverse, np.arange(len(inverse))):
            batch = batch.take(pa.array(inverse))
        return sel.finish(batch)

    def take_offsets(
        self, offsets: Sequence[int], selection: Optional[Dict[str, str]] = None
    ) -> pa.RecordBatch:
        """The rows at `offsets` (positions in this reader's output), in that order."""
        wanted = np.array([to_u64("offsets", o) for o in offsets], dtype=np.uint64)
        sel = _Selection(selection)
        if len(wanted) == 0:
            schema = self.output_schema(selection)
            return pa.RecordBatch.from_pylist([], schema=schema)
        total = self.count_rows()
        beyond = wanted >= total
        if beyond.any():
            raise invalid_input(
                f"Offset {int(wanted[beyond][0])} is out of range; this permutation exposes "
                f"{total} rows"
            )
        in_window = (wanted % np.uint64(self._window)).astype(np.int64)
        if self._perm is None:
            return self._take_positions(in_window + (self._offset or 0), sel)
        return self._take_row_ids(self._window_row_ids()[in_window], sel)

    # Iteration ----------------------------------------------------------------------------------

    def read(
        self, selection: Optional[Dict[str, str]] = None, *, batch_size: Optional[int] = None
    ) -> Iterator[pa.RecordBatch]:
        """The rows in order, in batches of `batch_size` rows (default 1024; the last batch
        may be shorter)."""
        size = DEFAULT_READ_BATCH_SIZE if batch_size is None else to_u64("batch_size", batch_size)
        if size == 0:
            raise ValueError("batch_size must be greater than 0")
        sel = _Selection(selection)
        if self.count_rows() == 0:
            return iter(())
        if self._perm is None:
            return _rebatch(self._scan_identity(sel, size), size)
        return self._read_permuted(sel, size)

    def _scan_identity(self, sel: _Selection, size: int) -> Iterator[pa.RecordBatch]:
        for _ in range(self._repeat):
            stream = self._handle.query(
                with_row_id=sel.slots is not None,
                offset=self._offset or 0,
                limit=self._window,
                max_batch_length=size,
                **sel.query_args(),
            )
            for batch in pa.RecordBatchReader.from_stream(stream):
                yield sel.finish(batch)

    def _read_permuted(self, sel: _Selection, size: int) -> Iterator[pa.RecordBatch]:
        row_ids = self._window_row_ids()
        total = self.count_rows()
        window = len(row_ids)

        def ids_at(start: int, stop: int) -> np.ndarray:
            if self._repeat == 1:
                return row_ids[start:stop]
            return row_ids[np.arange(start, stop) % window]

        chunk = size * max(1, _FIRST_CHUNK_ROWS // size)
        executor = ThreadPoolExecutor(_PREFETCH, thread_name_prefix="lancedb-permutation")
        pending: Deque[Future] = deque()
        try:
            submitted = 0
            while submitted < total or pending:
                while submitted < total and len(pending) < _PREFETCH:
                    stop = min(submitted + chunk, total)
                    ids = ids_at(submitted, stop)
                    pending.append(executor.submit(self._take_row_ids, ids, sel))
                    submitted = stop
                batch = pending.popleft().result()
                if batch.num_rows:  # size later chunks to about _CHUNK_TARGET_BYTES
                    per_row = max(1, batch.nbytes // batch.num_rows)
                    rows = min(_CHUNK_MAX_ROWS, max(1, _CHUNK_TARGET_BYTES // per_row))
                    chunk = size * max(1, rows // size)
                for first in range(0, batch.num_rows, size):
                    yield batch.slice(first, size)
        finally:
            executor.shutdown(wait=False, cancel_futures=True)


def _rebatch(batches: Iterator[pa.RecordBatch], size: int) -> Iterator[pa.RecordBatch]:
    """`batches` re-cut into batches of exactly `size` rows (the last may be shorter)."""
    pending: List[pa.RecordBatch] = []
    held = 0
    for batch in batches:
        if not pending and batch.num_rows == size:
            yield batch
            continue
        pending.append(batch)
        held += batch.num_rows
        while held >= size:
            merged = _one_batch(pa.Table.from_batches(pending))
            yield merged.slice(0, size)
            rest = merged.slice(size)
            pending = [rest] if rest.num_rows else []
            held = rest.num_rows
    if held:
        yield _one_batch(pa.Table.from_batches(pending))
