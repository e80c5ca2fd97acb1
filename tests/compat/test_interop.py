# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Tables written by lancedb-cpp are real Lance datasets: pylance reads them with identical
content and schema, appends, deletes and compacts them; lancedb-cpp keeps working on top."""

import datetime
import decimal

import lance
import pyarrow as pa
import pytest

N = 300


def all_types_table(start: int = 0, n: int = N) -> pa.Table:
    ids = list(range(start, start + n))

    def maybe(values, every=7):
        return [None if (i % every) == 3 else v for i, v in zip(ids, values)]

    words = ["alpha", "βeta", "gamma 🚀", "", "delta"]
    struct_type = pa.struct([("a", pa.int32()), ("b", pa.string())])
    columns = {
        "id": pa.array(ids, pa.int64()),
        "i8": pa.array(maybe([i % 100 - 50 for i in ids]), pa.int8()),
        "i16": pa.array([i * 3 - 400 for i in ids], pa.int16()),
        "i32": pa.array(maybe([i * 1000 for i in ids]), pa.int32()),
        "u8": pa.array([i % 256 for i in ids], pa.uint8()),
        "u16": pa.array([i * 7 % 65536 for i in ids], pa.uint16()),
        "u32": pa.array(maybe([i * 77777 for i in ids]), pa.uint32()),
        "u64": pa.array([2**63 + i for i in ids], pa.uint64()),
        "f16": pa.array([float(i % 50) / 4 for i in ids], pa.float16()),
        "f32": pa.array(maybe([i * 0.5 for i in ids]), pa.float32()),
        "f64": pa.array([i / 3 for i in ids], pa.float64()),
        "flag": pa.array(maybe([i % 2 == 0 for i in ids], 5), pa.bool_()),
        "s": pa.array(maybe([words[i % 5] + str(i) for i in ids]), pa.string()),
        "ls": pa.array([words[i % 5] * (i % 4) for i in ids], pa.large_string()),
        "bin": pa.array(maybe([bytes([i % 256]) * (i % 9) for i in ids]), pa.binary()),
        "lbin": pa.array([b"x" * (i % 3) for i in ids], pa.large_binary()),
        "fsb": pa.array(maybe([i.to_bytes(4, "little") for i in ids]), pa.binary(4)),
        "d32": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i) for i in ids],
                        pa.date32()),
        "d64": pa.array([i * 86_400_000 for i in ids], pa.date64()),
        "ts_us": pa.array(maybe([1_700_000_000_000_000 + i for i in ids]), pa.timestamp("us")),
        "ts_tz": pa.array([1_700_000_000 + i for i in ids], pa.timestamp("s", tz="UTC")),
        "ts_ns": pa.array([i * 1_000 for i in ids], pa.timestamp("ns")),
        "t32": pa.array([i % 86400 for i in ids], pa.time32("s")),
        "t64": pa.array([i * 1000 for i in ids], pa.time64("us")),
        "dur": pa.array(maybe([i * 10 for i in ids]), pa.duration("ms")),
        "dec": pa.array(maybe([decimal.Decimal(i) / 100 for i in ids]), pa.decimal128(12, 2)),
        "li": pa.array([None if i % 11 == 0 else list(range(i % 4)) for i in ids],
                       pa.list_(pa.int32())),
        "lls": pa.array([[words[i % 5], None] if i % 3 else [] for i in ids],
                        pa.large_list(pa.string())),
        "vector": pa.array([[float(i), float(-i), 0.5, 1.0] for i in ids],
                           pa.list_(pa.float32(), 4)),
        "nvec": pa.array([None if i % 10 == 0 else [float(i), None] for i in ids],
                         pa.list_(pa.float64(), 2)),
        "st": pa.array([{"a": None if i % 4 == 0 else i, "b": words[i % 5]} for i in ids],
                       struct_type),
        "nst": pa.array([None if i % 9 == 0 else {"a": i, "b": None} for i in ids], struct_type),
        "lst": pa.array([[{"a": i, "b": "x"}] * (i % 3) for i in ids], pa.list_(struct_type)),
        "nulls": pa.nulls(n, pa.int64()),
    }
    schema = pa.schema([pa.field(k, v.type, nullable=(k != "id")) for k, v in columns.items()])
    return pa.Table.from_pydict(columns, schema=schema)


def simple_table(start: int, n: int) -> pa.Table:
    return pa.table({
        "id": pa.array(range(start, start + n), pa.int64()),
        "text": pa.array([f"row {i}" for i in range(start, start + n)], pa.string()),
        "vector": pa.array([[float(i)] * 4 for i in range(start, start + n)],
                           pa.list_(pa.float32(), 4)),
    })


def assert_tables_equal(actual: pa.Table, expected: pa.Table):
    assert actual.schema.names == expected.schema.names
    for name in expected.schema.names:
        a, e = actual.column(name), expected.column(name)
        assert a.type == e.type, f"{name}: {a.type} != {e.type}"
        assert a.combine_chunks().equals(e.combine_chunks()), f"column {name} differs"


def test_pylance_reads_every_type(tool, tmp_path):
    db = tmp_path / "db"
    data = all_types_table()
    assert tool.create(db, "types", data) == 1
    ds = lance.dataset(str(db / "types.lance"))
    assert ds.version == 1
    assert ds.count_rows() == N
    result = ds.to_table()
    assert_tables_equal(result, data)
    assert result.schema.field("id").nullable is False


def test_lancedb_cpp_reads_its_own_table_back(tool, tmp_path):
    db = tmp_path / "db"
    data = all_types_table()
    tool.create(db, "types", data)
    tool.add(db, "types", all_types_table(N, 50))
    assert tool.count(db, "types") == N + 50
    assert_tables_equal(tool.scan(db, "types"), pa.concat_tables([data, all_types_table(N, 50)]))
    projected = tool.scan(db, "types", "--columns", "vector,id")
    assert projected.schema.names == ["vector", "id"]
    assert tool.versions(db, "types") == [1, 2]


def test_pylance_appends_deletes_and_compacts(tool, tmp_path):
    db = tmp_path / "db"
    uri = str(db / "t.lance")
    tool.create(db, "t", simple_table(0, 1000))
    lance.write_dataset(simple_table(1000, 500), uri, mode="append")
    ds = lance.dataset(uri)
    assert ds.version == 2
    ds.delete("id % 10 = 3")
    ds = lance.dataset(uri)
    assert ds.count_rows() == 1350
    ds.optimize.compact_files()
    ds = lance.dataset(uri)
    ids = ds.to_table(columns=["id"]).column("id").to_pylist()
    assert sorted(ids) == [i for i in range(1500) if i % 10 != 3]
    # lancedb-cpp sees every version pylance committed and can still append.
    assert tool.count(db, "t") == 1350
    version = tool.add(db, "t", simple_table(5000, 10))
    assert version == ds.version + 1
    ds = lance.dataset(uri)
    assert ds.count_rows() == 1360
    tail = ds.to_table(filter="id >= 5000")
    assert_tables_equal(tail, simple_table(5000, 10))


def test_lancedb_cpp_appends_after_pylance_delete(tool, tmp_path):
    db = tmp_path / "db"
    uri = str(db / "t.lance")
    tool.create(db, "t", simple_table(0, 100))
    lance.dataset(uri).delete("id < 10")
    tool.add(db, "t", simple_table(100, 5))
    assert tool.count(db, "t") == 95
    ds = lance.dataset(uri)
    assert ds.count_rows() == 95
    got = tool.scan(db, "t")
    assert sorted(got.column("id").to_pylist()) == list(range(10, 105))


def test_bad_input_changes_nothing(tool, tmp_path):
    db = tmp_path / "db"
    tool.create(db, "t", simple_table(0, 10))
    wrong = pa.table({"id": pa.array([1], pa.int32())})
    proc = tool.run("add", db, "t", tool._write_ipc(wrong), check=False)
    assert proc.returncode != 0
    assert "InvalidArgument" in proc.stderr
    assert lance.dataset(str(db / "t.lance")).version == 1
    proc = tool.run("create", db, "t", tool._write_ipc(simple_table(0, 1)), check=False)
    assert "AlreadyExists" in proc.stderr
    proc = tool.run("count", db, "missing", check=False)
    assert "NotFound" in proc.stderr
    proc = tool.run("create", db, "../evil", tool._write_ipc(simple_table(0, 1)), check=False)
    assert "InvalidArgument" in proc.stderr
    assert not (tmp_path / "evil.lance").exists()
