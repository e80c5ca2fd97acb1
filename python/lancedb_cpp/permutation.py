# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Permutations (``lancedb.permutation``): shuffled, split views of a table for training loops.

``permutation_builder(table)`` configures splits (random, hash, sequential, calculated), a
shuffle and a filter; ``execute()`` writes a permutation table (row ids and split ids, with the
base version it was built from; see ``_permutation_build``). ``Permutation`` reads one split of
it from the base table, pinned to that version, as batches in a chosen format (see
``_permutation_reader``); ``Permutations`` indexes the splits by name or number.

Permutation tables live in memory (a ``memory://`` database of their own, gone with the last
reference to the table), as LanceDB's do.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import warnings
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Literal, Optional, Union

import pyarrow as pa

from . import _permutation_build as build
from ._permutation_pickle import memory_table, table_from_pickle_state, table_to_pickle_state
from ._permutation_reader import PermutationReader, sync_table
from .table import LanceTable, Table

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import polars as pl


# ---- Building -----------------------------------------------------------------------------------


class _Configuration:
    """The configuration methods PermutationBuilder and AsyncPermutationBuilder share."""

    def __init__(self, table: Any):
        self._table: Any = sync_table(table)
        self._config: Optional[build.Config] = build.Config()

    def _cfg(self) -> build.Config:
        if self._config is None:
            raise RuntimeError("Builder already consumed")
        return self._config

    def _consume(self) -> build.Config:
        config = self._cfg()
        self._config = None
        return config

    def split_random(
        self,
        *,
        ratios: Optional[List[float]] = None,
        counts: Optional[List[int]] = None,
        fixed: Optional[int] = None,
        seed: Optional[int] = None,
        clump_size: Optional[int] = None,
        split_names: Optional[List[str]] = None,
    ) -> Any:
        """Assign rows to splits at random: `ratios` (fractions of the rows), `counts` (rows)
        or `fixed` (that many equal splits) — exactly one of them. A `seed` makes the
        assignment deterministic; `clump_size` moves runs of that many consecutive rows
        together. `split_names` name the splits (else they are referenced by number)."""
        config = self._cfg()
        sizes = build.SplitSizes.from_args(ratios, counts, fixed)
        seed = None if seed is None else build.to_u64("seed", seed)
        clump = None if clump_size is None else build.to_u64("clump_size", clump_size)
        names = build.to_str_list("split_names", split_names)
        config.split, config.split_names = ("random", sizes, seed, clump), names
        return self

    def split_hash(
        self,
        columns: List[str],
        split_weights: List[int],
        *,
        discard_weight: Optional[int] = None,
        split_names: Optional[List[str]] = None,
    ) -> Any:
        """Assign rows to splits by a hash of `columns`, in proportion to `split_weights`;
        `discard_weight` (default 0) is the weight of rows left out. A row keeps its split
        while those columns keep their values, whatever else changes in the table."""
        config = self._cfg()
        columns = build.to_str_list("columns", columns)
        weights = build.to_u64_list("split_weights", split_weights)
        discard = 0 if discard_weight is None else build.to_u64("discard_weight", discard_weight)
        names = build.to_str_list("split_names", split_names)
        config.split, config.split_names = ("hash", tuple(columns), tuple(weights), discard), names
        return self

    def split_sequential(
        self,
        *,
        ratios: Optional[List[float]] = None,
        counts: Optional[List[int]] = None,
        fixed: Optional[int] = None,
        split_names: Optional[List[str]] = None,
    ) -> Any:
        """Assign the first n1 rows to split 0, the next n2 to split 1 ... with sizes given as
        in ``split_random``."""
        config = self._cfg()
        sizes = build.SplitSizes.from_args(ratios, counts, fixed)
        names = build.to_str_list("split_names", split_names)
        config.split, config.split_names = ("sequential", sizes), names
        return self

    def split_calculated(self, calculation: str, split_names: Optional[List[str]] = None) -> Any:
        """Take each row's split from the SQL expression `calculation` (0 for the first
        split ...)."""
        config = self._cfg()
        if not isinstance(calculation, str):
            raise TypeError(f"argument 'calculation': '{type(calculation).__name__}' object "
                            "cannot be converted to 'PyString'")
        names = build.to_str_list("split_names", split_names)
        config.split, config.split_names = ("calculated", calculation), names
        return self

    def shuffle(self, *, seed: Optional[int] = None, clump_size: Optional[int] = None) -> Any:
        """Shuffle the rows of each split: deterministic with a `seed`; runs of `clump_size`
        consecutive rows move together (fewer, larger reads)."""
        config = self._cfg()
        seed = None if seed is None else build.to_u64("seed", seed)
        clump = None if clump_size is None else build.to_u64("clump_size", clump_size)
        config.shuffle = build.Shuffle(seed, clump)
        return self

    def filter(self, filter: str) -> Any:
        """Keep only the rows where the SQL `filter` is true."""
        config = self._cfg()
        if not isinstance(filter, str):
            raise TypeError(f"argument 'filter': '{type(filter).__name__}' object cannot be "
                            "converted to 'PyString'")
        config.filter = filter
        return self

    def _build(self) -> LanceTable:
        data = build.build_permutation(self._table, self._consume())
        return memory_table("permutation", data)


class PermutationBuilder(_Configuration):
    """Builds a permutation table: the row ids of a base table, split into subsets (train and
    test, or K folds) and optionally shuffled and filtered, without copying any data.
    ``Permutation`` reads the rows back in that order.

    By default there is one split holding every row in table order. Splits can be named (and
    then referenced by name as well as by number). The permutation table lives in memory.
    """

    def __init__(self, table: Table):
        """A builder over `table` (a Table or AsyncTable): one split, every row, table
        order."""
        super().__init__(table)

    def execute(self) -> LanceTable:
        """Build the permutation table (once: a builder cannot be reused)."""
        return self._build()


class AsyncPermutationBuilder(_Configuration):
    """``PermutationBuilder`` for asyncio: the same configuration methods, and ``execute`` is
    awaited and gives an AsyncTable."""

    async def execute(self) -> Any:
        """Build the permutation table (once); an AsyncTable."""
        from ._async import AsyncTable

        self._cfg()
        return AsyncTable(await asyncio.to_thread(self._build))


def permutation_builder(table: Table) -> PermutationBuilder:
    """A PermutationBuilder over `table`."""
    return PermutationBuilder(table)


def async_permutation_builder(table: Any) -> AsyncPermutationBuilder:
    """An AsyncPermutationBuilder over `table` (an AsyncTable or Table)."""
    return AsyncPermutationBuilder(table)


# ---- Reading ------------------------------------------------------------------------------------


def _split_names(permutation_table: Any) -> Optional[List[str]]:
    metadata = permutation_table.schema.metadata
    raw = None if metadata is None else metadata.get(build.SPLIT_NAMES_KEY.encode())
    return None if raw is None else json.loads(raw.decode("utf-8"))


class Permutations:
    """The splits of a permutation table, by name or number: ``Permutations(base, perm)["train"]``
    or ``[0]`` is the ``Permutation`` of that split.

    Attributes: ``base_table``, ``permutation_table``, ``split_names`` (the names given when it
    was built, else []) and ``split_dict`` (name -> number).

    Examples
    --------
    >>> import lancedb_cpp as lancedb
    >>> db = lancedb.connect("memory://permutations-example")
    >>> tbl = db.create_table("tbl", data=[{"x": x} for x in range(1000)])
    >>> perm_tbl = (
    ...    permutation_builder(tbl)
    ...    .split_random(ratios=[0.95, 0.05], split_names=["train", "test"])
    ...    .shuffle()
    ...    .execute()
    ... )
    >>> permutations = Permutations(tbl, perm_tbl)
    >>> permutations["test"].num_rows
    50
    >>> permutations.split_dict
    {'train': 0, 'test': 1}
    """

    def __init__(self, base_table: Table, permutation_table: LanceTable):
        self.base_table = base_table
        self.permutation_table = permutation_table
        self.split_names = _split_names(permutation_table) or []
        self.split_dict = {name: index for index, name in enumerate(self.split_names)}

    def get_by_name(self, name: str) -> "Permutation":
        """The split named `name` (ValueError when there is none)."""
        index = self.split_dict.get(name)
        if index is None:
            raise ValueError(f"No split named `{name}` found")
        return self.get_by_index(index)

    def get_by_index(self, index: int) -> "Permutation":
        """Split number `index`."""
        return Permutation.from_tables(self.base_table, self.permutation_table, index)

    def __getitem__(self, name: Union[str, int]) -> "Permutation":
        if isinstance(name, str):
            return self.get_by_name(name)
        if isinstance(name, int):
            return self.get_by_index(name)
        raise TypeError(f"Invalid split name or index: {name}")


def _torch() -> Any:
    from .util import attempt_import_or_raise

    return attempt_import_or_raise("torch", "torch (needed by the torch batch formats)")


def batch_to_tensor(batch: pa.RecordBatch) -> Any:
    """The columns of `batch` stacked into one 2-D torch tensor (numeric columns, zero-copy
    through DLPack); needs torch."""
    torch = _torch()
    return torch.stack([torch.from_dlpack(column) for column in batch.columns])


def batch_to_tensor_rows(batch: pa.RecordBatch) -> List[Any]:
    """One torch tensor per row of `batch` (numeric columns); needs torch."""
    import numpy as np

    torch = _torch()
    stacked = np.column_stack([c.to_numpy(zero_copy_only=False) for c in batch.columns])
    return list(torch.tensor(stacked).unbind(dim=0))


def batch_to_tensor_dict(batch: pa.RecordBatch) -> List[Dict[str, Any]]:
    """One dict per row of `batch`, column name -> 0-D torch tensor (numeric columns); the
    shape torch's default DataLoader collate stacks back into batches. Needs torch."""
    torch = _torch()
    tensors = {n: torch.from_dlpack(c) for n, c in zip(batch.schema.names, batch.columns)}
    return [{n: t[i] for n, t in tensors.items()} for i in range(batch.num_rows)]


class Transforms:
    """The batch conversions of ``Permutation.with_format``."""

    @staticmethod
    def arrow2python(batch: pa.RecordBatch) -> List[Dict[str, Any]]:
        return batch.to_pylist()

    @staticmethod
    def arrow2pythoncol(batch: pa.RecordBatch) -> Dict[str, List[Any]]:
        return batch.to_pydict()

    @staticmethod
    def arrow2arrow(batch: pa.RecordBatch) -> pa.RecordBatch:
        return batch

    @staticmethod
    def arrow2numpy(batch: pa.RecordBatch) -> "np.ndarray":
        return batch.to_pandas().to_numpy()

    @staticmethod
    def arrow2pandas(batch: pa.RecordBatch) -> "pd.DataFrame":
        return batch.to_pandas()

    @staticmethod
    def arrow2polars() -> Callable[[pa.RecordBatch], "pl.DataFrame"]:
        import polars as pl

        def to_polars(batch: pa.RecordBatch) -> "pl.DataFrame":
            return pl.from_arrow(batch)

        return to_polars


_FORMATS: Dict[str, Callable[[], Callable[[pa.RecordBatch], Any]]] = {
    "python": lambda: Transforms.arrow2python,
    "python_col": lambda: Transforms.arrow2pythoncol,
    "numpy": lambda: Transforms.arrow2numpy,
    "pandas": lambda: Transforms.arrow2pandas,
    "arrow": lambda: Transforms.arrow2arrow,
    "polars": lambda: Transforms.arrow2polars(),
    "torch": lambda: (_torch(), batch_to_tensor_dict)[1],
    "torch_row": lambda: (_torch(), batch_to_tensor_rows)[1],
    "torch_col": lambda: (_torch(), batch_to_tensor)[1],
}

# Rows per batch when iterating a Permutation (HuggingFace's default is 10).
DEFAULT_BATCH_SIZE = 100

def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"{old} is deprecated. Use {new} instead", DeprecationWarning, stacklevel=3)


class Permutation:
    """One split of a permutation, read lazily from its base table: an iterable of batches
    (and a PyTorch map-style Dataset: ``len``, ``[i]``, ``__getitems__``), modelled on
    HuggingFace's Dataset. Nothing is copied: rows are fetched by row id as they are read, from
    the base table at the version the permutation was built from.

    The ``with_*``, ``select_columns``, ``rename_column(s)`` and ``remove_columns`` methods
    return a new Permutation and leave this one unchanged.
    """

    def __init__(
        self,
        base_table: Table,
        permutation_table: Optional[Table],
        split: int,
        selection: Dict[str, str],
        batch_size: int,
        transform_fn: Callable[[pa.RecordBatch], Any],
        offset: Optional[int] = None,
        limit: Optional[int] = None,
        connection_factory: Optional[Callable[[str], Table]] = None,
        _reader: Optional[PermutationReader] = None,
        repeat: Optional[int] = None,
        flatten: bool = False,
    ):
        """Internal: use ``from_tables`` or ``identity``. `selection` maps output column names
        to SQL over the base table."""
        assert base_table is not None, "base_table is required"
        assert selection is not None, "selection is required"
        self.base_table = base_table
        self.permutation_table = permutation_table
        self.split = split
        self.selection = selection
        self.transform_fn = transform_fn
        self.batch_size = batch_size
        self.offset = offset
        self.limit = limit
        self.repeat_times = repeat
        self.flatten_structs = flatten
        self.connection_factory = connection_factory
        self.reader: PermutationReader = _reader if _reader is not None else self._build_reader()
        self._pid = os.getpid()

    def __repr__(self) -> str:
        return (
            f"<lancedb.permutation.Permutation split={self.split} num_rows={self.num_rows} "
            f"batch_size={self.batch_size}>"
        )

    def _build_reader(self) -> PermutationReader:
        reader = PermutationReader.from_tables(self.base_table, self.permutation_table, self.split)
        if self.offset is not None:
            reader = reader.with_offset(self.offset)
        if self.limit is not None:
            reader = reader.with_limit(self.limit)
        if self.repeat_times is not None:
            reader = reader.with_repeat(self.repeat_times)
        return reader

    def _ensure_open(self) -> None:
        """Rebuild the reader in a new process (after fork or unpickling)."""
        if self.reader is None or self._pid != os.getpid():
            self.reader = self._build_reader()
            self._pid = os.getpid()

    def _with_selection(self, selection: Dict[str, str]) -> "Permutation":
        new = copy.copy(self)
        new.selection = selection
        return new

    def _with_reader_change(self, **attributes: Any) -> "Permutation":
        self._ensure_open()
        new = copy.copy(self)
        for name, value in attributes.items():
            setattr(new, name, value)
        new.reader = new._build_reader()
        return new

    # Construction --------------------------------------------------------------------------------

    @classmethod
    def identity(cls, table: Table) -> "Permutation":
        """Every row of `table` in storage order."""
        return Permutation.from_tables(table, None, None)

    @classmethod
    def from_tables(
        cls,
        base_table: Table,
        permutation_table: Optional[Table] = None,
        split: Optional[Union[str, int]] = None,
    ) -> "Permutation":
        """Split `split` (a name or a number; default the first) of `permutation_table` over
        `base_table`; without a permutation table, every row of `base_table` in storage
        order."""
        assert base_table is not None, "base_table is required"
        if split is None:
            split = 0
        elif permutation_table is None:
            raise ValueError(
                f"Cannot create a permutation on split `{split}` because no permutation table "
                "is provided"
            )
        elif isinstance(split, str):
            names = _split_names(permutation_table)
            if names is None:
                raise ValueError(
                    f"Cannot create a permutation on split `{split}` because no split names "
                    "are defined in the permutation table"
                )
            if split not in names:
                raise ValueError(
                    f"Cannot create a permutation on split `{split}` because split `{split}` is "
                    "not defined in the permutation table"
                )
            split = names.index(split)
        elif not isinstance(split, int):
            raise TypeError(f"Invalid split: {split}")
        reader = PermutationReader.from_tables(base_table, permutation_table, split)
        selection = {name: name for name in reader.output_schema(None).names}
        return cls(
            base_table,
            permutation_table,
            split,
            selection,
            DEFAULT_BATCH_SIZE,
            Transforms.arrow2python,
            _reader=reader,
        )

    def with_batch_size(self, batch_size: int) -> "Permutation":
        """This permutation iterating in batches of `batch_size` rows."""
        new = copy.copy(self)
        new.batch_size = batch_size
        return new

    def with_connection_factory(
        self, connection_factory: Callable[[str], Table]
    ) -> "Permutation":
        """This permutation reopening its base table, when unpickled in another process, with
        ``connection_factory(base table name)`` (a picklable callable) instead of the
        connection details captured from the table."""
        assert connection_factory is not None, "connection_factory is required"
        new = copy.copy(self)
        new.connection_factory = connection_factory
        return new

    # Pickling (DataLoader workers) ----------------------------------------------------------------

    def __getstate__(self) -> Dict[str, Any]:
        state = {
            "base_table_name": self.base_table.name,
            "permutation_data": (
                None if self.permutation_table is None else self.permutation_table.to_arrow()
            ),
            "split": self.split,
            "selection": self.selection,
            "batch_size": self.batch_size,
            "transform_fn": self.transform_fn,
            "offset": self.offset,
            "limit": self.limit,
            "repeat": self.repeat_times,
            "flatten": self.flatten_structs,
            "connection_factory": self.connection_factory,
        }
        if self.connection_factory is None:
            state["base_table_state"] = table_to_pickle_state(self.base_table)
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        factory = state["connection_factory"]
        rebuilt = False
        if factory is not None:
            base_table = factory(state["base_table_name"])
        else:
            base_state = state["base_table_state"]
            rebuilt = base_state["kind"] == "memory"
            base_table = table_from_pickle_state(base_state)
        permutation_table = None
        data = state["permutation_data"]
        if data is not None:
            if rebuilt:  # a fresh single-version copy: the recorded version means nothing there
                metadata = dict(data.schema.metadata or {})
                metadata.pop(build.BASE_VERSION_KEY.encode(), None)
                metadata.pop(build.BASE_BRANCH_KEY.encode(), None)
                data = data.replace_schema_metadata(metadata)
            permutation_table = memory_table("permutation", data)
        self.base_table = base_table
        self.permutation_table = permutation_table
        self.split = state["split"]
        self.selection = state["selection"]
        self.batch_size = state["batch_size"]
        self.transform_fn = state["transform_fn"]
        self.offset = state["offset"]
        self.limit = state["limit"]
        self.repeat_times = state["repeat"]
        self.flatten_structs = state["flatten"]
        self.connection_factory = factory
        self.reader = None
        self._pid = None

    # Shape ----------------------------------------------------------------------------------------

    @property
    def schema(self) -> pa.Schema:
        """The schema of the batches (before the format's conversion)."""
        self._ensure_open()
        schema = self.reader.output_schema(self.selection)
        if self.flatten_structs:
            schema = schema.empty_table().flatten().schema
        return schema

    @property
    def num_columns(self) -> int:
        """The number of columns."""
        return len(self.schema)

    @property
    def num_rows(self) -> int:
        """The number of rows."""
        self._ensure_open()
        return self.reader.count_rows()

    @property
    def column_names(self) -> List[str]:
        """The column names."""
        return self.schema.names

    @property
    def shape(self) -> tuple:
        """(num_rows, num_columns)."""
        return self.num_rows, self.num_columns

    def __len__(self) -> int:
        return self.num_rows

    def unique(self, _column: str) -> List[Any]:
        """The distinct values of column `_column` over the permutation's rows."""
        if _column not in self.selection:
            raise ValueError(f"Cannot find unique values of column `{_column}` because it "
                             "does not exist")
        import pyarrow.compute as pc

        self._ensure_open()
        one = {_column: self.selection[_column]}
        chunks = [b.column(0) for b in self.reader.read(one, batch_size=65536)]
        if not chunks:
            return []
        return pc.unique(pa.chunked_array(chunks)).to_pylist()

    # Columns --------------------------------------------------------------------------------------

    def flatten(self) -> "Permutation":
        """This permutation with every struct column flattened into its fields
        (``parent.child``), at read time; no data is copied or changed."""
        new = copy.copy(self)
        new.flatten_structs = True
        return new

    def remove_columns(self, columns: List[str]) -> "Permutation":
        """This permutation without `columns` (names it does not have are ignored); they are
        not read at all. ValueError when no column would be left."""
        assert columns is not None, "columns is required"
        kept = {k: v for k, v in self.selection.items() if k not in columns}
        if not kept:
            raise ValueError("Cannot remove all columns")
        return self._with_selection(kept)

    def rename_column(self, old_name: str, new_name: str) -> "Permutation":
        """This permutation with column `old_name` called `new_name` (ValueError when
        `old_name` is missing or `new_name` is taken)."""
        assert old_name is not None, "old_name is required"
        assert new_name is not None, "new_name is required"
        if old_name not in self.selection:
            raise ValueError(f"Cannot rename column `{old_name}` because it does not exist")
        if new_name in self.selection:
            raise ValueError(
                f"Cannot rename column `{old_name}` to `{new_name}` because a column with that "
                "name already exists"
            )
        selection = dict(self.selection)
        selection[new_name] = selection.pop(old_name)  # the renamed column moves last
        return self._with_selection(selection)

    def rename_columns(self, column_map: Dict[str, str]) -> "Permutation":
        """``rename_column`` for each old -> new name of `column_map`, in order."""
        assert column_map is not None, "column_map is required"
        permutation = self
        for old_name, new_name in column_map.items():
            permutation = permutation.rename_column(old_name, new_name)
        return permutation

    def select_columns(self, columns: List[str]) -> "Permutation":
        """This permutation with only `columns`, in that order (the columns it has, and
        ``_rowid``); ValueError for another name or an empty list."""
        assert columns is not None, "columns is required"
        if len(columns) == 0:
            raise ValueError("Must select at least one column")
        selection = {}
        for name in columns:
            value = self.selection.get(name)
            if value is None:
                if name != "_rowid":
                    raise ValueError(f"Cannot select column `{name}` because it does not exist")
                value = "_rowid"
            selection[name] = value
        return self._with_selection(selection)

    # Reading --------------------------------------------------------------------------------------

    def _finish(self, batch: pa.RecordBatch) -> Any:
        if self.flatten_structs:
            flat = pa.Table.from_batches([batch]).flatten()
            batch = flat.combine_chunks().to_batches()[0] if flat.num_rows else \
                pa.RecordBatch.from_pylist([], schema=flat.schema)
        return self.transform_fn(batch)

    def __iter__(self) -> Iterator[Any]:
        """The batches of ``batch_size`` rows (a last, shorter batch is left out)."""
        return self.iter(self.batch_size, skip_last_batch=True)

    def iter(self, batch_size: int, skip_last_batch: bool = False) -> Iterator[Any]:
        """The rows in batches of `batch_size`, each through the format's conversion; the last
        batch is shorter unless `skip_last_batch` leaves it out."""
        self._ensure_open()
        for batch in self.reader.read(self.selection, batch_size=batch_size):
            if batch.num_rows == batch_size or not skip_last_batch:
                yield self._finish(batch)

    def with_format(
        self,
        format: Literal[
            "numpy", "python", "python_col", "pandas", "arrow", "torch", "torch_row",
            "torch_col", "polars",
        ],  # fmt: skip
    ) -> "Permutation":
        """This permutation giving batches as: "python" (a list of row dicts, the default),
        "python_col" (a dict of column lists), "numpy" (a 2-D array, as
        ``batch.to_pandas().to_numpy()``), "pandas" (a DataFrame), "arrow" (a RecordBatch,
        zero-copy), "polars" (a DataFrame), or with torch installed "torch" (a list of row
        dicts of 0-D tensors), "torch_row" (a list of row tensors), "torch_col" (one 2-D
        tensor). ImportError for a torch format without torch; ValueError for another name."""
        assert format is not None, "format is required"
        make = _FORMATS.get(format)
        if make is None:
            raise ValueError(f"Invalid format: {format}")
        return self.with_transform(make())

    def with_transform(self, transform: Callable[[pa.RecordBatch], Any]) -> "Permutation":
        """This permutation passing each RecordBatch through `transform` (instead of a
        format); transforms run one at a time, on the iterating thread."""
        assert transform is not None, "transform is required"
        new = copy.copy(self)
        new.transform_fn = transform
        return new

    def take_offsets(self, offsets: List[int]) -> Any:
        """The rows at these positions of the permutation, in that order, through the
        format's conversion (ValueError for a position past the end)."""
        self._ensure_open()
        return self._finish(self.reader.take_offsets(offsets, selection=self.selection))

    def __getitem__(self, index: int) -> Any:
        """The row at position `index`, as a batch of one row in the format."""
        return self.take_offsets([index])

    def __getitems__(self, indices: List[int]) -> Any:
        """The rows at `indices`, as one batch in the format."""
        return self.take_offsets(indices)

    # Windows -------------------------------------------------------------------------------------

    def skip(self, skip: int) -> "Permutation":
        """Deprecated: ``with_skip``."""
        _deprecated("skip", "with_skip")
        return self.with_skip(skip)

    def with_skip(self, skip: int) -> "Permutation":
        """This permutation without its first `skip` rows (ValueError past the end)."""
        return self._with_reader_change(offset=skip)

    def take(self, limit: int) -> "Permutation":
        """Deprecated: ``with_take``."""
        _deprecated("take", "with_take")
        return self.with_take(limit)

    def with_take(self, limit: int) -> "Permutation":
        """This permutation keeping `limit` rows (after any skip; ValueError past the end)."""
        return self._with_reader_change(limit=limit)

    def repeat(self, times: int) -> "Permutation":
        """Deprecated: ``with_repeat``."""
        _deprecated("repeat", "with_repeat")
        return self.with_repeat(times)

    def with_repeat(self, times: int) -> "Permutation":
        """This permutation reading its rows `times` times over, as one stream (batches run
        across the boundary); it repeats the rows ``with_skip``/``with_take`` select."""
        return self._with_reader_change(repeat_times=times)


__all__ = [
    "Permutation",
    "PermutationBuilder",
    "Permutations",
    "Transforms",
    "async_permutation_builder",
    "permutation_builder",
]
