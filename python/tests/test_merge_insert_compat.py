# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""pylance reads what lancedb-cpp's merge_insert commits, with the same rows and row ids.

An upsert leaves the table's fragments in place (the replaced rows get deletion-file entries,
the new rows a new fragment). On a table with stable row ids, the updated rows keep their
``_rowid``, inserted rows get fresh ones, and pylance reports the same ids and keeps writing.
"""

import pyarrow as pa
import pytest

import lancedb_cpp

import lance


def _rows(ids, offset=0.0):
    return pa.table({"id": pa.array(ids, pa.int64()),
                     "v": pa.array([i + offset for i in ids], pa.float64()),
                     "s": pa.array([f"row-{i}" for i in ids], pa.string())})


def _by_id(table):
    return table.select(["id", "v", "s", "_rowid"]).sort_by("id")


def test_upsert_keeps_untouched_fragments_and_pylance_reads_it(tmp_path):
    t = lancedb_cpp.connect(tmp_path).create_table("t", _rows(list(range(100))))
    t.add(_rows(list(range(100, 200))))
    before = [f.data_files()[0].path for f in lance.dataset(t.uri).get_fragments()]
    r = (t.merge_insert("id").when_matched_update_all().when_not_matched_insert_all()
         .execute(_rows([5, 150, 250], 0.5)))
    assert (r.num_updated_rows, r.num_inserted_rows) == (2, 1)
    ds = lance.dataset(t.uri)
    fragments = ds.get_fragments()
    assert [f.data_files()[0].path for f in fragments[:2]] == before
    assert len(fragments) == 3 and fragments[2].count_rows() == 3
    assert ds.count_rows() == 201
    expected = t.to_arrow().sort_by("id")
    assert ds.to_table().sort_by("id") == expected
    assert expected.filter(pa.compute.field("id") == 150)["v"].to_pylist() == [150.5]


def test_stable_row_id_merge_keeps_ids_and_pylance_agrees(tmp_path):
    db = lancedb_cpp.connect(tmp_path, storage_options={"new_table_enable_stable_row_ids": "true"})
    t = db.create_table("t", _rows(list(range(10))))
    t.add(_rows(list(range(10, 20))))
    before = {row["id"]: row["_rowid"]
              for row in t.search().with_row_id(True).to_arrow().to_pylist()}
    assert before == {i: i for i in range(20)}
    r = (t.merge_insert("id").when_matched_update_all().when_not_matched_insert_all()
         .when_not_matched_by_source_delete("id >= 18")
         .execute(_rows([3, 12, 25, 26], 0.5)))
    assert (r.num_updated_rows, r.num_inserted_rows, r.num_deleted_rows) == (2, 2, 2)
    ours = _by_id(t.search().with_row_id(True).to_arrow())
    ids = dict(zip(ours["id"].to_pylist(), ours["_rowid"].to_pylist()))
    expected = {i: i for i in range(18)}
    expected.update({25: 20, 26: 21})
    assert ids == expected
    ds = lance.dataset(t.uri)
    assert _by_id(ds.to_table(with_row_id=True)) == ours
    # pylance keeps writing: its update keeps the ids, its append continues after ours.
    ds.update({"v": "v + 100"}, where="id = 25")
    lance.write_dataset(_rows([30]), t.uri, mode="append")
    t.checkout_latest()
    after = {row["id"]: (row["_rowid"], row["v"])
             for row in t.search().with_row_id(True).to_arrow().to_pylist()}
    assert after[25] == (20, 125.5)
    assert after[30][0] == 22
    assert after[3] == (3, 3.5)
