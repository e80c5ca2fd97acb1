# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Building a permutation table (``lancedb.permutation.PermutationBuilder``).

A permutation table is an ordinary table of two columns: ``row_id`` (uint64, a row id of the
base table) and ``split_id`` (uint64; for a calculated split, the type of its expression).
Its schema metadata records ``base_version`` (the base version it was built from),
``base_branch`` (only when built off a branch) and ``split_names`` (a JSON list, when named).
Rows are grouped by split in reading order, except for hash and calculated splits without a
shuffle, which keep the base table's order (as LanceDB does).

The build reads the base table once, at one version, through a new handle pinned to it (the
caller's handle is never checked out), then assigns splits and shuffles with numpy:

* random splits shuffle the rows (in clumps of ``clump_size``), then cut the first n1 rows
  into split 0, the next n2 into split 1 ...; sequential splits cut without shuffling;
* hash splits hash the named columns (our own stable 64-bit hash, see ``_row_hashes``) and
  divide the hash space by the weights; the discard bucket is dropped;
* calculated splits take ``split_id`` from a SQL expression;
* ``shuffle`` permutes the result (in clumps) and regroups it by split, keeping the shuffled
  order inside each split.

Seeded randomness uses numpy's PCG64 generator, so one seed gives one order in every process
and on every machine with the same numpy. Split sizes and their validation follow LanceDB's
(``SplitSizes`` in its dataloader), including its messages.
"""

from __future__ import annotations

import hashlib
import json
import math
import operator
import secrets
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import _native
from ._not_yet import check_no_lsm_write_spec

ROW_ID = "row_id"
SPLIT_ID = "split_id"
SPLIT_NAMES_KEY = "split_names"
BASE_VERSION_KEY = "base_version"
BASE_BRANCH_KEY = "base_branch"


def invalid_input(message: str) -> ValueError:
    """LanceDB's InvalidInput error, as its Python binding raises it."""
    return ValueError(f"Invalid input, {message}")


# ---- Argument conversion (as LanceDB's binding converts: TypeError / OverflowError) ----------


def to_u64(name: str, value: Any) -> int:
    """`value` as an unsigned 64-bit integer argument named `name`."""
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(
            f"argument '{name}': '{type(value).__name__}' object cannot be interpreted as an "
            "integer"
        ) from None
    if number < 0:
        raise OverflowError("can't convert negative int to unsigned")
    if number >= 1 << 64:
        raise OverflowError("int too big to convert")
    return number


def to_u64_list(name: str, values: Any) -> List[int]:
    _check_sequence(name, values)
    return [to_u64(name, v) for v in values]


def to_f64_list(name: str, values: Any) -> List[float]:
    _check_sequence(name, values)
    out = []
    for v in values:
        if isinstance(v, (str, bytes)) or not isinstance(v, (int, float, np.number)):
            raise TypeError(f"argument '{name}': must be real number, not {type(v).__name__}")
        out.append(float(v))
    return out


def to_str_list(name: str, values: Any) -> Optional[List[str]]:
    if values is None:
        return None
    if isinstance(values, str):
        raise TypeError(f"argument '{name}': Can't extract `str` to `Vec`")
    _check_sequence(name, values)
    for v in values:
        if not isinstance(v, str):
            raise TypeError(
                f"argument '{name}': '{type(v).__name__}' object cannot be converted to 'PyString'"
            )
    return list(values)


def _check_sequence(name: str, values: Any) -> None:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"argument '{name}': '{type(values).__name__}' object is not a sequence")


# ---- Split sizes ------------------------------------------------------------------------------


def _rust_float(x: float) -> str:
    """`x` as Rust's Display prints an f64 (shortest digits, no exponent, no trailing .0)."""
    return np.format_float_positional(x, trim="-")


@dataclass(frozen=True)
class SplitSizes:
    """How many rows each split gets: ``ratios`` (fractions of the rows), ``counts`` (rows)
    or ``fixed`` (that many equal splits)."""

    kind: str
    values: Tuple[Any, ...]

    @classmethod
    def from_args(cls, ratios: Any, counts: Any, fixed: Any) -> "SplitSizes":
        given = [x is not None for x in (ratios, counts, fixed)]
        if sum(given) != 1:
            raise ValueError("Exactly one of 'ratios', 'counts', or 'fixed' must be provided")
        if ratios is not None:
            return cls("ratios", tuple(to_f64_list("ratios", ratios)))
        if counts is not None:
            return cls("counts", tuple(to_u64_list("counts", counts)))
        return cls("fixed", (to_u64("fixed", fixed),))

    def validate(self, num_rows: int) -> None:
        """InvalidInput (ValueError) when these sizes cannot be cut from `num_rows` rows."""
        if self.kind == "ratios":
            for p in self.values:
                if p < 0.0 or p > 1.0 or math.isnan(p):
                    raise invalid_input("Split percentages must be between 0.0 and 1.0")
                if p * num_rows < 1.0:
                    raise invalid_input(
                        f"One of the splits has {_rust_float(p * 100.0)}% of {num_rows} rows "
                        "which rounds to 0 rows"
                    )
            if sum(self.values) > 1.0:
                raise invalid_input("Split percentages must sum to 1.0 or less")
        elif self.kind == "counts":
            total = sum(self.values)
            if total > num_rows:
                raise invalid_input(
                    f"Split counts specified {total} rows but only {num_rows} are available"
                )
            if 0 in self.values:
                raise invalid_input("Split counts must be greater than 0")
        else:
            (splits,) = self.values
            if splits == 0:
                raise invalid_input("Split fixed config must specify at least 1 split")
            if splits > num_rows:
                raise invalid_input(
                    f"Split fixed config specified {splits} splits but only {num_rows} rows "
                    "are available.  Must have at least 1 row per split."
                )

    def to_counts(self, num_rows: int) -> List[int]:
        """The row count of each split (they sum to at most `num_rows`). Ratios round to the
        nearest row; when they sum to (about) 1, rounding neither loses nor invents rows."""
        if self.kind == "counts":
            return list(self.values)
        if self.kind == "fixed":
            (splits,) = self.values
            return [num_rows // splits] * splits
        counts = [math.floor(p * num_rows + 0.5) for p in self.values]
        ratio_sum = 0.0
        for p in self.values:
            ratio_sum += p
        basically_one = abs(num_rows - ratio_sum * num_rows) < 0.5
        excess = sum(counts) - num_rows
        i = 0
        while excess > 0:  # rounding up too often: take rows back, one split at a time
            if counts[i] > 0:
                counts[i] -= 1
                excess -= 1
            i = (i + 1) % len(counts)
        i = 0
        while basically_one and excess < 0:  # rounding down lost rows that belong in a split
            counts[i] += 1
            excess += 1
            i = (i + 1) % len(counts)
        return counts


# ---- Configuration ----------------------------------------------------------------------------


@dataclass
class Shuffle:
    seed: Optional[int]
    clump_size: Optional[int]


@dataclass
class Config:
    """What ``execute`` builds. `split` is ("none",), ("random", sizes, seed, clump_size),
    ("sequential", sizes), ("hash", columns, weights, discard_weight) or ("calculated", sql)."""

    split: Tuple[Any, ...] = ("none",)
    split_names: Optional[List[str]] = None
    shuffle: Optional[Shuffle] = None
    filter: Optional[str] = None


def _generator(seed: Optional[int]) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(secrets.randbits(64) if seed is None else seed))


def clump_permutation(n: int, seed: Optional[int], clump_size: Optional[int]) -> np.ndarray:
    """A random order of positions 0..n-1 that moves runs of `clump_size` consecutive
    positions together (the last run may be shorter)."""
    clump = 1 if clump_size is None else clump_size
    if clump == 0:
        raise invalid_input("clump size must be greater than 0")
    rng = _generator(seed)
    if clump == 1:
        return rng.permutation(n)
    starts = rng.permutation(-(-n // clump)) * clump
    lengths = np.minimum(clump, n - starts)
    # Expand each clump start into its run of positions.
    run_ids = np.repeat(np.arange(len(starts)), lengths)
    first_of_run = np.cumsum(lengths) - lengths
    return starts[run_ids] + (np.arange(int(lengths.sum())) - first_of_run[run_ids])


# ---- Hash splits ------------------------------------------------------------------------------

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_NULL_HASH = np.uint64(0x6A09E667F3BCC908)


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer: a bijective scramble of 64-bit values."""
    with np.errstate(over="ignore"):
        h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return h ^ (h >> np.uint64(31))


def _column_hashes(column: pa.ChunkedArray) -> np.ndarray:
    """A 64-bit hash per value: integers (and dates, times, booleans) by their int64 value,
    floats by their float64 bits (with -0.0 as 0.0), other values by BLAKE2b of their bytes
    (strings, binaries) or of their Python repr (lists, structs ...); nulls share one hash."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    t = column.type
    valid = column.is_valid().to_numpy(zero_copy_only=False)
    integral = pa.types.is_integer(t) or pa.types.is_boolean(t)
    if integral or (pa.types.is_temporal(t) and t.bit_width in (32, 64)):
        if t == pa.uint64() or pa.types.is_temporal(t):  # as the integers they store
            column = column.view(pa.int32() if t.bit_width == 32 else pa.int64())
        values = column.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
        hashes = _mix(values.astype(np.int64).view(np.uint64) + _GOLDEN)
    elif pa.types.is_floating(t):
        values = column.cast(pa.float64()).fill_null(0.0).to_numpy(zero_copy_only=False)
        values = np.where(values == 0.0, 0.0, values)  # -0.0 and 0.0 are equal values
        hashes = _mix(values.astype(np.float64).view(np.uint64) ^ _GOLDEN)
    else:
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            raw = [None if v is None else v.encode() for v in column.to_pylist()]
        elif any(f(t) for f in (pa.types.is_binary, pa.types.is_large_binary,
                                pa.types.is_fixed_size_binary)):  # fmt: skip
            raw = column.to_pylist()
        else:
            raw = [None if v is None else repr(v).encode() for v in column.to_pylist()]
        digests = b"".join(
            b"\0" * 8 if v is None else hashlib.blake2b(v, digest_size=8).digest() for v in raw
        )
        hashes = np.frombuffer(digests, dtype="<u8").astype(np.uint64)
    return np.where(valid, hashes, _NULL_HASH)


def row_hashes(table: pa.Table, columns: Sequence[str]) -> np.ndarray:
    """One stable 64-bit hash per row of `table` over `columns` (in that order)."""
    h = np.zeros(table.num_rows, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for name in columns:
            h = _mix(h * np.uint64(31) + _column_hashes(table.column(name)))
    return h


def hash_split_ids(hashes: np.ndarray, weights: Sequence[int], discard_weight: int) -> np.ndarray:
    """The split of each hash (-1: discarded): hash mod total weight, in the weights' ranges."""
    total = sum(weights) + discard_weight
    thresholds = np.cumsum(np.asarray(weights, dtype=np.uint64))
    buckets = hashes % np.uint64(total)
    ids = np.searchsorted(thresholds, buckets, side="right").astype(np.int64)
    ids[ids == len(weights)] = -1
    return ids


def validate_hash(columns: Sequence[str], weights: Sequence[int]) -> None:
    if not columns:
        raise invalid_input("Hash strategy requires at least one column")
    if not weights:
        raise invalid_input("Hash strategy requires at least one split weight")
    if 0 in weights:
        raise invalid_input("Split weights must be greater than 0")


# ---- The build --------------------------------------------------------------------------------


def _read_rows(native: Any, config: Config) -> pa.Table:
    """The base rows the permutation draws from: `_rowid` plus what the split needs."""
    kind = config.split[0]
    if kind == "hash":
        request = dict(columns=list(config.split[1]))
    elif kind == "calculated":
        request = dict(dynamic=[(SPLIT_ID, config.split[1])])
    else:
        request = dict(columns=[])
    stream = native.query(filter=config.filter, with_row_id=True, max_batch_length=65536, **request)
    return pa.RecordBatchReader.from_stream(stream).read_all()


def _assign(rows: pa.Table, config: Config) -> Tuple[np.ndarray, Any]:
    """The row ids of the permutation and their split ids (a numpy array, or for a calculated
    split the Arrow column of its expression), in the order the split leaves them."""
    row_ids = rows.column("_rowid").to_numpy()
    n = len(row_ids)
    kind = config.split[0]
    if kind == "none":
        return row_ids, np.zeros(n, dtype=np.uint64)
    if kind in ("random", "sequential"):
        sizes: SplitSizes = config.split[1]
        sizes.validate(n)
        if kind == "random":
            row_ids = row_ids[clump_permutation(n, config.split[2], config.split[3])]
        counts = sizes.to_counts(n)
        split_ids = np.repeat(np.arange(len(counts), dtype=np.uint64), counts)
        return row_ids[: len(split_ids)], split_ids
    if kind == "hash":
        _, columns, weights, discard = config.split
        validate_hash(columns, weights)
        ids = hash_split_ids(row_hashes(rows, columns), weights, discard)
        keep = ids >= 0
        return row_ids[keep], ids[keep].astype(np.uint64)
    return row_ids, rows.column(SPLIT_ID)  # calculated


def _take(values: Any, indices: np.ndarray) -> Any:
    if isinstance(values, pa.ChunkedArray):
        return values.take(pa.array(indices))
    return values[indices]


def _shuffle(row_ids: np.ndarray, split_ids: Any, shuffle: Shuffle) -> Tuple[np.ndarray, Any]:
    """Permute the rows (in clumps), then regroup them by split keeping the shuffled order
    inside each split (a stable sort)."""
    order = clump_permutation(len(row_ids), shuffle.seed, shuffle.clump_size)
    row_ids, split_ids = row_ids[order], _take(split_ids, order)
    if isinstance(split_ids, pa.ChunkedArray):
        regroup = pc.sort_indices(split_ids).to_numpy()  # stable; nulls last
    else:
        regroup = np.argsort(split_ids, kind="stable")
    return row_ids[regroup], _take(split_ids, regroup)


def build_permutation(table: Any, config: Config) -> pa.Table:
    """The permutation table's data for `config` over `table` (a lancedb_cpp Table), as it
    stands now; the caller's handle is not checked out."""
    check_no_lsm_write_spec(
        table._inner,
        "the data loader does not support tables with an LSM write spec: rows that have not "
        "been flushed to the base table have no row id, so a permutation cannot reference them",
    )
    base_version = table.version
    base_branch = table.current_branch()
    pinned = _native.checkout_branch(table._inner, base_branch or "main", base_version)
    row_ids, split_ids = _assign(_read_rows(pinned, config), config)
    if config.shuffle is not None:
        row_ids, split_ids = _shuffle(row_ids, split_ids, config.shuffle)
    metadata = {BASE_VERSION_KEY: str(base_version)}
    if base_branch is not None:
        metadata[BASE_BRANCH_KEY] = base_branch
    if config.split_names is not None:
        metadata[SPLIT_NAMES_KEY] = json.dumps(
            config.split_names, separators=(",", ":"), ensure_ascii=False
        )
    row_column = pa.array(row_ids, pa.uint64())
    if isinstance(split_ids, pa.ChunkedArray):  # calculated: split_id first, of its own type
        schema = pa.schema([(SPLIT_ID, split_ids.type), (ROW_ID, pa.uint64())], metadata=metadata)
        return pa.Table.from_arrays([split_ids, row_column], schema=schema)
    schema = pa.schema(
        [pa.field(ROW_ID, pa.uint64()), pa.field(SPLIT_ID, pa.uint64(), nullable=False)],
        metadata=metadata,
    )
    return pa.Table.from_arrays([row_column, pa.array(split_ids, pa.uint64())], schema=schema)
