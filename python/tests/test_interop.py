# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Tables written by lancedb_cpp open in LanceDB and pylance, and the other way round."""

import pyarrow as pa
import pytest

import lancedb_cpp

import lancedb
import lance

DATA = [
    {"id": i, "name": f"item {i}", "price": i * 1.5, "vector": [float(i), 0.5, -1.0],
     "meta": {"tag": str(i % 3), "n": i}, "tags": ["x"] * (i % 3)}
    for i in range(50)
]


def test_lancedb_and_pylance_read_what_we_write(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    t = db.create_table("t", DATA)
    t.add(DATA[:10])
    expected = t.to_arrow()
    theirs = lancedb.connect(tmp_path).open_table("t")
    assert theirs.version == t.version
    assert theirs.schema == t.schema
    assert theirs.to_arrow() == expected
    ds = lance.dataset(str(tmp_path / "t.lance"))
    assert ds.to_table() == expected
    assert [v["version"] for v in ds.versions()] == [1, 2]


def test_lancedb_writes_after_us_and_we_follow(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    t = db.create_table("t", DATA[:5])
    lancedb.connect(tmp_path).open_table("t").add(DATA[5:8])
    t.checkout_latest()
    assert t.version == 2
    assert len(t) == 8
    rows = t.to_arrow()
    assert rows.column("id").to_pylist() == list(range(8))
    assert rows == lancedb.connect(tmp_path).open_table("t").to_arrow()


def test_we_read_what_lancedb_writes(tmp_path):
    theirs = lancedb.connect(tmp_path).create_table("t", DATA)
    t = lancedb_cpp.connect(tmp_path).open_table("t")
    assert t.schema == theirs.schema
    assert len(t) == 50
    ours, expected = t.to_arrow(), theirs.to_arrow()
    assert ours.schema == expected.schema
    differ = [n for n in expected.column_names if ours.column(n) != expected.column(n)]
    assert not differ, f"columns decoded differently from LanceDB: {differ}"
