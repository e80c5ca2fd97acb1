# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Scalar indices on fixed_size_binary (UUID) columns, against LanceDB 0.39: a BTREE builds,
answers equality / IN / range filters with the rows a scan gives, is read by LanceDB (and
LanceDB's by lancedb-cpp); a BITMAP is refused as LanceDB refuses it."""

import uuid

import lancedb as real
import pyarrow as pa
import pytest

import lancedb_cpp as lancedb

N = 300


def _data():
    ids = [uuid.UUID(int=i * 7919).bytes for i in range(N)]
    ids[3] = None
    return pa.table({"id": list(range(N)), "fsb": pa.array(ids, pa.binary(16))})


def _lit(i):
    return "X'" + uuid.UUID(int=i * 7919).bytes.hex().upper() + "'"


FILTERS = [
    f"fsb = {_lit(7)}",
    f"fsb IN ({_lit(5)}, {_lit(10)}, arrow_cast(0x{uuid.UUID(int=15 * 7919).hex}, 'FixedSizeBinary(16)'))",
    f"fsb > {_lit(290)}",
    f"fsb <= {_lit(2)} AND id >= 1",
    "fsb IS NULL",
    f"NOT (fsb = {_lit(8)}) AND id < 12",
]


def _ids(table, where):
    return sorted(table.search().where(where).select(["id"]).to_arrow().column("id").to_pylist())


@pytest.mark.parametrize("writer", ["ours", "lancedb"])
def test_fsb_btree_is_shared_with_lancedb(tmp_path, writer):
    make = lancedb if writer == "ours" else real
    written = make.connect(str(tmp_path)).create_table("t", _data())
    written.create_index("fsb", config=make.index.BTree())
    mine = lancedb.connect(str(tmp_path)).open_table("t")
    theirs = real.connect(str(tmp_path)).open_table("t")
    for t in (mine, theirs):
        (index,) = t.list_indices()
        assert (index.name, index.index_type, index.columns) == ("fsb_idx", "BTree", ["fsb"])
        assert t.index_stats("fsb_idx").num_indexed_rows == N
    for where in FILTERS:
        want = _ids(theirs, where)
        assert _ids(mine, where) == want, where
        assert "ScalarIndexQuery" in theirs.search().where(where).explain_plan(True)
    assert "fsb_idx" in mine.search().where(FILTERS[0]).explain_plan(True)
    assert _ids(mine, FILTERS[0]) == [7]


def test_fsb_bitmap_is_refused_as_lancedb_refuses_it(tmp_path):
    data = _data()
    mine = lancedb.connect(str(tmp_path / "a")).create_table("t", data)
    theirs = real.connect(str(tmp_path / "b")).create_table("t", data)
    with pytest.raises(Exception) as want:
        theirs.create_index("fsb", config=real.index.Bitmap())
    with pytest.raises(want.type, match="fsb"):
        mine.create_index("fsb", config=lancedb.index.Bitmap())
    assert mine.list_indices() == [] and mine.version == 1
