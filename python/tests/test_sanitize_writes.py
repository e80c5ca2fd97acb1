# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Table.add and create_table on bad vectors and on every kind of input, as LanceDB 0.39:
the same rows written, the same exception types (and nothing written on an error)."""

import lance
import lancedb
import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pytest

import lancedb_cpp

NAN = float("nan")
SCHEMA = pa.schema(
    [
        pa.field("vector", pa.list_(pa.float32(), 2)),
        pa.field("bbox", pa.list_(pa.float32(), 2)),  # a fixed-size list, not a vector
        pa.field("feature", pa.list_(pa.float32(), 12)),  # wide: a vector by its type
        pa.field("history", pa.list_(pa.float32())),  # a plain list
        pa.field("price", pa.float64()),
    ]
)
GOOD = {
    "vector": [1.0, 2.0],
    "bbox": [0.0, 1.0],
    "feature": [1.0] * 12,
    "history": [1.0],
    "price": 1.0,
}


def _row(**changes):
    row = dict(GOOD)
    row.update(changes)
    return row


def _run(conn, name, schema, data, **kwargs):
    """("ok", rows) or ("error", exception); the table's rows and version are unchanged on
    an error."""
    table = conn.create_table(name, schema=schema)
    version = table.version
    try:
        table.add(data() if callable(data) else data, **kwargs)
    except Exception as err:  # noqa: BLE001  (compared with LanceDB's)
        assert table.version == version and table.count_rows() == 0
        return "error", err
    return "ok", table.to_arrow().to_pylist()


def _same(mine, theirs):
    assert mine[0] == theirs[0], (mine, theirs)
    if mine[0] == "ok":
        assert repr(mine[1]) == repr(theirs[1])  # NaN-aware
    else:
        assert isinstance(mine[1], type(theirs[1])), (mine[1], theirs[1])


CASES = {
    "wrong-dim": [_row(vector=[1.0])],
    "nan-vector": [_row(vector=[NAN, 1.0])],
    "nan-bbox": [_row(bbox=[NAN, 1.0])],
    "short-bbox": [_row(bbox=[1.0])],
    "nan-feature": [_row(feature=[NAN] * 12)],
    "empty-feature": [_row(feature=[])],
    "null-vector": [_row(vector=None)],
    "null-feature": [_row(feature=None)],
    "nan-history": [_row(history=[NAN])],
    "integer-vector": [_row(vector=[1, 2])],
    "mixed": [GOOD, _row(vector=[NAN, NAN], price=2.0), _row(vector=[5.0], price=3.0)],
}


@pytest.mark.parametrize("policy", ["error", "drop", "fill", "null"])
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("as_arrow", [False, True], ids=["rows", "arrow"])
def test_add_bad_vectors_as_lancedb(tmp_path, case, policy, as_arrow):
    rows = CASES[case]
    if as_arrow:
        try:
            data = pa.Table.from_pylist(rows, schema=SCHEMA)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            pytest.skip("not representable with the table's types")
    else:
        data = rows
    kwargs = {"on_bad_vectors": policy, "fill_value": 0.0}
    mine = _run(lancedb_cpp.connect(tmp_path / "cpp"), "t", SCHEMA, data, **kwargs)
    theirs = _run(lancedb.connect(tmp_path / "ldb"), "t", SCHEMA, data, **kwargs)
    _same(mine, theirs)


def test_add_rejects_nan_in_any_fixed_size_float_list(tmp_path):
    # As LanceDB's add (not create_table): even a column that is no vector by its name.
    table = lancedb_cpp.connect(tmp_path).create_table("t", schema=SCHEMA)
    with pytest.raises(ValueError, match="NaN"):
        table.add([_row(bbox=[NAN, 1.0])], on_bad_vectors="drop")
    assert table.count_rows() == 0
    created = lancedb_cpp.connect(tmp_path).create_table("c", [_row(bbox=[NAN, 1.0])], schema=SCHEMA)
    assert created.count_rows() == 1


def test_add_reader_locks_dimension_across_batches(tmp_path):
    schema = pa.schema([pa.field("vector", pa.list_(pa.float32()))])
    batches = [
        pa.record_batch({"vector": pa.array([[NAN] * 3, [NAN] * 3], pa.list_(pa.float32()))}),
        pa.record_batch({"vector": pa.array([[1.0, 2.0], [3.0, 4.0]], pa.list_(pa.float32()))}),
        pa.record_batch({"vector": pa.array([[5.0], [6.0, 7.0]], pa.list_(pa.float32()))}),
    ]

    def reader():
        return pa.RecordBatchReader.from_batches(batches[0].schema, batches)

    kwargs = {"on_bad_vectors": "drop"}
    mine = _run(lancedb_cpp.connect(tmp_path / "cpp"), "t", schema, reader, **kwargs)
    theirs = _run(lancedb.connect(tmp_path / "ldb"), "t", schema, reader, **kwargs)
    _same(mine, theirs)
    assert [r["vector"] for r in mine[1]] == [[1.0, 2.0], [3.0, 4.0], [6.0, 7.0]]


@pytest.mark.parametrize("policy", ["error", "drop", "fill", "null"])
def test_create_table_bad_vectors_as_lancedb(tmp_path, policy):
    rows = [{"vector": [1.0, 2.0]}, {"vector": [1.0]}, {"vector": [NAN, 4.0]}]
    outcomes = []
    for conn in (lancedb_cpp.connect(tmp_path / "cpp"), lancedb.connect(tmp_path / "ldb")):
        try:
            table = conn.create_table("t", rows, on_bad_vectors=policy, fill_value=9.0)
            outcomes.append(("ok", (table.schema, table.to_arrow().to_pylist())))
        except Exception as err:  # noqa: BLE001
            assert "t" not in conn.table_names()
            outcomes.append(("error", err))
    _same(*outcomes)


def _sources(tmp_path):
    table = pa.table({"id": pa.array([1, 2], pa.int64()), "name": ["a", "b"]})
    ds.write_dataset(table, tmp_path / "parquet", format="parquet")
    lance_ds = lance.write_dataset(table, tmp_path / "src.lance")
    dataset = ds.dataset(tmp_path / "parquet", format="parquet")
    return table, {
        "dataset": lambda: dataset,
        "scanner": lambda: dataset.scanner(),
        "lance": lambda: lance_ds,
        "lance-scanner": lambda: lance_ds.scanner(),
    }


@pytest.mark.parametrize("kind", ["dataset", "scanner", "lance", "lance-scanner"])
def test_dataset_inputs(tmp_path, kind):
    expected, sources = _sources(tmp_path)
    db = lancedb_cpp.connect(tmp_path / "db")
    table = db.create_table("t", sources[kind]())
    assert table.schema == expected.schema
    assert table.to_arrow().sort_by("id") == expected
    table.add(sources[kind]())
    assert table.count_rows() == 4


def test_merge_with_a_lance_dataset(tmp_path):
    db = lancedb_cpp.connect(tmp_path / "db")
    table = db.create_table("t", pa.table({"id": [0, 1], "v": [1.0, 2.0]}))
    other = lance.write_dataset(pa.table({"id": [0, 1], "doc": ["x", "y"]}), tmp_path / "o.lance")
    table.merge(other, left_on="id")
    assert table.to_arrow().sort_by("id").column("doc").to_pylist() == ["x", "y"]


def test_dataset_scan_is_bounded_for_wide_rows(tmp_path):
    # 768-dim float32 vectors: pyarrow's default 131072-row batches would hold ~400 MB each.
    dim, rows = 768, 3000
    values = np.random.default_rng(0).standard_normal(rows * dim, dtype=np.float32)
    wide = pa.table({"vec": pa.FixedSizeListArray.from_arrays(pa.array(values), dim)})
    ds.write_dataset(wide, tmp_path / "wide", format="parquet")
    dataset = ds.dataset(tmp_path / "wide", format="parquet")
    table = lancedb_cpp.connect(tmp_path / "db").create_table("t", dataset)
    assert table.count_rows() == rows
    from lancedb_cpp.scannable import _bounded_scanner_kwargs, to_scannable

    limit = _bounded_scanner_kwargs(dataset.schema)["batch_size"]
    assert all(b.num_rows <= limit for b in to_scannable(dataset).reader())
