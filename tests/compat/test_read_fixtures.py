# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""lancedb-cpp reads every table LanceDB and pylance write exactly as pylance reads it.

* Every table of ../shared/fixtures/lancedb-0.39 (file versions 2.0, 2.1, 2.2; appends, deletes
  with Arrow and bitmap deletion files, updates, stable row ids, a fully deleted fragment) is
  scanned by ``lancedb_tool scan`` and compared with ``lance.dataset(p).to_table()``: schema,
  nulls, row order, deleted rows absent, and ``_rowid`` (stable row ids for stable.lance, row
  addresses otherwise). The fixtures are read in place; the test checks nothing was written.
  Any difference from pylance, an undecodable column or a nullability flag included, fails.
* Random tables written by pylance in file format 2.0, with appends, deletes, updates and
  compaction, read identically.
* A table created by lancedb-cpp, then appended to, updated and compacted by pylance, reads
  identically in lancedb-cpp, which can append to it again.
"""

import os
import pathlib

import numpy as np
import pyarrow as pa
import pytest

from conftest import fixtures_dir

import lance

FIXTURE_TABLES = ["types_20", "types_21", "types_22", "ops", "stable", "dense_del", "fulldel"]


def _snapshot(root: pathlib.Path):
    """Every path under root with its size and modification time."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = pathlib.Path(dirpath) / name
            st = p.stat()
            out[str(p)] = (st.st_size, st.st_mtime_ns)
    return out


def _compare_column(name, actual: pa.ChunkedArray, expected: pa.ChunkedArray):
    a = actual.combine_chunks()
    e = expected.combine_chunks()
    assert a.type == e.type, f"{name}: {a.type} != {e.type}"
    assert len(a) == len(e), f"{name}: {len(a)} rows != {len(e)}"
    if not a.equals(e):
        for i in range(len(e)):
            if not a[i].equals(e[i]):
                raise AssertionError(f"{name}: row {i}: {a[i]} != {e[i]}")
        raise AssertionError(f"{name}: arrays differ")


def _compare_tables(actual: pa.Table, expected: pa.Table):
    """Names, types, nullability flags, values, nulls and row order."""
    assert actual.schema.names == expected.schema.names
    assert actual.num_rows == expected.num_rows
    for name in expected.schema.names:
        _compare_column(name, actual.column(name), expected.column(name))
    assert actual.schema.equals(expected.schema), f"{actual.schema}\n!=\n{expected.schema}"


@pytest.fixture(scope="module")
def fixtures_unchanged():
    """The fixtures directory; checks that the module's tests wrote nothing into it."""
    fixtures = fixtures_dir()
    before = _snapshot(fixtures)
    yield fixtures
    assert _snapshot(fixtures) == before, "reading the fixtures wrote into them"


def _compare_row_ids(actual: pa.Table, expected: pa.Table):
    # pylance declares _rowid nullable; only the values matter.
    _compare_column("_rowid", actual.column("_rowid"), expected.column("_rowid"))


@pytest.mark.parametrize("name", FIXTURE_TABLES)
def test_fixture_reads_like_pylance(tool, fixtures_unchanged, name):
    fixtures = fixtures_unchanged
    path = fixtures / f"{name}.lance"
    assert path.is_dir(), f"{path} is missing from the fixtures"
    expected = lance.dataset(str(path)).to_table(with_row_id=True)
    _compare_tables(tool.scan(fixtures, name), expected.drop_columns(["_rowid"]))
    _compare_row_ids(tool.scan(fixtures, name, "--with-row-id"), expected)


# ---------------------------------------------------------------------------------------------
# Random tables written by pylance in file format 2.0.

N = 6000


def _random_table(seed, n=N, start=0):
    rng = np.random.default_rng(seed)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"]

    def maybe(values, fraction):
        mask = rng.random(len(values)) < fraction
        return [None if m else v for v, m in zip(values, mask)]

    def lists(make, null_fraction=0.1):
        out = []
        for _ in range(n):
            r = rng.random()
            if r < null_fraction:
                out.append(None)
            elif r < 2 * null_fraction:
                out.append([])
            else:
                out.append([make() for _ in range(int(rng.integers(1, 6)))])
        return out

    return pa.table({
        "id": pa.array(np.arange(start, start + n, dtype=np.int64)),
        "i8": pa.array(rng.integers(-100, 100, n, dtype=np.int8)),
        "u16": pa.array(rng.integers(0, 60000, n, dtype=np.uint16)),
        "f32": pa.array(rng.random(n, dtype=np.float32)),
        "f64": pa.array(maybe(rng.standard_normal(n).tolist(), 0.1), pa.float64()),
        "flag": pa.array(maybe((rng.random(n) < 0.5).tolist(), 0.05), pa.bool_()),
        "word": pa.array([words[i] for i in rng.integers(0, len(words), n)]),
        "text": pa.array(maybe(["".join(rng.choice(list("abcdef"), int(k)))
                                for k in rng.integers(0, 40, n)], 0.15)),
        "big_text": pa.array([("x" * int(k)) for k in rng.integers(0, 5, n)], pa.large_string()),
        "blob": pa.array([bytes(rng.integers(0, 256, int(k), dtype=np.uint8))
                          for k in rng.integers(0, 12, n)], pa.binary()),
        "ts": pa.array(rng.integers(0, 2**40, n), pa.timestamp("us")),
        "day": pa.array(rng.integers(0, 20000, n).astype(np.int32), pa.date32()),
        "nums": pa.array(lists(lambda: int(rng.integers(0, 1000))), pa.list_(pa.int32())),
        "tags": pa.array(lists(lambda: words[int(rng.integers(0, 3))]), pa.list_(pa.string())),
        "nested": pa.array(lists(lambda: [int(x) for x in rng.integers(0, 9, int(rng.integers(0, 3)))]),
                           pa.list_(pa.list_(pa.int64()))),
        "point": pa.StructArray.from_arrays(
            [pa.array(maybe(rng.integers(0, 50, n).tolist(), 0.1), pa.int32()),
             pa.array([words[i] for i in rng.integers(0, 7, n)])], names=["x", "label"]),
        "vec": pa.FixedSizeListArray.from_arrays(pa.array(rng.random(n * 8, dtype=np.float32)), 8),
        "maybe_vec": pa.FixedSizeListArray.from_arrays(
            pa.array(rng.random(n * 3, dtype=np.float32)), 3, mask=pa.array(rng.random(n) < 0.1)),
        "uuid": pa.array([bytes(rng.integers(0, 256, 16, dtype=np.uint8)) for _ in range(n)],
                         pa.binary(16)),
        "empty": pa.nulls(n, pa.int32()),
    })


def _check_same(tool, db, name):
    expected = lance.dataset(str(db / f"{name}.lance")).to_table(with_row_id=True)
    _compare_tables(tool.scan(db, name), expected.drop_columns(["_rowid"]))
    _compare_row_ids(tool.scan(db, name, "--with-row-id"), expected)


def test_pylance_v20_table_reads_identically(tool, tmp_path):
    db = tmp_path / "db"
    uri = str(db / "t.lance")
    lance.write_dataset(_random_table(1), uri, data_storage_version="2.0",
                        max_rows_per_file=2500)
    _check_same(tool, db, "t")
    lance.write_dataset(_random_table(2, 3000, N), uri, mode="append")
    ds = lance.dataset(uri)
    ds.delete("id % 7 = 3")
    _check_same(tool, db, "t")
    ds = lance.dataset(uri)
    ds.update({"i8": "i8 + 1"}, where="id < 500")
    ds = lance.dataset(uri)
    ds.optimize.compact_files(target_rows_per_fragment=4000)
    _check_same(tool, db, "t")
    assert lance.dataset(uri).data_storage_version == "2.0"


def test_pylance_v20_many_pages(tool, tmp_path):
    db = tmp_path / "db"
    uri = str(db / "p.lance")
    n = 60_000
    rng = np.random.default_rng(5)
    table = pa.table({
        "s": pa.array(["v" * int(k) for k in rng.integers(0, 300, n)]),
        "l": pa.array([list(range(int(k))) for k in rng.integers(0, 30, n)], pa.list_(pa.int64())),
        "x": pa.array(rng.standard_normal(n)),
    })
    lance.write_dataset(table, uri, data_storage_version="2.0")
    _check_same(tool, db, "p")


def test_stable_row_ids_v20(tool, tmp_path):
    db = tmp_path / "db"
    uri = str(db / "s.lance")
    lance.write_dataset(_random_table(3, 2000), uri, data_storage_version="2.0",
                        enable_stable_row_ids=True)
    lance.write_dataset(_random_table(4, 1000, 2000), uri, mode="append")
    ds = lance.dataset(uri)
    ds.update({"f32": "f32 * 2"}, where="id < 20")
    lance.dataset(uri).delete("id >= 100 AND id < 300")
    _check_same(tool, db, "s")


# ---------------------------------------------------------------------------------------------
# A table created by lancedb-cpp, changed by pylance, read and appended to by lancedb-cpp.

def _ours(n, start):
    ids = np.arange(start, start + n, dtype=np.int64)
    return pa.table({
        "id": pa.array(ids),
        "x": pa.array(ids % 97, pa.int64()),
        "name": pa.array([None if i % 11 == 0 else f"n{i}" for i in ids], pa.string()),
        "vec": pa.FixedSizeListArray.from_arrays(pa.array((np.repeat(ids, 4) % 13)
                                                          .astype(np.float32)), 4),
    })


def test_pylance_changes_our_table_then_we_append(tool, tmp_path):
    db = tmp_path / "db"
    uri = str(db / "ours.lance")
    tool.create(db, "ours", _ours(1000, 0))
    lance.write_dataset(_ours(500, 1000), uri, mode="append")
    lance.dataset(uri).update({"x": "x + 1"}, where="id % 5 = 0")
    lance.dataset(uri).optimize.compact_files()
    _check_same(tool, db, "ours")
    tool.add(db, "ours", _ours(200, 1500))
    _check_same(tool, db, "ours")
    table = lance.dataset(uri).to_table().sort_by("id")
    assert table.num_rows == 1700
    assert table.column("id").to_pylist() == list(range(1700))
    xs = table.column("x").to_pylist()
    assert xs[:10] == [i % 97 + (1 if i % 5 == 0 else 0) for i in range(10)]
    assert xs[1500:1510] == [i % 97 for i in range(1500, 1510)]


@pytest.mark.parametrize("compression", ["fsst", "zstd", "lz4"])
def test_pylance_v20_opt_in_string_compression(tool, tmp_path, compression):
    rng = np.random.default_rng(9)
    words = ["alpha", "beta", "gamma", "delta"]
    values = [" ".join(rng.choice(words, int(k))) if k % 7 else None
              for k in rng.integers(0, 12, 5000)]
    field = pa.field("s", pa.string(), metadata={"lance-encoding:compression": compression})
    db = tmp_path / "db"
    lance.write_dataset(pa.table([pa.array(values)], schema=pa.schema([field])),
                        str(db / "c.lance"), data_storage_version="2.0")
    _check_same(tool, db, "c")
